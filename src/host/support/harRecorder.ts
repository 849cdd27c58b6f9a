/**
 * Record HTTP Archive's state: the next N requests of every gateway client (the core's observer
 * hook, src/gateway/http/har.ts), bodies only when the user ticked "include bodies". It ends by
 * itself once the N-th request has finished (`onComplete` gets the archive) or when stopped (the
 * archive of what was recorded, requests still in flight marked as such). Bounded: at most
 * HAR_MAX_REQUESTS requests, each body cut at HAR_BODY_LIMIT bytes.
 */
import { HarEntryBuilder, harLog, observeHttp, type ExchangeFacts, type HarLog } from '../../gateway';
import { t } from '../../gateway/l10n';

/** The most requests one recording may hold (the user picks N up to this). */
export const HAR_MAX_REQUESTS = 200;
/** How much of each request and response body is kept when bodies are included. */
export const HAR_BODY_LIMIT = 64 * 1024;

export interface HarRecordingOptions {
  /** how many requests to record (1 … HAR_MAX_REQUESTS) */
  count: number;
  includeBodies: boolean;
}

export interface HarRecorderState {
  recording: boolean;
  /** requests recorded so far (started), and the number asked for */
  recorded: number;
  count: number;
  includeBodies: boolean;
}

export interface HarRecorderHooks {
  /** the state changed (started, a request recorded, ended): the status bar redraws */
  onChange?: (state: HarRecorderState) => void;
  /** the N-th request has finished: the recording is over, here is its archive */
  onComplete?: (har: HarLog) => void;
}

/** The count the user typed, or the reason it is refused (a sentence to show). */
export function parseHarCount(text: string): { count: number } | { problem: string } {
  const n = Number(text.trim());
  if (!Number.isInteger(n) || n < 1 || n > HAR_MAX_REQUESTS)
    return { problem: t('Enter a whole number from 1 to {0}.', HAR_MAX_REQUESTS) };
  return { count: n };
}

/** A file name for the archive: `model-relay-2026-11-24T19-30-05.har` (local time). */
export function harFileName(now = new Date()): string {
  const p = (n: number) => String(n).padStart(2, '0');
  const date = `${now.getFullYear()}-${p(now.getMonth() + 1)}-${p(now.getDate())}`;
  return `model-relay-${date}T${p(now.getHours())}-${p(now.getMinutes())}-${p(now.getSeconds())}.har`;
}

export class HarRecorder {
  private builders: HarEntryBuilder[] = [];
  private options: HarRecordingOptions | undefined;
  private unobserve: (() => void) | undefined;

  constructor(
    private readonly creator: { name: string; version: string },
    private readonly hooks: HarRecorderHooks = {},
  ) {}

  get state(): HarRecorderState {
    return {
      recording: this.unobserve !== undefined,
      recorded: this.builders.length,
      count: this.options?.count ?? 0,
      includeBodies: this.options?.includeBodies ?? false,
    };
  }

  /** Starts recording the next `count` requests (a recording already on is replaced: its requests are dropped). */
  start(o: HarRecordingOptions): void {
    this.unobserve?.();
    const count = Math.min(Math.max(1, Math.floor(o.count)), HAR_MAX_REQUESTS);
    this.options = { count, includeBodies: o.includeBodies };
    this.builders = [];
    this.unobserve = observeHttp({ begin: (facts) => this.begin(facts) });
    this.changed();
  }

  /** Stops recording; the archive of what was recorded (undefined when nothing was on). */
  stop(): HarLog | undefined {
    if (!this.unobserve) return undefined;
    return this.finish();
  }

  private begin(facts: ExchangeFacts): HarEntryBuilder | undefined {
    const o = this.options;
    if (!o || this.builders.length >= o.count) return undefined;
    const b = new HarEntryBuilder(facts, { includeBodies: o.includeBodies, maxBodyBytes: HAR_BODY_LIMIT }, () =>
      this.ended(),
    );
    this.builders.push(b);
    this.changed();
    return b;
  }

  /** A request finished: once all N have, the recording is complete. */
  private ended(): void {
    const o = this.options;
    if (!this.unobserve || !o || this.builders.length < o.count || !this.builders.every((b) => b.done)) return;
    const har = this.finish();
    this.hooks.onComplete?.(har);
  }

  private finish(): HarLog {
    this.unobserve?.();
    this.unobserve = undefined;
    const har = harLog(
      this.builders.map((b) => b.entry()),
      this.creator,
    );
    this.builders = [];
    this.changed();
    return har;
  }

  private changed(): void {
    try {
      this.hooks.onChange?.(this.state);
    } catch {
      /* a broken listener must not break the recording */
    }
  }

  dispose(): void {
    this.unobserve?.();
    this.unobserve = undefined;
    this.builders = [];
  }
}
