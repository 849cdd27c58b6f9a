/**
 * Video tasks: create, poll with the core's backoff poller (cancellable progress), download to the
 * workspace, and a Video Tasks view persisted in global state so polling resumes after a reload.
 */
import * as vscode from 'vscode';
import { mediaFileName, type VideoPhase, type VideoTask } from '../../gateway';
import type { Registrar } from '../lazy/registrar';
import { CommandId, VIDEO_VIEW_ID } from '../../host/commandIds';
import { errorWithFix } from '../../host/errorWords';
import { TaskPollers } from '../../host/media/taskPollers';
import { Disposable } from '../disposable';
import { showGatewayError } from '../errorPresenter';
import type { GatewayService } from '../gateways/gatewayService';
import {
  billedCallNote,
  freeFile,
  outputFolder,
  pickModel,
  promptFromSelectionOrInput,
  signalFrom,
} from './mediaCommon';

const STATE_KEY = 'modelRelay.videoTasks';

/** A stored task's state: the core's video phase, or what happened to it here. */
export type TaskState = VideoPhase | 'downloaded' | 'timed_out' | 'expired' | 'paused';

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
}

const ACTIVE: ReadonlySet<TaskState> = new Set<TaskState>(['queued', 'in_progress']);

/** Tasks stored by earlier versions said `running` for what is now `in_progress`. */
function upgrade(t: StoredVideoTask): StoredVideoTask {
  return (t.state as string) === 'running' ? { ...t, state: 'in_progress' } : t;
}

export class VideoTaskStore extends Disposable {
  private readonly emitter = this._register(new vscode.EventEmitter<void>());
  readonly onDidChange = this.emitter.event;
  constructor(private readonly context: vscode.ExtensionContext) {
    super();
  }

  all(): StoredVideoTask[] {
    return this.context.globalState.get<StoredVideoTask[]>(STATE_KEY, []).map(upgrade);
  }

  get(id: string): StoredVideoTask | undefined {
    return this.all().find((t) => t.id === id);
  }

  async upsert(t: StoredVideoTask): Promise<void> {
    const list = this.all().filter((x) => x.id !== t.id);
    await this.context.globalState.update(STATE_KEY, [t, ...list].slice(0, 200));
    this.emitter.fire();
  }

  async patch(id: string, p: Partial<StoredVideoTask>): Promise<StoredVideoTask | undefined> {
    const t = this.get(id);
    if (!t) return undefined;
    const next = { ...t, ...p };
    await this.upsert(next);
    return next;
  }

  async remove(id: string): Promise<void> {
    await this.context.globalState.update(
      STATE_KEY,
      this.all().filter((x) => x.id !== id),
    );
    this.emitter.fire();
  }
}

