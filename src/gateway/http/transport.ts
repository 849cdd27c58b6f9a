/**
 * The HTTP layer under every call: auth headers per surface, backup-domain failover, retry with
 * backoff, timeouts, an injected undici dispatcher (proxy), and one request-log record per attempt.
 * Never calls setGlobalDispatcher: the caller's dispatcher is passed to each request.
 */
import { Agent, request, type Dispatcher, type FormData } from 'undici';
import { setTimeout as delay } from 'node:timers/promises';
import { requestHeaders } from './headers';
import { DEFAULT_RETRY } from '../defaults';
import { hostOf, joinUrl, normalizeBaseUrl } from '../endpoint';
import {
  GatewayError,
  errorFromNetwork,
  errorFromResponse,
  looksLikeHtml,
  protocolError,
  requestIdFrom,
  type ErrorContext,
  type Surface,
} from '../errors/gatewayError';
import { maskToken } from '../mask';
import { retryDelayMs, shouldRetry, type RetryOptions } from './retryPolicy';
import type { RequestLogSink, RequestRecord } from '../requestLog';

export type Headers = Record<string, string | string[] | undefined>;
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

export const realSleep: Sleep = async (ms, signal) => {
  await delay(ms, undefined, signal ? { signal } : undefined);
};

export interface TransportOptions {
  baseUrl: string;
  backupUrls?: readonly string[];
  /** Read on every request, so a changed token applies to the next request at once. */
  token: () => string | undefined | Promise<string | undefined>;
  dispatcher?: Dispatcher | undefined;
  extraHeaders?: Record<string, string> | undefined;
  retry?: Partial<RetryOptions> | undefined;
  sleep?: Sleep;
  now?: () => number;
  random?: () => number;
  onRequest?: RequestLogSink;
  /** After a failover, the primary is tried again first once this long has passed. */
  primaryRecheckMs?: number;
}

export type RequestBody = string | FormData | (() => FormData | Promise<FormData>) | undefined;

export interface SendOptions {
  method: 'GET' | 'POST' | 'DELETE';
  /** API path, e.g. `/v1/chat/completions` */
  path: string;
  surface: Surface;
  capability: string;
  model?: string | undefined;
  body?: RequestBody;
  /** JSON text bodies get Content-Type: application/json */
  json?: boolean;
  accept?: string;
  stream?: boolean;
  signal?: AbortSignal | undefined;
  /** time until the response headers arrive (and, for non-streams, the whole body) */
  timeoutMs: number;
  /** longest silence between body chunks (streams and downloads) */
  idleTimeoutMs?: number;
  /** costs money or creates something: retried / failed over only when provably never sent */
  sideEffecting?: boolean;
}

export interface OpenResponse {
  status: number;
  headers: Headers;
  body: Dispatcher.ResponseData['body'];
  url: string;
  host: string;
  requestId: string | undefined;
  attempt: number;
  context: ErrorContext;
  /** Ends the request log record for this response (once). */
  finish(extra: { errorKind?: string; buffered?: boolean; status?: number }): void;
  /** Stops the underlying request (closes the connection). */
  abort(): void;
  /** true when our own timeout (not the caller) stopped the request */
  timedOut(): boolean;
}

interface HostState {
  base: string;
  host: string;
}

export class Transport {
  private hosts: HostState[] = [];
  private preferred = 0;
  private failedOverAt = 0;
  private readonly retry: RetryOptions;
  private readonly sleep: Sleep;
  private readonly now: () => number;
  private readonly random: () => number;

  constructor(private readonly opts: TransportOptions) {
    this.retry = { ...DEFAULT_RETRY, ...(opts.retry ?? {}) };
    this.sleep = opts.sleep ?? realSleep;
    this.now = opts.now ?? Date.now;
    this.random = opts.random ?? Math.random;
    this.setEndpoints(opts.baseUrl, opts.backupUrls ?? []);
  }

  /** Replaces the primary and backup bases (normalised by the endpoint rules). */
  setEndpoints(baseUrl: string, backupUrls: readonly string[]): void {
    const list: HostState[] = [];
    for (const u of [baseUrl, ...backupUrls]) {
      const n = normalizeBaseUrl(u);
      if (n.base && !list.some((h) => h.base === n.base)) list.push({ base: n.base, host: hostOf(n.base) });
    }
    this.hosts = list;
    this.preferred = 0;
    this.failedOverAt = 0;
  }

  private ownAgent: Agent | undefined;

