/**
 * The HTTP layer under every call: backup-domain failover, retry with backoff — for a request that
 * may be billed only as the one rule of retryPolicy.ts allows — and one request-log record per attempt. Sending itself (headers per surface, timers, abort, bounded reads) is
 * attempt.ts's; this file decides where to send and whether to try again.
 * Never calls setGlobalDispatcher: the caller's dispatcher is passed to each request.
 */
import type { Dispatcher, FormData } from 'undici';
import { setTimeout as delay } from 'node:timers/promises';
import { DEFAULT_RETRY } from '../defaults';
import { hostOf, joinUrl, normalizeBaseUrl, verbatimBaseUrl } from '../endpoint';
import { looksLikeHtml, requestIdFrom } from '../errors/errorBody';
import {
  bodyTooLargeError,
  invalidHeadersError,
  noBaseUrlError,
  noTokenError,
  protocolError,
  requestNotBuiltError,
} from '../errors/factories';
import { errorFromNetwork } from '../errors/fromNetwork';
import { errorFromResponse } from '../errors/fromResponse';
import {
  isGatewayError,
  type ErrorContext,
  type ErrorKind,
  type GatewayError,
  type Surface,
} from '../errors/gatewayError';
import { t } from '../l10n';
import type { Capability } from '../models';
import {
  recordAttempt,
  usageOfBody,
  type LocalCount,
  type RecordEnd,
  type RequestLogSink,
  type RequestPurpose,
  type TokenUsage,
} from '../requestLog';
import {
  bodyReadError,
  headerValue,
  readText,
  readWholeText,
  sendOnce,
  type Headers,
  type ResponseBody,
  type SendBody,
} from './attempt';
import { noteAnswered, noteSend } from './action';
import { CredentialScope, type Credential } from './egress';
import { credentialScheme, headerProblems, requestHeaders } from './headers';
import {
  costOf,
  deliveryOf,
  failsOver,
  retryDelayMs,
  shouldRetry,
  type Cost,
  type RetryNotice,
  type RetryOptions,
} from './retryPolicy';
import { preconnect } from './spareConnection';
import { trustingAgent } from './trust';

export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;
export const realSleep: Sleep = (ms, signal) => delay(ms, undefined, signal ? { signal } : undefined);

/** How much of an error body is read to classify it (the rest is never read). */
const ERROR_BODY_LIMIT = 256 * 1024;
/** The largest JSON answer accepted. */
const JSON_BODY_LIMIT = 64 * 1024 * 1024;

export interface TransportOptions {
  /** the gateway's name, in a refusal to send its token elsewhere */
  gatewayName?: string | undefined;
  baseUrl: string;
  backupUrls?: readonly string[];
  /** The primary base URL is called as given (`verbatimBaseUrl`: "Keep what I typed"), not normalised. */
  baseUrlVerbatim?: boolean | undefined;
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
  /** Hears every retry of every request that has no `onRetry` of its own (e.g. a command-line progress line). */
  onRetry?: ((notice: RetryNotice) => void) | undefined;
  /** Puts a final error in the gateway's terms (a bare 401 explained as expired, exhausted or disabled). */
  explain?: ((err: GatewayError, token: string) => Promise<GatewayError>) | undefined;
}

/** A JSON text or its UTF-8 bytes (`json: true`), a form, or a form built per attempt. */
export type RequestBody = string | Uint8Array | FormData | (() => FormData | Promise<FormData>) | undefined;

export interface SendOptions {
  method: 'GET' | 'POST' | 'DELETE';
  /** API path, e.g. `/v1/chat/completions` */
  path: string;
  surface: Surface;
  capability: Capability | 'models' | 'account';
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
  /** the whole request, a stream's body included, must end within this */
  deadlineMs?: number;
  /**
   * Billed per call (an image, a video, a completion): retried or moved to a backup only when it was
   * provably never sent (or refused with a 429). Any POST may be billed and is re-sent only as the rule
   * of retryPolicy.ts allows (`costOf`).
   */
  sideEffecting?: boolean;
  /** never retried: a rate-limited account endpoint's budget is small */
  noRetry?: boolean;
  /**
   * The token goes in the query (`?key=…`, an older gateway's read-only route) instead of a header. The
   * query is on the wire only: the request log, error contexts and messages see the path without it.
   */
  tokenInQuery?: boolean;
  /** the largest JSON answer `json()` accepts (default 64 MB) */
  maxBytes?: number;
  /** Called where the transport waits before a retry (never for an error it does not retry). */
  onRetry?: ((notice: RetryNotice) => void) | undefined;
  /** what the request is for, in its request-log record (e.g. 'completion') */
  purpose?: RequestPurpose | undefined;
  /** counts the input sent for the record of an attempt that was answered (a chat's, for its receipt) */
  countInput?: (() => Promise<LocalCount | undefined>) | undefined;
}

