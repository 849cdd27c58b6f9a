/**
 * What Anthropic refuses on /v1/messages (shared/reference/provider-constraints.md §2), per model:
 * output caps, sampling parameters, thinking settings and signed thinking in tool loops, prefill,
 * roles, empty content, tool pairing and names, cache breakpoints. The same parameter rules judge a
 * Chat Completions request to a Claude model, converted as new-api converts it (§5c).
 */
import { blocksOf, nativeImage, nativeImageBlocks, signatureOf, toolResults } from '../agentic';
import { anthropic, isObj, sent, type Json, type Refusal, type Rule, type UpstreamRequest } from './refusal';

// ---------------- families ----------------

const CLAUDE = /^claude-/;
const ANY = /./;
const undated = (model: string) => model.replace(/-\d{8}$/, '');
/** §2a "Output caps"; other models (unknown to the table) are not judged. */
const CAPS: ReadonlyArray<[RegExp, number]> = [
  [/^claude-3-(opus|haiku)$/, 4096],
  [/^claude-3-5-(sonnet|haiku)$/, 8192],
  [/^claude-(3-7-sonnet|sonnet-4)$/, 64000],
  [/^claude-opus-4(-1)?$/, 32000],
  [/^claude-(sonnet|haiku|opus)-4-5$/, 64000],
  [/^claude-(opus-4-[6-9]|sonnet-4-[6-9]|(sonnet|opus|fable)-5([.-]\d+)?)$/, 128000],
];
/** §2a: `temperature` and `top_p` together (confirmed on these three; other 4.x unconfirmed). */
const NOT_BOTH = /^claude-(sonnet-4-5|sonnet-4-6|opus-4-1)(-\d{8})?$/;
/** §2a: Opus 4.7, 4.8 and the 5-series refuse `temperature`. */
const NO_TEMPERATURE = /^claude-(opus-4-[7-9]|(opus|sonnet|fable)-5)/;
/** §2b: Opus 4.7+ refuse `thinking.type: "enabled"` (adaptive only). */
const ADAPTIVE_ONLY = /^claude-opus-(4-[7-9]|5)/;
/** §2a: prefill refused on the 4.6+ models. */
const NO_PREFILL = /^claude-(opus-4-[6-9]|sonnet-4-[6-9]|(sonnet|opus|fable)-5)/;

export const messagesOf = (body: Json): Json[] =>
  Array.isArray(body.messages) ? body.messages.map((m) => (isObj(m) ? m : {})) : [];
/** The thinking mode asked for: `enabled` (a budget) or `adaptive` (4.6+), else none. */
export const thinkingOf = (body: Json): 'enabled' | 'adaptive' | undefined =>
  isObj(body.thinking) && (body.thinking.type === 'enabled' || body.thinking.type === 'adaptive')
    ? body.thinking.type
    : undefined;
const budgetOf = (body: Json) => (isObj(body.thinking) ? body.thinking.budget_tokens : undefined);
const EXTENDED_THINKING = 'https://docs.claude.com/en/docs/build-with-claude/extended-thinking';

// ---------------- sampling and thinking settings (also judged on a converted Chat request) ----------------

