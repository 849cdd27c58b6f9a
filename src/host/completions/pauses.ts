/**
 * Why inline suggestions stop asking for a while, with one cause and one fix each:
 * - the spending cap: the last hour's cost reached `maxCostPerHour` (when the model's price is
 *   known), else its tokens reached `maxTokensPerHour` (0 or less: no token cap). Lifted as the hour
 *   moves on or when the settings change;
 * - a failing gateway: after a classified error the engine asks again only after a back-off
 *   (BACKOFF: doubling from `firstMs` for what may pass — 429, 5xx, network, timeout — and `configMs`
 *   for what needs a change — 400, 401, 403, 404, 413; a longer Retry-After wins), one request
 *   then, never one per keystroke; lifted by a success or by a settings or token change (reset).
 */
import { GatewayError, type ErrorKind } from '../../gateway';
import { t } from '../../gateway/l10n';
import { errorInfo, errorSummary } from '../errorWords';
import type { CompletionSettings, EngineState, HourStats } from './types';

export const BACKOFF = { firstMs: 30_000, maxMs: 10 * 60_000, configMs: 10 * 60_000 } as const;

/** Errors that asking again will not cure: only a change of settings or token (or the long back-off). */
const NEEDS_CHANGE: ReadonlySet<ErrorKind> = new Set([
  'bad_request',
  'unauthorized',
  'forbidden',
  'not_found',
  'payload_too_large',
]);

/** The cap's state when the last hour reached it, else undefined. */
export function capState(
  hour: HourStats,
  settings: CompletionSettings,
  priced: boolean,
  format: (amount: number) => string,
): Extract<EngineState, { kind: 'paused-cap' }> | undefined {
  if (priced) {
    const cap = settings.maxCostPerHour;
    const cost = hour.cost ?? 0;
    if (cap === undefined || cost < cap) return undefined;
    return {
      kind: 'paused-cap',
      cause: t(
        'Inline suggestions cost {0} in the last hour, which reaches the limit of {1} an hour.',
        format(cost),
        format(cap),
      ),
      fix: t(
        'They resume by themselves as the hour moves on; to resume now, raise modelRelay.completions.maxCostPerHour.',
      ),
    };
  }
  const cap = settings.maxTokensPerHour;
  if (!(cap > 0) || hour.tokens < cap) return undefined;
  return {
    kind: 'paused-cap',
    cause: t(
      "Inline suggestions used {0} tokens in the last hour, which reaches the limit of {1} tokens an hour (the model's price is not known).",
      String(hour.tokens),
      String(cap),
    ),
    fix: t(
      'They resume by themselves as the hour moves on; to resume now, raise modelRelay.completions.maxTokensPerHour.',
    ),
  };
}

/** The failing gateway's pause: its state, and until when no request is sent. */
export class ErrorPause {
  private failures = 0;
  private until = 0;
  state: Extract<EngineState, { kind: 'paused-error' }> | undefined;

  /** A request failed (not an abort): pause with its cause and fix. */
  fail(e: unknown, now: number): Extract<EngineState, { kind: 'paused-error' }> {
    this.failures++;
    const kind = e instanceof GatewayError ? e.kind : undefined;
    let wait =
      kind && NEEDS_CHANGE.has(kind)
        ? BACKOFF.configMs
        : Math.min(BACKOFF.maxMs, BACKOFF.firstMs * 2 ** (this.failures - 1));
    if (e instanceof GatewayError && e.retryAfterMs !== undefined)
      wait = Math.max(wait, Math.min(BACKOFF.maxMs, e.retryAfterMs));
    this.until = now + wait;
    const info = errorInfo(e);
    this.state = {
      kind: 'paused-error',
      cause: e instanceof GatewayError ? errorSummary(e) : info.cause,
      fix: info.fix,
    };
    return this.state;
  }

  /** No request may be sent now. */
  blocked(now: number): boolean {
    return this.state !== undefined && now < this.until;
  }

  clear(): void {
    this.failures = 0;
    this.until = 0;
    this.state = undefined;
  }
}
