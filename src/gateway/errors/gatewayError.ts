/**
 * One error type for everything the gateway (or the way to it) can do wrong, built by one factory.
 * Each carries a `kind` (spec section 7 rows plus transport kinds), the HTTP status, the gateway's
 * own message, the request id, and a `cause` and `fix` sentence in the spec's terms.
 */
import { maskToken, redactSecrets } from '../mask';

export type ErrorKind =
  | 'bad_request' // 400 (and other unlisted 4xx)
  | 'unauthorized' // 401
  | 'forbidden' // 403, and new-api's 503 model_not_found
  | 'not_found' // 404
  | 'payload_too_large' // 413
  | 'rate_limited' // 429
  | 'server_error' // 5xx
  | 'network' // DNS, refused, reset, TLS
  | 'timeout' // our own time limit
  | 'protocol' // HTML page, invalid JSON, unexpected shape
  | 'stream_interrupted' // a stream broke off, or carried an error event
  | 'aborted'; // the caller cancelled

export type Surface = 'compatible' | 'native';

export type ErrorDetail =
  | 'model_not_found_503'
  | 'html_page'
  | 'invalid_json'
  | 'unexpected_shape'
  | 'empty_choices'
  | 'double_v1'
  | 'capability_mismatch'
  | 'stream_error_event'
  | 'stream_truncated'
  | 'idle_timeout'
  | 'missing_native_version'
  | 'insufficient_quota'
  | 'task_not_found'
  | 'content_not_ready'
  | 'content_expired';

export interface ErrorContext {
  surface?: Surface | undefined;
  method?: string | undefined;
  /** Full URL that was called (never contains a token). */
  url?: string | undefined;
  model?: string | undefined;
  token?: string | undefined;
  capability?: string | undefined;
}

export interface GatewayErrorInit {
  kind: ErrorKind;
  message: string;
  cause: string;
  fix: string;
  status?: number | undefined;
  gatewayMessage?: string | undefined;
  gatewayType?: string | undefined;
  gatewayCode?: string | undefined;
  requestId?: string | undefined;
  detail?: ErrorDetail | undefined;
  retryAfterMs?: number | undefined;
  context?: ErrorContext;
  original?: unknown;
  /** true when the request provably never reached the server (connection refused / DNS) */
  notSent?: boolean;
}

export class GatewayError extends Error {
  override readonly name = 'GatewayError';
  readonly kind: ErrorKind;
  readonly status: number | undefined;
  readonly gatewayMessage: string | undefined;
  readonly gatewayType: string | undefined;
  readonly gatewayCode: string | undefined;
  readonly requestId: string | undefined;
  readonly detail: ErrorDetail | undefined;
  /** One sentence: why this happened, in the spec's terms. */
  override readonly cause: string;
  /** One sentence: what to change. */
  readonly fix: string;
  readonly retryAfterMs: number | undefined;
  readonly surface: Surface | undefined;
  readonly url: string | undefined;
  readonly model: string | undefined;
  /** Masked token, e.g. `sk-abc...wxyz`. */
  readonly maskedToken: string | undefined;
  readonly notSent: boolean;
  /** The host that answered (or failed), set by the transport. */
  host: string | undefined;
  /** How many attempts were made in total. */
  attempts = 1;
  readonly original: unknown;

  constructor(init: GatewayErrorInit) {
    const token = init.context?.token;
    const clean = (s: string | undefined) => (s === undefined ? undefined : redactSecrets(s, [token]));
    super(clean(init.message)!);
    this.kind = init.kind;
    this.status = init.status;
    this.gatewayMessage = clean(init.gatewayMessage);
    this.gatewayType = init.gatewayType;
    this.gatewayCode = init.gatewayCode;
    this.requestId = init.requestId;
    this.detail = init.detail;
    this.cause = clean(init.cause)!;
    this.fix = clean(init.fix)!;
    this.retryAfterMs = init.retryAfterMs;
    this.surface = init.context?.surface;
    this.url = init.context?.url;
    this.model = init.context?.model;
    this.maskedToken = token ? maskToken(token) : undefined;
    this.notSent = init.notSent ?? false;
    this.host = undefined;
    // Keep the underlying error for debugging, but never let it carry a token.
    this.original = init.original instanceof Error ? sanitizeOriginal(init.original, token) : undefined;
  }

