/**
 * What a request sends to its model: every knob the three request builders (surfaces/*Request.ts)
 * put on the wire — sampling, the output budget and its field, the effort, encrypted reasoning and
 * summaries, the tool choice, thinking, a final user turn — from the model's row of the table
 * (modelRules.ts) and what this gateway's refusals taught for it (`Learnt`: modelMemory.ts,
 * refusals.ts); and what that changes of what the caller asked, to be told (`adjustments`).
 *
 * The client never sends `top_p`, penalties, `stop` or `logprobs` at all (ChatRequest has none), so
 * "never `temperature` and `top_p` together" (Claude 4.5+) holds for every model by construction;
 * and never `reasoning_effort: null`.
 */
import type { Surface } from '../errors/gatewayError';
import {
  RESPONSES_MIN_OUTPUT_TOKENS,
  clampEffort,
  ruleOf,
  type DroppableParam,
  type Learnt,
  type ModelConstraints,
  type ReasoningEffort,
  type TokenField,
} from './modelRules';
import type { ChatRequest } from './types';

/** The user turn that ends a conversation a model refuses to continue from its own turn (a prompt to the model: never translated). */
export const CONTINUE_PROMPT = 'Continue.';

/** Anthropic's least thinking budget (ref §2b "budget_tokens ≥ 1024"). */
export const MIN_THINKING_BUDGET = 1024;

/** The table's row with what was learnt over it (learnt wins; dropped parameters add up). */
function constraintsOf(model: string, learnt: Learnt | undefined): ModelConstraints & { dropped: Set<DroppableParam> } {
  const { family: _f, match: _m, ...row } = ruleOf(model);
  const { surface: _s, dropped, replayReasoning: _r, ...over } = learnt ?? {};
  return { ...row, ...over, dropped: new Set(dropped ?? []) };
}

/**
 * A change to what the caller asked (or to what a refusal taught), for the caller to tell: a
 * parameter left out (`not_sent`) or sent with another value or name (`set`, `to`).
 */
export interface RequestAdjustment {
  model: string;
  /** the parameter as the wire names it (`prefill`: the conversation ended on an assistant turn) */
  param: string;
  change: 'not_sent' | 'set';
  to?: string | number | undefined;
  /** 'known': the model's family is known to refuse what was asked; 'learnt': this gateway refused it */
  source: 'known' | 'learnt';
  /** learnt from a refusal of this very request (then sent again): see refusals.ts */
  learntNow?: boolean;
}

/** Every knob the request builders put on the wire. */
export interface WirePlan {
  family: string;
  temperature: number | undefined;
  /** the output budget and its field; undefined: none sent */
  tokens: { field: TokenField | 'max_output_tokens'; value: number } | undefined;
  /** chat completions `reasoning_effort`, responses `reasoning.effort`, native adaptive `output_config.effort` */
  effort: ReasoningEffort | undefined;
  /** responses: reasoning summaries */
  summary: boolean;
  /** responses: `include: ["reasoning.encrypted_content"]` */
  include: boolean;
  /** responses: `store: false` */
  store: boolean;
  /** compatible, streamed: `stream_options.include_usage` */
  streamOptions: boolean;
  /** the tool choice to send (native: `auto` is left unsaid); undefined: none sent */
  toolChoice: 'auto' | 'required' | undefined;
  /** native thinking */
  thinking: { type: 'enabled'; budgetTokens: number } | { type: 'adaptive' } | undefined;
  /** compatible: the `reasoning_content` override (refusals taught or the caller's) */
  replayReasoning: boolean | undefined;
  /** end on a user turn (CONTINUE_PROMPT): the conversation ends on an assistant turn the model refuses to continue */
  continueTurn: boolean;
  adjustments: RequestAdjustment[];
}

type Knobs = Omit<WirePlan, 'adjustments' | 'family'>;

/** A message that goes nowhere on the wire: blank text only. */
const isBlank = (m: ChatRequest['messages'][number]) =>
  typeof m.content === 'string' ? !m.content.trim() : m.content.every((p) => p.type === 'text' && !p.text.trim());

