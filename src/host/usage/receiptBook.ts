/**
 * The receipt book: the receipts of the billed calls made from here (the chat panel, VS Code's chat, commit
 * messages, images, videos, Diagnose checks, tool probes, inline completions per minute — whatever the local
 * request log holds that the gateway bills), reconciled with each gateway's own usage log and its price list
 * (src/gateway/economy/receiptMatch.ts). One book per window, one page per gateway (by host, as the local log
 * names it).
 * Gentle with the gateway: the log is read through each gateway client's own reader (the one the arrivals use:
 * once a minute, one shared read, the critical budget shared with the balance), never per request. `want`
 * schedules one read per gateway a few seconds after the last call (coalesced), once more later while a wished
 * record is not there yet (RECEIPT_READ_DELAYS_MS, bounded), never while the log is rate-limited; and every read
 * the Usage view makes goes through `read` here, so one read serves both; and the view shows the newest read the
 * book reconciled (`lastLog`), whoever asked for it, so a read for the chat panel brings the view's new rows too.
 * Bounded: per gateway at most RECEIPT_BOUNDS.calls receipts of calls and wishes (the oldest go first), at most
 * RECEIPT_BOUNDS.gateways gateways; the receipts of a read's records live as long as the read's records do.
 * Plain Node, no `vscode`.
 */
import type { PriceList } from '../../gateway/economy/pricing';
import { reconcile } from '../../gateway/economy/receiptMatch';
import { overallState, type Receipt, type ReceiptCall } from '../../gateway/economy/receipts';
import type { UsageLogRead, UsageRecord } from '../../gateway/economy/usageTypes';
import { logsUsage } from './arrivals';
import { requestIdsOf, type LoggedRequest } from './localLog';
import type { CallReceipt, ReceiptQuery, ReceiptSource } from './receiptSource';

/** What the book reads a gateway with: its client's usage-log reader and its price list. */
export interface ReceiptReader {
  /** the host of the gateway's base URL (a read of another gateway's log is never reconciled with this one's calls) */
  host: string | undefined;
  /** one read of the log (the client's reader: at most once a minute, shared, within the critical budget) */
  read(): Promise<UsageLogRead>;
  /** the price list with the time it was read (undefined: not published to this token) */
  priceList(): Promise<PriceList | undefined>;
  /** the masked form of the token whose log it is: calls made with another token are never matched with it */
  maskedToken?(): Promise<string | undefined>;
}

export interface ReceiptBookOptions {
  /** the reader of the gateway a record names (undefined: the active one); undefined when none is configured */
  readerOf: (gateway: string | undefined) => ReceiptReader | undefined;
  /** the local request log, oldest first (LocalRequestLog.all()) */
  local: () => readonly LoggedRequest[];
  now?: () => number;
  /** runs `fn` after `ms` (default setTimeout, unref'd) */
  timer?: (fn: () => void, ms: number) => { dispose(): void };
  /** how a time is written in the receipts' sentences */
  formatTime?: (ms: number) => string;
  /** when a wish's reads go (ms after the last call, then after each read) */
  delaysMs?: readonly number[];
}

/**
 * A wished receipt's reads: a few seconds after the last call (the gateway writes the record once the response
 * has finished), then twice more a little over a minute apart (the reader answers a read younger than a minute
 * again), then the wish is dropped.
 */
export const RECEIPT_READ_DELAYS_MS = [6_000, 65_000, 65_000];
/** Calls keep moving a wish's first read on, but no later than this after the first of them. */
const MAX_COALESCE_MS = 30_000;
export const RECEIPT_BOUNDS = { calls: 2_000, gateways: 16 };

/** How a call is known in the book: its request id, else its time and model. */
const keyOf = (q: Pick<ReceiptQuery, 'requestId' | 'time' | 'model'>) => q.requestId ?? `${q.time}|${q.model ?? ''}`;

