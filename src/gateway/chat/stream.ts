/**
 * The streamed half of chat: one async generator from the open response to the consumer, with
 * events handled a socket chunk's batch at a time end to end (one async step per chunk, not per
 * event: `batches()`), text deltas of a learned shape read without JSON.parse (deltaShape.ts), our
 * own idle watchdog, burst (buffering proxy) detection, and one classification of whatever breaks
 * the stream: an error the gateway sends inside it means what the same error means as an HTTP
 * status (errorFromResponse); only a stream that broke off is `stream_interrupted`. Per event: no timer, no promise, no copy of the text; what is recorded is a count,
 * the first and last arrival time and, per chunk, one joined piece of text.
 */
import { DEFAULT_BURST, EventTooLarge, isBurstSpan, sseChunks } from '../http/sseStream';
import { headerValue, readWholeText } from '../http/attempt';
import type { OpenResponse, Transport } from '../http/transport';
import { GatewayError } from '../errors/gatewayError';
import { errorFromNetwork } from '../errors/fromNetwork';
import { errorFromResponse } from '../errors/fromResponse';
import { looksLikeHtml } from '../errors/errorBody';
import {
  bodyTooLargeError,
  emptyReplyError,
  eventTooLargeError,
  protocolError,
  streamError,
  toolArgumentsError,
} from '../errors/factories';
import { ReplyAssembler } from './assemble';
import { streamEventParser } from './deltaShape';
import { sendOptions, surfaceAdapter, toResult, validate, type ChatSettings } from './chat';
import type { Learnt } from './modelRules';
import type { EventSourceMessage } from 'eventsource-parser';
import { tokenUsage } from '../requestLog';
import type { ChatEvent, ChatRequest, ChatResult, SurfaceAdapter, SurfaceEvent, Usage } from './types';

/** A non-stream answer to a stream request (an HTML page, or JSON from a gateway that ignored `stream`). */
const NON_STREAM_LIMIT = 16 * 1024 * 1024;

/**
 * Our own idle watchdog (undici's bodyTimeout has a coarse timer resolution). One timer, not one
 * per chunk: each chunk only records its time; the timer re-arms for what remains.
 */
function idleWatchdog(idleMs: number, onIdle: () => void) {
  let fired = false;
  let timer: NodeJS.Timeout | undefined;
  let lastChunkAt = Date.now();
  const check = () => {
    const quiet = Date.now() - lastChunkAt;
    if (quiet >= idleMs) {
      fired = true;
      onIdle();
    } else timer = setTimeout(check, idleMs - quiet);
  };
  return {
    arm: () => {
      lastChunkAt = Date.now();
      timer ??= setTimeout(check, idleMs);
    },
    fired: () => fired,
    stop: () => timer && clearTimeout(timer),
  };
}

type EventParser = ReturnType<typeof streamEventParser>;

/** What a stream has told so far. */
interface StreamState {
  /** the open response (for errors: context, status, request id) */
  res: OpenResponse;
  /** the called path, e.g. /v1/chat/completions */
  path: string;
  /** the reply's text so far: one piece per socket chunk (joined at the end, never per delta) */
  pieces: string[];
  /** this chunk's text deltas, joined into one piece when the chunk is done */
  chunkText: string[];
  usage: Usage | undefined;
  finishReason: string | undefined;
  id: string | undefined;
  model: string | undefined;
  ended: boolean;
  /** content events (text, reasoning) and when the first and the last arrived: all burst detection needs */
  arrivals: number;
  firstAt: number;
  lastAt: number;
  /** tool calls, reasoning and thinking blocks */
  parts: ReplyAssembler;
}

/** Appends a list of any length (a gateway decides how many tool calls end at once: never spread into arguments). */
function pushAll(out: ChatEvent[], events: readonly ChatEvent[]): void {
  for (const ev of events) out.push(ev);
}

function arrived(st: StreamState, at: number): void {
  if (st.arrivals++ === 0) st.firstAt = at;
  st.lastAt = at;
}

