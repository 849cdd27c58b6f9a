/**
 * The requests this installation sent, kept across windows and restarts (bounded): the request log's
 * rows, the Usage view's "arrived from here" mark and its estimate on gateways without a usage log,
 * and the support report's last failing requests. Records are the core's `RequestRecord`s, which hold
 * only the masked token; balance reads (capability `account`) are bookkeeping and not kept.
 *
 * Kept as JSON lines in a folder of the extension's global storage (./jsonLinesFile.ts: appended to,
 * bounded by size with one rotated file, read in bounded steps), which every window of this machine
 * appends to and reads: a window reads what the others appended when its folder watch fires, and,
 * where watching does not work, when it is read and has not looked for CHECK_MS.
 *
 * Inline code completions are many small calls: those that answered or were stopped are kept as one
 * record per minute, model and outcome (`count`, their tokens summed, the mean duration, their request
 * ids); a completion that failed otherwise keeps its own record (the support report lists it).
 * Writes are batched: other records a second after the first unsaved one, a minute's completions once
 * the minute is over — while typing with suggestions on, about one write a minute. The records earlier
 * versions kept in global state (`modelRelay.requestLog`) are moved into the file once.
 */
import { watch, type FSWatcher } from 'node:fs';
import { isLocalCount, type RequestRecord } from '../../gateway';
import { JsonLinesFile } from './jsonLinesFile';

/** The part of `vscode.Memento` the log uses (where earlier versions kept it). */
export interface MementoLike {
  get<T>(key: string, defaultValue: T): T;
  update(key: string, value: unknown): PromiseLike<void>;
}

/** A kept request: one request, or `count` inline completions of one minute, model and outcome. */
export interface LoggedRequest extends RequestRecord {
  /** how many requests the record stands for (absent: one) */
  count?: number;
  /** the request ids of those requests (at most MAX_BATCH_IDS); `requestId` is then unset */
  requestIds?: string[];
}

/** Where earlier versions kept the records (an array in global state). */
export const LEGACY_LOG_KEY = 'modelRelay.requestLog';
/** The current file is rotated past this size: the log holds at most about twice as much (~3,000 records). */
export const MAX_FILE_BYTES = 512 * 1024;
/** At most this many request ids are kept in one record of aggregated completions. */
export const MAX_BATCH_IDS = 300;
/** At most this many records are held in memory (the files' bound keeps them fewer, unless they cannot be written). */
const MAX_HELD = 5000;
/** Other records are written this long after the first unsaved one (ms). */
const FLUSH_MS = 1000;
const MINUTE_MS = 60_000;
/** A minute's completions are written this long after the minute (a request ends after it started). */
const LATE_MS = 5000;
/** A read looks for the other windows' records when it has not for this long (ms). */
const CHECK_MS = 3000;
/** Folder events are gathered this long before the files are read (ms). */
const WATCH_MS = 200;

export const requestCount = (r: LoggedRequest): number => r.count ?? 1;

export const requestIdsOf = (r: LoggedRequest): string[] => r.requestIds ?? (r.requestId ? [r.requestId] : []);

function isLogged(v: unknown): v is LoggedRequest {
  if (!v || typeof v !== 'object') return false;
  const r = v as Partial<LoggedRequest>;
  return (
    typeof r.time === 'string' &&
    typeof r.path === 'string' &&
    typeof r.host === 'string' &&
    (r.count === undefined || (Number.isInteger(r.count) && r.count > 0)) &&
    (r.localInput === undefined || isLocalCount(r.localInput)) &&
    (r.requestIds === undefined || (Array.isArray(r.requestIds) && r.requestIds.every((i) => typeof i === 'string')))
  );
}

/** An inline completion that is counted rather than kept alone: it answered, or it was stopped. */
function countedOutcome(r: RequestRecord): 'ok' | 'aborted' | undefined {
  if (r.purpose !== 'completion') return undefined;
  if (r.errorKind === 'aborted') return 'aborted';
  return !r.errorKind && r.status !== undefined && r.status >= 200 && r.status < 300 ? 'ok' : undefined;
}