  /** A plain object safe to log or post to a webview. */
  toJSON(): Record<string, unknown> {
    return {
      kind: this.kind,
      status: this.status,
      message: this.message,
      cause: this.cause,
      fix: this.fix,
      gatewayMessage: this.gatewayMessage,
      gatewayCode: this.gatewayCode,
      gatewayType: this.gatewayType,
      requestId: this.requestId,
      detail: this.detail,
      surface: this.surface,
      url: this.url,
      host: this.host,
      model: this.model,
      maskedToken: this.maskedToken,
      attempts: this.attempts,
      retryAfterMs: this.retryAfterMs,
    };
  }
}

function sanitizeOriginal(e: Error, token: string | undefined): Error {
  const copy = new Error(redactSecrets(e.message, [token]));
  copy.name = e.name;
  const code = (e as { code?: unknown }).code;
  if (code !== undefined) (copy as { code?: unknown }).code = code;
  return copy;
}

export function isGatewayError(e: unknown): e is GatewayError {
  return e instanceof GatewayError;
}

// ---------------------------------------------------------------------------------------------
// Parsing error bodies

export interface ParsedErrorBody {
  message?: string | undefined;
  type?: string | undefined;
  code?: string | undefined;
  html: boolean;
  title?: string | undefined;
}

export function looksLikeHtml(body: string, contentType?: string | null): boolean {
  if (contentType && /text\/html|application\/xhtml/i.test(contentType)) return true;
  const head = body.slice(0, 512).trimStart().toLowerCase();
  return head.startsWith('<!doctype html') || head.startsWith('<html') || head.startsWith('<head') || head.startsWith('<body');
}

/** Reads OpenAI-style, Anthropic-style, new-api task-style, HTML and plain-text error bodies. */
export function parseErrorBody(body: string, contentType?: string | null): ParsedErrorBody {
  if (looksLikeHtml(body, contentType)) {
    const title = /<title[^>]*>([^<]{0,200})<\/title>/i.exec(body)?.[1]?.trim();
    return { html: true, title };
  }
  const trimmed = body.trim();
  if (!trimmed) return { html: false };
  try {
    const j = JSON.parse(trimmed) as unknown;
    if (j && typeof j === 'object') {
      const o = j as Record<string, unknown>;
      const err = o.error;
      if (err && typeof err === 'object') {
        const e = err as Record<string, unknown>;
        return {
          html: false,
          message: str(e.message),
          type: str(e.type),
          code: str(e.code) ?? (typeof e.code === 'number' ? String(e.code) : undefined),
        };
      }
      if (typeof err === 'string') return { html: false, message: err, type: str(o.type), code: str(o.code) };
      if (typeof o.message === 'string' || typeof o.code === 'string') {
        return { html: false, message: str(o.message), code: str(o.code), type: str(o.type) };
      }
    }
  } catch {
    /* not JSON: plain text */
  }
  return { html: false, message: trimmed.slice(0, 500) };
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v.length > 0 ? v : undefined;
}

const REQUEST_ID_SUFFIX = /\s*\(request id: ([^)]+)\)\s*$/i;

/** Request id from headers (new-api, Anthropic, OpenAI) or the message suffix `(request id: …)`. */
export function requestIdFrom(headers: Record<string, string | string[] | undefined>, message?: string): string | undefined {
  for (const h of ['x-oneapi-request-id', 'request-id', 'x-request-id']) {
    const v = headers[h];
    if (typeof v === 'string' && v) return v;
    if (Array.isArray(v) && v[0]) return v[0];
  }
  const m = message ? REQUEST_ID_SUFFIX.exec(message) : null;
  return m?.[1];
}

