/**
 * Whether a failed request may be sent again, and when: pure functions, tested as tables.
 *
 * The one rule (`deliveryOf` / `mayResend`): a request that may be billed is sent again on its own —
 * by the transport's retry, a backup domain, another gateway (gateways/failover.ts), or an adjusted
 * resend after a refusal (chat/refusals.ts: a surface move, reasoning, a refused parameter) — only when
 * it provably never reached the gateway, or the gateway refused the work in its own words. Every one
 * of those layers asks `mayResend` first; their own conditions can only narrow it. Anything else may
 * have been billed: it ends with one error saying so (`GatewayError.mayHaveBeenBilled`), and only the
 * user sends it again.
 *
 * Within the rule, retries follow openai-node: 429 and 5xx with exponential backoff and full jitter,
 * honouring `retry-after-ms` / `retry-after` and the server's `x-should-retry: true|false`; never
 * 400/401/403/404/413, never new-api's 503 model_not_found, never a TLS certificate failure. A request
 * that cannot be billed (a GET: model lists, account and usage reads, task polls, downloads) is also
 * retried after a 408 or 409, a proxy's 5xx page or a connection lost after sending.
 */
import { tlsProblem } from '../errors/fromNetwork';
import { actionSpent } from './action';
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
 * What a failed request tells about billing:
 * - `not_sent`: it provably never reached the gateway (connection refused, DNS, TLS, a socket that
 *   failed before a byte of the request was written, a body that could not be built);
 * - `refused`: the gateway (or a proxy before it) answered without taking the work — a 429, any other
 *   4xx refusal (new-api's 503 model_not_found is one too), a redirect (never followed), a web page
 *   where the API should be, or a 5xx whose body is the gateway's own JSON error. new-api writes that
 *   body from the error its relay ends with, and the same error returns the pre-consumed quota
 *   (QuantumNous/new-api `controller/relay.go` at 009910b9, `Relay`: the deferred `ReturnPreConsumedQuota(c,
 *   relayInfo)` runs when `newAPIError != nil`, and the first deferred function writes that
 *   `newAPIError` as `{"error": …}` / `{"type":"error","error": …}`; errors before the relay, from its
 *   middleware, come before anything is pre-consumed: ../shared/reference/wire-formats.md §3a–3c);
 * - `may_be_billed`: anything else. No answer at all (a connection reset or a timeout after the
 *   request was written), a 5xx that is not the gateway's JSON (an HTML page from nginx or a CDN:
 *   502, 504, 520–524; an empty body), a 408 or 409 (given up or in conflict while the work may still
 *   run), or an answer that began (2xx). The gateway may have run it and billed it.
 */
export type Delivery = 'not_sent' | 'refused' | 'may_be_billed';

export function deliveryOf(err: GatewayError): Delivery {
  if (err.notSent) return 'not_sent';
  const status = err.status;
  if (status === undefined) return 'may_be_billed';
  // (a web page answered 200 is no API answer: the address serves pages, nothing was run)
  if (status >= 200 && status < 300) return err.detail === 'html_page' ? 'refused' : 'may_be_billed';
  if (status === 408 || status === 409) return 'may_be_billed';
  if (status < 500) return 'refused';
  return err.gatewayJson ? 'refused' : 'may_be_billed';
}

/**
 * The one rule: whether a failed request that may be billed may be sent again without the user asking —
 * never when it may have been billed, and never once its user action has sent MAX_SENDS_PER_ACTION
 * work requests (http/action.ts: the one cap over every layer that sends again).
 */
export function mayResend(err: GatewayError): boolean {
  return deliveryOf(err) !== 'may_be_billed' && !actionSpent();
}

/**
 * What a request costs, for the rule: `free` (a GET — model lists, account and usage reads, task
 * polls, downloads: never billed), `billed` (a POST: chat, billed by the tokens of its reply),
 * `per_call` (`sideEffecting`: images, video creation, completions — billed per call).
 */
export type Cost = 'free' | 'billed' | 'per_call';

export function costOf(o: { method: string; sideEffecting?: boolean | undefined }): Cost {
  if (o.sideEffecting) return 'per_call';
  return o.method === 'POST' ? 'billed' : 'free';
}

/**
 * Whether a failed attempt may be retried (attempt: 0-based count of retries made). A request that
 * may be billed asks the rule first; one billed per call (an image, a video) is retried only where
 * nothing at all was done — never sent, or rate limited (a refused image is a failed image: whether
 * to ask again is the user's, as it was before the rule).
 */
export function shouldRetry(err: GatewayError, attempt: number, opts: RetryOptions, cost: Cost = 'free'): boolean {
  if (attempt >= opts.maxRetries) return false;
  if (err.retryAfterMs !== undefined && err.retryAfterMs > opts.maxRetryAfterMs) return false;
  // A certificate the machine does not trust stays untrusted: another attempt only delays the answer.
  if (tlsProblem(err)) return false;
  if (cost !== 'free' && !mayResend(err)) return false;
  if (cost === 'per_call')
    return err.kind === 'network' || (err.kind === 'rate_limited' && err.serverShouldRetry !== false);
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

/**
 * Whether a failed attempt moves on to the next host (a backup domain) at once, instead of backing
 * off on this one: a failure of the host (the connection, 502/503/504) — for a request that may be
 * billed only as the rule allows (never sent; the gateway's own JSON 5xx), and for one billed per
 * call only when it was never sent.
 */
export function failsOver(err: GatewayError, cost: Cost): boolean {
  if (cost !== 'free' && !mayResend(err)) return false;
  if (cost === 'per_call') return err.kind === 'network';
  return (
    err.kind === 'network' ||
    (err.kind === 'server_error' && (err.status === 502 || err.status === 503 || err.status === 504))
  );
}
