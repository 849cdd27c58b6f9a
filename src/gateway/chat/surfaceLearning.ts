/**
 * Which surface a model answers on, learnt from the gateway's own refusals. Gateways rarely list
 * new-api's `openai-response` endpoint type even for models that answer only on the Responses API
 * (shared/reference/responses-api.md §6), so a model listed for `/v1/chat/completions` may refuse
 * it. A refusal that says so (`respondsOnlyOnResponses`: OpenAI's, sub2api's, new-api's Codex
 * channel's and Azure's words) moves that request to `/v1/responses` once — a refused HTTP 4xx
 * answer (or new-api's request-conversion failure) came before any reply and was not billed — and
 * the gateway's client remembers the model's surface (`SurfaceMemory`, bounded) until the gateway's
 * model list changes, so the next request goes straight to `/v1/responses`.
 *
 * A request on the responses surface that an old new-api cannot serve (`Invalid URL (POST
 * /v1/responses)`: no such route) is explained (`explainSurfaceRefusal`); a channel that cannot
 * convert it (`convert_request_failed`) is classified where every answer is (errors/fromResponse.ts).
 */
import { GatewayError, isGatewayError, type Surface } from '../errors/gatewayError';
import { mayResend } from '../http/retryPolicy';
import { t } from '../l10n';
import { surfaceName } from './surfaceWords';
import type { ModelInfo } from '../models';
import type { ChatEventStream } from './stream';
import type { ChatEvent, ChatRequest, ChatResult, SurfaceMove } from './types';

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
];

