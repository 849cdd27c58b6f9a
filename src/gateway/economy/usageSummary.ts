/**
 * Where the money went: totals and spend per local day and per model over usage-log records, in the
 * records' own unit (USD / CNY / custom / tokens, as the gateway shows its balance). Pure functions:
 * the Usage view and relay-doctor `usage` share them. A local day is the calendar day at a fixed
 * offset from UTC (`utcOffsetMin`, e.g. +480 in Beijing; `-new Date().getTimezoneOffset()` here).
 */
import type { UsageRecord } from './usageTypes';

const DAY_MS = 86_400_000;
/** At most this many days in `perDay` (the gateway keeps 1000 records; a year of gaps is plenty). */
export const MAX_SUMMARY_DAYS = 366;

export interface UsageTotals {
  /** the sum of the records' costs in `UsageSummary.unit` */
  amount: number;
  /** records counted (billed calls and errors) */
  requests: number;
  /** of which the gateway marked as errors (type 5) */
  errors: number;
  promptTokens: number;
  completionTokens: number;
}

export interface DaySpend extends UsageTotals {
  /** the local calendar day, `YYYY-MM-DD` */
  day: string;
}

export interface ModelSpend extends UsageTotals {
  model: string;
}

export interface UsageSummary {
  /** the unit every amount is in: the newest record's (undefined: no records) */
  unit: string | undefined;
  today: UsageTotals;
  last7Days: UsageTotals;
  last30Days: UsageTotals;
  /** every local day from the oldest record's to today (or the newest record's), oldest first, gaps as zeros */
  perDay: DaySpend[];
  /** most spent first (then most requests, then name) */
  perModel: ModelSpend[];
  /** records left out of the amounts because their unit differs from `unit` (their counts are kept) */
  otherUnit: number;
}

export interface SummaryOptions {
  /** the present (ms since the epoch) */
  now: number;
  /** minutes east of UTC of the local calendar (Beijing +480, New York −300) */
  utcOffsetMin: number;
}

/** The local calendar day of a time, `YYYY-MM-DD`. */
export function localDay(timeMs: number, utcOffsetMin: number): string {
  return new Date(timeMs + utcOffsetMin * 60_000).toISOString().slice(0, 10);
}

/** The number of the local day (days since 1970-01-01 local). */
function dayNumber(timeMs: number, utcOffsetMin: number): number {
  return Math.floor((timeMs + utcOffsetMin * 60_000) / DAY_MS);
}

function zero(): UsageTotals {
  return { amount: 0, requests: 0, errors: 0, promptTokens: 0, completionTokens: 0 };
}

function add(into: UsageTotals, r: UsageRecord, countAmount: boolean): void {
  if (countAmount && Number.isFinite(r.cost.amount)) into.amount += r.cost.amount;
  into.requests += r.count ?? 1;
  if (r.kind === 'error') into.errors += r.count ?? 1;
  into.promptTokens += r.promptTokens;
  into.completionTokens += r.completionTokens;
}

/** The newest record's unit (records are newest first from the gateway, but any order is accepted). */
function unitOfRecords(records: readonly UsageRecord[]): string | undefined {
  let newest: UsageRecord | undefined;
  for (const r of records) if (!newest || r.time > newest.time) newest = r;
  return newest?.cost.unit;
}

/** Totals for today, 7 and 30 local days (today included), spend per local day and per model. */
export function summarizeUsage(records: readonly UsageRecord[], opts: SummaryOptions): UsageSummary {
  const unit = unitOfRecords(records);
  const today = dayNumber(opts.now, opts.utcOffsetMin);
  const s: UsageSummary = {
    unit,
    today: zero(),
    last7Days: zero(),
    last30Days: zero(),
    perDay: [],
    perModel: [],
    otherUnit: 0,
  };
  const days = new Map<number, DaySpend>();
  const models = new Map<string, ModelSpend>();
  let first = today;
  let last = today;
  for (const r of records) {
    const same = r.cost.unit === unit;
    if (!same) s.otherUnit += 1;
    const d = dayNumber(r.time, opts.utcOffsetMin);
    const age = today - d;
    if (age === 0) add(s.today, r, same);
    if (age >= 0 && age < 7) add(s.last7Days, r, same);
    if (age >= 0 && age < 30) add(s.last30Days, r, same);
    let day = days.get(d);
    if (!day) days.set(d, (day = { day: localDay(r.time, opts.utcOffsetMin), ...zero() }));
    add(day, r, same);
    let model = models.get(r.model);
    if (!model) models.set(r.model, (model = { model: r.model, ...zero() }));
    add(model, r, same);
    if (d < first) first = d;
    if (d > last) last = d;
  }
  first = Math.max(first, last - MAX_SUMMARY_DAYS + 1);
  for (let d = first; d <= last; d++)
    s.perDay.push(
      days.get(d) ?? { day: localDay(d * DAY_MS - opts.utcOffsetMin * 60_000, opts.utcOffsetMin), ...zero() },
    );
  s.perModel = [...models.values()].sort(
    (a, b) => b.amount - a.amount || b.requests - a.requests || a.model.localeCompare(b.model),
  );
  return s;
}
