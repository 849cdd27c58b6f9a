/**
 * What a window does with the video tasks: polls the ones it holds the lease on (one window per task,
 * however many are open), downloads a finished video once, takes over the tasks of a closed window,
 * and notices other windows' changes for its view. The window's UI (progress notifications, files,
 * questions) is handed in as `VideoUi`; the gateway calls as `VideoApi`. Plain Node, no `vscode`.
 *
 * Where the video goes: into the output folder of the window that created the task (recorded with the
 * task), also when another window took the task over — the user asked for it there, and the view shows
 * the file to every window. Only a window on another machine (another remote) uses its own folder.
 */
import type { DownloadOutcome, GatewayError, PollOutcome, PollRequest, VideoTask } from '../../gateway';
import { t } from '../../gateway/l10n';
import { errorSummary, errorWithFix } from '../errorWords';
import { pollMessage } from './mediaWords';
import { TaskPollers } from './taskPollers';
import { ACTIVE_STATES, type StoredVideoTask, type TaskLeases, type VideoTaskStore } from './videoTaskStore';

/** The gateway calls the controller makes (the core's GatewayClient). */
export interface VideoApi {
  pollVideo(id: string, o: PollRequest): Promise<PollOutcome>;
  getVideo(id: string, signal?: AbortSignal): Promise<VideoTask>;
  downloadVideo(id: string, filePath: string, signal?: AbortSignal): Promise<DownloadOutcome>;
}

export type VideoStep = 'check' | 'download' | 'refresh';

/** What the controller shows and asks in its window. */
export interface VideoUi {
  /** Runs a poll under a cancellable progress notification; its Cancel aborts `cancel`. */
  polling<T>(
    task: StoredVideoTask,
    cancel: AbortController,
    work: (report: (message: string, increment: number) => void) => Promise<T>,
  ): Promise<T>;
  /** Runs a download under a cancellable progress notification. */
  downloading<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T>;
  /** A free file name for the video: in `dir` (the creating window's folder) when given, else this window's folder. */
  videoFile(task: StoredVideoTask, dir: string | undefined): Promise<string>;
  open(file: string): Promise<void>;
  failed(reason: string): void;
  /** The overall wait ran out after `minutes`: true to keep waiting. */
  keepWaiting(minutes: number): Promise<boolean>;
  expired(error: GatewayError): void;
  notReady(error: GatewayError): void;
  /** The task is polled already, by this window or by another one. */
  alreadyWatched(task: StoredVideoTask, where: 'here' | 'elsewhere'): void;
  error(step: VideoStep, e: unknown): Promise<void>;
}

export interface VideoControllerDeps {
  store: VideoTaskStore;
  leases: TaskLeases;
  api: () => VideoApi;
  ui: VideoUi;
  /** the remote this window runs on ('' locally) */
  remote: string;
  /** another window changed the tasks (this window's own writes are announced by the store) */
  changedElsewhere?: () => void;
}

/** How often a window renews its leases, takes over orphaned tasks and looks for other windows' changes. */
export const TICK_MS = 5000;

/** The folder a task's video goes to from this window: the creating window's, unless that is on another machine. */
export function saveDir(task: StoredVideoTask, remote: string): string | undefined {
  return task.saveTo && task.saveTo.remote === remote ? task.saveTo.dir : undefined;
}

type Next = 'again' | 'done';

export class VideoController {
  private readonly pollers = new TaskPollers();
  private disposed = false;
  private timer: ReturnType<typeof setInterval> | undefined;
  private seen = '';

  constructor(private readonly d: VideoControllerDeps) {
    this.seen = this.snapshot();
  }

  get store(): VideoTaskStore {
    return this.d.store;
  }

  /** Takes over orphaned tasks now, then every `TICK_MS`. */
  start(intervalMs = TICK_MS): void {
    void this.tick();
    this.timer ??= setInterval(() => void this.tick(), intervalMs);
  }

  /** Renews this window's leases, takes over tasks nobody holds, refreshes the view on other windows' changes. */
  async tick(): Promise<void> {
    if (this.disposed) return;
    await this.d.leases.renew(this.pollers.ids());
    for (const task of this.d.leases.orphans()) if (!this.pollers.isPolled(task.id)) void this.watch(task.id);
    const now = this.snapshot();
    if (now !== this.seen) {
      this.seen = now;
      this.d.changedElsewhere?.();
    }
  }

  /** The list as the view shows it (a lease's renewal alone is no change). */
  private snapshot(): string {
    return JSON.stringify(this.d.store.all().map((x) => ({ ...x, lease: x.lease?.owner })));
  }

  /** A task this window created: on top of the list, leased to this window, and watched. */
  async started(task: StoredVideoTask): Promise<void> {
    await this.d.store.add({ ...task, lease: this.d.leases.fresh() });
    this.seen = this.snapshot();
    void this.watch(task.id);
  }

  /** Polls a task until it ends, then downloads it (only in the window holding its lease). */
  watch(id: string): Promise<void> {
    return this.hold(id, 'poll', true);
  }

