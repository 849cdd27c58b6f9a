/**
 * Chat on both surfaces behind one interface. Non-stream returns a ChatResult; stream is a
 * single-use AsyncIterable<ChatEvent> that closes the connection when the consumer breaks or the
 * signal aborts, and throws the same GatewayError for an error inside a 200 stream.
 */
import { DEFAULT_MAX_TOKENS } from '../defaults';
import { GatewayError, errorFromNetwork, errorFromResponse, inputError, looksLikeHtml, protocolError, streamError, type ErrorContext, type Surface } from '../errors/gatewayError';
import type { ChatEvent, ChatRequest, ChatResult, SurfaceAdapter, Usage } from './types';
import { compatibleSurface } from './surfaces/compatible';
import { nativeSurface } from './surfaces/native';
import { DEFAULT_BURST, isBurst, sseEventBatches, type BurstThresholds } from '../http/sseStream';
import { headerValue, readText, type SendOptions, type Transport } from '../http/transport';

export function surfaceAdapter(surface: Surface): SurfaceAdapter {
  return surface === 'native' ? nativeSurface : compatibleSurface;
}

export interface ChatSettings {
  timeoutMs: number;
  idleTimeoutMs: number;
  defaultNativeMaxTokens?: number;
  burst?: BurstThresholds;
  now?: () => number;
}

function validate(req: ChatRequest): void {
  if (!req.model || !req.model.trim()) throw inputError('No model is set for this chat request.', 'Pick a chat model (see "Model Relay: List Models") or set modelRelay.models.chat.', { surface: req.surface });
  if (!Array.isArray(req.messages) || req.messages.length === 0) throw inputError('The chat request has no messages.', 'Send at least one user message.', { surface: req.surface, model: req.model });
  if (req.temperature !== undefined && !(req.temperature >= 0 && req.temperature <= 2)) throw inputError(`Temperature ${req.temperature} is out of range.`, 'Use a temperature between 0 and 2.', { surface: req.surface, model: req.model });
  if (req.maxTokens !== undefined && !(Number.isInteger(req.maxTokens) && req.maxTokens > 0)) throw inputError(`max tokens ${req.maxTokens} is not a positive integer.`, 'Use a positive whole number for max tokens.', { surface: req.surface, model: req.model });
}

/** The HTTP request of a chat call on the request's surface. */
function sendOptions(adapter: SurfaceAdapter, req: ChatRequest, settings: ChatSettings, stream: boolean): SendOptions {
  const body = adapter.toRequest({ ...req, stream }, { maxTokens: settings.defaultNativeMaxTokens ?? DEFAULT_MAX_TOKENS });
  return {
    method: 'POST',
    path: adapter.path,
    surface: req.surface,
    capability: 'chat',
    model: req.model,
    body: JSON.stringify(body),
    json: true,
    stream,
    signal: req.signal,
    timeoutMs: settings.timeoutMs,
    ...(stream ? { idleTimeoutMs: settings.idleTimeoutMs } : {}),
  };
}

/** A non-streamed chat call. */
export async function chat(transport: Transport, req: ChatRequest, settings: ChatSettings): Promise<ChatResult> {
  validate(req);
  const now = settings.now ?? Date.now;
  const adapter = surfaceAdapter(req.surface);
  const started = now();
  const { data, res } = await transport.json(sendOptions(adapter, req, settings, false));
  return toResult(adapter, data, res.context, res.host, res.requestId, res.status, now() - started);
}

function toResult(adapter: SurfaceAdapter, data: unknown, context: ErrorContext, host: string, requestId: string | undefined, status: number, durationMs: number): ChatResult {
  const errorInBody = (data as { error?: unknown } | null)?.error;
  if (errorInBody && typeof errorInBody === 'object') {
    // A 200 whose body is an error object (seen on some gateways): classify it, never show it as a reply.
    const e = errorFromResponse({ status: 400, headers: {}, body: JSON.stringify(data), context });
    throw new GatewayError({ kind: e.kind, message: `HTTP 200 carrying an error: ${e.gatewayMessage ?? 'unknown'}`, cause: e.cause, fix: e.fix, status, gatewayMessage: e.gatewayMessage, gatewayCode: e.gatewayCode, gatewayType: e.gatewayType, requestId: requestId ?? e.requestId, context });
  }
  const parsed = adapter.parseReply(data);
  if (parsed === 'empty') throw protocolError('empty_choices', `${adapter.path}`, context, { status, ...(requestId ? { requestId } : {}) });
  if (!parsed) throw protocolError('unexpected_shape', `${adapter.path}`, context, { status, ...(requestId ? { requestId } : {}) });
  return { ...parsed, host, requestId, durationMs };
}

/** A streamed chat call: an async iterable of text / usage / finish events, then one `done`. */
export function chatStream(transport: Transport, req: ChatRequest, settings: ChatSettings): AsyncIterable<ChatEvent> {
  let used = false;
  return {
    [Symbol.asyncIterator]() {
      if (used) throw new Error('A chat stream can be iterated only once.');
      used = true;
      return run(transport, req, settings);
    },
  };
}