  /**
   * The dispatcher every request uses: the caller's, else a private agent — never undici's global
   * dispatcher, which a host (VS Code's extension host) may have replaced with one from another
   * undici version that does not understand this bundle's request bodies (e.g. FormData).
   */
  get dispatcher(): Dispatcher {
    return this.opts.dispatcher ?? (this.ownAgent ??= new Agent());
  }

  setDispatcher(dispatcher: Dispatcher | undefined): void {
    this.opts.dispatcher = dispatcher;
  }

  setExtraHeaders(h: Record<string, string> | undefined): void {
    this.opts.extraHeaders = h;
  }

  /** The base currently preferred (primary, or the backup that last worked). */
  get activeBase(): string | undefined {
    return this.hosts[this.preferred]?.base;
  }

  get activeIndex(): number {
    return this.preferred;
  }

  get bases(): string[] {
    return this.hosts.map((h) => h.base);
  }

  async token(): Promise<string | undefined> {
    const t = await this.opts.token();
    return t?.trim() || undefined;
  }

  /** Sends a request, retrying and failing over as the policy allows; returns the open response (2xx only). */
  async open(o: SendOptions): Promise<OpenResponse> {
    if (this.hosts.length === 0) {
      throw new GatewayError({
        kind: 'bad_request',
        message: 'No usable base URL is configured.',
        cause: 'The base URL setting is empty or not a valid http(s) address.',
        fix: 'Set the gateway root address with "Model Relay: Configure Base URL".',
        notSent: true,
        context: { surface: o.surface, model: o.model },
      });
    }
    const token = await this.token();
    if (!token) {
      throw new GatewayError({
        kind: 'unauthorized',
        message: 'No token is set.',
        cause: 'No API token is stored for the gateway, so the request would be refused with 401.',
        fix: 'Add a token with "Model Relay: Add Token" (copy it from the gateway console; it starts with sk-).',
        notSent: true,
        context: { surface: o.surface, model: o.model },
      });
    }
    if (this.preferred !== 0 && this.now() - this.failedOverAt > (this.opts.primaryRecheckMs ?? 5 * 60_000)) this.preferred = 0;

    let attempt = 0; // retries used
    let tries = 0;
    let lastError: GatewayError | undefined;
    for (;;) {
      // One round: the preferred host, then the others in order while failover applies.
      const order = this.hosts.map((_, i) => (this.preferred + i) % this.hosts.length);
      for (let k = 0; k < order.length; k++) {
        const idx = order[k]!;
        tries++;
        try {
          const res = await this.once(o, idx, token, tries);
          if (this.preferred !== idx) {
            this.preferred = idx;
            this.failedOverAt = this.now();
          }
          return res;
        } catch (e) {
          const err = e as GatewayError;
          err.attempts = tries;
          lastError = err;
          if (err.kind === 'aborted') throw err;
          const failover =
            k < order.length - 1 &&
            (o.sideEffecting ? err.kind === 'network' && err.notSent : err.kind === 'network' || (err.kind === 'server_error' && (err.status === 502 || err.status === 503 || err.status === 504)));
          if (failover) continue;
          break;
        }
      }
      const err = lastError!;
      if (!shouldRetry(err, attempt, this.retry, o.sideEffecting)) throw err;
      const wait = retryDelayMs(attempt, err.retryAfterMs, this.retry, this.random);
      attempt++;
      try {
        await this.sleep(wait, o.signal);
      } catch {
        throw errorFromNetwork(new Error('aborted'), { url: err.url, surface: o.surface, model: o.model, token }, { aborted: true });
      }
    }
  }