/** Folds one surface event into the state; adds the event(s) for the consumer, if any, to `out`. */
function apply(st: StreamState, se: SurfaceEvent, at: number, out: ChatEvent[]): void {
  switch (se.type) {
    case 'text':
      arrived(st, at);
      st.chunkText.push(se.text);
      // the surface event is a fresh `{ type: 'text', text }`: handed on as it is
      out.push(se);
      return;
    case 'reasoning':
      arrived(st, at);
      pushAll(out, st.parts.take(se));
      return;
    case 'tool_start':
    case 'tool_args':
    case 'thinking_start':
    case 'signature':
    case 'block_stop':
    case 'reasoning_item':
      pushAll(out, st.parts.take(se));
      return;
    case 'usage':
      st.usage = {
        inputTokens: se.usage.inputTokens ?? st.usage?.inputTokens,
        outputTokens: se.usage.outputTokens ?? st.usage?.outputTokens,
      };
      out.push({ type: 'usage', usage: st.usage });
      return;
    case 'finish':
      st.finishReason = se.reason;
      // The compatible surface's calls are complete at the finish reason (whatever it says).
      pushAll(out, st.parts.flush());
      out.push({ type: 'finish', reason: se.reason });
      return;
    case 'meta':
      st.id ??= se.id;
      st.model ??= se.model;
      if (se.usage) st.usage = { ...st.usage, ...se.usage };
      return;
    case 'error':
      // What the gateway says inside the stream means what it would mean as an HTTP status.
      throw errorFromResponse({
        status: st.res.status,
        headers: st.res.headers,
        body: JSON.stringify({ error: { message: se.message, type: se.errorType, code: se.code } }),
        context: st.res.context,
        origin: 'stream',
        requestId: st.res.requestId,
      });
    case 'garbled':
      throw protocolError('invalid_json', st.path, st.res.context, {
        status: st.res.status,
        gatewayMessage: se.data.slice(0, 80),
        ...(st.res.requestId ? { requestId: st.res.requestId } : {}),
      });
    case 'end':
      st.ended = true;
      pushAll(out, st.parts.flush());
      return;
    default: {
      const _exhaustive: never = se;
      return _exhaustive;
    }
  }
}

/**
 * One socket chunk's events folded in. What a failure inside the chunk interrupts is still
 * delivered first (in order, as one event at a time would have been), then the failure.
 */
function takeChunk(
  st: StreamState,
  parse: EventParser,
  events: readonly EventSourceMessage[],
  at: number,
): { out: ChatEvent[]; failed: boolean; failure?: unknown } {
  const out: ChatEvent[] = [];
  try {
    for (let i = 0; i < events.length && !st.ended; i++) {
      const parsed = parse(events[i]);
      for (let k = 0; k < parsed.length && !st.ended; k++) apply(st, parsed[k], at, out);
    }
  } catch (e) {
    return { out, failed: true, failure: e };
  } finally {
    if (st.chunkText.length) {
      st.pieces.push(st.chunkText.length === 1 ? st.chunkText[0] : st.chunkText.join(''));
      st.chunkText.length = 0;
    }
  }
  return { out, failed: false };
}

