/**
 * The streamed half of chat: one async generator from the open response to the consumer, with
 * events handled a socket chunk's batch at a time, our own idle watchdog, burst (buffering proxy)
 * detection, and one classification of whatever breaks the stream.
 */
import { DEFAULT_BURST, isBurst, sseEventBatches } from '../http/sseStream';
import { headerValue, readText } from '../http/attempt';
import type { OpenResponse, Transport } from '../http/transport';
import { GatewayError } from '../errors/gatewayError';
import { errorFromNetwork } from '../errors/fromNetwork';
import { errorFromResponse } from '../errors/fromResponse';
import { looksLikeHtml } from '../errors/errorBody';
import { emptyReplyError, protocolError, streamError, toolArgumentsError } from '../errors/factories';
import { ReplyAssembler } from './assemble';
import { sendOptions, surfaceAdapter, toResult, validate, type ChatSettings } from './chat';
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

/** What a stream has told so far. */
interface StreamState {
  text: string;
  usage: Usage | undefined;
  finishReason: string | undefined;
  id: string | undefined;
  model: string | undefined;
  ended: boolean;
  arrivals: number[];
  /** tool calls, reasoning and thinking blocks */
  parts: ReplyAssembler;
}

/** Folds one surface event into the state; returns the event(s) for the consumer, if any. */
function apply(st: StreamState, se: SurfaceEvent, at: number, res: OpenResponse): ChatEvent | ChatEvent[] | undefined {
  switch (se.type) {
    case 'text':
      st.arrivals.push(at);
      st.text += se.text;
      return { type: 'text', text: se.text };
    case 'reasoning':
      st.arrivals.push(at);
      return st.parts.take(se);
    case 'tool_start':
    case 'tool_args':
    case 'thinking_start':
    case 'signature':
    case 'block_stop':
      return st.parts.take(se);
    case 'usage':
      st.usage = { inputTokens: se.usage.inputTokens ?? st.usage?.inputTokens, outputTokens: se.usage.outputTokens ?? st.usage?.outputTokens };
      return { type: 'usage', usage: st.usage };
    case 'finish':
      st.finishReason = se.reason;
      // The compatible surface's calls are complete at the finish reason (whatever it says).
      return [...st.parts.flush(), { type: 'finish', reason: se.reason }];
    case 'meta':
      st.id ??= se.id;
      st.model ??= se.model;
      if (se.usage) st.usage = { ...st.usage, ...se.usage };
      return undefined;
    case 'error':
      throw streamError('stream_error_event', res.context, {
        gatewayMessage: se.message,
        ...(se.errorType ? { gatewayType: se.errorType } : {}),
        ...(se.code ? { gatewayCode: se.code } : {}),
        ...(res.requestId ? { requestId: res.requestId } : {}),
        status: res.status,
      });
    case 'end':
      st.ended = true;
      return st.parts.flush();
    default: {
      const _exhaustive: never = se;
      return _exhaustive;
    }
  }
}

/** The answer was not an event stream: replay a JSON reply as events, or classify the page. */
async function* notAStream(res: OpenResponse, adapter: SurfaceAdapter, ct: string, durationMs: () => number): AsyncGenerator<ChatEvent, ChatResult> {
  const text = await readText(res.body, NON_STREAM_LIMIT);
  if (looksLikeHtml(text, ct)) throw errorFromResponse({ status: res.status, headers: res.headers, body: text, context: res.context });
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw protocolError('invalid_json', adapter.path, res.context, { status: res.status, ...(res.requestId ? { requestId: res.requestId } : {}) });
  }
  const result = toResult(adapter, data, res.context, res.host, res.requestId, res.status, durationMs());
  result.streamIgnored = true;
  if (result.reasoning) yield { type: 'reasoning', text: result.reasoning };
  for (const block of result.thinking) yield { type: 'thinking_block', block };
  if (result.text) yield { type: 'text', text: result.text };
  for (const call of result.toolCalls) yield { type: 'tool_call', call };
  if (result.usage) yield { type: 'usage', usage: result.usage };
  if (result.finishReason) yield { type: 'finish', reason: result.finishReason };
  return result;
}

/** Whatever broke the stream, as one GatewayError. */
function streamFailure(e: unknown, res: OpenResponse, aborted: boolean, idle: boolean, overallMs: number | undefined): GatewayError {
  if (e instanceof GatewayError) return e;
  const code = (e as { code?: string }).code;
  const rid = res.requestId ? { requestId: res.requestId } : {};
  if (aborted) return errorFromNetwork(e, res.context, { aborted: true });
  if (res.timedOut()) return errorFromNetwork(e, res.context, { timedOut: true, timeoutMs: overallMs });
  if (idle || code === 'UND_ERR_BODY_TIMEOUT') return streamError('idle_timeout', res.context, { original: e, ...rid });
  return streamError('stream_truncated', res.context, { original: e, ...rid, status: res.status });
}

async function* runStream(transport: Transport, req: ChatRequest, settings: ChatSettings): AsyncGenerator<ChatEvent> {
  validate(req);
  const now = settings.now ?? Date.now;
  const adapter = surfaceAdapter(req.surface);
  const started = now();
  const res = await transport.open(sendOptions(adapter, req, settings, true));
  const ct = headerValue(res.headers, 'content-type') ?? '';
  const idle = idleWatchdog(settings.idleTimeoutMs, () => res.abort());
  let completed = false;
  try {
    if (!/text\/event-stream/i.test(ct)) {
      const result = yield* notAStream(res, adapter, ct, () => now() - started);
      completed = true;
      res.finish({});
      yield { type: 'done', result };
      return;
    }
    const rid = { status: res.status, ...(res.requestId ? { requestId: res.requestId } : {}) };
    const parts = new ReplyAssembler((name, args) => {
      throw toolArgumentsError(name, args, res.context, rid);
    });
    const st: StreamState = { text: '', usage: undefined, finishReason: undefined, id: undefined, model: undefined, ended: false, arrivals: [], parts };
    idle.arm();
    // Only real events count as activity: keep-alive comments (`: ping`) do not re-arm the watchdog.
    batches: for await (const batch of sseEventBatches(res.body, started, now)) {
      if (batch.length) idle.arm();
      for (const ev of batch) for (const se of adapter.parseEvent(ev)) {
        const out = apply(st, se, ev.at, res);
        if (Array.isArray(out)) yield* out;
        else if (out) yield out;
        if (st.ended) break batches;
      }
    }
    if (!st.ended) throw streamError('stream_truncated', res.context, rid);
    if (!st.text && !parts.toolCalls.length) throw emptyReplyError(st.finishReason, !!parts.reasoning, res.context, rid);
    const durationMs = now() - started;
    const buffered = isBurst(st.arrivals, durationMs, settings.burst ?? DEFAULT_BURST);
    completed = true;
    res.finish({ buffered });
    yield { type: 'done', result: { text: st.text, toolCalls: parts.toolCalls, reasoning: parts.reasoning, thinking: parts.thinking, finishReason: st.finishReason, usage: st.usage, model: st.model, id: st.id, host: res.host, requestId: res.requestId, buffered, durationMs } };
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

/** A streamed chat call: an async iterable of text / usage / finish events, then one `done`. */
export function chatStream(transport: Transport, req: ChatRequest, settings: ChatSettings): AsyncIterable<ChatEvent> {
  let used = false;
  return {
    [Symbol.asyncIterator]() {
      if (used) throw new Error('A chat stream can be iterated only once.');
      used = true;
      return runStream(transport, req, settings);
    },
  };
}