async function* run(transport: Transport, req: ChatRequest, settings: ChatSettings): AsyncGenerator<ChatEvent> {
  validate(req);
  const now = settings.now ?? Date.now;
  const adapter = surfaceAdapter(req.surface);
  const started = now();
  const res = await transport.open(sendOptions(adapter, req, settings, true));
  const ct = headerValue(res.headers, 'content-type') ?? '';
  let completed = false;
  // Our own idle watchdog (undici's bodyTimeout has a coarse timer resolution). One timer, not
  // one per chunk: each chunk only records its time; the timer re-arms for what remains.
  let idleFired = false;
  let idleTimer: NodeJS.Timeout | undefined;
  let lastChunkAt = Date.now();
  const idleMs = settings.idleTimeoutMs;
  const check = () => {
    const quiet = Date.now() - lastChunkAt;
    if (quiet >= idleMs) {
      idleFired = true;
      res.abort();
    } else idleTimer = setTimeout(check, idleMs - quiet);
  };
  const armIdle = () => {
    lastChunkAt = Date.now();
    idleTimer ??= setTimeout(check, idleMs);
  };
  try {
    if (!/text\/event-stream/i.test(ct)) {
      // Not a stream: an HTML page, or a gateway that ignored `stream` and answered JSON.
      const text = await readText(res.body, 16 * 1024 * 1024);
      if (looksLikeHtml(text, ct)) throw errorFromResponse({ status: res.status, headers: res.headers, body: text, context: res.context });
      let data: unknown;
      try {
        data = JSON.parse(text);
      } catch {
        throw protocolError('invalid_json', adapter.path, res.context, { status: res.status, ...(res.requestId ? { requestId: res.requestId } : {}) });
      }
      const result = toResult(adapter, data, res.context, res.host, res.requestId, res.status, now() - started);
      result.streamIgnored = true;
      if (result.text) yield { type: 'text', text: result.text };
      if (result.usage) yield { type: 'usage', usage: result.usage };
      if (result.finishReason) yield { type: 'finish', reason: result.finishReason };
      completed = true;
      res.finish({});
      yield { type: 'done', result };
      return;
    }

    let text = '';
    let usage: Usage | undefined;
    let finishReason: string | undefined;
    let id: string | undefined;
    let model: string | undefined;
    let ended = false;
    const arrivals: number[] = [];
    armIdle();
    batches: for await (const batch of sseEventBatches(res.body, started, now, armIdle)) {
      for (const ev of batch) for (const se of adapter.parseEvent(ev)) {
        switch (se.type) {
          case 'text':
            arrivals.push(ev.at);
            text += se.text;
            yield { type: 'text', text: se.text };
            break;
          case 'usage':
            usage = { inputTokens: se.usage.inputTokens ?? usage?.inputTokens, outputTokens: se.usage.outputTokens ?? usage?.outputTokens };
            yield { type: 'usage', usage };
            break;
          case 'finish':
            finishReason = se.reason;
            yield { type: 'finish', reason: se.reason };
            break;
          case 'meta':
            id ??= se.id;
            model ??= se.model;
            if (se.usage) usage = { ...usage, ...se.usage };
            break;
          case 'error':
            throw streamError('stream_error_event', res.context, {
              gatewayMessage: se.message,
              ...(se.errorType ? { gatewayType: se.errorType } : {}),
              ...(se.code ? { gatewayCode: se.code } : {}),
              ...(res.requestId ? { requestId: res.requestId } : {}),
              status: res.status,
            });
          case 'end':
            ended = true;
            break;
          default: {
            const _exhaustive: never = se;
            void _exhaustive;
          }
        }
        if (ended) break batches;
      }
    }
    if (!ended) throw streamError('stream_truncated', res.context, { ...(res.requestId ? { requestId: res.requestId } : {}), status: res.status });
    const durationMs = now() - started;
    const buffered = isBurst(arrivals, durationMs, settings.burst ?? DEFAULT_BURST);
    completed = true;
    res.finish({ buffered });
    yield { type: 'done', result: { text, finishReason, usage, model, id, host: res.host, requestId: res.requestId, buffered, durationMs } };
  } catch (e) {
    if (e instanceof GatewayError) {
      e.host = res.host;
      res.finish({ errorKind: e.kind });
      throw e;
    }
    const code = (e as { code?: string }).code;
    const aborted = !!req.signal?.aborted;
    let err: GatewayError;
    if (aborted) err = errorFromNetwork(e, res.context, { aborted: true });
    else if (idleFired || code === 'UND_ERR_BODY_TIMEOUT') err = streamError('idle_timeout', res.context, { original: e, ...(res.requestId ? { requestId: res.requestId } : {}) });
    else err = streamError('stream_truncated', res.context, { original: e, ...(res.requestId ? { requestId: res.requestId } : {}), status: res.status });
    err.host = res.host;
    res.finish({ errorKind: err.kind });
    throw err;
  } finally {
    if (idleTimer) clearTimeout(idleTimer);
    if (!completed) {
      // The consumer broke out, or an error happened: close the connection.
      res.abort();
      res.finish({ errorKind: 'aborted' });
    }
  }
}
