/**
 * One error type for everything the gateway (or the way to it) can do wrong, built by one factory.
 * Each carries a `kind` (spec section 7 rows plus transport kinds), the HTTP status, the gateway's
 * own message, the request id, and a `reason` and `fix` sentence in the spec's terms. `cause` is
 * ES2022's: the underlying Error (a network failure, a parse error), with any token redacted.
 */
import { t } from '../l10n';
import { maskToken, redactSecrets } from '../mask';
import type { Capability } from '../models';

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
  | 'stream_interrupted' // a stream broke off: connection lost, idle deadline, no end marker
  | 'aborted'; // the caller cancelled

/** compatible: /v1/chat/completions; native: /v1/messages; responses: /v1/responses (OpenAI Responses API) */
export type Surface = 'compatible' | 'native' | 'responses';

export type ErrorDetail =
  | 'model_not_found_503'
  | 'html_page'
  | 'invalid_json'
  | 'unexpected_shape'
  | 'empty_choices'
  | 'empty_reply'
  | 'invalid_tool_arguments'
  | 'double_v1'
  | 'capability_mismatch'
  | 'stream_error_event'
  | 'stream_truncated'
  | 'idle_timeout'
  | 'missing_native_version'
  | 'insufficient_quota'
  | 'token_expired'
  | 'token_exhausted'
  | 'token_disabled'
  | 'token_model_limit'
  | 'wallet_empty'
  | 'token_quota'
  | 'task_not_found'
  | 'content_not_ready'
  | 'content_expired'
  | 'redirect'
  | 'context_too_long'
  | 'event_too_large'
  | 'body_too_large'
  | 'request_not_built'
  | 'convert_request_failed'
  | 'credential_elsewhere'
  | 'malformed_token';

export interface ErrorContext {
  surface?: Surface | undefined;
  method?: string | undefined;
  /** Full URL that was called (never contains a token). */
  url?: string | undefined;
  model?: string | undefined;
  token?: string | undefined;
  capability?: Capability | 'models' | 'account' | undefined;
}

export interface GatewayErrorInit {
  kind: ErrorKind;
  message: string;
  /** One sentence: why this happened. */
  reason: string;
  fix: string;
  status?: number | undefined;
  gatewayMessage?: string | undefined;
  gatewayType?: string | undefined;
  gatewayCode?: string | undefined;
  /** the answer's body was the gateway's own JSON error (errorBody.ts `envelope`) */
  gatewayJson?: boolean | undefined;
  requestId?: string | undefined;
  detail?: ErrorDetail | undefined;
  retryAfterMs?: number | undefined;
  /** the server's `x-should-retry` header, when it sent one */
  serverShouldRetry?: boolean | undefined;
  context?: ErrorContext;
  /** the underlying error (becomes ES2022 `cause`, token redacted) */
  cause?: unknown;
  /** true when the request provably never reached the server (connection refused, DNS, TLS, nothing written) */
  notSent?: boolean;
}

export class GatewayError extends Error {
  override readonly name = 'GatewayError';
  readonly kind: ErrorKind;
  readonly status: number | undefined;
  readonly gatewayMessage: string | undefined;
  readonly gatewayType: string | undefined;
  readonly gatewayCode: string | undefined;
  /**
   * The answer's body was the gateway's own JSON error (`{"error":{…}}`, or Anthropic's
   * `{"type":"error","error":{…}}`), not a proxy's or CDN's page, an empty body or plain text: the
   * gateway itself refused the work, in its own words (http/retryPolicy.ts `deliveryOf`).
   */
  readonly gatewayJson: boolean;
  readonly requestId: string | undefined;
  readonly detail: ErrorDetail | undefined;
  /** The underlying error (ES2022 `cause`, set by Error itself), token redacted; undefined when there is none. */
  declare readonly cause: Error | undefined;
  /** One sentence: why this happened, in the spec's terms. */
  readonly reason: string;
  /** One sentence: what to change. */
  readonly fix: string;
  readonly retryAfterMs: number | undefined;
  /** The server's `x-should-retry: true|false`, when it sent one (never re-sends a billed call by itself). */
  readonly serverShouldRetry: boolean | undefined;
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
  /**
   * A call that may be billed (chat, completion, image, video) failed after it may have reached the
   * gateway and been billed (http/retryPolicy.ts `deliveryOf`): never sent again on its own, only when
   * the user asks. Set by the transport on the error it ends with.
   */
  mayHaveBeenBilled = false;

  constructor(init: GatewayErrorInit) {
    const token = init.context?.token;
    const clean = (s: string | undefined) => (s === undefined ? undefined : redactSecrets(s, [token]));
    // ES2022 `cause`: the underlying error, kept for debugging (util.inspect, `{ cause }` chains), never carrying a token.
    const cause = init.cause instanceof Error ? sanitizeCause(init.cause, token) : undefined;
    super(clean(init.message), cause ? { cause } : undefined);
    this.kind = init.kind;
    this.status = init.status;
    this.gatewayMessage = clean(init.gatewayMessage);
    this.gatewayType = init.gatewayType;
    this.gatewayCode = init.gatewayCode;
    this.gatewayJson = init.gatewayJson ?? false;
    this.requestId = init.requestId;
    this.detail = init.detail;
    this.reason = clean(init.reason)!;
    this.fix = clean(init.fix)!;
    this.retryAfterMs = init.retryAfterMs;
    this.serverShouldRetry = init.serverShouldRetry;
    this.surface = init.context?.surface;
    this.url = init.context?.url;
    this.model = init.context?.model;
    this.maskedToken = token ? maskToken(token) : undefined;
    this.notSent = init.notSent ?? false;
    this.host = undefined;
  }

  /** A plain object safe to log or post to a webview. */
  toJSON(): Record<string, unknown> {
    return {
      kind: this.kind,
      status: this.status,
      message: this.message,
      reason: this.reason,
      fix: this.fix,
      gatewayMessage: this.gatewayMessage,
      gatewayCode: this.gatewayCode,
      gatewayType: this.gatewayType,
      gatewayJson: this.gatewayJson,
      requestId: this.requestId,
      detail: this.detail,
      surface: this.surface,
      url: this.url,
      host: this.host,
      model: this.model,
      maskedToken: this.maskedToken,
      attempts: this.attempts,
      retryAfterMs: this.retryAfterMs,
      mayHaveBeenBilled: this.mayHaveBeenBilled,
    };
  }

  /** For a billed call that may have reached the gateway: what that means and what to do, else undefined. */
  billingNote(): string | undefined {
    if (!this.mayHaveBeenBilled) return undefined;
    return this.requestId
      ? t(
          'This billed call may have reached the gateway and been charged (request id {0}). It was not sent again: check the usage log in the gateway console before you try again.',
          this.requestId,
        )
      : t(
          'This billed call may have reached the gateway and been charged. It was not sent again: check the usage log in the gateway console before you try again.',
        );
  }
}

function sanitizeCause(e: Error, token: string | undefined): Error {
  const copy = new Error(redactSecrets(e.message, [token]));
  copy.name = e.name;
  const code = (e as { code?: unknown }).code;
  if (code !== undefined) (copy as { code?: unknown }).code = code;
  return copy;
}

export function isGatewayError(e: unknown): e is GatewayError {
  return e instanceof GatewayError;
}