/** A receipt as the views show it: with the worst state of its billing checks and of its route checks. */
export function callReceipt(receipt: Receipt): CallReceipt {
  return { receipt, billing: overallState(receipt.billing), route: overallState(receipt.route) };
}

/**
 * The billed calls of a gateway in the local log, newest `max` of them: a record of aggregated inline
 * completions stands for one call per request id it kept (their tokens are a sum: not one call's).
 */
export function billedCalls(local: readonly LoggedRequest[], host: string, max: number): ReceiptCall[] {
  const out: ReceiptCall[] = [];
  for (let i = local.length - 1; i >= 0 && out.length < max; i--) {
    const r = local[i];
    if (r.host !== host || !logsUsage(r) || r.status === undefined || r.status < 200 || r.status >= 300) continue;
    if ((r.count ?? 1) > 1) for (const id of requestIdsOf(r)) out.push({ ...r, requestId: id, usage: undefined });
    else out.push(r);
  }
  return out.reverse();
}

/** Adds to a map kept in insertion order, the oldest dropped past `max`. */
function keep<K, V>(m: Map<K, V>, k: K, v: V, max: number): void {
  m.delete(k);
  m.set(k, v);
  while (m.size > max) m.delete(m.keys().next().value as K);
}

interface Page {
  /** the name the last wish gave the gateway (its reader is found by it) */
  gateway: string | undefined;
  /** the receipts of calls, by call key, oldest first */
  found: Map<string, CallReceipt>;
  /** the calls whose receipt is wished for, by call key */
  wanted: Map<string, true>;
  timer: { dispose(): void } | undefined;
  /** when the pending first read was first due (coalescing stops moving it past MAX_COALESCE_MS) */
  roundAt: number | undefined;
  /** reads made for the current wishes */
  tries: number;
  /** the log is rate-limited until then */
  limitedUntil: number | undefined;
  /** the last read taken in (a read answered again is not reconciled twice) */
  lastRead: UsageLogRead | undefined;
  /** the newest read whose records are all reconciled (what the Usage view shows, whoever asked for it) */
  shown: OkRead | undefined;
}

type OkRead = Extract<UsageLogRead, { state: 'ok' }>;

export class ReceiptBook implements ReceiptSource {
  private readonly pages = new Map<string, Page>();
  /** the receipt of each record of every read reconciled, while the read's records live */
  private readonly ofRecords = new WeakMap<UsageRecord, CallReceipt>();
  private readonly listeners = new Set<() => void>();
  private readonly now: () => number;
  private readonly delays: readonly number[];
  private disposed = false;

  constructor(private readonly opts: ReceiptBookOptions) {
    this.now = opts.now ?? Date.now;
    this.delays = opts.delaysMs ?? RECEIPT_READ_DELAYS_MS;
  }

  find(call: ReceiptQuery): CallReceipt | undefined {
    return this.pages.get(call.host)?.found.get(keyOf(call));
  }

  /** The receipt of a record of a read made through the book (the Usage view's rows). */
  ofRecord(r: UsageRecord): CallReceipt | undefined {
    return this.ofRecords.get(r);
  }

  /**
   * The newest read of a gateway's log made through the book, once reconciled, whoever asked for it (the Usage
   * view, a wish of the chat panel's): the Usage view shows its records, so a read made for another view brings
   * its rows too, without a read of the view's own. `onDidChange` fires when it is replaced.
   */
  lastLog(host: string): OkRead | undefined {
    return this.pages.get(host)?.shown;
  }

  want(call: ReceiptQuery): void {
    if (this.disposed || this.find(call)) return;
    const p = this.page(call.host);
    p.gateway = call.gateway;
    keep(p.wanted, keyOf(call), true, RECEIPT_BOUNDS.calls);
    p.tries = 0;
    const now = this.now();
    if (!p.timer || p.roundAt === undefined) p.roundAt = now;
    if (now + this.delays[0] - p.roundAt <= MAX_COALESCE_MS) this.schedule(call.host, p, this.delays[0]);
  }