/** The temperature sent: the asked one where the model takes it, its only value, or none. */
function temperatureOf(
  asked: number | undefined,
  c: ModelConstraints,
  effort: ReasoningEffort | undefined,
  thinking: boolean,
): number | undefined {
  if (asked === undefined) return undefined;
  if (typeof c.temperature === 'number') return c.temperature;
  switch (c.temperature) {
    case 'never':
      return undefined;
    case 'effort_none':
      // Accepted only with effort none, which is sure only when this request sends it.
      return effort === 'none' ? asked : undefined;
    case 'no_thinking':
      return thinking ? undefined : asked;
    default:
      return asked;
  }
}

function effortOf(
  req: ChatRequest,
  surface: Surface,
  c: ReturnType<typeof constraintsOf>,
): ReasoningEffort | undefined {
  if (c.reasoning === false || c.dropped.has('reasoning_effort') || c.dropped.has('reasoning')) return undefined;
  if (surface === 'compatible' && c.noChatEffort) return undefined;
  if (surface === 'compatible' && c.toolsNeedEffortNone && req.tools?.length) return 'none';
  return req.effort && clampEffort(req.effort, c.efforts);
}

/** The adaptive effort for a thinking budget (ours: under 4 000 low, under 16 000 medium, else high). */
const effortOfBudget = (budget: number): ReasoningEffort =>
  budget < 4000 ? 'low' : budget < 16_000 ? 'medium' : 'high';

/** Native: max_tokens (always sent), capped, and thinking: a budget ≥ 1024 below max_tokens, or adaptive. */
function nativeBudget(req: ChatRequest, c: ModelConstraints, defaultMax: number) {
  const cap = (n: number) => (c.outputCap ? Math.min(n, c.outputCap) : n);
  let max = req.maxTokens !== undefined && req.maxTokens > 0 ? req.maxTokens : defaultMax;
  const asked = req.thinking?.budgetTokens;
  if (asked === undefined) return { max: cap(max), thinking: undefined, effort: undefined };
  if (c.adaptiveThinking)
    return {
      max: cap(max),
      thinking: { type: 'adaptive' as const },
      effort: clampEffort(req.effort ?? effortOfBudget(asked), c.efforts),
    };
  let budget = Math.max(MIN_THINKING_BUDGET, asked);
  // The thinking budget counts against max_tokens, which must exceed it.
  if (max <= budget) max = budget + defaultMax;
  max = cap(max);
  if (budget >= max) budget = Math.max(MIN_THINKING_BUDGET, Math.floor(max / 2));
  return { max, thinking: { type: 'enabled' as const, budgetTokens: budget }, effort: undefined };
}

function toolChoiceOf(req: ChatRequest, surface: Surface, c: ReturnType<typeof constraintsOf>, thinking: boolean) {
  if (!req.tools?.length || c.dropped.has('tool_choice')) return undefined;
  const forced = req.toolMode === 'required' && !c.noForcedToolChoice && !(surface === 'native' && thinking);
  if (forced) return 'required';
  // compatible and native say nothing for auto (the default); responses always says it
  return surface === 'responses' ? 'auto' : undefined;
}

function outputTokens(req: ChatRequest, surface: Surface, c: ModelConstraints): Knobs['tokens'] {
  if (req.maxTokens === undefined) return undefined;
  const capped = c.outputCap ? Math.min(req.maxTokens, c.outputCap) : req.maxTokens;
  if (surface === 'responses')
    return { field: 'max_output_tokens', value: Math.max(capped, c.minOutputTokens ?? RESPONSES_MIN_OUTPUT_TOKENS) };
  return { field: c.tokenField ?? 'max_tokens', value: capped };
}

/** The knobs for one set of constraints. */
function knobsOf(
  req: ChatRequest,
  surface: Surface,
  c: ReturnType<typeof constraintsOf>,
  replay: boolean | undefined,
  defaultMax: number,
): Knobs {
  const last = [...req.messages].reverse().find((m) => !isBlank(m));
  const continueTurn = !!c.noPrefill && surface !== 'responses' && last?.role === 'assistant';
  const reasons = c.reasoning !== false;
  if (surface === 'native') {
    const n = nativeBudget(req, c, defaultMax);
    return {
      // Thinking on the native surface takes no temperature, whatever the model (ref §2b).
      temperature: n.thinking ? undefined : temperatureOf(req.temperature, c, undefined, false),
      tokens: { field: 'max_tokens', value: n.max },
      effort: n.effort,
      summary: false,
      include: false,
      store: false,
      streamOptions: false,
      toolChoice: toolChoiceOf(req, surface, c, !!n.thinking),
      thinking: n.thinking,
      replayReasoning: undefined,
      continueTurn,
    };
  }
  const effort = effortOf(req, surface, c);
  const responses = surface === 'responses';
  return {
    // (an effort on chat completions turns a Claude model's thinking on through new-api, ref §5c)
    temperature: temperatureOf(req.temperature, c, effort, !!effort && effort !== 'none'),
    tokens: outputTokens(req, surface, c),
    effort,
    summary:
      responses && !!req.thinking && reasons && !c.dropped.has('reasoning') && !c.dropped.has('reasoning.summary'),
    include: responses && reasons && req.encryptedReasoning !== false && !c.dropped.has('include'),
    store: responses && !c.dropped.has('store'),
    streamOptions: !responses && !!req.stream && !c.dropped.has('stream_options'),
    toolChoice: toolChoiceOf(req, surface, c, false),
    thinking: undefined,
    replayReasoning: responses ? undefined : replay,
    continueTurn,
  };
}