const SETTINGS: Rule[] = [
  {
    row: "§2a max_tokens ≤ the model's output cap",
    surface: 'messages',
    models: CLAUDE,
    refuse: (req) => {
      const cap = CAPS.find(([re]) => re.test(undated(req.model)))?.[1];
      const n = req.body.max_tokens;
      return cap !== undefined && typeof n === 'number' && n > cap
        ? anthropic(`max_tokens: ${n} > ${cap}, which is the maximum allowed number of output tokens for ${req.model}`)
        : undefined;
    },
  },
  {
    // Whether temperature 1.0 passes is unconfirmed (§7): any temperature is refused.
    row: '§2a temperature refused on Opus 4.7+ and the 5-series ("deprecated")',
    surface: 'messages',
    models: NO_TEMPERATURE,
    refuse: (req) =>
      sent(req.body.temperature) ? anthropic('`temperature` is deprecated for this model.') : undefined,
  },
  {
    row: '§2a temperature and top_p together refused (Sonnet 4.5, Sonnet 4.6, Opus 4.1)',
    surface: 'messages',
    models: NOT_BOTH,
    refuse: (req) =>
      sent(req.body.temperature) && sent(req.body.top_p)
        ? anthropic('`temperature` and `top_p` cannot both be specified for this model. Please use only one.')
        : undefined,
  },
  {
    row: '§2b thinking.type "enabled" refused on Opus 4.7+ (adaptive + output_config.effort)',
    surface: 'messages',
    models: ADAPTIVE_ONLY,
    refuse: (req) =>
      thinkingOf(req.body) === 'enabled'
        ? anthropic(
            '"thinking.type.enabled" is not supported for this model. Use "thinking.type.adaptive" and "output_config.effort" to control thinking behavior.',
          )
        : undefined,
  },
  {
    row: '§2b budget_tokens required (SDK-A) and ≥ 1024',
    surface: 'messages',
    models: ANY,
    refuse: (req) => {
      if (thinkingOf(req.body) !== 'enabled') return undefined;
      const budget = budgetOf(req.body);
      if (typeof budget !== 'number') return anthropic('thinking.enabled.budget_tokens: Field required');
      return budget < 1024
        ? anthropic('thinking.enabled.budget_tokens: Input should be greater than or equal to 1024')
        : undefined;
    },
  },
  {
    row: '§2b max_tokens > thinking.budget_tokens',
    surface: 'messages',
    models: ANY,
    refuse: (req) => {
      const budget = budgetOf(req.body);
      const max = req.body.max_tokens;
      return thinkingOf(req.body) === 'enabled' &&
        typeof budget === 'number' &&
        typeof max === 'number' &&
        max <= budget
        ? anthropic(
            `\`max_tokens\` must be greater than \`thinking.budget_tokens\`. Please consult our documentation at ${EXTENDED_THINKING}#max-tokens-and-context-window-size`,
          )
        : undefined;
    },
  },
  {
    row: '§2b temperature 1 or unset while thinking',
    surface: 'messages',
    models: CLAUDE,
    refuse: (req) => {
      const mode = thinkingOf(req.body);
      if (!mode || !sent(req.body.temperature) || req.body.temperature === 1) return undefined;
      return anthropic(
        mode === 'adaptive'
          ? '`temperature` may only be set to 1 when thinking is enabled or in adaptive mode.'
          : '`temperature` may only be set to 1 when thinking is enabled. Please consult our documentation at https://docs.anthropic.com/en/docs/build-with-claude/extended-thinking#important-considerations-when-using-extended-thinking',
      );
    },
  },
  {
    row: '§2b top_p ≥ 0.95 or unset while thinking',
    surface: 'messages',
    models: CLAUDE,
    refuse: (req) => {
      const mode = thinkingOf(req.body);
      const p = req.body.top_p;
      if (!mode || typeof p !== 'number' || p >= 0.95) return undefined;
      const when = mode === 'adaptive' ? 'thinking is enabled or in adaptive mode' : 'thinking is enabled';
      return anthropic(`\`top_p\` must be greater than or equal to 0.95 or unset when ${when}`);
    },
  },
  {
    row: '§2b forced tool_choice (any, tool) with thinking',
    surface: 'messages',
    models: ANY,
    refuse: (req) => {
      const choice = req.body.tool_choice;
      return thinkingOf(req.body) && isObj(choice) && (choice.type === 'any' || choice.type === 'tool')
        ? anthropic('Thinking may not be enabled when tool_choice forces tool use.')
        : undefined;
    },
  },
  {
    // The current wording; new-api's Chat → Claude conversion leaves `developer` messages in `messages` (§5c).
    row: "§2c no system (or other) role in messages: 'user' or 'assistant'",
    surface: 'messages',
    models: CLAUDE,
    refuse: (req) => {
      const n = messagesOf(req.body).findIndex((m) => m.role !== 'user' && m.role !== 'assistant');
      return n >= 0 ? anthropic(`messages.${n}.role: Input should be 'user' or 'assistant'`) : undefined;
    },
  },
];

// ---------------- messages, tools and thinking blocks ----------------

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

function nativeToolError(t: unknown, i: number): string | undefined {
  if (!isObj(t)) return `tools.${i}: Input should be a valid dictionary`;
  if (t.name === undefined) return `tools.${i}.custom.name: Field required`;
  if (typeof t.name !== 'string' || !TOOL_NAME.test(t.name))
    return `tools.${i}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'`;
  if (!isObj(t.input_schema)) return `tools.${i}.custom.input_schema: Field required`;
  if (t.input_schema.type !== 'object') return `tools.${i}.custom.input_schema.type: Input should be 'object'`;
  return undefined;
}

function nativeToolsError(tools: unknown): string | undefined {
  if (tools === undefined) return undefined;
  if (!Array.isArray(tools)) return 'tools: Input should be a valid list';
  return tools.map(nativeToolError).find(Boolean);
}

/** Text blocks, in messages and inside tool results. */
const textBlocks = (messages: Json[]) =>
  messages
    .flatMap((m) => blocksOf(m.content))
    .flatMap((b) => (b.type === 'tool_result' ? blocksOf(b.content) : [b]))
    .filter((b) => b.type === 'text');