  onDidChange(listener: () => void): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  /**
   * One read of a gateway's log through its reader, its receipts reconciled before it is answered: the Usage
   * view reads through here, so its reads serve the wished receipts too.
   */
  async read(where: { gateway: string | undefined; host: string }): Promise<UsageLogRead> {
    const reader = this.opts.readerOf(where.gateway);
    if (!reader) return { state: 'unsupported' };
    const read = await reader.read();
    // the active gateway may have changed since the wish: its log is not this host's
    if (reader.host === where.host) await this.ingest(where.host, reader, read);
    return read;
  }

  private page(host: string): Page {
    let p = this.pages.get(host);
    if (!p) {
      p = {
        gateway: undefined,
        found: new Map(),
        wanted: new Map(),
        timer: undefined,
        roundAt: undefined,
        tries: 0,
        limitedUntil: undefined,
        lastRead: undefined,
        shown: undefined,
      };
      if (this.pages.size >= RECEIPT_BOUNDS.gateways) {
        const [oldest, gone] = this.pages.entries().next().value as [string, Page];
        gone.timer?.dispose();
        this.pages.delete(oldest);
      }
      this.pages.set(host, p);
    }
    return p;
  }

  private schedule(host: string, p: Page, ms: number): void {
    p.timer?.dispose();
    const run = () => void this.fire(host, p);
    p.timer = this.opts.timer
      ? this.opts.timer(run, ms)
      : (() => {
          const h = setTimeout(run, ms);
          h.unref?.();
          return { dispose: () => clearTimeout(h) };
        })();
  }

  /** A wish's read is due: never while rate-limited; again later while wished records are missing (bounded). */
  private async fire(host: string, p: Page): Promise<void> {
    p.timer = undefined;
    p.roundAt = undefined;
    if (this.disposed || this.pages.get(host) !== p || !p.wanted.size) return;
    const now = this.now();
    if (p.limitedUntil !== undefined && p.limitedUntil > now) {
      this.schedule(host, p, p.limitedUntil - now + 1_000);
      return;
    }
    const read = await this.read({ gateway: p.gateway, host }).catch((e: unknown): UsageLogRead => ({
      state: 'failed',
      message: String(e),
    }));
    if (read.state === 'limited') {
      this.schedule(host, p, Math.max(read.until - this.now(), 0) + 1_000);
      return;
    }
    p.tries++;
    if (read.state !== 'unsupported' && p.wanted.size && p.tries < this.delays.length)
      this.schedule(host, p, this.delays[p.tries]);
    else p.wanted.clear();
  }

  /** Reconciles a read of a gateway's log with the calls made from here. */
  private async ingest(host: string, reader: ReceiptReader, read: UsageLogRead): Promise<void> {
    const p = this.page(host);
    if (read.state === 'limited') p.limitedUntil = read.until;
    if (read.state !== 'ok' || p.lastRead === read) return;
    p.lastRead = read;
    p.limitedUntil = undefined;
    const [prices, maskedToken] = await Promise.all([
      reader.priceList().catch(() => undefined),
      reader.maskedToken?.().catch(() => undefined),
    ]);
    const calls = billedCalls(this.opts.local(), host, RECEIPT_BOUNDS.calls);
    const { receipts, byCall } = reconcile(
      calls,
      read.records,
      { prices, units: read.units, ...(this.opts.formatTime ? { formatTime: this.opts.formatTime } : {}) },
      maskedToken ? { maskedToken } : {},
    );
    for (const r of receipts) this.ofRecords.set(r.record, callReceipt(r));
    for (const [call, r] of byCall) {
      const key = keyOf(call);
      keep(p.found, key, this.ofRecords.get(r.record)!, RECEIPT_BOUNDS.calls);
      p.wanted.delete(key);
    }
    if (!p.shown || p.shown.readAt <= read.readAt) p.shown = read;
    for (const l of [...this.listeners]) l();
  }

  dispose(): void {
    this.disposed = true;
    for (const p of this.pages.values()) p.timer?.dispose();
    this.listeners.clear();
  }
}
