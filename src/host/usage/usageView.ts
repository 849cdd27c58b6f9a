/**
 * The Usage view's host side: when the gateway's usage log is read (on opening and on Refresh, at most
 * once a minute, never while rate-limited, one read at a time), what the page is sent, and the CSV of
 * the rows it shows. The panel (src/extension/usage) only posts what this gives and saves the CSV.
 */
import type { ModelPrice, Units } from '../../gateway';
import type { UsageLogRead } from '../../gateway/economy/usageTypes';
import type { UsageViewState } from '../../shared/usageProtocol';
import { requestIdsOf } from './localLog';
import { estimateRecords, READ_INTERVAL_MS, statusLine, usageCsv, usageState, type UsageSource } from './usageData';

export interface UsageViewOptions {
  now?: () => number;
  /** minutes east of UTC of the user's calendar */
  utcOffsetMin?: () => number;
  /** VS Code's display language (the page's dates) */
  lang: string;
  /** every new state (the panel posts it) */
  onState: (s: UsageViewState) => void;
}

export class UsageViewModel {
  /** this view's last read (its state: the records shown are the source's `lastLog`) */
  private last: UsageLogRead | undefined;
  /** when this view last asked the gateway */
  private askedAt: number | undefined;
  private reading: Promise<void> | undefined;
  private prices: Map<string, ModelPrice> | undefined;
  private units: Units | undefined;
  private current: UsageViewState | undefined;
  private readonly now: () => number;
  private readonly offset: () => number;

  constructor(
    private readonly source: UsageSource,
    private readonly opts: UsageViewOptions,
  ) {
    this.now = opts.now ?? Date.now;
    this.offset = opts.utcOffsetMin ?? (() => -new Date().getTimezoneOffset());
  }

  /** When the next read may go out (undefined: now). */
  nextReadAt(): number | undefined {
    const times: number[] = [];
    if (this.askedAt !== undefined) times.push(this.askedAt + READ_INTERVAL_MS);
    if (this.last?.state === 'limited') times.push(this.last.until);
    const at = times.length ? Math.max(...times) : undefined;
    return at !== undefined && at > this.now() ? at : undefined;
  }

  /** Reads the log when allowed (else shows what is known, with when the next read is possible). */
  refresh(): Promise<void> {
    if (this.reading) return this.reading;
    if (this.nextReadAt() !== undefined && this.last) {
      this.publish(false);
      return Promise.resolve();
    }
    this.reading = this.read().finally(() => {
      this.reading = undefined;
    });
    return this.reading;
  }

  private async read(): Promise<void> {
    this.publish(true);
    this.askedAt = this.now();
    const [read, prices, units] = await Promise.all([
      this.source.readLog().catch((e: unknown): UsageLogRead => ({ state: 'failed', message: String(e) })),
      this.source.prices().catch(() => undefined),
      this.source.units().catch(() => undefined),
    ]);
    this.last = read;
    // a gateway without the log stays so: the estimate needs no pause between reads
    if (read.state === 'unsupported') this.askedAt = undefined;
    this.prices = prices;
    this.units = units ?? (read.state === 'ok' ? read.units : undefined);
    this.publish(false);
  }

  private publish(reading: boolean): void {
    // the newest read, this view's or one made for another consumer since (the chat panel's receipts)
    const ok = this.source.lastLog();
    const local = this.source.local();
    const common = {
      status: statusLine(this.last?.state === 'ok' ? ok : this.last, ok?.readAt),
      nextReadAt: this.nextReadAt(),
      reading,
      now: this.now(),
      utcOffsetMin: this.offset(),
      lang: this.opts.lang,
    };
    this.current = ok
      ? usageState({
          ...common,
          source: 'log',
          records: ok.records,
          ours: new Set(local.flatMap(requestIdsOf)),
          receiptOf: this.source.receiptOf && ((r) => this.source.receiptOf?.(r)),
        })
      : usageState({
          ...common,
          source: 'estimate',
          records: estimateRecords(local, this.source.host(), this.prices, this.units),
          ours: new Set(),
        });
    this.opts.onState(this.current);
  }

  /**
   * A request was added to the local log, or the source's `lastLog` or receipts changed (a read made for the
   * chat panel): the rows, the marks and the estimate follow (no read of the gateway).
   */
  localChanged(): void {
    if (this.current && !this.reading) this.publish(false);
  }

  /** The state last sent (undefined before the first). */
  state(): UsageViewState | undefined {
    return this.current;
  }

  /** The CSV of the rows the page shows, or undefined before any state. */
  csv(indices: readonly number[]): string | undefined {
    return this.current && usageCsv(this.current, indices);
  }
}