/** Adds one more completion to a record of aggregated completions. */
function merge(into: LoggedRequest, r: RequestRecord): void {
  const n = requestCount(into);
  const ids = requestIdsOf(into);
  if (r.requestId && ids.length < MAX_BATCH_IDS) ids.push(r.requestId);
  into.count = n + 1;
  into.requestIds = ids;
  into.requestId = undefined;
  into.durationMs = Math.round((into.durationMs * n + r.durationMs) / (n + 1));
  if (r.usage)
    into.usage = {
      promptTokens: (into.usage?.promptTokens ?? 0) + r.usage.promptTokens,
      completionTokens: (into.usage?.completionTokens ?? 0) + r.usage.completionTokens,
    };
  if (r.buffered) into.buffered = true;
}

const byTime = (a: LoggedRequest, b: LoggedRequest) => (a.time < b.time ? -1 : a.time > b.time ? 1 : 0);

export interface LocalRequestLogOptions {
  /** global state, where earlier versions kept the records (moved into the file once, then cleared) */
  legacy?: MementoLike;
  maxFileBytes?: number;
  /** watch the folder for the other windows' records (default: yes) */
  watch?: boolean;
}

export class LocalRequestLog {
  private readonly file: JsonLinesFile<LoggedRequest>;
  /** what the files held when last read */
  private stored: LoggedRequest[] = [];
  /** records handed to the writer, shown until they are read back */
  private writing: LoggedRequest[] = [];
  /** records waiting for the next write, and since when */
  private pending: LoggedRequest[] = [];
  private pendingSince = 0;
  /** this window's counted completions by minute, model and outcome, written once their minute is over */
  private readonly counted = new Map<string, { record: LoggedRequest; due: number }>();
  private sorted: LoggedRequest[] | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private timerDue = 0;
  private watcher: FSWatcher | undefined;
  private watchTimer: ReturnType<typeof setTimeout> | undefined;
  private checkedAt = 0;
  private disposed = false;
  /** reads and writes, one at a time */
  private io: Promise<unknown> = Promise.resolve();
  private readonly listeners = new Set<() => void>();
  /** resolves once the files were read (and the older records moved) the first time */
  readonly loaded: Promise<void>;

  constructor(dir: string, opts: LocalRequestLogOptions = {}) {
    this.file = new JsonLinesFile(dir, isLogged, opts.maxFileBytes ?? MAX_FILE_BYTES, 'requests');
    this.loaded = this.enqueue(() => this.open(opts.legacy, opts.watch ?? true));
  }

  /** Oldest first: what the files hold plus what this window has not written yet. */
  all(): LoggedRequest[] {
    if (Date.now() - this.checkedAt > CHECK_MS) this.check();
    this.sorted ??= [
      ...this.stored,
      ...this.writing,
      ...this.pending,
      ...[...this.counted.values()].map((c) => c.record),
    ].sort(byTime);
    return [...this.sorted];
  }

  /** The records by each of their request ids (the gateway's usage log is matched on them). */
  byRequestId(): Map<string, LoggedRequest> {
    const m = new Map<string, LoggedRequest>();
    for (const r of this.all()) for (const id of requestIdsOf(r)) m.set(id, r);
    return m;
  }

  add(r: RequestRecord): void {
    if (r.capability === 'account' || this.disposed) return;
    const outcome = Number.isFinite(Date.parse(r.time)) ? countedOutcome(r) : undefined;
    if (outcome) this.count(r, outcome);
    else {
      if (!this.pending.length) this.pendingSince = Date.now();
      this.pending.push(r);
    }
    this.changed();
    this.schedule();
  }

  onDidChange(listener: () => void): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  /** Writes everything waiting, this minute's completions too. */
  flush(): Promise<void> {
    return this.write(true);
  }

  /** Resolves when the reads and writes started so far are done. */
  async settled(): Promise<void> {
    for (let last = this.io; ; last = this.io) {
      await last.catch(() => undefined);
      if (last === this.io) return;
    }
  }

  async clear(): Promise<void> {
    this.pending = [];
    this.writing = [];
    this.counted.clear();
    await this.enqueue(async () => {
      this.stored = [];
      await this.file.clear().catch(() => undefined);
    });
    this.changed();
  }