/** Every message has content (the final assistant turn excepted); text blocks have non-whitespace text. */
function emptyContentError(messages: Json[]): string | undefined {
  const n = messages.findIndex(
    (m, i) =>
      (m.content === '' || (Array.isArray(m.content) && !m.content.length)) &&
      !(i === messages.length - 1 && m.role === 'assistant'),
  );
  if (n >= 0)
    return `messages.${n}: all messages must have non-empty content except for the optional final assistant message`;
  const texts = textBlocks(messages);
  if (texts.some((b) => typeof b.text !== 'string' || !b.text))
    return 'messages: text content blocks must be non-empty';
  if (texts.some((b) => !String(b.text).trim()))
    return 'messages: text content blocks must contain non-whitespace text';
  return undefined;
}

const toolUseIds = (m: Json | undefined): string[] =>
  m?.role === 'assistant'
    ? blocksOf(m.content)
        .filter((b) => b.type === 'tool_use')
        .map((b) => String(b.id))
    : [];

/** Every tool_result answers a tool_use of the message just before; every tool_use is answered in the message just after. */
function toolPairingError(messages: Json[]): string | undefined {
  for (const [n, m] of messages.entries()) {
    const calls = toolUseIds(messages[n - 1]);
    const j = blocksOf(m.content).findIndex((b) => b.type === 'tool_result' && !calls.includes(String(b.tool_use_id)));
    if (m.role === 'user' && j >= 0) {
      const id = String(blocksOf(m.content)[j].tool_use_id);
      return `messages.${n}.content.${j}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${id}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`;
    }
    const answered = toolResults(messages[n + 1]).map((b) => String(b.tool_use_id));
    const missing = toolUseIds(m).filter((id) => !answered.includes(id));
    if (missing.length)
      return `messages.${n}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`;
  }
  return undefined;
}

const isSignedThinking = (b: Json | undefined) =>
  (b?.type === 'thinking' && typeof b.signature === 'string' && !!b.signature) ||
  (b?.type === 'redacted_thinking' && !!b.data);

/**
 * With thinking on, the assistant message answered by the final tool results must start with its signed
 * thinking block (earlier turns may drop theirs, as the real API strips them).
 */
function thinkingReplayError(messages: Json[]): string | undefined {
  const n = messages.length - 2;
  if (!toolResults(messages.at(-1)).length || n < 0) return undefined;
  const first = blocksOf(messages[n].content)[0];
  if (isSignedThinking(first)) return undefined;
  return `messages.${n}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${String(first?.type)}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable \`thinking\`. Please consult our documentation at ${EXTENDED_THINKING}`;
}

/** A thinking block whose signature is not the one this upstream gave its text (edited, merged, another model's). */
function signatureError(messages: Json[]): string | undefined {
  for (const [n, m] of messages.entries()) {
    if (m.role !== 'assistant') continue;
    const j = blocksOf(m.content).findIndex(
      (b) => b.type === 'thinking' && (typeof b.thinking !== 'string' || b.signature !== signatureOf(b.thinking)),
    );
    if (j >= 0) return `messages.${n}.content.${j}: Invalid \`signature\` in \`thinking\` block`;
  }
  return undefined;
}

/** The blocks carrying cache_control: system blocks, tools, message blocks and the blocks inside tool results. */
const cacheBreakpoints = (body: Json) =>
  [
    ...blocksOf(body.system),
    ...blocksOf(body.tools),
    ...messagesOf(body)
      .flatMap((m) => blocksOf(m.content))
      .flatMap((b) => [b, ...(b.type === 'tool_result' ? blocksOf(b.content) : [])]),
  ].filter((b) => sent(b.cache_control)).length;

const said = (message: string | undefined): Refusal | undefined => (message ? anthropic(message) : undefined);

