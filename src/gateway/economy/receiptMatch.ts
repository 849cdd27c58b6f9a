/**
 * Pairs the calls made from here with the gateway's usage-log records (shared/reference/relay-receipts.md
 * §4), and makes their receipts (receipts.ts):
 * - exactly by request id where the log carries them (≥ 2026-02-04: the record's `request_id` is the
 *   response's X-Oneapi-Request-Id);
 * - else by time, token and model: the record is written once the response has finished (`created_at`,
 *   whole seconds), so it is looked for within ±5 s of the call's end, with the same model and stream flag.
 *   Records billing the tokens the response reported are tried first, for every call, then the rest; the
 *   nearest in time wins. Concurrent identical calls stay ambiguous: the match says how many records fitted.
 * Each record goes to one call at most. The log is the token's own: calls made with another token (by its
 * masked form, when the caller says whose log it is) are left unmatched.
 * One pass over the records and the calls, with the by-time candidates found by binary search: a batch of
 * 1000 is a few milliseconds (`npm run bench`).
 */
import { perCall, reportedPrompt, tokensOf } from './chargeFormula';
import { receiptOf, type Receipt, type ReceiptCall, type ReceiptContext, type ReceiptMatch } from './receipts';
import type { UsageRecord } from './usageTypes';

/** how far a record's time may be from the call's end (§4: ±5 s) */
export const MATCH_WINDOW_MS = 5_000;
/** `created_at` is in whole seconds, cut down: a record may read up to 1 s before the call's end */
const SECOND = 1_000;

export interface Matched {
  call: ReceiptCall;
  record: UsageRecord | undefined;
  match: ReceiptMatch;
}

const endOf = (c: ReceiptCall) => Date.parse(c.time) + c.durationMs;
const poolKey = (model: string | undefined, stream: boolean) => `${stream ? 's' : 'n'}:${model ?? ''}`;

/** The record bills the tokens the call's response reported. */
function agrees(r: UsageRecord, c: ReceiptCall): boolean {
  if (!c.usage || perCall(r)) return false;
  return (
    reportedPrompt(tokensOf(r), c.surface) === c.usage.promptTokens && r.completionTokens === c.usage.completionTokens
  );
}

/** First index whose time is ≥ t (records sorted by time, oldest first). */
function lowerBound(list: readonly UsageRecord[], t: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid].time < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The calls that fit no record by id, matched by time, token and model (in place). */
function matchByTime(
  out: Matched[],
  pending: number[],
  consume: readonly UsageRecord[],
  taken: Set<UsageRecord>,
): void {
  const pools = new Map<string, UsageRecord[]>();
  for (const r of consume) {
    if (taken.has(r)) continue;
    const key = poolKey(r.model, r.stream);
    const list = pools.get(key);
    if (list) list.push(r);
    else pools.set(key, [r]);
  }
  for (const list of pools.values()) list.sort((a, b) => a.time - b.time);
  const ends = new Map(pending.map((i) => [i, endOf(out[i].call)]));
  const order = [...pending].sort((a, b) => ends.get(a)! - ends.get(b)!);
  for (const tokensAgree of [true, false])
    for (const i of order) {
      const m = out[i];
      if (m.record) continue;
      const end = ends.get(i)!;
      const list = pools.get(poolKey(m.call.model, m.call.stream)) ?? [];
      let best: UsageRecord | undefined;
      let fits = 0;
      for (let k = lowerBound(list, end - MATCH_WINDOW_MS - SECOND); k < list.length; k++) {
        const r = list[k];
        if (r.time > end + MATCH_WINDOW_MS) break;
        if (taken.has(r) || (tokensAgree && !agrees(r, m.call))) continue;
        fits++;
        // the record's second began up to 1 s before the end: its middle is the nearest guess
        if (!best || Math.abs(r.time + SECOND / 2 - end) < Math.abs(best.time + SECOND / 2 - end)) best = r;
      }
      if (!best) continue;
      taken.add(best);
      m.record = best;
      m.match = { by: 'time', candidates: fits, tokensAgree };
    }
}

/**
 * Each call with its record, where one fits. `maskedToken`: whose log the records are (calls made with
 * another token are left unmatched).
 */
export function matchCalls(
  calls: readonly ReceiptCall[],
  records: readonly UsageRecord[],
  o: { maskedToken?: string | undefined } = {},
): Matched[] {
  const consume = records.filter((r) => r.kind === 'consume');
  const byId = new Map<string, UsageRecord>();
  for (const r of consume) if (r.requestId) byId.set(r.requestId, r);
  const taken = new Set<UsageRecord>();
  const out: Matched[] = calls.map((call) => ({ call, record: undefined, match: { by: 'none' } }));
  const pending: number[] = [];
  out.forEach((m, i) => {
    if (o.maskedToken !== undefined && m.call.maskedToken !== o.maskedToken) return;
    if (byId.size && m.call.requestId) {
      // A log with ids: the call's own id, or nothing (its record is not there yet, or rolled out).
      const r = byId.get(m.call.requestId);
      if (r && !taken.has(r)) {
        taken.add(r);
        m.record = r;
        m.match = { by: 'request-id' };
      }
      return;
    }
    pending.push(i);
  });
  if (pending.length) matchByTime(out, pending, consume, taken);
  return out;
}

export interface Reconciled {
  /** a receipt per billed record of the log (in the log's order), with its call where one matched */
  receipts: Receipt[];
  /** the receipt of each matched call */
  byCall: Map<ReceiptCall, Receipt>;
  /** the calls no record matched: not logged yet, older than the log's newest 1000, or never billed */
  unmatched: ReceiptCall[];
}

/** The receipts of a read of the log, for a batch of calls made with the same token. */
export function reconcile(
  calls: readonly ReceiptCall[],
  records: readonly UsageRecord[],
  ctx: ReceiptContext,
  o: { maskedToken?: string | undefined } = {},
): Reconciled {
  const matched = matchCalls(calls, records, o);
  const ofRecord = new Map<UsageRecord, Matched>();
  for (const m of matched) if (m.record) ofRecord.set(m.record, m);
  const byCall = new Map<ReceiptCall, Receipt>();
  const receipts: Receipt[] = [];
  for (const r of records) {
    if (r.kind !== 'consume') continue;
    const m = ofRecord.get(r);
    const receipt = receiptOf(r, ctx, m?.call, m?.match);
    receipts.push(receipt);
    if (m) byCall.set(m.call, receipt);
  }
  return { receipts, byCall, unmatched: matched.filter((m) => !m.record).map((m) => m.call) };
}