/** The answer was not an event stream: replay a JSON reply as events (one batch), or classify the page. */
async function* notAStream(
  res: OpenResponse,
  adapter: SurfaceAdapter,
  ct: string,
  durationMs: () => number,
  acceptEmpty: boolean,
): AsyncGenerator<ChatEvent[], ChatResult> {
  const rid = { status: res.status, ...(res.requestId ? { requestId: res.requestId } : {}) };
  const text = await readWholeText(res.body, NON_STREAM_LIMIT);
  if (text === undefined) throw bodyTooLargeError(NON_STREAM_LIMIT, adapter.path, res.context, rid);
  if (looksLikeHtml(text, ct))
    throw errorFromResponse({ status: res.status, headers: res.headers, body: text, context: res.context });
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw protocolError('invalid_json', adapter.path, res.context, rid);
  }
  const result = toResult(adapter, data, res.context, res.host, res.requestId, res.status, durationMs(), acceptEmpty);
  result.streamIgnored = true;
  const out: ChatEvent[] = [];
  if (result.reasoning) out.push({ type: 'reasoning', text: result.reasoning });
  for (const block of result.thinking) out.push({ type: 'thinking_block', block });
  if (result.text) out.push({ type: 'text', text: result.text });
  for (const call of result.toolCalls) out.push({ type: 'tool_call', call });
  if (result.usage) out.push({ type: 'usage', usage: result.usage });
  if (result.finishReason) out.push({ type: 'finish', reason: result.finishReason });
  if (out.length) yield out;
  return result;
}

/** Whatever broke the stream, as one GatewayError. */
function streamFailure(
  e: unknown,
  res: OpenResponse,
  aborted: boolean,
  idle: boolean,
  overallMs: number | undefined,
): GatewayError {
  if (e instanceof GatewayError) return e;
  const code = (e as { code?: string }).code;
  const rid = res.requestId ? { requestId: res.requestId } : {};
  if (e instanceof EventTooLarge) return eventTooLargeError(e.limit, res.context, { ...rid, status: res.status });
  if (aborted) return errorFromNetwork(e, res.context, { aborted: true });
  if (res.timedOut()) return errorFromNetwork(e, res.context, { timedOut: true, timeoutMs: overallMs });
  if (idle || code === 'UND_ERR_BODY_TIMEOUT') return streamError('idle_timeout', res.context, { cause: e, ...rid });
  return streamError('stream_truncated', res.context, { cause: e, ...rid, status: res.status });
}

function newState(res: OpenResponse, path: string): StreamState {
  const rid = { status: res.status, ...(res.requestId ? { requestId: res.requestId } : {}) };
  return {
    res,
    path,
    pieces: [],
    chunkText: [],
    usage: undefined,
    finishReason: undefined,
    id: undefined,
    model: undefined,
    ended: false,
    arrivals: 0,
    firstAt: 0,
    lastAt: 0,
    parts: new ReplyAssembler((name, args) => {
      throw toolArgumentsError(name, args, res.context, rid);
    }),
  };
}

/** The reply a complete stream told (or its empty-reply error). */
function resultOf(st: StreamState, durationMs: number, burst: ChatSettings['burst'], acceptEmpty: boolean): ChatResult {
  const { res, parts } = st;
  const text = st.pieces.length === 1 ? st.pieces[0] : st.pieces.join('');
  const rid = { status: res.status, ...(res.requestId ? { requestId: res.requestId } : {}) };
  if (!text && !parts.toolCalls.length && !acceptEmpty)
    throw emptyReplyError(st.finishReason, !!parts.reasoning, res.context, rid);
  return {
    text,
    toolCalls: parts.toolCalls,
    reasoning: parts.reasoning,
    thinking: parts.thinking,
    finishReason: st.finishReason,
    usage: st.usage,
    model: st.model,
    id: st.id,
    host: res.host,
    requestId: res.requestId,
    buffered: isBurstSpan(st.arrivals, st.firstAt, st.lastAt, durationMs, burst ?? DEFAULT_BURST),
    durationMs,
  };
}

/** An event stream read to its end marker: the events a socket chunk at a time, then the reply. */
async function* readEvents(
  res: OpenResponse,
  adapter: SurfaceAdapter,
  settings: ChatSettings,
  clock: { started: number; now: () => number },
  idle: ReturnType<typeof idleWatchdog>,
  acceptEmpty: boolean,
): AsyncGenerator<ChatEvent[], ChatResult> {
  const st = newState(res, adapter.path);
  const parse = streamEventParser(adapter);
  idle.arm();
  // Only real events count as activity: keep-alive comments (`: ping`) do not re-arm the watchdog.
  for await (const chunk of sseChunks(res.body, clock.started, clock.now, settings.maxEventBytes)) {
    idle.arm();
    const { out, failed, failure } = takeChunk(st, parse, chunk.events, chunk.at);
    if (out.length) yield out;
    if (failed) throw failure;
    if (st.ended) break;
  }
  if (!st.ended)
    throw streamError('stream_truncated', res.context, {
      status: res.status,
      ...(res.requestId ? { requestId: res.requestId } : {}),
    });
  return resultOf(st, clock.now() - clock.started, settings.burst, acceptEmpty);
}