const MESSAGES: Rule[] = [
  {
    // The API allows 0 to pre-warm the prompt cache (§2a); the simulator has no cache and refuses it.
    row: '§2a max_tokens required (SDK-A Required[int])',
    surface: 'messages',
    models: ANY,
    refuse: (req) => {
      const n = req.body.max_tokens;
      if (n === undefined) return anthropic('max_tokens: Field required');
      if (typeof n !== 'number' || !Number.isInteger(n))
        return anthropic('max_tokens: Input should be a valid integer');
      return n < 1 ? anthropic('max_tokens: Input should be greater than or equal to 1') : undefined;
    },
  },
  ...SETTINGS,
  {
    row: '§2a prefill refused on the 4.6+ models',
    surface: 'messages',
    models: NO_PREFILL,
    refuse: (req) =>
      messagesOf(req.body).at(-1)?.role === 'assistant'
        ? anthropic(
            'This model does not support assistant message prefill. The conversation must end with a user message.',
          )
        : undefined,
  },
  {
    row: '§2c tool names ^[a-zA-Z0-9_-]{1,64}$ and an object input_schema',
    surface: 'messages',
    models: ANY,
    refuse: (req) => said(nativeToolsError(req.body.tools)),
  },
  {
    // Today consecutive turns are merged (SDK-A); the 2024 400 is kept, stricter.
    row: '§2c role alternation (the 2024 wording)',
    surface: 'messages',
    models: ANY,
    refuse: (req) =>
      messagesOf(req.body).some((m, n, all) => n > 0 && m.role === all[n - 1].role)
        ? anthropic('messages: roles must alternate between "user" and "assistant"')
        : undefined,
  },
  {
    row: '§2c non-empty content and text blocks',
    surface: 'messages',
    models: ANY,
    refuse: (req) => said(emptyContentError(messagesOf(req.body))),
  },
  {
    row: '§2c images: base64 data of an image media type ("Could not process image")',
    surface: 'messages',
    models: ANY,
    refuse: (req) =>
      messagesOf(req.body)
        .flatMap(nativeImageBlocks)
        .some((b) => !nativeImage(b))
        ? anthropic('Invalid image data')
        : undefined,
  },
  {
    row: '§2c every tool_use answered by a tool_result in the next message, and vice versa',
    surface: 'messages',
    models: ANY,
    refuse: (req) => said(toolPairingError(messagesOf(req.body))),
  },
  {
    row: '§2b tool loop with thinking: the final assistant turn starts with its thinking block',
    surface: 'messages',
    models: ANY,
    refuse: (req) => (thinkingOf(req.body) ? said(thinkingReplayError(messagesOf(req.body))) : undefined),
  },
  {
    row: '§2b a thinking block whose signature does not match it',
    surface: 'messages',
    models: CLAUDE,
    refuse: (req) => said(signatureError(messagesOf(req.body))),
  },
  {
    row: '§2c at most 4 cache_control breakpoints',
    surface: 'messages',
    models: CLAUDE,
    refuse: (req) => {
      const found = cacheBreakpoints(req.body);
      return found > 4
        ? anthropic(`A maximum of 4 blocks with cache_control may be provided. Found ${found}.`)
        : undefined;
    },
  },
];

// ---------------- Chat Completions to a Claude model (§5c) ----------------

/** new-api's effort → thinking budget on the Chat → Claude conversion (`minimal`/`xhigh`/`none` are ignored). */
const BUDGETS: Record<string, number> = { low: 1280, medium: 2048, high: 4096 };

/**
 * The Anthropic request a Chat Completions request to a Claude model becomes (§5c): max_tokens (8192
 * when missing), sampling as sent, `reasoning_effort` as an enabled thinking budget, system messages
 * moved out (a `developer` one stays), tool results as user turns, `required` / a named function as
 * forced tool choices.
 */
function toClaude(body: Json): Json {
  const num = (v: unknown) => (typeof v === 'number' && v > 0 ? v : undefined);
  const budget = BUDGETS[String(body.reasoning_effort)];
  const choice = body.tool_choice;
  return {
    model: body.model,
    max_tokens: num(body.max_tokens) ?? num(body.max_completion_tokens) ?? 8192,
    temperature: body.temperature,
    top_p: body.top_p,
    ...(budget ? { thinking: { type: 'enabled', budget_tokens: budget } } : {}),
    ...(choice === 'required' ? { tool_choice: { type: 'any' } } : {}),
    ...(isObj(choice) && isObj(choice.function) ? { tool_choice: { type: 'tool', name: choice.function.name } } : {}),
    messages: messagesOf(body)
      .filter((m) => m.role !== 'system')
      .map((m) => (m.role === 'tool' ? { ...m, role: 'user' } : m)),
  };
}

const CONVERTED: Rule = {
  row: '§5c Chat Completions to a Claude model: the converted request meets §2a/§2b',
  surface: 'chat',
  models: CLAUDE,
  refuse: (req: UpstreamRequest) => {
    const claude = { ...req, surface: 'messages' as const, body: toClaude(req.body) };
    for (const rule of SETTINGS)
      if (rule.models.test(req.model)) {
        const r = rule.refuse(claude);
        if (r) return r;
      }
    return undefined;
  },
};

export const ANTHROPIC_RULES: readonly Rule[] = [...MESSAGES, CONVERTED];
