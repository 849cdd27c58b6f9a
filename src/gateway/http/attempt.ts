/**
 * One HTTP request, sent once: the credential gate (egress.ts: a credential leaves only for its
 * gateway's origins), the HTTP recorder (har.ts), the overall timer, the caller's abort signal wired
 * to our own controller, cleanup of both, and bounded body reads. Every request of the product
 * leaves through here — the transport (gateway calls), the image download (result URLs on a CDN),
 * the diagnose host probe and the tools' probes; retries, failover and request records are the
 * transport's business, not this file's.
 */
import { request, type Dispatcher } from 'undici';
import { errorFromNetwork } from '../errors/fromNetwork';
import type { ErrorContext } from '../errors/gatewayError';
import { admitRequest, type Credential } from './egress';
import { watchExchange } from './har';

export type Headers = Record<string, string | string[] | undefined>;
export type ResponseBody = Dispatcher.ResponseData['body'];
export type SendBody = string | Dispatcher.RequestOptions['body'] | undefined;

export interface AttemptOptions {
  url: string;
  method: 'GET' | 'POST' | 'DELETE';
  /** headers without any credential: `credential` is attached by the gate, and only where it may go */
  headers: Record<string, string>;
  body?: SendBody;
  /** the credential and the gateway it belongs to (none: a request that carries nothing, e.g. a CDN download) */
  credential?: Credential | undefined;
  /** where the URL came from, named in a refusal: "the base URL of production", "./.claude/settings.json (env.ANTHROPIC_BASE_URL)" */
  addressFrom?: string | undefined;
  dispatcher: Dispatcher;
  signal?: AbortSignal | undefined;
  /** until the response headers arrive, and (unless `keepOpen`) until the body has been read */
  timeoutMs: number;
  /** longest silence between body chunks */
  idleTimeoutMs?: number | undefined;
  /** the whole request, body included, must end within this (streams too): never cleared by keepOpen */
  deadlineMs?: number | undefined;
  /** what error messages name (url, surface, model, token to mask) */
  context: ErrorContext;
}

export interface Attempt {
  status: number;
  headers: Headers;
  body: ResponseBody;
  /** true when our own timer (not the caller) stopped the request */
  timedOut: () => boolean;
  /** Stops the overall timer: from here on only the idle timeout applies (streams, downloads). */
  keepOpen(): void;
  /** Clears the timer and the abort wiring (idempotent). */
  release(): void;
  /** Stops the request (closes the connection). */
  abort: () => void;
}

/** Sends one request; network failures, timeouts and aborts become a classified GatewayError. */
export async function sendOnce(o: AttemptOptions): Promise<Attempt> {
  // Refused before a byte is sent: a credential bound for an origin outside its gateway.
  const out = admitRequest(o, o.context);
  const controller = new AbortController();
  let timedOut = false;
  const onCallerAbort = () => controller.abort(o.signal?.reason);
  if (o.signal?.aborted) throw errorFromNetwork(o.signal.reason, o.context, { aborted: true });
  const secret = o.credential?.secret;
  const watch = watchExchange({
    method: o.method,
    url: out.url,
    headers: out.headers,
    body: o.body,
    secrets: secret ? [secret] : [],
  });
  o.signal?.addEventListener('abort', onCallerAbort, { once: true });
  const expire = () => {
    timedOut = true;
    controller.abort(new Error('timeout'));
  };
  const timer = setTimeout(expire, o.timeoutMs);
  const deadline = o.deadlineMs !== undefined ? setTimeout(expire, o.deadlineMs) : undefined;
  const release = () => {
    clearTimeout(timer);
    clearTimeout(deadline);
    o.signal?.removeEventListener('abort', onCallerAbort);
  };
  try {
    const res = await request(out.url, {
      method: o.method,
      headers: out.headers,
      body: o.body,
      signal: controller.signal,
      headersTimeout: o.timeoutMs,
      bodyTimeout: o.idleTimeoutMs ?? o.timeoutMs,
      dispatcher: o.dispatcher,
    });
    watch?.answered(res.statusCode, res.headers, res.body);
    return {
      status: res.statusCode,
      headers: res.headers,
      body: res.body,
      timedOut: () => timedOut,
      keepOpen: () => clearTimeout(timer),
      release,
      abort: () => controller.abort(new Error('aborted by caller')),
    };
  } catch (e) {
    release();
    const code = (e as { code?: string }).code;
    const err = errorFromNetwork(e, o.context, {
      aborted: !timedOut && !!o.signal?.aborted,
      timedOut: timedOut || code === 'UND_ERR_HEADERS_TIMEOUT',
      timeoutMs: o.timeoutMs,
    });
    watch?.failed(err.message);
    throw err;
  }
}

/** A body read that failed (broke off, idle timeout, our timer, the caller) as a GatewayError. */
export function bodyReadError(
  e: unknown,
  a: Pick<Attempt, 'timedOut'>,
  context: ErrorContext,
  o: { signal?: AbortSignal | undefined; timeoutMs: number },
) {
  const code = (e as { code?: string }).code;
  return errorFromNetwork(e, context, {
    timedOut: a.timedOut() || code === 'UND_ERR_BODY_TIMEOUT',
    aborted: !a.timedOut() && !!o.signal?.aborted,
    timeoutMs: o.timeoutMs,
  });
}

/** Reads a body as text, at most `limit` bytes: at the cap it stops and destroys the body. */
export async function readText(body: AsyncIterable<Buffer | Uint8Array | string>, limit: number): Promise<string> {
  return (await readBytes(body, limit)).toString('utf8');
}

/** Reads a whole body as text; undefined when it is larger than `limit` bytes (the rest is then never read). */
export async function readWholeText(
  body: AsyncIterable<Buffer | Uint8Array | string>,
  limit: number,
): Promise<string | undefined> {
  const bytes = await readBytes(body, limit + 1);
  return bytes.length > limit ? undefined : bytes.toString('utf8');
}

/** Reads a body as bytes, at most `limit` bytes (then the body is destroyed, the rest never read). */
export async function readBytes(body: AsyncIterable<Buffer | Uint8Array | string>, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const b = typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk as Uint8Array);
    chunks.push(b.subarray(0, limit - size));
    size += b.length;
    if (size >= limit) {
      (body as { destroy?: () => void }).destroy?.();
      break;
    }
  }
  return Buffer.concat(chunks);
}

export function headerValue(h: Headers, name: string): string | undefined {
  const v = h[name];
  return Array.isArray(v) ? v[0] : v;
}
