/**
 * What DeepSeek and Kimi (Moonshot) refuse on their OpenAI-compatible chat
 * (shared/reference/provider-constraints.md §3, reasoning-replay.md §1–3): thinking mode's forced
 * `tool_choice`, DeepSeek's `max_tokens` ranges, Kimi's fixed temperature, and the reasoning of
 * earlier tool-call turns each vendor requires (or, legacy R1, refuses).
 */
import { callIdsOf, messagesOf } from './openai';
import { deepseek, isObj, kimi, sent, type Json, type Rule, type UpstreamRequest } from './refusal';

/** DeepSeek's thinking mode: V4 unless `thinking: {type: "disabled"}`, and deepseek-reasoner (V3.2). */
const DEEPSEEK_THINKING = /^deepseek-(v4|reasoner)/;
/** §3 DeepSeek `max_tokens` ranges per model. */
const DEEPSEEK_MAX_TOKENS: ReadonlyArray<[RegExp, number]> = [
  [/^deepseek-chat/, 8192],
  [/^deepseek-(reasoner|r1)/, 65536],
  [/^deepseek-v4/, 393216],
];
const KIMI = /^kimi-/;
/** Kimi models with a fixed temperature: k2.5/k2.6, kimi-for-coding and K3 (§3). */
const KIMI_FIXED_TEMPERATURE = /^kimi-(k2\.[5-9]|k3|for-coding)/;

const disabled = (body: Json) => isObj(body.thinking) && body.thinking.type === 'disabled';
/** kimi-k2-thinking always thinks; k2.5 and later, kimi-for-coding and K3 by default. */
const kimiThinks = (req: UpstreamRequest) =>
  /thinking/.test(req.model) || (KIMI_FIXED_TEMPERATURE.test(req.model) && !disabled(req.body));
const forced = (choice: unknown) => choice === 'required' || isObj(choice);
const hasReasoning = (m: Json) => typeof m.reasoning_content === 'string';

/**
 * DeepSeek thinking mode: every assistant message of a user turn (between two user messages) that
 * called tools must carry its reasoning_content, in every later request.
 */
function deepseekReplayError(messages: Json[]): string | undefined {
  let start = 0;
  for (let n = 0; n <= messages.length; n++) {
    if (n < messages.length && messages[n].role !== 'user') continue;
    const turn = messages.slice(start, n).map((m, k) => ({ m, index: start + k }));
    const assistants = turn.filter(({ m }) => m.role === 'assistant');
    const missing = assistants.some(({ m }) => callIdsOf(m).length) && assistants.find(({ m }) => !hasReasoning(m));
    if (missing)
      return `Missing \`reasoning_content\` field in the assistant message at message index ${missing.index}. For more information, please refer to https://api-docs.deepseek.com/guides/thinking_mode#tool-calls`;
    start = n + 1;
  }
  return undefined;
}

const DEEPSEEK: Rule[] = [
  {
    row: '§3 DeepSeek max_tokens range per model',
    surface: 'chat',
    models: /^deepseek-/,
    refuse: (req) => {
      const max = DEEPSEEK_MAX_TOKENS.find(([re]) => re.test(req.model))?.[1];
      const n = req.body.max_tokens;
      return max !== undefined && typeof n === 'number' && (n < 1 || n > max)
        ? deepseek(`Invalid max_tokens value, the valid range of max_tokens is [1, ${max}]`)
        : undefined;
    },
  },
  {
    row: '§3 DeepSeek thinking mode refuses a forced tool_choice (required or a named function)',
    surface: 'chat',
    models: DEEPSEEK_THINKING,
    refuse: (req) =>
      forced(req.body.tool_choice) && !disabled(req.body)
        ? deepseek('Thinking mode does not support this tool_choice')
        : undefined,
  },
  {
    row: 'reasoning-replay.md §2 DeepSeek thinking mode: reasoning_content on every assistant message of a tool-using turn',
    surface: 'chat',
    models: /^deepseek-v4/,
    refuse: (req) => {
      const e = disabled(req.body) ? undefined : deepseekReplayError(messagesOf(req.body));
      return e ? deepseek(e) : undefined;
    },
  },
  {
    row: 'reasoning-replay.md §1 legacy deepseek-r1: reasoning_content in input refused',
    surface: 'chat',
    models: /^deepseek-r1/,
    refuse: (req) =>
      messagesOf(req.body).some((m) => 'reasoning_content' in m)
        ? deepseek(
            'The reasoning_content is an intermediate result for display purposes only and will not be included in the context for inference. Please remove the reasoning_content from your message to reduce network traffic.',
          )
        : undefined,
  },
];

const KIMI_RULES: Rule[] = [
  {
    row: '§3 Kimi fixed temperature: 1 with thinking, 0.6 without (k2.5+, kimi-for-coding, K3)',
    surface: 'chat',
    models: KIMI_FIXED_TEMPERATURE,
    refuse: (req) => {
      const only = kimiThinks(req) ? 1 : 0.6;
      return sent(req.body.temperature) && req.body.temperature !== only
        ? kimi(`invalid temperature: only ${only} is allowed for this model`)
        : undefined;
    },
  },
  {
    row: "§3 Kimi: 'thinking' and 'reasoning_effort' together refused",
    surface: 'chat',
    models: KIMI,
    refuse: (req) =>
      sent(req.body.thinking) && sent(req.body.reasoning_effort)
        ? kimi("cannot specify both 'thinking' and 'reasoning_effort'")
        : undefined,
  },
  {
    row: '§3 Kimi: a forced tool_choice with thinking on (every Kimi model but K3)',
    surface: 'chat',
    models: /^kimi-(?!k3)/,
    refuse: (req) => {
      const choice = req.body.tool_choice;
      if (!kimiThinks(req) || !forced(choice)) return undefined;
      return kimi(
        `tool_choice '${choice === 'required' ? 'required' : 'specified'}' is incompatible with thinking enabled`,
      );
    },
  },
  {
    row: 'reasoning-replay.md §3 Kimi thinking: reasoning_content on assistant tool-call messages',
    surface: 'chat',
    models: KIMI,
    refuse: (req) => {
      const n = kimiThinks(req)
        ? messagesOf(req.body).findIndex((m) => m.role === 'assistant' && callIdsOf(m).length && !hasReasoning(m))
        : -1;
      return n >= 0
        ? kimi(`thinking is enabled but reasoning_content is missing in assistant tool call message at index ${n}`)
        : undefined;
    },
  },
];

export const VENDOR_RULES: readonly Rule[] = [...DEEPSEEK, ...KIMI_RULES];