  /** Downloads a completed task's content (never before completion) and opens it. */
  download(id: string, open: boolean): Promise<void> {
    return this.hold(id, 'fetch', open);
  }

  /** Asks the gateway about a task again (a task another window polls is left to it). */
  async refresh(id: string): Promise<void> {
    const task = this.d.store.get(id);
    if (!task) return;
    if (task.state === 'completed') return this.download(id, true);
    if (this.d.leases.holder(task) === 'other') return this.d.ui.alreadyWatched(task, 'elsewhere');
    try {
      const v = await this.d.api().getVideo(id);
      await this.d.store.patch(id, {
        state: v.phase,
        rawStatus: v.rawStatus,
        progress: v.progress,
        reason: v.error?.message,
      });
      if (v.phase === 'completed') await this.download(id, true);
      else if (ACTIVE_STATES.has(v.phase)) void this.watch(id);
    } catch (e) {
      await this.d.ui.error('refresh', e);
    }
  }

  /** Holds the task (this window's poller and the lease) while polling and downloading it. */
  private async hold(id: string, first: 'poll' | 'fetch', open: boolean): Promise<void> {
    const task = this.d.store.get(id);
    if (!task || this.disposed) return;
    const ac = this.pollers.claim(id);
    if (!ac) return this.d.ui.alreadyWatched(task, 'here');
    try {
      if (!(await this.d.leases.claim(id))) return this.d.ui.alreadyWatched(task, 'elsewhere');
      let next: Next = first === 'fetch' ? await this.fetch(id, open) : 'again';
      while (next === 'again' && !this.disposed) next = await this.settle(id, await this.poll(task, ac));
    } catch (e) {
      if (!this.disposed) {
        await this.d.store.patch(id, { state: 'paused', reason: errorWithFix(e) });
        await this.d.ui.error('check', e);
      }
    } finally {
      this.pollers.release(id, ac);
      await this.d.leases.release(id);
    }
  }

  private poll(task: StoredVideoTask, ac: AbortController): Promise<PollOutcome> {
    let last = 0;
    return this.d.ui.polling(task, ac, (report) =>
      this.d.api().pollVideo(task.id, {
        signal: ac.signal,
        onUpdate: (v) => {
          const pct = v.progress ?? last;
          report(pollMessage(v), Math.max(0, pct - last));
          last = pct;
          void this.d.store.patch(task.id, {
            state: v.phase,
            rawStatus: v.rawStatus,
            progress: v.progress,
            queuePosition: v.queuePosition,
          });
        },
      }),
    );
  }

  /** What follows a poll's outcome: a download, a question, a stored state; 'again' polls once more. */
  private async settle(id: string, outcome: PollOutcome): Promise<Next> {
    switch (outcome.outcome) {
      case 'completed':
        await this.d.store.patch(id, { state: 'completed', progress: 100 });
        return this.fetch(id, true);
      case 'failed':
        await this.d.store.patch(id, { state: 'failed', reason: outcome.reason });
        this.d.ui.failed(outcome.reason);
        return 'done';
      case 'timed_out': {
        const minutes = Math.round(outcome.waitedMs / 60000);
        await this.d.store.patch(id, { state: 'timed_out', reason: t('no result after {0} min', minutes) });
        if (!(await this.d.ui.keepWaiting(minutes))) return 'done';
        await this.d.store.patch(id, { state: 'in_progress' });
        return 'again';
      }
      case 'cancelled':
        // A closing window leaves the task active: another window takes it over.
        if (!this.disposed)
          await this.d.store.patch(id, { state: 'paused', reason: t('polling stopped; use Refresh to check again') });
        return 'done';
    }
  }

  /** Downloads the video once; 'again' when the gateway says it is not ready after all. */
  private async fetch(id: string, open: boolean): Promise<Next> {
    const task = this.d.store.get(id);
    if (!task) return 'done';
    try {
      const file = await this.d.ui.videoFile(task, saveDir(task, this.d.remote));
      const r = await this.d.ui.downloading((signal) => this.d.api().downloadVideo(id, file, signal));
      if (r.outcome === 'downloaded') {
        await this.d.store.patch(id, { state: 'downloaded', file: r.path });
        if (open) await this.d.ui.open(r.path);
        return 'done';
      }
      if (r.outcome === 'expired') {
        await this.d.store.patch(id, { state: 'expired', reason: errorSummary(r.error) });
        this.d.ui.expired(r.error);
        return 'done';
      }
      await this.d.store.patch(id, { state: 'in_progress' });
      this.d.ui.notReady(r.error);
      return 'again';
    } catch (e) {
      await this.d.ui.error('download', e);
      return 'done';
    }
  }

  /** The window closes: its tasks stay active and their leases are given up, so another window takes them over. */
  dispose(): void {
    this.disposed = true;
    if (this.timer) clearInterval(this.timer);
    for (const id of this.pollers.ids()) void this.d.leases.release(id);
    this.pollers.stopAll();
  }
}
