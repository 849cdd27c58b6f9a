/**
 * The one mechanism for "refused before a reply → adjust and send once more": a list of adjusters,
 * each recognising a refusal by the gateway's (or its upstream's) own words and returning the
 * request to send again and what to remember for the model (modelMemory.ts, per gateway), so the
 * next request is built right the first time (modelRules.ts `wirePlan`).
 *
 * - surface: the model answers only on the Responses API (OpenAI's, sub2api's, new-api's Codex
 *   channel's and Azure's words) → the request moves to `/v1/responses`, remembered;
 * - reasoning items: the Responses API refuses the reasoning items replayed (encrypted by another
 *   upstream account, or not found) → sent again without them (not remembered: it is about those items);
 * - reasoning_content: a compatible vendor says the field is missing, or refuses it → filled in or
 *   left out (reasoningReplay.ts), remembered;
 * - parameters: a parameter the model refuses, or a value it does not take (the texts of
 *   shared/reference/provider-constraints.md §1–§3) → left out, renamed or set as it says, remembered.
 *
 * A refusal is an HTTP 4xx answer (or new-api's request-conversion failure, a 500 raised before
 * anything goes upstream): it came before any reply and was not billed — and the resend rule
 * (http/retryPolicy.ts `mayResend`) is always asked as well. Never an error inside an answer that
 * began (a 200 stream), never a 5xx that may have been billed. The cap: at most
 * MAX_ADJUSTED_RESENDS resends per call, each adjustment (an adjuster, for one parameter) at most
 * once — a refusal of what was already adjusted means the adjustment did not help. Two cover every
 * composition seen (a surface move then a parameter; two parameters); each refused request costs
 * only a round trip, and the user action's own cap (http/action.ts) bounds everything beneath.
 * Streamed and non-streamed calls go through the same loop: a stream is adjusted only while
 * nothing of it was handed on.
 */
import { isGatewayError, type GatewayError } from '../errors/gatewayError';
import { reasoningReplayRefused } from '../errors/gatewayWords';
import { mayResend } from '../http/retryPolicy';
import { mergedLearnt, type ModelMemory } from './modelMemory';
import { DROPPABLE, EFFORTS, type DroppableParam, type Learnt, type ReasoningEffort } from './modelRules';
import { samePlan, wirePlan, type RequestAdjustment } from './wirePlan';
import { sameReplay } from './reasoningReplay';
import type { ChatEventStream } from './stream';
import type { ChatEvent, ChatMessage, ChatRequest, ChatResult, SurfaceMove } from './types';

/** At most this many adjusted resends per call, whichever adjusters ask. */
export const MAX_ADJUSTED_RESENDS = 2;

/** The words of a refusal that says the model answers only on the Responses API (case-insensitive). */
const RESPONSES_ONLY: readonly RegExp[] = [
  // OpenAI: "This model is only supported in v1/responses and not in v1/chat/completions."
  /only supported in \/?v1\/responses/i,
  // sub2api: "/v1/chat/completions is not supported. Please use /v1/responses"
  /is not supported\.?\s*please use \/?v1\/responses/i,
  // new-api's Codex channel: "codex channel: /v1/chat/completions endpoint not supported" (and /v1/messages)
  /codex channel:.*endpoint not supported/i,
  // Azure OpenAI: "The chatCompletion operation does not work with the specified model, gpt-5-codex."
  /chatCompletion operation does not work with the specified model/i,
  // OpenAI gpt-5.2+: "Function tools with reasoning_effort are not supported for gpt-5.4 in /v1/chat/completions. Please use /v1/responses instead."
  /function tools with reasoning_effort are not supported/i,
];

/** Whether a gateway's words say the model answers only on the Responses API. */
export function saysResponsesOnly(message: string | undefined): boolean {
  return !!message && RESPONSES_ONLY.some((re) => re.test(message));
}

