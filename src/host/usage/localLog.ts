/**
 * The requests this installation sent, kept across windows and restarts (bounded): the request log's
 * rows, the Usage view's "arrived from here" mark and its estimate on gateways without a usage log,
 * and the support report's last failing requests. Records are the core's `RequestRecord`s, which hold
 * only the masked token; balance reads (capability `account`) are bookkeeping and not kept.
 * Writes are batched (one Memento update per burst) so a streaming agent loop costs one write, not dozens.
 */
import type { RequestRecord } from '../../gateway';

/** The part of `vscode.Memento` the log uses. */
export interface MementoLike {
  get<T>(key: string, defaultValue: T): T;
  update(key: string, value: unknown): PromiseLike<void>;
}

export const LOCAL_LOG_KEY = 'modelRelay.requestLog';
/** At most this many records are kept (the oldest go first): about 600 KB of global state at most. */
export const MAX_LOCAL_RECORDS = 2000;
/** Records are written this long after the first unsaved one. */
const FLUSH_MS = 1000;

function isRecord(v: unknown): v is RequestRecord {
  if (!v || typeof v !== 'object') return false;
  const r = v as Partial<RequestRecord>;
  return typeof r.time === 'string' && typeof r.path === 'string' && typeof r.host === 'string';
}

export class LocalRequestLog {
  private pending: RequestRecord[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly listeners = new Set<() => void>();

  constructor(
    private readonly state: MementoLike,
    private readonly max = MAX_LOCAL_RECORDS,
  ) {}

  /** Oldest first; what was stored plus what is waiting to be written. */
  all(): RequestRecord[] {
    const stored = this.state.get<unknown>(LOCAL_LOG_KEY, []);
    const list = Array.isArray(stored) ? stored.filter(isRecord) : [];
    const merged = this.pending.length ? [...list, ...this.pending] : list;
    return merged.length > this.max ? merged.slice(merged.length - this.max) : merged;
  }

  /** The records whose request id is known, by id (the gateway's usage log is matched on it). */
  byRequestId(): Map<string, RequestRecord> {
    const m = new Map<string, RequestRecord>();
    for (const r of this.all()) if (r.requestId) m.set(r.requestId, r);
    return m;
  }

  add(r: RequestRecord): void {
    if (r.capability === 'account') return;
    this.pending.push(r);
    if (this.pending.length > this.max) this.pending.splice(0, this.pending.length - this.max);
    this.timer ??= setTimeout(() => void this.flush(), FLUSH_MS);
    for (const l of this.listeners) l();
  }

  onDidChange(listener: () => void): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  /** Writes what is waiting (also on dispose). */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.pending.length) return;
    const next = this.all();
    this.pending = [];
    await this.state.update(LOCAL_LOG_KEY, next);
  }

  async clear(): Promise<void> {
    this.pending = [];
    await this.state.update(LOCAL_LOG_KEY, []);
    for (const l of this.listeners) l();
  }

  dispose(): void {
    void this.flush();
    this.listeners.clear();
  }
}
