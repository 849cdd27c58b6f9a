/**
 * The token's balance for the status bar and the Status view: when to read it (at start, every
 * ten minutes, and shortly after a billed call — never on a fast timer: the gateway allows about
 * 20 reads per 20 minutes). A read that failed on the way (the network, a timeout, a 5xx — the
 * gateway said nothing about the token) is tried again sooner, so one blip at start does not leave the
 * status bar without its balance for ten minutes. The words are the core's describeQuota. Plain Node,
 * no `vscode`.
 */
import { isGatewayError, type Quota } from '../../gateway';

/**
 * At most one read a minute after billed calls, plus one every ten minutes: within the gateway's 20 per 20
 * minutes. After a read that failed on the way, the next is `retryMs` later, doubling up to the period.
 */
export const QUOTA_TIMING = { periodMs: 10 * 60_000, afterBilledMs: 5_000, minGapMs: 60_000, retryMs: 30_000 };

/** A failure that says nothing about the token and may be gone in a moment (a refusal is not tried again sooner). */
const onTheWay = (e: unknown) =>
  isGatewayError(e) && (e.kind === 'network' || e.kind === 'timeout' || e.kind === 'server_error');

export interface QuotaTimers {
  now: () => number;
  setTimeout: (fn: () => void, ms: number) => unknown;
  clearTimeout: (t: unknown) => void;
}

const realTimers: QuotaTimers = {
  now: Date.now,
  setTimeout: (fn, ms) => setTimeout(fn, ms).unref(),
  clearTimeout: (t) => clearTimeout(t as NodeJS.Timeout),
};

/**
 * Reads the balance through `read(maxAgeMs)` (the core's cached, rate-limit-aware reader) on a
 * slow schedule; `billed()` asks for a fresh read soon after a billed call, at most once per
 * `minGapMs`.
 */
export class QuotaTracker {
  private timer: unknown;
  private lastReadAt = -Infinity;
  /** reads in a row that failed on the way (the next waits longer) */
  private failures = 0;
  private disposed = false;

  constructor(
    private readonly read: (maxAgeMs: number) => Promise<Quota | undefined>,
    private readonly onQuota: (q: Quota | undefined) => void,
    private readonly timing = QUOTA_TIMING,
    private readonly timers: QuotaTimers = realTimers,
  ) {}

  /** A read now (from the cache when it is fresh), then the slow schedule. */
  start(): void {
    void this.run(this.timing.periodMs);
  }

  /** The user asked (Refresh Status): read now, bypassing the cache. */
  readNow(): void {
    this.schedule(0, 0);
  }

  /** A billed call finished: read again soon (coalesced, never twice within minGapMs). */
  billed(): void {
    const due = Math.max(this.timing.afterBilledMs, this.lastReadAt + this.timing.minGapMs - this.timers.now());
    this.schedule(due, 0);
  }

  dispose(): void {
    this.disposed = true;
    if (this.timer !== undefined) this.timers.clearTimeout(this.timer);
  }

  private schedule(ms: number, maxAgeMs: number): void {
    if (this.disposed) return;
    if (this.timer !== undefined) this.timers.clearTimeout(this.timer);
    this.timer = this.timers.setTimeout(() => void this.run(maxAgeMs), ms);
  }

  private async run(maxAgeMs: number): Promise<void> {
    this.timer = undefined;
    try {
      const q = await this.read(maxAgeMs);
      this.lastReadAt = this.timers.now();
      this.failures = 0;
      if (!this.disposed) this.onQuota(q);
    } catch (e) {
      // The gateway is unreachable or refuses: the last figure stays, errors show elsewhere.
      if (onTheWay(e)) {
        const retry = Math.min(this.timing.retryMs * 2 ** this.failures++, this.timing.periodMs);
        return this.schedule(retry, this.timing.periodMs);
      }
    }
    this.schedule(this.timing.periodMs, this.timing.periodMs);
  }
}
