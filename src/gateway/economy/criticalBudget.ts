/**
 * The gateway's critical rate limit, shared by the routes an sk- token reads its own numbers from:
 * `/api/usage/token/` (the balance, Account) and `/api/log/token` (the usage log, UsageLog). new-api
 * allows about 20 requests per 20 minutes per client IP on both together and answers a bare 429 beyond.
 * One budget per gateway: a sliding window under the gateway's cap, leaving room for the user's own
 * dashboard, with a reserve the usage log cannot spend (so the balance keeps its reads), and a pause
 * after a 429 on either route.
 */

const MINUTE = 60_000;

export const CRITICAL_BUDGET = {
  /** requests in the window, both routes together (the gateway allows 20) */
  max: 12,
  windowMs: 20 * MINUTE,
  /** what the usage log leaves for the balance */
  balanceReserve: 3,
  /** after a 429 on either route: no read of either for this long */
  pauseMs: 5 * MINUTE,
};

export type CriticalRoute = 'balance' | 'log';

export class CriticalBudget {
  private hits: number[] = [];
  private pausedUntil = 0;

  constructor(
    private readonly now: () => number,
    private readonly limits = CRITICAL_BUDGET,
  ) {}

  private kept(): number[] {
    const now = this.now();
    this.hits = this.hits.filter((t) => now - t < this.limits.windowMs);
    return this.hits;
  }

  private capOf(route: CriticalRoute): number {
    return route === 'balance' ? this.limits.max : this.limits.max - this.limits.balanceReserve;
  }

  /** Spends one request for `route` when the budget allows it now; false (nothing spent) otherwise. */
  take(route: CriticalRoute): boolean {
    if (this.now() < this.pausedUntil) return false;
    const hits = this.kept();
    if (hits.length >= this.capOf(route)) return false;
    hits.push(this.now());
    return true;
  }

  /** When `route` may read again (now, if it may). */
  nextAt(route: CriticalRoute): number {
    const now = this.now();
    const hits = this.kept();
    const over = hits.length - this.capOf(route);
    const slot = over >= 0 ? hits[over] + this.limits.windowMs : now;
    return Math.max(now, this.pausedUntil, slot);
  }

  /** Whether a 429 paused both routes (until `pausedUntil`). */
  paused(): boolean {
    return this.now() < this.pausedUntil;
  }

  /** The gateway answered 429 on either route: the limit is per IP, both pause. */
  limited(): void {
    this.pausedUntil = this.now() + this.limits.pauseMs;
  }

  /** Another gateway: nothing spent there yet. */
  reset(): void {
    this.hits = [];
    this.pausedUntil = 0;
  }
}