/** new-api without a /v1/responses route (builds before May 2025): "Invalid URL (POST /v1/responses)". */
const NO_RESPONSES_ROUTE = /invalid url \(post \/?v1\/responses/i;

/** Whether a gateway's words say the model answers only on the Responses API. */
export function saysResponsesOnly(message: string | undefined): boolean {
  return !!message && RESPONSES_ONLY.some((re) => re.test(message));
}

/**
 * Whether a failed request on `surface` was refused because the model answers only on the
 * Responses API, before any reply: an HTTP 4xx answer (or new-api's request-conversion failure,
 * raised before anything goes upstream) whose words say so. Never an error inside a 200 answer, and
 * never anything the resend rule (http/retryPolicy.ts `mayResend`) says may have been billed.
 */
export function refusedForResponses(e: unknown, surface: Surface): e is GatewayError {
  if (surface === 'responses' || !isGatewayError(e) || e.status === undefined || !mayResend(e)) return false;
  const refusedBeforeReply =
    (e.status >= 400 && e.status < 500) || (e.status >= 500 && e.gatewayCode === 'convert_request_failed');
  return refusedBeforeReply && saysResponsesOnly(e.gatewayMessage ?? e.message);
}

/** Whether an error on the responses surface says the gateway has no `/v1/responses` route at all. */
function noResponsesRoute(e: GatewayError): boolean {
  return e.surface === 'responses' && e.status === 404 && NO_RESPONSES_ROUTE.test(e.gatewayMessage ?? e.message);
}

/** The same error with another reason and fix (everything the gateway said is kept). */
function reworded(e: GatewayError, reason: string, fix: string): GatewayError {
  const out = new GatewayError({
    kind: e.kind,
    message: e.message,
    reason,
    fix,
    status: e.status,
    gatewayMessage: e.gatewayMessage,
    gatewayType: e.gatewayType,
    gatewayCode: e.gatewayCode,
    gatewayJson: e.gatewayJson,
    requestId: e.requestId,
    detail: e.detail,
    retryAfterMs: e.retryAfterMs,
    serverShouldRetry: e.serverShouldRetry,
    context: { surface: e.surface, url: e.url, model: e.model },
    notSent: e.notSent,
    ...(e.cause ? { cause: e.cause } : {}),
  });
  (out as { maskedToken: string | undefined }).maskedToken = e.maskedToken;
  out.host = e.host;
  out.attempts = e.attempts;
  out.mayHaveBeenBilled = e.mayHaveBeenBilled;
  return out;
}

/**
 * A final error in the terms of the surfaces: a refusal that says the model answers only on the
 * Responses API; a gateway too old for the Responses API. Any other error is returned as it is.
 */
export function explainSurfaceRefusal(e: GatewayError): GatewayError {
  const which =
    e.surface !== 'responses' && saysResponsesOnly(e.gatewayMessage)
      ? 'responses_only'
      : noResponsesRoute(e)
        ? 'no_route'
        : undefined;
  switch (which) {
    case 'responses_only':
      return reworded(
        e,
        t('The gateway answers {0} only on the Responses API (/v1/responses), not on this surface.', e.model ?? '-'),
        t('Use the responses surface for this model (Model Relay moves a chat request there by itself).'),
      );
    case 'no_route':
      return reworded(
        e,
        t('This gateway has no /v1/responses route: it is too old for the Responses API.'),
        t(
          'Use the compatible surface for this model, or ask the gateway operator to update new-api (it serves /v1/responses since May 2025).',
        ),
      );
    default:
      return e;
  }
}

/** A move in one sentence, for a log line, a reply's notice or relay-doctor's stderr. */
export function surfaceMoveWords(move: SurfaceMove): string {
  return move.learntNow
    ? t(
        'The gateway refused {0} on the {1} surface: it answers only on the Responses API. The request went to /v1/responses (the refused one was not billed), and the next requests for {0} go there too.',
        move.model,
        surfaceName(move.from),
      )
    : t(
        '{0} answers only on the Responses API (learnt from an earlier refusal of this gateway): the request went to /v1/responses.',
        move.model,
      );
}

/** How many models a gateway's memory holds at most (the oldest learnt is forgotten first). */
export const MAX_LEARNT_SURFACES = 256;

/**
 * One gateway's learnt surfaces: model id → the surface its refusals named. Bounded; forgotten
 * when the gateway's model list changes (another list may route the model elsewhere) or the
 * client's token or address changes.
 */
export class SurfaceMemory {
  private readonly learnt = new Map<string, Surface>();
  /** what the last model list read said (ids and endpoint types), to notice a change */
  private listPrint: string | undefined;

  constructor(private readonly max = MAX_LEARNT_SURFACES) {}

  /** The surface learnt for a model, if any. */
  of(model: string): Surface | undefined {
    return this.learnt.get(model);
  }

  learn(model: string, surface: Surface): void {
    this.learnt.delete(model);
    this.learnt.set(model, surface);
    while (this.learnt.size > this.max) this.learnt.delete(this.learnt.keys().next().value!);
  }

  /** Every learnt surface, oldest first. */
  entries(): Array<{ model: string; surface: Surface }> {
    return [...this.learnt].map(([model, surface]) => ({ model, surface }));
  }

  get size(): number {
    return this.learnt.size;
  }

  /** A model list was read: a list other than the last one forgets what was learnt. */
  listed(models: readonly ModelInfo[]): void {
    const print = listPrint(models);
    if (this.listPrint !== undefined && print !== this.listPrint) this.learnt.clear();
    this.listPrint = print;
  }

  forget(): void {
    this.learnt.clear();
    this.listPrint = undefined;
  }
}

/** A model list's fingerprint: its ids with their endpoint types, in order of id. */
function listPrint(models: readonly ModelInfo[]): string {
  const rows = models.map((m) => `${m.id}\u0000${(m.endpointTypes ?? []).join(',')}`);
  rows.sort();
  return rows.join('\n');
}

/** What a request that may move needs: the memory, and who hears a move (a log line, a view). */
export interface SurfaceLearning {
  memory: SurfaceMemory;
  onMove?: ((move: SurfaceMove) => void) | undefined;
}

/** The surface a request goes to: the learnt one for its model when it asks for another, else its own. */
export function routedSurface(req: Pick<ChatRequest, 'surface' | 'model'>, memory: SurfaceMemory): Surface {
  const learnt = memory.of(req.model);
  return learnt && req.surface !== 'responses' ? learnt : req.surface;
}

function tell(l: SurfaceLearning, move: SurfaceMove): void {
  try {
    l.onMove?.(move);
  } catch {
    /* a broken listener must not break the request */
  }
}

/** The result with the move it took, if any. */
const withMove = (r: ChatResult, move: SurfaceMove | undefined): ChatResult => (move ? { ...r, surfaceMove: move } : r);

/**
 * A non-streamed chat on the model's surface: a remembered one, else the requested one; refused there
 * because the model answers only on the Responses API, once more on `/v1/responses`, remembered.
 */
export async function chatLearning(
  req: ChatRequest,
  l: SurfaceLearning,
  call: (req: ChatRequest) => Promise<ChatResult>,
): Promise<ChatResult> {
  const surface = routedSurface(req, l.memory);
  const remembered: SurfaceMove | undefined =
    surface !== req.surface ? { model: req.model, from: req.surface, to: surface, learntNow: false } : undefined;
  if (remembered) tell(l, remembered);
  try {
    return withMove(await call({ ...req, surface }), remembered);
  } catch (e) {
    if (!refusedForResponses(e, surface)) throw e;
    const move: SurfaceMove = { model: req.model, from: surface, to: 'responses', learntNow: true };
    l.memory.learn(req.model, 'responses');
    tell(l, move);
    return withMove(await call({ ...req, surface: 'responses' }), move);
  }
}

async function* oneByOne(batches: AsyncGenerator<readonly ChatEvent[]>): AsyncGenerator<ChatEvent> {
  for await (const batch of batches) for (const ev of batch) yield ev;
}

/** A stream's batches with the move noted on its `done` result. */
async function* noted(
  batches: AsyncIterator<readonly ChatEvent[]>,
  move: SurfaceMove | undefined,
): AsyncGenerator<readonly ChatEvent[]> {
  const all = { [Symbol.asyncIterator]: () => batches };
  if (!move) {
    yield* all;
    return;
  }
  for await (const batch of all) {
    const last = batch[batch.length - 1];
    yield last?.type === 'done'
      ? [...batch.slice(0, -1), { type: 'done', result: withMove(last.result, move) }]
      : batch;
  }
}

/** The batches of a stream that may move once, before anything of a reply arrived. */
async function* movingBatches(
  req: ChatRequest,
  l: SurfaceLearning,
  open: (req: ChatRequest) => ChatEventStream,
): AsyncGenerator<readonly ChatEvent[]> {
  const surface = routedSurface(req, l.memory);
  const remembered: SurfaceMove | undefined =
    surface !== req.surface ? { model: req.model, from: req.surface, to: surface, learntNow: false } : undefined;
  if (remembered) tell(l, remembered);
  const first = open({ ...req, surface })
    .batches()
    [Symbol.asyncIterator]();
  let head: IteratorResult<readonly ChatEvent[]>;
  try {
    // An HTTP refusal is thrown here, before the first event: nothing of a reply was handed on.
    head = await first.next();
  } catch (e) {
    if (!refusedForResponses(e, surface)) throw e;
    const move: SurfaceMove = { model: req.model, from: surface, to: 'responses', learntNow: true };
    l.memory.learn(req.model, 'responses');
    tell(l, move);
    yield* noted(
      open({ ...req, surface: 'responses' })
        .batches()
        [Symbol.asyncIterator](),
      move,
    );
    return;
  }
  if (head.done) return;
  let finished = false;
  try {
    const last = head.value[head.value.length - 1];
    yield remembered && last?.type === 'done'
      ? [...head.value.slice(0, -1), { type: 'done', result: withMove(last.result, remembered) }]
      : head.value;
    yield* noted(first, remembered);
    finished = true;
  } finally {
    // The consumer stopped between the first batch and the rest: the connection is closed.
    if (!finished) await first.return?.();
  }
}

/** A streamed chat that may move to the responses surface once (see chatLearning), as a single-use ChatEventStream. */
export function chatStreamLearning(
  req: ChatRequest,
  l: SurfaceLearning,
  open: (req: ChatRequest) => ChatEventStream,
): ChatEventStream {
  let used = false;
  const start = () => {
    if (used) throw new Error('A chat stream can be iterated only once.');
    used = true;
    return movingBatches(req, l, open);
  };
  return {
    [Symbol.asyncIterator]: () => oneByOne(start()),
    batches: () => ({ [Symbol.asyncIterator]: start }),
  };
}
