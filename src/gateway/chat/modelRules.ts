/**
 * What each model family accepts, in one table (shared/reference/provider-constraints.md, cited per
 * row as "ref §…"): whether it reasons, the sampling it takes, its output budget's field and cap,
 * its efforts, its thinking, the tool choice and the last turn it refuses, and how it takes its
 * reasoning back. What a request sends from it (and from what this gateway's refusals taught,
 * `Learnt`) is wirePlan.ts's; the three request builders consult nothing else about the model.
 *
 * First match wins; an unknown model gets the empty row (today's behaviour: everything asked is
 * sent) until a refusal teaches otherwise (refusals.ts).
 */
import type { Surface } from '../errors/gatewayError';

export type ReasoningEffort = 'none' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh' | 'max';
/** Every effort, least first (the SDK's enum, ref §1a). */
export const EFFORTS: readonly ReasoningEffort[] = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'];

/**
 * Which assistant messages carry `reasoning_content` on the compatible surface
 * (shared/reference/reasoning-replay.md §1, §9; the rule itself: reasoningReplay.ts).
 */
export type ReplayScope = 'tool_turns' | 'tool_calls' | 'all' | 'current_loop' | 'think_tags' | 'none';

/** The chat-completions field of the output budget. */
export type TokenField = 'max_tokens' | 'max_completion_tokens';

/** Top-level parameters a refusal may teach the client to leave out (never `model`, `messages`, `input`, `tools`, `stream`). */
export type DroppableParam =
  'reasoning_effort' | 'reasoning' | 'reasoning.summary' | 'include' | 'stream_options' | 'store' | 'tool_choice';
export const DROPPABLE: readonly DroppableParam[] = [
  'reasoning_effort',
  'reasoning',
  'reasoning.summary',
  'include',
  'stream_options',
  'store',
  'tool_choice',
];

/** What a model accepts: a table row's columns, and what a refusal taught (`Learnt`). Unset: not known, send what is asked. */
export interface ModelConstraints {
  /** it reasons: it takes an effort, and on the responses surface encrypted reasoning and summaries */
  reasoning?: boolean;
  /**
   * the temperature it accepts: none ('never'); only with effort `none` ('effort_none'); only
   * without thinking ('no_thinking'); only this value (a number)
   */
  temperature?: 'never' | 'effort_none' | 'no_thinking' | number;
  /** chat completions' output budget field (default `max_tokens`) */
  tokenField?: TokenField;
  /** the most output tokens it may be asked for */
  outputCap?: number;
  /** the responses surface's least `max_output_tokens` (RESPONSES_MIN_OUTPUT_TOKENS unless a refusal said more) */
  minOutputTokens?: number;
  /** the efforts it accepts (any other is clamped to the nearest) */
  efforts?: readonly ReasoningEffort[];
  /** native thinking as `{type: "adaptive"}` + `output_config.effort`: it refuses `{type: "enabled"}` */
  adaptiveThinking?: boolean;
  /**
   * it refuses a forced tool choice (these families think by default): a required tool choice is
   * sent as `auto` — the model still sees the tools and nearly always calls one — and said in the
   * result's adjustments, rather than turning its thinking off for the turn
   */
  noForcedToolChoice?: boolean;
  /** it refuses a conversation that ends on an assistant turn (prefill) */
  noPrefill?: boolean;
  /** chat completions with tools: only effort `none` (else "use /v1/responses") */
  toolsNeedEffortNone?: boolean;
  /** chat completions takes no `reasoning_effort` for it (new-api turns it into a thinking the model refuses) */
  noChatEffort?: boolean;
  /** compatible surface: which assistant messages take their reasoning back, and "" where none is known */
  replay?: { scope: ReplayScope; fillEmpty: boolean };
}

/** What this gateway's refusals taught for a model (refusals.ts), remembered per gateway (modelMemory.ts). */
export interface Learnt extends Omit<
  ModelConstraints,
  'replay' | 'toolsNeedEffortNone' | 'reasoning' | 'noChatEffort'
> {
  /** the surface it answers on (it refused another) */
  surface?: Surface;
  /** parameters it refused */
  dropped?: readonly DroppableParam[];
  /** whether its vendor wants `reasoning_content` back (true) or refuses it (false) */
  replayReasoning?: boolean;
}

export interface ModelRule extends ModelConstraints {
  family: string;
  match: RegExp;
}

/** The responses surface's least `max_output_tokens`, for every model (ref §1b "max_output_tokens ≥ 16"). */
export const RESPONSES_MIN_OUTPUT_TOKENS = 16;

const LOW_TO_HIGH: readonly ReasoningEffort[] = ['low', 'medium', 'high'];
const OPENAI_SAMPLING_NEVER = { reasoning: true, temperature: 'never', tokenField: 'max_completion_tokens' } as const;
const DEEPSEEK_REPLAY = { scope: 'tool_turns', fillEmpty: true } as const;
const KIMI_REPLAY = { scope: 'tool_calls', fillEmpty: true } as const;
const QWEN_REPLAY = { scope: 'current_loop', fillEmpty: false } as const;
const GLM_REPLAY = { scope: 'all', fillEmpty: false } as const;
const NO_REPLAY = { scope: 'none', fillEmpty: false } as const;

