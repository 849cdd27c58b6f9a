/**
 * Retry policy as pure functions (tested as a table).
 * Retries 408, 409, 429, 5xx and connection failures (not TLS certificate failures) with
 * exponential backoff and full jitter, honouring `retry-after-ms` / `retry-after` and the server's
 * `x-should-retry: true|false` (as openai-node does); never 400/401/403/404/413, never new-api's 503
 * model_not_found. A billed call is re-sent only when it provably never reached the gateway or the
 * gateway refused the work (429), whatever the server says.
 */
import { tlsProblem } from '../errors/fromNetwork';
import type { GatewayError } from '../errors/gatewayError';

/** What a request's `onRetry` hears, fired where the transport waits before trying again. */
export interface RetryNotice {
  /** the retry about to be made (1 = the first retry) */
  attempt: number;
  maxRetries: number;
  /** how long the transport waits before it */
  delayMs: number;
  /** the failure being retried */
  error: GatewayError;
}

export interface RetryOptions {
  maxRetries: number;
  /** first backoff step; the n-th retry waits up to base * 2^n */
  baseDelayMs: number;
  maxDelayMs: number;
  /** a server-sent Retry-After longer than this is not waited for: the error is final */
  maxRetryAfterMs: number;
}

/**
 * Whether a failed attempt may be retried.
 * `sideEffecting` requests (billed: images, video creation) are only retried when the request
 * provably never reached the server, or the gateway refused the work (429: nothing was done) and
 * does not say otherwise; a 408 or 409 may come after the work ran, so it is never re-sent.
 */
export function shouldRetry(err: GatewayError, attempt: number, opts: RetryOptions, sideEffecting = false): boolean {
  if (attempt >= opts.maxRetries) return false;
  if (err.retryAfterMs !== undefined && err.retryAfterMs > opts.maxRetryAfterMs) return false;
  // A certificate the machine does not trust stays untrusted: another attempt only delays the answer.
  if (tlsProblem(err)) return false;
  if (sideEffecting)
    return (err.kind === 'network' && err.notSent) || (err.kind === 'rate_limited' && err.serverShouldRetry !== false);
  if (err.serverShouldRetry !== undefined) return err.serverShouldRetry;
  if (err.detail === 'model_not_found_503') return false;
  if (err.status === 408 || err.status === 409) return true;
  switch (err.kind) {
    case 'rate_limited':
    case 'server_error':
    case 'network':
      return true;
    default:
      return false;
  }
}

/** Whether a billed request that failed this way may still have reached the gateway (and been billed). */
export function mayHaveArrived(err: GatewayError): boolean {
  switch (err.kind) {
    case 'network':
      return !err.notSent;
    case 'timeout':
    case 'server_error':
    case 'stream_interrupted':
    case 'protocol':
      return true;
    default:
      return false;
  }
}

/**
 * Delay before retry number `attempt` (0-based). A server-given Retry-After wins; otherwise full
 * jitter: a uniform random delay in [0, min(max, base * 2^attempt)], never below a small floor so a
 * retry is never immediate.
 */
export function retryDelayMs(
  attempt: number,
  retryAfterMs: number | undefined,
  opts: RetryOptions,
  random: () => number = Math.random,
): number {
  if (retryAfterMs !== undefined && retryAfterMs >= 0 && retryAfterMs <= opts.maxRetryAfterMs) {
    return Math.max(retryAfterMs, 50);
  }
  const cap = Math.min(opts.maxDelayMs, opts.baseDelayMs * 2 ** attempt);
  const floor = Math.min(100, cap);
  return Math.round(floor + random() * (cap - floor));
}

/** Whether a failed attempt moves on to the next host at once (instead of backing off on this one). */
export function failsOver(err: GatewayError, sideEffecting: boolean | undefined): boolean {
  if (sideEffecting) return err.kind === 'network' && err.notSent;
  return (
    err.kind === 'network' ||
    (err.kind === 'server_error' && (err.status === 502 || err.status === 503 || err.status === 504))
  );
}