export interface OpenResponse {
  status: number;
  headers: Headers;
  body: ResponseBody;
  url: string;
  host: string;
  requestId: string | undefined;
  attempt: number;
  context: ErrorContext;
  /** Ends the request log record for this response (once). */
  finish(extra: { errorKind?: ErrorKind; buffered?: boolean; status?: number; usage?: TokenUsage | undefined }): void;
  /** Stops the underlying request (closes the connection). */
  abort: () => void;
  /** true when our own timeout (not the caller) stopped the request */
  timedOut: () => boolean;
}

interface HostState {
  base: string;
  host: string;
  /** "the base URL of production" / "backup domain 2 of production", named in a refusal */
  from: string;
}

/** The body to send, built here if it is a factory; a failure to build it never left the machine (not sent, not billed). */
async function builtBody(body: RequestBody, context: ErrorContext): Promise<SendBody> {
  try {
    return typeof body === 'function' ? await body() : body;
  } catch (e) {
    throw requestNotBuiltError(e, context);
  }
}

export class Transport {
  private hosts: HostState[] = [];
  /** where this gateway's credentials may go: exactly its configured bases (egress.ts) */
  private scope = new CredentialScope('', []);
  private preferred = 0;
  private failedOverAt = 0;
  private retry: RetryOptions;
  private readonly sleep: Sleep;
  private readonly now: () => number;
  private readonly random: () => number;
  private ownAgent: Dispatcher | undefined;
  /** records waiting for their local count (each written within COUNT_WAIT_MS) */
  private readonly writing = new Set<Promise<void>>();

  constructor(private readonly opts: TransportOptions) {
    this.retry = { ...DEFAULT_RETRY, ...(opts.retry ?? {}) };
    this.sleep = opts.sleep ?? realSleep;
    this.now = opts.now ?? Date.now;
    this.random = opts.random ?? Math.random;
    this.setEndpoints(opts.baseUrl, opts.backupUrls ?? [], opts.baseUrlVerbatim);
  }

  /** Resolves once every request record started so far is written (a record may wait for its local count). */
  async recordsWritten(): Promise<void> {
    await Promise.all([...this.writing]);
  }

  /** Replaces the primary and backup bases (normalised by the endpoint rules; the primary kept as given when `verbatim`). */
  setEndpoints(baseUrl: string, backupUrls: readonly string[], verbatim = false): void {
    const list: HostState[] = [];
    const name = this.opts.gatewayName || t('the gateway');
    for (const [i, u] of [baseUrl, ...backupUrls].entries()) {
      const base = (i === 0 && verbatim && verbatimBaseUrl(u)) || normalizeBaseUrl(u).base;
      const from = i === 0 ? t('the base URL of {0}', name) : t('backup domain {0} of {1}', String(i), name);
      if (base && !list.some((h) => h.base === base)) list.push({ base, host: hostOf(base), from });
    }
    this.hosts = list;
    this.scope = new CredentialScope(
      name,
      list.map((h) => h.base),
    );
    this.preferred = 0;
    this.failedOverAt = 0;
  }

  /**
   * The dispatcher every request uses: the caller's, else a private agent — never undici's global
   * dispatcher, which a host (VS Code's extension host) may have replaced with one from another
   * undici version that does not understand this bundle's request bodies (e.g. FormData).
   */
  get dispatcher(): Dispatcher {
    return this.opts.dispatcher ?? (this.ownAgent ??= trustingAgent());
  }

  setDispatcher(dispatcher: Dispatcher | undefined): void {
    this.opts.dispatcher = dispatcher;
  }