/** `(^|/)`: a vendor prefix (`openai/gpt-5`) names the same model. */
const RULES: readonly ModelRule[] = [
  // ---- OpenAI (ref §1) ----
  // ref §1 intro: gpt-5*-chat-latest are not reasoning models (temperature accepted), effort fixed at medium
  { family: 'gpt-5-chat', match: /(^|\/)gpt-5[\w.]*-chat/i, reasoning: false, efforts: ['medium'] },
  // ref §1a effort table: gpt-5.1-codex-max, gpt-5.2-codex (and later codex) low … xhigh; §1b temperature refused on *-codex
  {
    family: 'openai-codex-xhigh',
    match: /(^|\/)gpt-5\.(1-codex-max|([2-9]|\d\d)[\w.]*-codex)/i,
    ...OPENAI_SAMPLING_NEVER,
    efforts: ['low', 'medium', 'high', 'xhigh'],
  },
  // ref §1a effort table: gpt-5-codex, gpt-5.1-codex(-mini), codex-mini-latest low/medium/high (no none)
  {
    family: 'openai-codex',
    match: /(^|\/)(gpt-5[\w.]*-codex|codex-mini)/i,
    ...OPENAI_SAMPLING_NEVER,
    efforts: LOW_TO_HIGH,
  },
  // ref §1a effort table: gpt-5-pro high only
  { family: 'gpt-5-pro', match: /(^|\/)gpt-5-pro/i, ...OPENAI_SAMPLING_NEVER, efforts: ['high'] },
  // ref §1a effort table: gpt-5.2-pro medium/high/xhigh
  {
    family: 'gpt-5.x-pro',
    match: /(^|\/)gpt-5\.\d+-pro/i,
    ...OPENAI_SAMPLING_NEVER,
    efforts: ['medium', 'high', 'xhigh'],
  },
  // ref §1a: gpt-5, -mini, -nano never take temperature/top_p; efforts minimal … high
  {
    family: 'gpt-5',
    match: /(^|\/)gpt-5(-mini|-nano)?(-\d{4}-\d\d-\d\d)?$/i,
    ...OPENAI_SAMPLING_NEVER,
    efforts: ['minimal', 'low', 'medium', 'high'],
  },
  // ref §1a "Exception: gpt-5.1 … accept temperature … only when reasoning effort is none"; efforts none … high
  {
    family: 'gpt-5.1',
    match: /(^|\/)gpt-5\.1(?!\d)/i,
    ...OPENAI_SAMPLING_NEVER,
    temperature: 'effort_none',
    efforts: ['none', 'low', 'medium', 'high'],
  },
  // ref §1a: gpt-5.2+ as gpt-5.1, efforts none … xhigh (5.4+ unconfirmed, §7); function tools + effort ≠ none refused on Chat
  {
    family: 'gpt-5.2+',
    match: /(^|\/)gpt-(5\.([2-9]|\d\d)|[6-9])/i,
    ...OPENAI_SAMPLING_NEVER,
    temperature: 'effort_none',
    efforts: ['none', 'low', 'medium', 'high', 'xhigh'],
    toolsNeedEffortNone: true,
  },
  // ref §1a: any other gpt-5* is of the reasoning family (efforts not known)
  { family: 'gpt-5-other', match: /(^|\/)gpt-5/i, ...OPENAI_SAMPLING_NEVER },
  // ref §1a effort table: o1, o3, o3-mini, o4-mini (and o1-pro, o3-pro) low/medium/high; temperature refused
  { family: 'o-series', match: /(^|\/)o[134](-|$)/i, ...OPENAI_SAMPLING_NEVER, efforts: LOW_TO_HIGH },
  // ref §1a "reasoning_effort sent to a non-reasoning model (gpt-4o, gpt-4.1) is refused"; §1b encrypted content refused
  { family: 'openai-chat', match: /(^|\/)(gpt-4|gpt-3\.5|chatgpt-)/i, reasoning: false },

  // ---- Anthropic (ref §2) ----
  // ref §2a: Opus 4.7/4.8 and the 5-series refuse temperature; cap 128 000; prefill refused (4.6+);
  // §2b "enabled" refused, adaptive + output_config.effort (low … max); §5c new-api turns a chat
  // completions reasoning_effort into thinking "enabled": none is sent there
  {
    family: 'claude-adaptive',
    match: /claude-(opus-4[-.]([7-9]|[1-9]\d)|(opus|sonnet|haiku|fable)-([5-9]|[1-9]\d))(?!\d)/i,
    temperature: 'never',
    outputCap: 128_000,
    noPrefill: true,
    adaptiveThinking: true,
    efforts: ['low', 'medium', 'high', 'xhigh', 'max'],
    noChatEffort: true,
  },
  // ref §2a: Opus/Sonnet 4.6 cap 128 000, prefill refused; §2b no temperature with thinking
  {
    family: 'claude-4.6',
    match: /claude-(opus|sonnet)-4[-.]6(?!\d)/i,
    temperature: 'no_thinking',
    outputCap: 128_000,
    noPrefill: true,
  },
  // ref §2a: Sonnet/Haiku/Opus 4.5 cap 64 000
  {
    family: 'claude-4.5',
    match: /claude-(sonnet|haiku|opus)-4[-.]5(?!\d)/i,
    temperature: 'no_thinking',
    outputCap: 64_000,
  },
  // ref §2a: claude-opus-4, claude-opus-4-1 cap 32 000
  { family: 'claude-opus-4', match: /claude-opus-4/i, temperature: 'no_thinking', outputCap: 32_000 },
  // ref §2a: claude-sonnet-4, claude-3-7-sonnet cap 64 000
  {
    family: 'claude-sonnet-4',
    match: /claude-(sonnet-4|3[-.]7-sonnet)/i,
    temperature: 'no_thinking',
    outputCap: 64_000,
  },
  // ref §2a: claude-3-5-sonnet, claude-3-5-haiku cap 8 192
  { family: 'claude-3.5', match: /claude-3[-.]5/i, temperature: 'no_thinking', outputCap: 8_192 },
  // ref §2a: claude-3-opus, claude-3-haiku cap 4 096
  { family: 'claude-3', match: /claude-3-(opus|haiku|sonnet)/i, temperature: 'no_thinking', outputCap: 4_096 },

  // ---- DeepSeek (ref §3; replay: reasoning-replay.md §1–2) ----
  // Legacy R1 refuses reasoning_content in its input; its names say r1.
  { family: 'deepseek-r1', match: /deepseek[-_/]?r1/i, replay: NO_REPLAY },
  // new-api's -none suffix turns a V4 model's thinking off (ref §5e): no replay, forced tool choice allowed.
  { family: 'deepseek-no-thinking', match: /deepseek-v[4-9].*-none$/i, replay: NO_REPLAY },
  // ref §3 DeepSeek "Thinking mode refuses a forced tool_choice"; thinking: V3.2 reasoner, V4 by default
  {
    family: 'deepseek-thinking',
    match: /(deepseek-reasoner|deepseek-v3\.2|deepseek-v[4-9]|deepseek.*think)/i,
    noForcedToolChoice: true,
    replay: DEEPSEEK_REPLAY,
  },
  // ref §3 DeepSeek max_tokens range: deepseek-chat [1, 8192]
  { family: 'deepseek-chat', match: /deepseek-chat/i, outputCap: 8_192 },

  // ---- Kimi (ref §3) ----
  // ref §3 Kimi: k2.5/k2.6, kimi-for-coding, K3 fix temperature (1.0 thinking / 0.6 not): none is sent.
  // K3 accepts a forced tool_choice.
  { family: 'kimi-k3', match: /kimi-k3/i, temperature: 'never' },
  // ref §3 Kimi: fixed temperature; forced tool_choice refused while thinking (every model but K3)
  {
    family: 'kimi-k2.5+',
    match: /kimi-(k2\.[5-9]|for-coding)/i,
    temperature: 'never',
    noForcedToolChoice: true,
    replay: KIMI_REPLAY,
  },
  // ref §3 Kimi: forced tool_choice refused while thinking
  { family: 'kimi-k2-thinking', match: /kimi-k2-thinking/i, noForcedToolChoice: true, replay: KIMI_REPLAY },

  // ---- Qwen (ref §3) ----
  // ref §3 Qwen "Thinking refuses tool_choice required or an object": the thinking models
  {
    family: 'qwen-thinking',
    match: /(qwen3.*think|qwen3\.[5-9]|qwq)/i,
    noForcedToolChoice: true,
    replay: QWEN_REPLAY,
  },
  { family: 'qwen3', match: /qwen3/i, replay: QWEN_REPLAY },

  // ---- GLM (ref §3: "use max_tokens only", the default field) ----
  { family: 'glm-thinking', match: /glm-(4\.[5-9]|[5-9])/i, tokenField: 'max_tokens', replay: GLM_REPLAY },
  { family: 'glm', match: /glm-/i, tokenField: 'max_tokens' },

  // ---- MiniMax (reasoning-replay.md: reasoning back inside <think> tags) ----
  { family: 'minimax-m2', match: /minimax-m2/i, replay: { scope: 'think_tags', fillEmpty: false } },
];

const UNKNOWN: ModelRule = { family: 'other', match: /$^/ };

/** The model's row: the first that matches its name, else the empty one (nothing known). */
export function ruleOf(model: string): ModelRule {
  return RULES.find((r) => r.match.test(model)) ?? UNKNOWN;
}

/** The accepted effort nearest the one asked (a tie goes to the higher). */
export function clampEffort(e: ReasoningEffort, accepted: readonly ReasoningEffort[] | undefined): ReasoningEffort {
  if (!accepted?.length || accepted.includes(e)) return e;
  const at = EFFORTS.indexOf(e);
  let best = accepted[0];
  for (const a of accepted) {
    const d = Math.abs(EFFORTS.indexOf(a) - at);
    const bd = Math.abs(EFFORTS.indexOf(best) - at);
    if (d < bd || (d === bd && EFFORTS.indexOf(a) > EFFORTS.indexOf(best))) best = a;
  }
  return best;
}