/** Parses `retry-after-ms`, then `retry-after` (seconds or HTTP date). Returns ms or undefined. */
export function retryAfterFrom(headers: Record<string, string | string[] | undefined>, now: number = Date.now()): number | undefined {
  const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);
  const ms = first(headers['retry-after-ms']);
  if (ms !== undefined && ms.trim() !== '') {
    const n = Number(ms);
    if (Number.isFinite(n) && n >= 0) return n;
  }
  const ra = first(headers['retry-after']);
  if (ra !== undefined && ra.trim() !== '') {
    const n = Number(ra);
    if (Number.isFinite(n) && n >= 0) return n * 1000;
    const d = Date.parse(ra);
    if (!Number.isNaN(d)) return Math.max(0, d - now);
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// The factory

export interface HttpErrorInput {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  context: ErrorContext;
  now?: number;
}

function pathOf(url: string | undefined): string {
  if (!url) return '';
  try {
    return new URL(url).pathname;
  } catch {
    return url;
  }
}

/** Builds the classified error for a non-success HTTP answer (or an HTML page answered with 200). */
export function errorFromResponse(input: HttpErrorInput): GatewayError {
  const { status, headers, body, context } = input;
  const ct = first(headers['content-type']);
  const parsed = parseErrorBody(body, ct);
  const requestId = requestIdFrom(headers, parsed.message);
  const gatewayMessage = parsed.message?.replace(REQUEST_ID_SUFFIX, '') || undefined;
  const retryAfterMs = retryAfterFrom(headers, input.now);
  const path = pathOf(context.url);
  const model = context.model ? `"${context.model}"` : 'this model';
  const base = { status, gatewayMessage, gatewayType: parsed.type, gatewayCode: parsed.code, requestId, retryAfterMs, context };
  const quoted = gatewayMessage ? ` The gateway said: "${gatewayMessage}".` : '';

  if (parsed.html) {
    if (status >= 500) {
      return new GatewayError({
        ...base,
        kind: 'server_error',
        detail: 'html_page',
        message: `HTTP ${status}: an HTML error page came back from ${path || 'the gateway'}${parsed.title ? ` ("${parsed.title}")` : ''}.`,
        cause: 'A proxy or CDN in front of the gateway answered with its own error page: a temporary service or upstream fault.',
        fix: 'Retry with backoff after about 1 to 2 minutes; if it persists, try a backup domain or report it to the gateway operator.',
      });
    }
    return new GatewayError({
      ...base,
      kind: 'protocol',
      detail: 'html_page',
      message: `You reached the gateway's web page, not its API (HTTP ${status} HTML${parsed.title ? ` "${parsed.title}"` : ''} from ${context.url ?? path}).`,
      cause: "The URL that was called serves the gateway's web console (or another web page), not the API — the base URL or path is wrong.",
      fix: 'Check the base URL: it must be the root address of the gateway (e.g. https://gateway.example.com), without /v1 and without a console path.',
    });
  }

  if (status === 503 && parsed.code === 'model_not_found') {
    return new GatewayError({
      ...base,
      kind: 'forbidden',
      detail: 'model_not_found_503',
      message: `HTTP 503 model_not_found: the token's group cannot use ${model}.${quoted}`,
      cause: `The token's group cannot use ${model} (the gateway reports it as 503 "model_not_found"/"no available channel"; this is not a temporary fault, retrying will not help).`,
      fix: 'Pick a model visible to this token (GET /v1/models), or use a token from a group that allows this model (ask the gateway operator).',
    });
  }

  switch (true) {
    case status === 400: {
      const nativeVersion = /native-version|anthropic-version/i.test(gatewayMessage ?? '');
      const capability = /does not support|not support|capabilit|not an? (image|video|chat)/i.test(gatewayMessage ?? '');
      return new GatewayError({
        ...base,
        kind: 'bad_request',
        detail: nativeVersion ? 'missing_native_version' : capability ? 'capability_mismatch' : parsed.code === 'task_not_exist' ? 'task_not_found' : undefined,
        message: `HTTP 400 bad request.${quoted}`,
        cause: nativeVersion
          ? 'The native messages surface requires the native-version header (2023-06-01).'
          : capability
            ? `The model ${model} does not support this capability: each capability (chat, image, image edit, video) needs a model of that capability.`
            : 'The request parameters are invalid: invalid JSON, a missing required field, bad model parameters, or a context that is too long.',
        fix: nativeVersion
          ? 'Send native-version: 2023-06-01 (and anthropic-version) on /v1/messages.'
          : capability
            ? 'Choose a model of the right capability for this call (see the model list).'
            : 'Check the model parameters and shorten the conversation if it is long.',
      });
    }
    case status === 401:
      return new GatewayError({
        ...base,
        kind: 'unauthorized',
        message: `HTTP 401 invalid token.${quoted}`,
        cause:
          context.surface === 'native'
            ? 'The token is missing, copied wrongly, disabled, or not sent as the x-api-key header.'
            : 'The token is missing, copied wrongly, disabled, or not sent as "Authorization: Bearer <token>".',
        fix: 'Copy the token again from the gateway console (it starts with sk-) and store it with "Model Relay: Add Token"; if it was disabled, create a new one.',
      });
    case status === 403: {
      const quota = /quota|额度/i.test(`${parsed.code ?? ''} ${gatewayMessage ?? ''}`);
      return new GatewayError({
        ...base,
        kind: 'forbidden',
        detail: quota ? 'insufficient_quota' : undefined,
        message: `HTTP 403 no access.${quoted}`,
        cause: quota
          ? 'The account or token has no quota left for this request.'
          : `The token's group cannot use ${model} — the message may read "model not found". Listing a model does not prove generation works.`,
        fix: quota
          ? 'Top up the account or raise the token quota in the gateway console.'
          : "Use a model id from this token's group (GET /v1/models), check the model's capability, or use a token from a group that allows it.",
      });
    }
    case status === 404: {
      const doubleV1 = path.includes('/v1/v1/');
      const modelish = /model/i.test(gatewayMessage ?? '') || parsed.code === 'model_not_found';
      return new GatewayError({
        ...base,
        kind: 'not_found',
        detail: doubleV1 ? 'double_v1' : undefined,
        message: `HTTP 404 not found: ${path || 'the path'}.${quoted}`,
        cause: doubleV1
          ? `The request went to ${path}: the base URL carries an extra /v1, and the client appends /v1/... itself.`
          : modelish
            ? `The model id ${model} does not exist (or is not visible to this token's group).`
            : 'The path or the model does not exist: the base URL may carry an extra /v1, or the model id is wrong.',
        fix: doubleV1
          ? 'Set the base URL to the root address, without /v1 (e.g. https://gateway.example.com).'
          : modelish
            ? 'Copy the model id from GET /v1/models or the gateway model catalogue.'
            : 'Check that the base URL is the root address (no /v1) and that the model id is copied from the model list.',
      });
    }
    case status === 413:
      return new GatewayError({
        ...base,
        kind: 'payload_too_large',
        message: `HTTP 413 request body too large.${quoted}`,
        cause: 'The request body is larger than the gateway accepts.',
        fix: 'Shorten the context, or reduce the image or file size.',
      });
    case status === 429:
      return new GatewayError({
        ...base,
        kind: 'rate_limited',
        message: `HTTP 429 rate limited.${quoted}`,
        cause: 'Too many requests for this token or model in a short time (rate limited).',
        fix: 'Lower concurrency and retry with exponential backoff.',
      });
    case status >= 500:
      return new GatewayError({
        ...base,
        kind: 'server_error',
        message: `HTTP ${status} service or upstream fault.${quoted}`,
        cause: 'A temporary fault in the gateway or its upstream provider.',
        fix: 'Retry with backoff after about 1 to 2 minutes; if the fault persists, report it with the request id.',
      });
    default:
      return new GatewayError({
        ...base,
        kind: 'bad_request',
        message: `HTTP ${status}.${quoted}`,
        cause: 'The gateway refused the request.',
        fix: 'Check the request parameters and the base URL.',
      });
  }
}

function first(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

// ---------------------------------------------------------------------------------------------
// Non-HTTP errors

const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT', 'ERR_TLS_CERT_ALTNAME_INVALID', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'SELF_SIGNED_CERT_IN_CHAIN', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'CERT_HAS_EXPIRED']);

function errCode(e: unknown): string | undefined {
  let cur: unknown = e;
  for (let i = 0; i < 4 && cur && typeof cur === 'object'; i++) {
    const c = (cur as { code?: unknown }).code;
    if (typeof c === 'string') return c;
    cur = (cur as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Classifies a failure that has no HTTP status: connection errors, timeouts, aborts. */
export function errorFromNetwork(e: unknown, context: ErrorContext, opts: { timedOut?: boolean; aborted?: boolean; timeoutMs?: number } = {}): GatewayError {
  if (e instanceof GatewayError) return e;
  const host = (() => {
    try {
      return context.url ? new URL(context.url).host : 'the gateway';
    } catch {
      return 'the gateway';
    }
  })();
  if (opts.aborted) {
    return new GatewayError({ kind: 'aborted', message: 'The request was cancelled.', cause: 'The request was cancelled before it finished.', fix: 'Run it again when you want the result.', context, original: e });
  }
  if (opts.timedOut) {
    return new GatewayError({
      kind: 'timeout',
      message: `No answer from ${host} within ${Math.round((opts.timeoutMs ?? 0) / 1000)} s.`,
      cause: 'The gateway or a proxy did not answer in time (a slow upstream, a stalled stream, or a network problem).',
      fix: 'Try again; raise the timeout for this capability in the settings if large requests are expected, or check the network and proxy.',
      context,
      original: e,
    });
  }
  const code = errCode(e);
  const notSent = code !== undefined && NOT_SENT_CODES.has(code);
  const tls = code !== undefined && /CERT|TLS|SSL/.test(code);
  return new GatewayError({
    kind: 'network',
    message: `Could not reach ${host}${code ? ` (${code})` : ''}.`,
    cause: tls
      ? `The TLS certificate of ${host} was not accepted (${code}).`
      : code === 'ENOTFOUND' || code === 'EAI_AGAIN'
        ? `The host name ${host} could not be resolved (DNS).`
        : code === 'ECONNREFUSED'
          ? `Nothing accepts connections at ${host}.`
          : `The connection to ${host} failed or was reset (${code ?? (e instanceof Error ? e.message : 'unknown error')}).`,
    fix: tls
      ? 'Check the proxy or certificate settings (http.proxyStrictSSL), or the base URL scheme.'
      : 'Check the base URL, your network and proxy settings, or configure a backup domain.',
    context,
    original: e,
    notSent,
  });
}

/** A 2xx answer whose body is not what the endpoint promises. */
export function protocolError(detail: 'invalid_json' | 'unexpected_shape' | 'empty_choices', what: string, context: ErrorContext, extra: { status?: number; requestId?: string } = {}): GatewayError {
  const messages = {
    invalid_json: { message: `The gateway answered ${what} with a body that is not valid JSON.`, cause: 'The response body was cut off or is not JSON: a proxy, a wrong path or a gateway fault.' },
    unexpected_shape: { message: `The gateway answered ${what} with an unexpected body.`, cause: 'The response does not have the fields the API promises: the base URL may point at something other than the gateway API, or the gateway changed its format.' },
    empty_choices: { message: `The gateway answered ${what} with no reply (empty choices).`, cause: 'The upstream model returned nothing: a content filter, a gateway fault or an exhausted channel.' },
  } as const;
  const m = messages[detail];
  return new GatewayError({ kind: 'protocol', detail, ...m, fix: 'Check the base URL and retry; if it persists, report it with the request id.', context, ...extra });
}

/** An error carried inside a 200 stream, or a stream that broke off. */
export function streamError(
  detail: 'stream_error_event' | 'stream_truncated' | 'idle_timeout',
  context: ErrorContext,
  extra: { gatewayMessage?: string; gatewayType?: string; gatewayCode?: string; requestId?: string; status?: number; original?: unknown } = {},
): GatewayError {
  const gm = extra.gatewayMessage?.replace(REQUEST_ID_SUFFIX, '');
  const requestId = extra.requestId ?? (extra.gatewayMessage ? REQUEST_ID_SUFFIX.exec(extra.gatewayMessage)?.[1] : undefined);
  const base = { ...extra, gatewayMessage: gm, requestId, context, kind: 'stream_interrupted' as const, detail };
  switch (detail) {
    case 'stream_error_event':
      return new GatewayError({
        ...base,
        message: `The stream carried an error${gm ? `: "${gm}"` : ''}.`,
        cause: 'The gateway or the upstream model failed after the reply had started (an error event inside the stream).',
        fix: 'Retry the request; if it keeps failing, try another model or report it with the request id.',
      });
    case 'stream_truncated':
      return new GatewayError({
        ...base,
        message: 'The stream ended before the reply was complete.',
        cause: 'The connection was closed mid-reply: a proxy, a gateway timeout, or a network break.',
        fix: 'Retry; if it happens often, a proxy may be cutting streams — turn streaming off or check the proxy.',
      });
    case 'idle_timeout':
      return new GatewayError({
        ...base,
        message: 'The stream stalled: no data arrived within the idle limit.',
        cause: 'The gateway, the upstream or a proxy stopped sending data mid-stream.',
        fix: 'Retry; raise the stream idle timeout if the model is slow, or turn streaming off behind a buffering proxy.',
      });
  }
}

/** An error raised before anything is sent (bad caller input). */
export function inputError(message: string, fix: string, context: ErrorContext = {}, detail?: ErrorDetail): GatewayError {
  return new GatewayError({ kind: 'bad_request', message, cause: message, fix, context, detail, notSent: true });
}