  private async once(o: SendOptions, idx: number, token: string, tryNo: number): Promise<OpenResponse> {
    const host = this.hosts[idx]!;
    const url = joinUrl(host.base, o.path);
    const context: ErrorContext = { surface: o.surface, method: o.method, url, model: o.model, token };
    const started = this.now();
    const controller = new AbortController();
    let timedOut = false;
    const onCallerAbort = () => controller.abort(o.signal?.reason);
    if (o.signal) {
      if (o.signal.aborted) throw errorFromNetwork(o.signal.reason, context, { aborted: true });
      o.signal.addEventListener('abort', onCallerAbort, { once: true });
    }
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new Error('timeout'));
    }, o.timeoutMs);
    const cleanup = () => {
      clearTimeout(timer);
      o.signal?.removeEventListener('abort', onCallerAbort);
    };
    let finished = false;
    const record = (status: number | undefined, requestId: string | undefined, extra: { errorKind?: string | undefined; buffered?: boolean | undefined }) => {
      if (finished) return;
      finished = true;
      const r: RequestRecord = {
        time: new Date(started).toISOString(),
        surface: o.surface,
        capability: o.capability,
        host: host.host,
        method: o.method,
        path: o.path,
        model: o.model,
        status,
        errorKind: extra.errorKind,
        durationMs: Math.max(0, this.now() - started),
        maskedToken: maskToken(token),
        requestId,
        attempt: tryNo,
        stream: !!o.stream,
      };
      if (extra.buffered !== undefined) r.buffered = extra.buffered;
      try {
        this.opts.onRequest?.(r);
      } catch {
        /* a broken sink must not break requests */
      }
    };

    let res: Dispatcher.ResponseData;
    try {
      const body = typeof o.body === 'function' ? await o.body() : o.body;
      res = await request(url, {
        method: o.method,
        headers: requestHeaders({ surface: o.surface, token, accept: o.accept ?? (o.stream ? 'text/event-stream' : 'application/json'), json: o.json, extraHeaders: this.opts.extraHeaders }),
        body: body as Dispatcher.RequestOptions['body'],
        signal: controller.signal,
        headersTimeout: o.timeoutMs,
        bodyTimeout: o.idleTimeoutMs ?? o.timeoutMs,
        dispatcher: this.dispatcher,
      });
    } catch (e) {
      cleanup();
      const code = (e as { code?: string }).code;
      const err = errorFromNetwork(e, context, {
        aborted: !timedOut && !!o.signal?.aborted,
        timedOut: timedOut || code === 'UND_ERR_HEADERS_TIMEOUT',
        timeoutMs: o.timeoutMs,
      });
      err.host = host.host;
      record(undefined, undefined, { errorKind: err.kind });
      throw err;
    }
    const requestId = requestIdFrom(res.headers);
    if (res.statusCode < 200 || res.statusCode >= 300) {
      let text = '';
      try {
        text = await readText(res.body, 256 * 1024);
      } catch {
        /* body broke off: classify by status alone */
      }
      cleanup();
      const err = errorFromResponse({ status: res.statusCode, headers: res.headers, body: text, context, now: this.now() });
      err.host = host.host;
      record(res.statusCode, err.requestId ?? requestId, { errorKind: err.kind });
      throw err;
    }
    if (!o.stream) {
      // Non-streamed: the overall timer stays armed until the caller has read the body; it is
      // cleared by finish().
    } else {
      // Streams: only the idle timeout (bodyTimeout) applies from here on.
      clearTimeout(timer);
    }
    return {
      status: res.statusCode,
      headers: res.headers,
      body: res.body,
      url,
      host: host.host,
      requestId,
      attempt: tryNo,
      context,
      finish: (extra) => {
        cleanup();
        record(extra.status ?? res.statusCode, requestId, extra);
      },
      abort: () => {
        controller.abort(new Error('aborted by caller'));
      },
      timedOut: () => timedOut,
    };
  }

  /** Sends and reads a JSON answer; validates HTML / invalid JSON. */
  async json(o: SendOptions): Promise<{ data: unknown; res: OpenResponse }> {
    const res = await this.open(o);
    let text: string;
    try {
      text = await readText(res.body, 64 * 1024 * 1024);
    } catch (e) {
      const code = (e as { code?: string }).code;
      const err = errorFromNetwork(e, res.context, { timedOut: res.timedOut() || code === 'UND_ERR_BODY_TIMEOUT', aborted: !res.timedOut() && !!o.signal?.aborted, timeoutMs: o.timeoutMs });
      err.host = res.host;
      res.finish({ errorKind: err.kind });
      throw err;
    }
    const ct = headerValue(res.headers, 'content-type');
    if (looksLikeHtml(text, ct)) {
      const err = errorFromResponse({ status: res.status, headers: res.headers, body: text, context: res.context });
      err.host = res.host;
      res.finish({ errorKind: err.kind });
      throw err;
    }
    try {
      const data = JSON.parse(text) as unknown;
      res.finish({});
      return { data, res };
    } catch {
      const err = protocolError('invalid_json', `${o.method} ${o.path}`, res.context, { status: res.status, ...(res.requestId ? { requestId: res.requestId } : {}) });
      err.host = res.host;
      res.finish({ errorKind: err.kind });
      throw err;
    }
  }
}

export function headerValue(h: Headers, name: string): string | undefined {
  const v = h[name];
  return Array.isArray(v) ? v[0] : v;
}

/** Reads a body as text, up to `limit` bytes (the rest is discarded). */
export async function readText(body: AsyncIterable<Buffer | Uint8Array | string>, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const b = typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk as Uint8Array);
    if (size < limit) chunks.push(b.subarray(0, limit - size));
    size += b.length;
  }
  return Buffer.concat(chunks).toString('utf8');
}