/** What the caller asked of each knob it can ask for. */
function asked(req: ChatRequest, surface: Surface, sent: Knobs): Array<[string, unknown, unknown]> {
  const field = sent.tokens?.field ?? (surface === 'responses' ? 'max_output_tokens' : 'max_tokens');
  return [
    ['temperature', req.temperature, sent.temperature],
    [field, req.maxTokens, req.maxTokens === undefined ? undefined : sent.tokens?.value],
    [
      surface === 'responses' ? 'reasoning.effort' : 'reasoning_effort',
      surface === 'native' ? undefined : req.effort,
      sent.effort,
    ],
    [
      'tool_choice',
      req.tools?.length && req.toolMode === 'required' ? 'required' : undefined,
      sent.toolChoice ?? 'auto',
    ],
    ['thinking', req.thinking && surface === 'native' ? 'enabled' : undefined, sent.thinking?.type],
  ];
}

/**
 * What the plan changes, each said once: a change to what the caller asked (known from the table
 * or learnt), and any knob a refusal changed from what the table alone would send.
 */
function adjustmentsOf(req: ChatRequest, surface: Surface, known: Knobs, sent: Knobs): RequestAdjustment[] {
  const out: RequestAdjustment[] = [];
  const add = (param: string, to: unknown, learnt: boolean) =>
    out.push({
      model: req.model,
      param,
      change: to === undefined || to === false ? 'not_sent' : 'set',
      ...(to === undefined || to === false ? {} : { to: to as string | number }),
      source: learnt ? 'learnt' : 'known',
    });
  const table = asked(req, surface, known);
  asked(req, surface, sent).forEach(([param, want, got], i) => {
    if (want !== undefined && want !== got) add(param, got, table[i][2] !== got);
  });
  if (sent.tokens && known.tokens && sent.tokens.field !== known.tokens.field)
    add(known.tokens.field, sent.tokens.field, true);
  for (const k of ['include', 'summary', 'store', 'streamOptions'] as const)
    if (known[k] && !sent[k]) add(WIRE_NAMES[k], undefined, true);
  if (sent.continueTurn) add('prefill', undefined, !known.continueTurn);
  return out;
}

const WIRE_NAMES = {
  include: 'include',
  summary: 'reasoning.summary',
  store: 'store',
  streamOptions: 'stream_options',
};

/**
 * Every knob of a request to `surface` for its model, from the table and what was learnt, with the
 * changes to tell. `defaultMaxTokens`: the native surface's max_tokens when none is asked.
 */
export function wirePlan(
  req: ChatRequest,
  surface: Surface,
  learnt: Learnt | undefined,
  defaultMaxTokens: number,
): WirePlan {
  const replay = learnt?.replayReasoning ?? req.replayReasoning;
  const sent = knobsOf(req, surface, constraintsOf(req.model, learnt), replay, defaultMaxTokens);
  const known = learnt
    ? knobsOf(req, surface, constraintsOf(req.model, undefined), req.replayReasoning, defaultMaxTokens)
    : sent;
  return { family: ruleOf(req.model).family, ...sent, adjustments: adjustmentsOf(req, surface, known, sent) };
}

/** Whether two plans send the same knobs (a resend that would send the same body is no resend). */
export function samePlan(a: WirePlan, b: WirePlan): boolean {
  const { adjustments: _a, ...ka } = a;
  const { adjustments: _b, ...kb } = b;
  return JSON.stringify(ka) === JSON.stringify(kb);
}