/** What a compatible vendor's 400 says about `reasoning_content`: it wants it back, or refuses it (reasoning-replay.md §1). */
export function replayRefusal(e: unknown): 'missing' | 'refused' | undefined {
  if (!isGatewayError(e) || e.status !== 400 || !mayResend(e)) return undefined;
  const said = `${e.gatewayMessage ?? ''} ${e.message}`;
  if (!/reasoning_content/i.test(said)) return undefined;
  if (/intermediate result|remove the .?reasoning_content/i.test(said)) return 'refused';
  if (/missing|must be passed back/i.test(said)) return 'missing';
  return undefined;
}

/** A refusal's lesson about a parameter, and the parameter as the wire names it. */
interface ParamLesson {
  param: string;
  lesson: Learnt;
}

const never = (param = 'temperature'): ParamLesson => ({ param, lesson: { temperature: 'never' } });
const cap = (m: RegExpExecArray): ParamLesson => ({ param: 'max_tokens', lesson: { outputCap: Number(m[1]) } });

/** A refused parameter by name: left out, or (the output budget's field) renamed. */
function byName(name: string): ParamLesson | undefined {
  if (name === 'temperature') return never();
  if (name === 'max_tokens') return { param: name, lesson: { tokenField: 'max_completion_tokens' } };
  if (name === 'max_completion_tokens') return { param: name, lesson: { tokenField: 'max_tokens' } };
  const dropped: DroppableParam | undefined =
    name === 'reasoning.effort' ? 'reasoning_effort' : DROPPABLE.find((p) => p === name);
  return dropped ? { param: name, lesson: { dropped: [dropped] } } : undefined;
}

/** The efforts a refusal lists ("Supported values are: 'none', 'low', 'medium', and 'high'."). */
function efforts(list: string): ParamLesson | undefined {
  const values = [...list.matchAll(/'(\w+)'/g)].map((m) => m[1]).filter((v) => EFFORTS.includes(v as ReasoningEffort));
  return values.length ? { param: 'reasoning_effort', lesson: { efforts: values as ReasoningEffort[] } } : undefined;
}

