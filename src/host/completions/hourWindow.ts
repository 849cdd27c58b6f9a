/**
 * The inline completions' last hour: requests, aborts, cache hits, shown and accepted suggestions,
 * tokens and cost, in one-minute buckets (at most 60 kept, so the state is bounded whatever the
 * typing rate). What the status bar's tooltip shows and what the spending cap compares against.
 */
import type { HourStats } from './types';

export const BUCKET_MS = 60_000;
export const WINDOW_MS = 60 * BUCKET_MS;

type Counts = Omit<HourStats, 'cost'> & { cost: number; priced: number };
export type HourDelta = Partial<Counts>;

const zero = (): Counts => ({
  requests: 0,
  aborted: 0,
  cacheHits: 0,
  shown: 0,
  accepted: 0,
  tokens: 0,
  cost: 0,
  priced: 0,
});

export class HourWindow {
  /** oldest first; `start` is the bucket's minute (ms, a multiple of BUCKET_MS) */
  private buckets: Array<{ start: number; counts: Counts }> = [];

  add(now: number, delta: HourDelta): void {
    const start = now - (now % BUCKET_MS);
    let last = this.buckets[this.buckets.length - 1];
    if (!last || last.start !== start) {
      last = { start, counts: zero() };
      this.buckets.push(last);
      this.prune(now);
    }
    for (const [k, v] of Object.entries(delta) as Array<[keyof Counts, number]>) last.counts[k] += v;
  }

  /** The totals of the buckets that began within the last hour; `cost` only when some request had a price. */
  totals(now: number): HourStats {
    this.prune(now);
    const sum = zero();
    for (const b of this.buckets) for (const k of Object.keys(sum) as Array<keyof Counts>) sum[k] += b.counts[k];
    const { cost, priced, ...rest } = sum;
    return priced > 0 ? { ...rest, cost } : rest;
  }

  /** Drops the buckets that ended an hour ago or more (a bucket partly inside the hour still counts). */
  private prune(now: number): void {
    const from = now - WINDOW_MS;
    let i = 0;
    while (i < this.buckets.length && this.buckets[i].start + BUCKET_MS <= from) i++;
    if (i) this.buckets.splice(0, i);
  }
}