  /** Writes what is waiting at once (the window is closing) and stops watching. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    clearTimeout(this.timer);
    clearTimeout(this.watchTimer);
    this.watcher?.close();
    const rest = [...this.pending, ...[...this.counted.values()].map((c) => c.record)];
    this.pending = [];
    this.counted.clear();
    try {
      this.file.appendSync(rest);
    } catch {
      /* the folder cannot be written: these records go with the window */
    }
    this.listeners.clear();
  }

  private async open(legacy: MementoLike | undefined, watchFolder: boolean): Promise<void> {
    try {
      await this.file.ensureDir();
      await this.migrate(legacy);
      await this.readBack();
    } catch {
      /* no storage folder: the log lives in this window's memory */
    }
    if (watchFolder && !this.disposed) this.watch();
    this.changed();
  }

  /** The records earlier versions kept in global state: into the file when there is no file yet; the key is cleared. */
  private async migrate(legacy: MementoLike | undefined): Promise<void> {
    const old = legacy?.get<unknown>(LEGACY_LOG_KEY, undefined);
    if (old === undefined) return;
    const records = Array.isArray(old) ? old.filter(isLogged) : [];
    if (records.length) await this.file.createWith(records);
    await legacy?.update(LEGACY_LOG_KEY, undefined);
  }

  private watch(): void {
    try {
      this.watcher = watch(this.file.dir, { persistent: false }, () => {
        this.watchTimer ??= setTimeout(() => {
          this.watchTimer = undefined;
          this.check();
        }, WATCH_MS);
      });
      this.watcher.on('error', () => this.watcher?.close());
    } catch {
      /* no folder watching here: reads look every CHECK_MS */
    }
  }

  /** Looks for the other windows' records (in the background) and tells the listeners when some came. */
  private check(): void {
    this.checkedAt = Date.now();
    void this.enqueue(async () => {
      if ((await this.readBack()) > 0) this.changed();
    });
  }

  /**
   * Reads what was appended since the last read (or everything, after a rotation or a clear): how many
   * records came (Infinity when everything was read afresh).
   */
  private async readBack(): Promise<number> {
    const { items, reset } = await this.file.readNew().catch(() => ({ items: [], reset: false }));
    if (reset) this.stored = items;
    else this.keep(items);
    this.sorted = undefined;
    return reset ? Infinity : items.length;
  }

  private count(r: RequestRecord, outcome: 'ok' | 'aborted'): void {
    const minute = Math.floor(Date.parse(r.time) / MINUTE_MS);
    const key = JSON.stringify([
      minute,
      outcome,
      r.gateway ?? '',
      r.host,
      r.model ?? '',
      r.method,
      r.path,
      r.surface,
      r.stream,
      r.maskedToken,
    ]);
    const open = this.counted.get(key);
    if (open) merge(open.record, r);
    else this.counted.set(key, { record: { ...r }, due: (minute + 1) * MINUTE_MS + LATE_MS });
  }

  /** One timer, for the earliest write due: the waiting records' or a finished minute's completions. */
  private schedule(): void {
    if (this.disposed) return;
    let due = this.pending.length ? this.pendingSince + FLUSH_MS : Infinity;
    for (const c of this.counted.values()) due = Math.min(due, c.due);
    if (due === Infinity || (this.timer && this.timerDue <= due)) return;
    clearTimeout(this.timer);
    this.timerDue = due;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        void this.write(false);
      },
      Math.max(0, due - Date.now()),
    );
  }

  /** Writes the waiting records and the finished minutes' completions (`all`: every minute's). */
  private async write(all: boolean): Promise<void> {
    const now = Date.now();
    const batch = this.pending;
    this.pending = [];
    for (const [key, c] of this.counted)
      if (all || c.due <= now) {
        batch.push(c.record);
        this.counted.delete(key);
      }
    this.schedule();
    if (!batch.length) return;
    this.writing.push(...batch);
    await this.enqueue(async () => {
      let came = 0;
      try {
        await this.file.append(batch);
        came = await this.readBack();
      } catch {
        this.keep(batch); // not written (no folder, disk full): kept in this window's memory
      }
      // the batch is now read back with the file (or kept above); more than it: another window's records
      this.writing = this.writing.filter((r) => !batch.includes(r));
      this.sorted = undefined;
      if (came > batch.length) this.changed();
    });
  }

  private keep(records: readonly LoggedRequest[]): void {
    this.stored.push(...records);
    if (this.stored.length > MAX_HELD) this.stored.splice(0, this.stored.length - MAX_HELD);
  }

  private enqueue<T>(op: () => Promise<T>): Promise<T> {
    const next = this.io.then(op);
    this.io = next.catch(() => undefined);
    return next;
  }

  private changed(): void {
    this.sorted = undefined;
    for (const l of this.listeners) l();
  }
}