/** The refusals about a parameter, by their exact words (provider-constraints.md), first match wins. */
const PARAMETER_WORDS: ReadonlyArray<[RegExp, (m: RegExpExecArray) => ParamLesson | undefined]> = [
  // §1b "Invalid 'max_output_tokens': integer below minimum value. Expected a value >= 16, but got 1 instead."
  [
    /max_output_tokens.*expected a value >= ?(\d+)/i,
    (m) => ({ param: 'max_output_tokens', lesson: { minOutputTokens: Number(m[1]) } }),
  ],
  // §1a "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead."
  [/use '?max_completion_tokens'? instead/i, () => byName('max_tokens')],
  // §2a "max_tokens: 64000 > 32000, which is the maximum allowed number of output tokens for …"
  [/max_tokens: \d+ > (\d+), which is the maximum/i, cap],
  // §3 DeepSeek "Invalid max_tokens value, the valid range of max_tokens is [1, 8192]"; Qwen "Range of max_tokens should be [1, 8192]"
  [/range of max_tokens (?:is|should be) \[\d+, ?(\d+)\]/i, cap],
  // §3 Kimi "invalid temperature: only 1 is allowed for this model"
  [
    /invalid temperature: only ([\d.]+) is allowed/i,
    (m) => ({ param: 'temperature', lesson: { temperature: Number(m[1]) } }),
  ],
  // §1a "Unsupported value: 'temperature' does not support 0.7 with this model. Only the default (1) value is supported."
  [/unsupported value: '?temperature'? does not support/i, () => never()],
  // §2a "`temperature` is deprecated for this model."; "`temperature` and `top_p` cannot both be specified …";
  // §2b "`temperature` may only be set to 1 when thinking is enabled"
  [/`?temperature`? (is deprecated|and `?top_p`? cannot both|may only be set to 1)/i, () => never()],
  // §1a "Unsupported value: 'reasoning_effort' does not support 'minimal' with this model. Supported values are: …";
  // Responses: "Unsupported value: 'minimal' is not supported with the 'gpt-5.1' model. Supported values are: …"
  [
    /(reasoning_effort'? does not support '|is not supported with the '[^']*' model).*supported values are:(.*)/i,
    (m) => efforts(m[2]),
  ],
  // §2b "\"thinking.type.enabled\" is not supported for this model. Use \"thinking.type.adaptive\" …"
  [/thinking\.type\.enabled"? is not supported/i, () => ({ param: 'thinking', lesson: { adaptiveThinking: true } })],
  // §2b "Thinking may not be enabled when tool_choice forces tool use."; §3 DeepSeek "Thinking mode does not support
  // this tool_choice"; Kimi "tool_choice 'required' is incompatible with thinking enabled"; Qwen "The tool_choice
  // parameter does not support being set to required or object in thinking mode"
  [
    /tool_choice forces tool use|does not support this tool_choice|tool_choice '?\w+'? is incompatible with thinking|tool_choice parameter does not support being set to required/i,
    () => ({ param: 'tool_choice', lesson: { noForcedToolChoice: true } }),
  ],
  // §2a "This model does not support assistant message prefill. The conversation must end with a user message."
  [/does not support assistant message prefill/i, () => ({ param: 'prefill', lesson: { noPrefill: true } })],
  // §1b "Encrypted content is not supported with this model."
  [/encrypted content is not supported/i, () => ({ param: 'include', lesson: { dropped: ['include'] } })],
  // §1b "Your organization must be verified to generate reasoning summaries."
  [
    /must be verified to generate reasoning summaries/i,
    () => ({ param: 'reasoning.summary', lesson: { dropped: ['reasoning.summary'] } }),
  ],
  // §1a/§1b "Unsupported parameter: 'X' …", "Unrecognized request argument supplied: X", "Unknown parameter: 'X'."
  [
    /unsupported parameter: '([\w.]+)'|unrecognized request argument supplied: ([\w.]+)|unknown parameter: '([\w.]+)'/i,
    (m) => byName(m[1] ?? m[2] ?? m[3]),
  ],
];

/** What a refusal's words teach about a parameter, if they speak of one. */
export function parameterLesson(said: string): ParamLesson | undefined {
  for (const [re, lesson] of PARAMETER_WORDS) {
    const m = re.exec(said);
    if (m) return lesson(m);
  }
  return undefined;
}

/** One send of a call: the request as it goes (its surface, its messages) and what is known of its model. */
export interface Attempt {
  req: ChatRequest;
  learnt: Learnt | undefined;
}

/** What an adjuster makes of a refusal: the next attempt, the key that may be used once, and what to remember. */
interface Adjusted {
  key: string;
  req: ChatRequest;
  lesson?: Learnt | undefined;
  move?: SurfaceMove | undefined;
}

/** A refused request, as the adjusters read it. */
interface Refused {
  e: GatewayError;
  status: number;
  said: string;
}

type Adjuster = (at: Attempt, r: Refused, maxTokens: number) => Adjusted | undefined;

const hasItems = (messages: readonly ChatMessage[]) =>
  messages.some((m) => typeof m.content !== 'string' && m.content.some((p) => p.type === 'reasoning_item'));
const withoutItems = (messages: readonly ChatMessage[]): ChatMessage[] =>
  messages.map((m) =>
    typeof m.content === 'string' ? m : { ...m, content: m.content.filter((p) => p.type !== 'reasoning_item') },
  );

const ADJUSTERS: readonly Adjuster[] = [
  function surface(at, r) {
    if (at.req.surface === 'responses' || !saysResponsesOnly(r.said)) return undefined;
    const move: SurfaceMove = { model: at.req.model, from: at.req.surface, to: 'responses', learntNow: true };
    return { key: 'surface', req: { ...at.req, surface: 'responses' }, lesson: { surface: 'responses' }, move };
  },
  function reasoningItems(at, r) {
    if (at.req.surface !== 'responses' || (r.status !== 400 && r.status !== 404) || !hasItems(at.req.messages))
      return undefined;
    if (!reasoningReplayRefused(r.e.gatewayCode, r.e.gatewayMessage)) return undefined;
    return { key: 'reasoning_items', req: { ...at.req, messages: withoutItems(at.req.messages) } };
  },
  function reasoningContent(at, r) {
    const refusal = at.req.surface === 'compatible' ? replayRefusal(r.e) : undefined;
    if (!refusal) return undefined;
    const now = at.learnt?.replayReasoning ?? at.req.replayReasoning;
    const replayReasoning = refusal === 'missing';
    if (sameReplay(at.req.model, now, replayReasoning)) return undefined;
    return { key: 'reasoning_content', req: at.req, lesson: { replayReasoning } };
  },
  function parameter(at, r, maxTokens) {
    const found = r.status < 500 ? parameterLesson(r.said) : undefined;
    if (!found) return undefined;
    const next = mergedLearnt(at.learnt, found.lesson);
    const surface = at.req.surface;
    // A model that takes no encrypted reasoning cannot use the reasoning items replayed either.
    const req =
      found.param === 'include' && hasItems(at.req.messages)
        ? { ...at.req, messages: withoutItems(at.req.messages) }
        : at.req;
    if (
      req === at.req &&
      samePlan(wirePlan(at.req, surface, at.learnt, maxTokens), wirePlan(req, surface, next, maxTokens))
    )
      return undefined;
    return { key: `parameter:${found.param}`, req, lesson: found.lesson };
  },
];

/** The refusal before any reply an error is, if it is one (and the resend rule allows sending again). */
function refusedBeforeReply(e: unknown): Refused | undefined {
  if (!isGatewayError(e) || e.status === undefined || !mayResend(e)) return undefined;
  const refused =
    (e.status >= 400 && e.status < 500) || (e.status >= 500 && e.gatewayCode === 'convert_request_failed');
  return refused ? { e, status: e.status, said: e.gatewayMessage ?? e.message } : undefined;
}

/** The state of one call through the loop. */
export interface RefusalContext {
  memory: ModelMemory;
  /** the native surface's max_tokens when none is asked (for the plans) */
  maxTokens: number;
  /** hears a request moved to another surface (learnt now or remembered), before it is sent there */
  onMove?: ((move: SurfaceMove) => void) | undefined;
  /** hears what this gateway's refusals changed in a request (learnt now or remembered), when its reply arrives */
  onAdjustment?: ((a: RequestAdjustment) => void) | undefined;
}

function tell<T>(listener: ((x: T) => void) | undefined, x: T): void {
  try {
    listener?.(x);
  } catch {
    /* a broken listener must not break the request */
  }
}

/** One call's way through refusals: where it is now, what was used of the cap, what to tell. */
class Call {
  at: Attempt;
  move: SurfaceMove | undefined;
  private readonly used = new Set<string>();
  private readonly learntAtStart: Learnt | undefined;

  constructor(
    req: ChatRequest,
    private readonly ctx: RefusalContext,
  ) {
    const learnt = ctx.memory.of(req.model);
    this.learntAtStart = learnt;
    // A learnt surface (only /v1/responses is ever learnt) applies to a request that asks for another one.
    const surface = learnt?.surface && req.surface !== 'responses' ? learnt.surface : req.surface;
    this.at = { req: { ...req, surface }, learnt };
    if (surface !== req.surface) {
      this.move = { model: req.model, from: req.surface, to: surface, learntNow: false };
      tell(ctx.onMove, this.move);
    }
  }

  /** The next attempt after this failure, or undefined: the failure is final. */
  adjusted(e: unknown): Attempt | undefined {
    const r = refusedBeforeReply(e);
    if (!r || this.used.size >= MAX_ADJUSTED_RESENDS) return undefined;
    for (const adjuster of ADJUSTERS) {
      const a = adjuster(this.at, r, this.ctx.maxTokens);
      if (!a || this.used.has(a.key)) continue;
      this.used.add(a.key);
      if (a.lesson) this.ctx.memory.learn(a.req.model, a.lesson);
      if (a.move) {
        this.move = a.move;
        tell(this.ctx.onMove, a.move);
      }
      this.at = { req: a.req, learnt: a.lesson ? mergedLearnt(this.at.learnt, a.lesson) : this.at.learnt };
      return this.at;
    }
    return undefined;
  }

  /** The result with the move and the adjustments it took (learnt ones told to the listener). */
  noted(r: ChatResult): ChatResult {
    const { req, learnt } = this.at;
    const before = wirePlan(req, req.surface, this.learntAtStart, this.ctx.maxTokens).adjustments;
    const adjustments = wirePlan(req, req.surface, learnt, this.ctx.maxTokens).adjustments.map((a) =>
      a.source === 'learnt' && !before.some((b) => b.param === a.param && b.source === 'learnt' && b.to === a.to)
        ? { ...a, learntNow: true }
        : a,
    );
    for (const a of adjustments) if (a.source === 'learnt') tell(this.ctx.onAdjustment, a);
    return {
      ...r,
      ...(this.move ? { surfaceMove: this.move } : {}),
      ...(adjustments.length ? { adjustments } : {}),
    };
  }
}

/** A non-streamed chat through the refusals: sent, and on a refusal before any reply adjusted and sent again (capped). */
export async function chatAdjusting(
  req: ChatRequest,
  ctx: RefusalContext,
  call: (at: Attempt) => Promise<ChatResult>,
): Promise<ChatResult> {
  const c = new Call(req, ctx);
  for (;;) {
    try {
      return c.noted(await call(c.at));
    } catch (e) {
      if (!c.adjusted(e)) throw e;
    }
  }
}

async function* oneByOne(batches: AsyncGenerator<readonly ChatEvent[]>): AsyncGenerator<ChatEvent> {
  for await (const batch of batches) for (const ev of batch) yield ev;
}

/** A batch with its `done` result noted. */
function notedBatch(c: Call, batch: readonly ChatEvent[]): readonly ChatEvent[] {
  const last = batch[batch.length - 1];
  return last?.type === 'done' ? [...batch.slice(0, -1), { type: 'done', result: c.noted(last.result) }] : batch;
}

/** The batches of a stream adjusted while nothing of it was handed on: an HTTP refusal is thrown before the first batch. */
async function* adjustingBatches(
  req: ChatRequest,
  ctx: RefusalContext,
  open: (at: Attempt) => ChatEventStream,
): AsyncGenerator<readonly ChatEvent[]> {
  const c = new Call(req, ctx);
  let it: AsyncIterator<readonly ChatEvent[]>;
  let head: IteratorResult<readonly ChatEvent[]>;
  for (;;) {
    it = open(c.at).batches()[Symbol.asyncIterator]();
    try {
      head = await it.next();
      break;
    } catch (e) {
      if (!c.adjusted(e)) throw e;
    }
  }
  if (head.done) return;
  let finished = false;
  try {
    yield notedBatch(c, head.value);
    for (let next = await it.next(); !next.done; next = await it.next()) yield notedBatch(c, next.value);
    finished = true;
  } finally {
    // The consumer stopped early: the connection is closed.
    if (!finished) await it.return?.();
  }
}

/** A streamed chat through the refusals (see chatAdjusting), as a single-use ChatEventStream. */
export function chatStreamAdjusting(
  req: ChatRequest,
  ctx: RefusalContext,
  open: (at: Attempt) => ChatEventStream,
): ChatEventStream {
  let used = false;
  const start = () => {
    if (used) throw new Error('A chat stream can be iterated only once.');
    used = true;
    return adjustingBatches(req, ctx, open);
  };
  return {
    [Symbol.asyncIterator]: () => oneByOne(start()),
    batches: () => ({ [Symbol.asyncIterator]: start }),
  };
}