/** The events, a socket chunk's batch at a time (never an empty batch), ending with `done`. */
async function* runStream(
  transport: Transport,
  req: ChatRequest,
  settings: ChatSettings,
  learnt: Learnt | undefined,
): AsyncGenerator<ChatEvent[]> {
  validate(req);
  const clock = { now: settings.now ?? Date.now, started: 0 };
  const adapter = surfaceAdapter(req.surface);
  clock.started = clock.now();
  const res = await transport.open(sendOptions(adapter, req, settings, true, learnt));
  const ct = headerValue(res.headers, 'content-type') ?? '';
  const idle = idleWatchdog(settings.idleTimeoutMs, () => res.abort());
  let completed = false;
  try {
    const acceptEmpty = req.acceptEmptyReply === true;
    const result = /text\/event-stream/i.test(ct)
      ? yield* readEvents(res, adapter, settings, clock, idle, acceptEmpty)
      : yield* notAStream(res, adapter, ct, () => clock.now() - clock.started, acceptEmpty);
    completed = true;
    const usage = result.usage && tokenUsage(result.usage.inputTokens, result.usage.outputTokens);
    res.finish(result.streamIgnored ? { usage } : { buffered: result.buffered, usage });
    yield [{ type: 'done', result }];
  } catch (e) {
    const err = streamFailure(e, res, !!req.signal?.aborted, idle.fired(), settings.overallMs);
    err.host = res.host;
    res.finish({ errorKind: err.kind });
    throw err;
  } finally {
    idle.stop();
    if (!completed) {
      // The consumer broke out, or an error happened: close the connection.
      res.abort();
      res.finish({ errorKind: 'aborted' });
    }
  }
}

/** A streamed chat: the events one by one, or (`batches()`) a socket chunk's worth at a time. */
export interface ChatEventStream extends AsyncIterable<ChatEvent> {
  /** The same events as arrays, one per socket chunk: one async step per chunk, not per event. */
  batches(): AsyncIterable<readonly ChatEvent[]>;
}

async function* oneByOne(batches: AsyncGenerator<ChatEvent[]>): AsyncGenerator<ChatEvent> {
  for await (const batch of batches) for (const ev of batch) yield ev;
}

/**
 * A streamed chat call: an async iterable of text / usage / finish events, then one `done`. One
 * request, built with what this gateway's refusals taught for the model (`learnt`; the client's
 * refusals.ts sends again on a refusal before the first event).
 */
export function chatStream(
  transport: Transport,
  req: ChatRequest,
  settings: ChatSettings,
  learnt?: Learnt,
): ChatEventStream {
  let used = false;
  const start = () => {
    if (used) throw new Error('A chat stream can be iterated only once.');
    used = true;
    return runStream(transport, req, settings, learnt);
  };
  return {
    [Symbol.asyncIterator]: () => oneByOne(start()),
    batches: () => ({ [Symbol.asyncIterator]: start }),
  };
}

/** A chat stream's events in batches: its own (one per socket chunk) when it has them, else one event each. */
export function chatEventBatches(stream: AsyncIterable<ChatEvent>): AsyncIterable<readonly ChatEvent[]> {
  const own = (stream as Partial<ChatEventStream>).batches;
  if (typeof own === 'function') return own.call(stream);
  return {
    async *[Symbol.asyncIterator]() {
      for await (const ev of stream) yield [ev];
    },
  };
}
