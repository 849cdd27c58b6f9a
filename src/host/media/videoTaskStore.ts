/**
 * The video tasks, kept in a Memento-shaped state: VS Code's globalState, which every window of the
 * profile shares. The list is bounded and keeps its order (a new task goes on top; an update stays in
 * its place). Each active task carries a lease (owner window + expiry) so that one window polls and
 * downloads it; a closed window's lease runs out and another window takes the task over
 * (`TaskLeases`). Plain Node, no `vscode`.
 */
import type { VideoPhase } from '../../gateway';

/** A stored task's state: the core's video phase, or what happened to it here. */
export type TaskState = VideoPhase | 'downloaded' | 'timed_out' | 'expired' | 'paused';

/** Which window polls and downloads a task, since when, until when (renewed while it does). */
export interface TaskLease {
  owner: string;
  /** when the owner claimed it: of two claims made at once, the earlier wins (then the smaller owner id) */
  since: number;
  until: number;
}

/**
 * Where the window that created the task saves its video: that window's output folder, and the
 * remote it ran on ('' for a local window) — a window on another machine cannot write there.
 */
export interface SaveTarget {
  dir: string;
  remote: string;
}

export interface StoredVideoTask {
  id: string;
  prompt: string;
  model: string;
  seconds?: number | undefined;
  createdAt: number;
  state: TaskState;
  rawStatus?: string | undefined;
  progress?: number | undefined;
  queuePosition?: number | undefined;
  reason?: string | undefined;
  file?: string | undefined;
  saveTo?: SaveTarget | undefined;
  lease?: TaskLease | undefined;
}

/** The part of `vscode.Memento` the store uses. */
export interface MementoLike {
  get<T>(key: string, defaultValue: T): T;
  update(key: string, value: unknown): PromiseLike<void>;
}

export const VIDEO_TASKS_KEY = 'modelRelay.videoTasks';
/** At most this many tasks are kept (the oldest go first). */
export const MAX_TASKS = 200;

/** The states a window polls in: queued and in progress. */
export const ACTIVE_STATES: ReadonlySet<TaskState> = new Set<TaskState>(['queued', 'in_progress']);

/** Tasks stored by earlier versions said `running` for what is now `in_progress`. */
function upgrade(t: StoredVideoTask): StoredVideoTask {
  return (t.state as string) === 'running' ? { ...t, state: 'in_progress' } : t;
}

export class VideoTaskStore {
  constructor(
    private readonly state: MementoLike,
    /** called after every write of this window (other windows' writes are seen by reading again) */
    private readonly changed: () => void = () => undefined,
  ) {}

  all(): StoredVideoTask[] {
    const list = this.state.get<StoredVideoTask[]>(VIDEO_TASKS_KEY, []);
    return Array.isArray(list) ? list.map(upgrade) : [];
  }

  get(id: string): StoredVideoTask | undefined {
    return this.all().find((t) => t.id === id);
  }

  /** A new task: on top of the list (a task with the same id is replaced). */
  async add(t: StoredVideoTask): Promise<void> {
    await this.write([t, ...this.all().filter((x) => x.id !== t.id)]);
  }

  /** Changes a task in its place (the list keeps its order); undefined when it is gone. */
  async patch(id: string, p: Partial<StoredVideoTask>): Promise<StoredVideoTask | undefined> {
    // Read and write with no await between: a window's own writes never interleave.
    const list = this.all();
    const i = list.findIndex((t) => t.id === id);
    const before = list[i];
    if (!before) return undefined;
    const next = { ...before, ...p };
    list[i] = next;
    await this.write(list);
    return next;
  }

  async remove(id: string): Promise<void> {
    await this.write(this.all().filter((x) => x.id !== id));
  }

  private async write(list: StoredVideoTask[]): Promise<void> {
    await this.state.update(VIDEO_TASKS_KEY, list.slice(0, MAX_TASKS));
    this.changed();
  }
}

/** How long a lease lasts without renewal: a closed window's tasks are taken over after this. */
export const LEASE_MS = 30_000;
/**
 * How long a claim waits before reading back whether it holds: windows see each other's writes to
 * globalState after a moment, and of two claims at once the last write wins.
 */
export const SETTLE_MS = 1500;

export type LeaseHolder = 'mine' | 'other' | 'none';

/** Leases on stored tasks for one window (`owner`): claim, renew, release, who holds a task. */
export class TaskLeases {
  constructor(
    private readonly store: VideoTaskStore,
    readonly owner: string,
    private readonly now: () => number,
    private readonly sleep: (ms: number) => Promise<void>,
  ) {}

  holder(t: StoredVideoTask): LeaseHolder {
    if (!t.lease || t.lease.until <= this.now()) return 'none';
    return t.lease.owner === this.owner ? 'mine' : 'other';
  }

  /**
   * Takes the lease on `id` unless another window holds a live one; true when this window holds it
   * once the writes have settled. Windows may each see the other's claim after claiming at once
   * (each reads its own copy of the state): the earlier claim wins, then the smaller owner id, so
   * exactly one of them keeps it and writes it again for the other to see.
   */
  async claim(id: string): Promise<boolean> {
    const t = this.store.get(id);
    if (!t) return false;
    const holder = this.holder(t);
    if (holder === 'other') return false;
    if (holder === 'mine') {
      await this.store.patch(id, { lease: { ...t.lease!, until: this.now() + LEASE_MS } });
      return true;
    }
    const mine = this.fresh();
    await this.store.patch(id, { lease: mine });
    await this.sleep(SETTLE_MS);
    const seen = this.store.get(id)?.lease;
    if (!seen) return false; // the task ended elsewhere meanwhile
    if (seen.owner === this.owner) return true;
    if (!precedes(mine, seen)) return false;
    await this.store.patch(id, { lease: { ...mine, until: this.now() + LEASE_MS } });
    return true;
  }

  /** A new lease for this window, from now. */
  fresh(): TaskLease {
    const now = this.now();
    return { owner: this.owner, since: now, until: now + LEASE_MS };
  }

  /** Extends this window's leases on `ids` once half their time is gone (not a write on every tick). */
  async renew(ids: Iterable<string>): Promise<void> {
    for (const id of ids) {
      const t = this.store.get(id);
      if (t && this.holder(t) === 'mine' && t.lease!.until - this.now() < LEASE_MS / 2)
        await this.store.patch(id, { lease: { ...t.lease!, until: this.now() + LEASE_MS } });
    }
  }

  /** Gives up this window's lease on `id` (another window's lease is left alone). */
  async release(id: string): Promise<void> {
    const t = this.store.get(id);
    if (t?.lease?.owner === this.owner) await this.store.patch(id, { lease: undefined });
  }

  /** Active tasks nobody holds a live lease on: a closed window's, or from before leases. */
  orphans(): StoredVideoTask[] {
    return this.store.all().filter((t) => ACTIVE_STATES.has(t.state) && this.holder(t) === 'none');
  }
}

/** Whether claim `a` wins over claim `b`: the earlier, then the smaller owner id. */
function precedes(a: TaskLease, b: TaskLease): boolean {
  return a.since !== b.since ? a.since < b.since : a.owner < b.owner;
}