  /** Changes the retry policy for the next requests. */
  setRetry(r: Partial<RetryOptions>): void {
    this.retry = { ...this.retry, ...r };
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

  /** The origins this gateway's credentials may go to (its configured bases): what a probe of another program is checked against. */
  get credentialScope(): CredentialScope {
    return this.scope;
  }

  /**
   * Opens a spare connection to the preferred base, for a request about to come (spareConnection.ts):
   * only to one of this gateway's own origins (nothing is sent on it; the handshake names the host).
   */
  preconnect(): void {
    const base = this.activeBase;
    if (base && this.scope.allows(base)) preconnect(this.dispatcher, base);
  }

  async token(): Promise<string | undefined> {
    const t = await this.opts.token();
    return t?.trim() || undefined;
  }

  /** Sends a request, retrying and failing over as the policy allows; returns the open response (2xx only). */
  async open(o: SendOptions): Promise<OpenResponse> {
    if (this.hosts.length === 0) throw noBaseUrlError({ surface: o.surface, model: o.model });
    const badHeaders = headerProblems(this.opts.extraHeaders);
    if (badHeaders.length) throw invalidHeadersError(badHeaders, { surface: o.surface, model: o.model });
    const token = await this.token();
    if (!token) throw noTokenError({ surface: o.surface, model: o.model });
    if (this.preferred !== 0 && this.now() - this.failedOverAt > (this.opts.primaryRecheckMs ?? 5 * 60_000))
      this.preferred = 0;
    const tries = { n: 0 };
    const cost = costOf(o);
    for (let retries = 0; ; retries++) {
      const round = await this.round(o, token, tries, cost);
      if (!('error' in round)) return round.res;
      const err = round.error;
      if (o.noRetry || !shouldRetry(err, retries, this.retry, cost)) {
        // The end of the request: one that may have been billed says so (and was sent no further).
        if (cost !== 'free' && deliveryOf(err) === 'may_be_billed') err.mayHaveBeenBilled = true;
        throw o.capability === 'account' || !this.opts.explain
          ? err
          : await this.opts.explain(err, token).catch(() => err);
      }
      const delayMs = retryDelayMs(retries, err.retryAfterMs, this.retry, this.random);
      try {
        (o.onRetry ?? this.opts.onRetry)?.({
          attempt: retries + 1,
          maxRetries: this.retry.maxRetries,
          delayMs,
          error: err,
        });
      } catch {
        /* a broken listener must not break the request */
      }
      try {
        await this.sleep(delayMs, o.signal);
      } catch {
        throw errorFromNetwork(
          new Error('aborted'),
          { url: err.url, surface: o.surface, model: o.model, token },
          { aborted: true },
        );
      }
    }
  }

  /** One round: the preferred host, then the others in order while failover applies (`failsOver`: the rule for what may be billed). */
  private async round(
    o: SendOptions,
    token: string,
    tries: { n: number },
    cost: Cost,
  ): Promise<{ res: OpenResponse } | { error: GatewayError }> {
    const order = this.hosts.map((_, i) => (this.preferred + i) % this.hosts.length);
    let last: GatewayError | undefined;
    for (let k = 0; k < order.length; k++) {
      const idx = order[k];
      try {
        const res = await this.once(o, idx, token, ++tries.n);
        if (this.preferred !== idx) {
          this.preferred = idx;
          this.failedOverAt = this.now();
        }
        return { res };
      } catch (e) {
        last = e as GatewayError;
        last.attempts = tries.n;
        if (last.kind === 'aborted') throw last;
        if (k < order.length - 1 && failsOver(last, cost)) continue;
        break;
      }
    }
    return { error: last! };
  }

  /** This gateway's token and extra headers, for the gate to attach at one of its origins. */
  private credential(token: string, o: SendOptions): Credential {
    return {
      secret: token,
      scheme: credentialScheme(o.surface, o.tokenInQuery),
      scope: this.scope,
      headers: this.opts.extraHeaders,
    };
  }

  /** The record of one attempt; one that waits for its local count is tracked until written (`recordsWritten`). */
  private recordOf(o: SendOptions, host: string, token: string, tryNo: number): RecordEnd {
    return recordAttempt(
      this.opts.onRequest,
      {
        surface: o.surface,
        capability: o.capability,
        host,
        method: o.method,
        path: o.path,
        model: o.model,
        token,
        attempt: tryNo,
        stream: !!o.stream,
        purpose: o.purpose,
      },
      this.now,
      (writing) => {
        this.writing.add(writing);
        void writing.finally(() => this.writing.delete(writing));
      },
    );
  }

  private async once(o: SendOptions, idx: number, token: string, tryNo: number): Promise<OpenResponse> {
    const host = this.hosts[idx];
    const url = joinUrl(host.base, o.path);
    const context: ErrorContext = { surface: o.surface, method: o.method, url, model: o.model, token };
    const record = this.recordOf(o, host.host, token, tryNo);
    const headers = requestHeaders({
      surface: o.surface,
      accept: o.accept ?? (o.stream ? 'text/event-stream' : 'application/json'),
      json: o.json,
    });
    if (o.signal?.aborted) throw errorFromNetwork(o.signal.reason, context, { aborted: true });
    // No answer (the body could not be built, or the request failed on the way): recorded, then thrown.
    const failed = (err: GatewayError): never => {
      err.host = host.host;
      record(undefined, undefined, { errorKind: err.kind });
      throw err;
    };
    const body = await builtBody(o.body, context).catch(failed);
    noteSend(o.method); // a work request (a POST: billed) counts against its user action's cap
    const a = await sendOnce({
      url,
      method: o.method,
      headers,
      body,
      credential: this.credential(token, o),
      addressFrom: host.from,
      dispatcher: this.dispatcher,
      signal: o.signal,
      timeoutMs: o.timeoutMs,
      idleTimeoutMs: o.idleTimeoutMs,
      deadlineMs: o.deadlineMs,
      context,
    }).catch((e: unknown) => failed(isGatewayError(e) ? e : errorFromNetwork(e, context)));
    const requestId = requestIdFrom(a.headers);
    if (a.status < 200 || a.status >= 300) {
      const text = await readText(a.body, ERROR_BODY_LIMIT).catch(() => ''); // broke off: classify by status alone
      a.release();
      const err = errorFromResponse({ status: a.status, headers: a.headers, body: text, context, now: this.now() });
      err.host = host.host;
      record(a.status, err.requestId ?? requestId, { errorKind: err.kind });
      throw err;
    }
    // The reply began: it may be billed, and its user action is never moved elsewhere (failover.ts).
    noteAnswered(o.method);
    // Non-streamed: the overall timer stays armed until the caller has read the body (finish()).
    // Streams: only the idle timeout applies from here on.
    if (o.stream) a.keepOpen();
    const status = a.status;
    return {
      status,
      headers: a.headers,
      body: a.body,
      url,
      host: host.host,
      requestId,
      attempt: tryNo,
      context,
      finish: (extra) => {
        a.release();
        // The reply began, so the call may be billed: its record carries a count of what was sent, made now.
        record(extra.status ?? status, requestId, o.countInput ? { ...extra, localInput: o.countInput() } : extra);
      },
      abort: a.abort,
      timedOut: a.timedOut,
    };
  }

  /** Sends and reads a JSON answer; validates HTML / invalid JSON. */
  async json(o: SendOptions): Promise<{ data: unknown; res: OpenResponse }> {
    const res = await this.open(o);
    const fail = (err: GatewayError): never => {
      err.host = res.host;
      // The gateway answered 2xx: a call that may be billed did its work, whatever became of the body
      // (a web page answered 200 ran nothing).
      if (costOf(o) !== 'free' && deliveryOf(err) === 'may_be_billed') err.mayHaveBeenBilled = true;
      res.finish({ errorKind: err.kind });
      throw err;
    };
    const rid = { status: res.status, ...(res.requestId ? { requestId: res.requestId } : {}) };
    let text: string | undefined = '';
    try {
      text = await readWholeText(res.body, o.maxBytes ?? JSON_BODY_LIMIT);
    } catch (e) {
      fail(bodyReadError(e, res, res.context, o));
    }
    if (text === undefined)
      return fail(bodyTooLargeError(o.maxBytes ?? JSON_BODY_LIMIT, `${o.method} ${o.path}`, res.context, rid));
    if (looksLikeHtml(text, headerValue(res.headers, 'content-type')))
      fail(errorFromResponse({ status: res.status, headers: res.headers, body: text, context: res.context }));
    let data: unknown;
    try {
      data = JSON.parse(text) as unknown;
    } catch {
      fail(protocolError('invalid_json', `${o.method} ${o.path}`, res.context, rid));
    }
    res.finish({ usage: usageOfBody(data) });
    return { data, res };
  }
}