class TaskItem extends vscode.TreeItem {
  constructor(readonly task: StoredVideoTask) {
    super(task.prompt.length > 50 ? `${task.prompt.slice(0, 50)}…` : task.prompt, vscode.TreeItemCollapsibleState.None);
    const progress = task.progress !== undefined && ACTIVE.has(task.state) ? ` ${Math.round(task.progress)}%` : '';
    const queue =
      task.queuePosition !== undefined && task.state === 'queued'
        ? vscode.l10n.t(' (#{0} in queue)', task.queuePosition)
        : '';
    this.id = task.id;
    this.description = `${task.state}${progress}${queue} · ${task.model} · ${new Date(task.createdAt).toLocaleTimeString()}`;
    this.tooltip = new vscode.MarkdownString(
      [
        `**${task.prompt.replace(/[*_`[\]]/g, '\\$&')}**`,
        vscode.l10n.t('Task: `{0}`', task.id),
        vscode.l10n.t('Model: {0}', task.model),
        vscode.l10n.t('Status: {0}', task.state) +
          (task.rawStatus ? vscode.l10n.t(' (gateway: {0})', task.rawStatus) : ''),
        task.reason ? vscode.l10n.t('Reason: {0}', task.reason) : '',
        task.file ? vscode.l10n.t('File: {0}', vscode.workspace.asRelativePath(task.file)) : '',
      ]
        .filter(Boolean)
        .join('\n\n'),
    );
    const icons: Record<TaskState, string> = {
      queued: 'clock',
      in_progress: 'sync~spin',
      completed: 'check',
      downloaded: 'file-media',
      failed: 'error',
      timed_out: 'watch',
      expired: 'history',
      paused: 'debug-pause',
    };
    this.iconPath = new vscode.ThemeIcon(icons[task.state]);
    this.contextValue = `videoTask.${task.state}`;
    if (task.file) this.command = { command: CommandId.VideoOpen, title: vscode.l10n.t('Open'), arguments: [this] };
  }
}

export class VideoTasksView extends Disposable implements vscode.TreeDataProvider<TaskItem> {
  private readonly emitter = this._register(new vscode.EventEmitter<TaskItem | undefined>());
  readonly onDidChangeTreeData = this.emitter.event;
  constructor(private readonly store: VideoTaskStore) {
    super();
    this._register(store.onDidChange(() => this.emitter.fire(undefined)));
  }
  getTreeItem(e: TaskItem): vscode.TreeItem {
    return e;
  }
  getChildren(): TaskItem[] {
    return this.store.all().map((t) => new TaskItem(t));
  }
}

export class VideoController extends Disposable {
  private readonly pollers = new TaskPollers();
  readonly store: VideoTaskStore;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly service: GatewayService,
  ) {
    super();
    this.store = this._register(new VideoTaskStore(context));
    this._register({ dispose: () => this.pollers.stopAll() });
  }

  /** Resumes polling for tasks that were still running when the window closed. */
  resume(): void {
    for (const t of this.store.all()) if (ACTIVE.has(t.state)) void this.watch(t.id);
  }

  async generate(): Promise<StoredVideoTask | undefined> {
    const prompt = await promptFromSelectionOrInput(
      vscode.l10n.t('Model Relay: Generate Video'),
      vscode.l10n.t('Describe the video'),
    );
    if (!prompt) return undefined;
    const model = await pickModel(
      this.service,
      'video',
      this.service.current.models.video,
      vscode.l10n.t('Model Relay: video model'),
    );
    if (!model) return undefined;
    const note = await billedCallNote(this.service, model);
    const secondsText = await vscode.window.showInputBox({
      title: vscode.l10n.t('Model Relay: video length — Enter creates the video task'),
      prompt: vscode.l10n.t('{0}Seconds (leave empty for the model default)', note),
      value: String(this.service.current.videos.defaultSeconds),
      ignoreFocusOut: true,
      validateInput: (v) =>
        !v.trim() || /^[1-9]\d{0,3}$/.test(v.trim()) ? undefined : vscode.l10n.t('A whole number of seconds, e.g. 4.'),
    });
    if (secondsText === undefined) return undefined;
    const seconds = secondsText.trim() ? Number(secondsText.trim()) : undefined;
    let task: VideoTask;
    try {
      task = await vscode.window.withProgress(
        {
          location: vscode.ProgressLocation.Notification,
          title: vscode.l10n.t('Model Relay: creating a video task with {0}…', model),
          cancellable: false,
        },
        () => this.service.client.createVideo({ model, prompt, seconds }),
      );
    } catch (e) {
      // The notification says when the call may have been billed (it is never sent twice).
      await showGatewayError(vscode.l10n.t('Creating the video task'), e);
      return undefined;
    }
    const stored: StoredVideoTask = {
      id: task.id,
      prompt,
      model,
      seconds,
      createdAt: Date.now(),
      state: task.phase === 'queued' ? 'queued' : 'in_progress',
      rawStatus: task.rawStatus,
      progress: task.progress,
    };
    await this.store.upsert(stored);
    void vscode.commands.executeCommand('modelRelay.videoTasks.focus');
    void this.watch(task.id);
    return stored;
  }

  /** Polls one task with a cancellable progress notification; downloads and opens on completion. */
  async watch(id: string): Promise<void> {
    const t = this.store.get(id);
    if (!t) return;
    const ac = this.pollers.claim(id);
    if (!ac) {
      void vscode.window.setStatusBarMessage(
        vscode.l10n.t('Model Relay: video task {0} is already being watched.', id),
        3000,
      );
      return;
    }
    try {
      const outcome = await vscode.window.withProgress(
        {
          location: vscode.ProgressLocation.Notification,
          title: vscode.l10n.t('Model Relay: video "{0}"', t.prompt.slice(0, 30)),
          cancellable: true,
        },
        async (progress, token) => {
          token.onCancellationRequested(() => ac.abort());
          let last = 0;
          return this.service.client.pollVideo(id, {
            signal: ac.signal,
            onUpdate: (task) => {
              const pct = task.progress ?? last;
              progress.report({
                message: `${task.phase === 'queued' ? vscode.l10n.t('waiting in the queue') + (task.queuePosition !== undefined ? ` (#${task.queuePosition})` : '') : task.rawStatus}${task.progress !== undefined ? ` ${Math.round(task.progress)}%` : ''}`,
                increment: Math.max(0, pct - last),
              });
              last = pct;
              void this.store.patch(id, {
                state: task.phase,
                rawStatus: task.rawStatus,
                progress: task.progress,
                queuePosition: task.queuePosition,
              });
            },
          });
        },
      );
      switch (outcome.outcome) {
        case 'completed':
          await this.store.patch(id, { state: 'completed', progress: 100 });
          await this.download(id, true);
          break;
        case 'failed':
          await this.store.patch(id, { state: 'failed', reason: outcome.reason });
          void vscode.window.showErrorMessage(vscode.l10n.t('Model Relay: the video task failed: {0}', outcome.reason));
          break;
        case 'timed_out': {
          await this.store.patch(id, {
            state: 'timed_out',
            reason: vscode.l10n.t('no result after {0} min', Math.round(outcome.waitedMs / 60000)),
          });
          const keep = await vscode.window.showWarningMessage(
            vscode.l10n.t(
              'Model Relay: the video task is still not finished after {0} minutes (modelRelay.timeouts.videoOverallMinutes).',
              Math.round(outcome.waitedMs / 60000),
            ),
            vscode.l10n.t('Keep Waiting'),
          );
          if (keep) {
            await this.store.patch(id, { state: 'in_progress' });
            this.pollers.release(id, ac);
            void this.watch(id);
          }
          break;
        }
        case 'cancelled':
          await this.store.patch(id, {
            state: 'paused',
            reason: vscode.l10n.t('polling stopped; use Refresh to check again'),
          });
          break;
      }
    } catch (e) {
      await this.store.patch(id, { state: 'paused', reason: errorWithFix(e) });
      await showGatewayError(vscode.l10n.t('Checking the video task'), e);
    } finally {
      this.pollers.release(id, ac);
    }
  }

  /** Downloads a completed task's content (never before completion) and opens it. */
  async download(id: string, open: boolean): Promise<void> {
    const t = this.store.get(id);
    if (!t) return;
    try {
      const dir = await outputFolder(this.context, 'videos');
      const file = await freeFile(dir, mediaFileName(t.prompt, '.mp4', new Date(t.createdAt)));
      const r = await vscode.window.withProgress(
        {
          location: vscode.ProgressLocation.Notification,
          title: vscode.l10n.t('Model Relay: downloading the video…'),
          cancellable: true,
        },
        (_p, token) => this.service.client.downloadVideo(id, file.fsPath, signalFrom(token)),
      );
      if (r.outcome === 'downloaded') {
        await this.store.patch(id, { state: 'downloaded', file: r.path });
        if (open) await vscode.commands.executeCommand('vscode.open', file);
      } else if (r.outcome === 'expired') {
        await this.store.patch(id, { state: 'expired', reason: r.error.cause });
        const again = await vscode.window.showWarningMessage(
          `Model Relay: ${errorWithFix(r.error)}`,
          vscode.l10n.t('Generate Again'),
        );
        if (again) void vscode.commands.executeCommand(CommandId.GenerateVideo);
      } else {
        await this.store.patch(id, { state: 'in_progress' });
        void vscode.window.showInformationMessage(`Model Relay: ${r.error.message}`);
        void this.watch(id);
      }
    } catch (e) {
      await showGatewayError(vscode.l10n.t('Downloading the video'), e);
    }
  }

  async refresh(id: string): Promise<void> {
    const t = this.store.get(id);
    if (!t) return;
    if (t.state === 'completed') return this.download(id, true);
    try {
      const task = await this.service.client.getVideo(id);
      const state: TaskState = task.phase;
      await this.store.patch(id, {
        state,
        rawStatus: task.rawStatus,
        progress: task.progress,
        reason: task.error?.message,
      });
      if (state === 'completed') await this.download(id, true);
      else if (ACTIVE.has(state)) void this.watch(id);
    } catch (e) {
      await showGatewayError(vscode.l10n.t('Refreshing the video task'), e);
    }
  }
}

export function registerVideo(
  context: vscode.ExtensionContext,
  hub: Registrar,
  service: GatewayService,
): VideoController {
  const ctl = new VideoController(context, service);
  const view = new VideoTasksView(ctl.store);
  const taskOf = (arg: unknown): StoredVideoTask | undefined =>
    arg instanceof TaskItem ? arg.task : typeof arg === 'string' ? ctl.store.get(arg) : undefined;
  context.subscriptions.push(
    ctl,
    view,
    hub.tree(VIDEO_VIEW_ID, view),
    hub.command(CommandId.GenerateVideo, () => ctl.generate()),
    hub.command(CommandId.VideoRefresh, (a: unknown) => {
      const t = taskOf(a);
      return t ? ctl.refresh(t.id) : undefined;
    }),
    hub.command(CommandId.VideoDownload, (a: unknown) => {
      const t = taskOf(a);
      return t ? ctl.download(t.id, true) : undefined;
    }),
    hub.command(CommandId.VideoOpen, async (a: unknown) => {
      const t = taskOf(a);
      if (t?.file) await vscode.commands.executeCommand('vscode.open', vscode.Uri.file(t.file));
    }),
    hub.command(CommandId.VideoCopyId, async (a: unknown) => {
      const t = taskOf(a);
      if (t) {
        await vscode.env.clipboard.writeText(t.id);
        void vscode.window.showInformationMessage(vscode.l10n.t('Model Relay: copied task id {0}', t.id));
      }
    }),
    hub.command(CommandId.VideoRemove, async (a: unknown) => {
      const t = taskOf(a);
      if (t) await ctl.store.remove(t.id);
    }),
  );
  ctl.resume();
  return ctl;
}
