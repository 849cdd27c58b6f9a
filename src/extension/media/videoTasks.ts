/**
 * Video tasks in VS Code: the Generate Video command, the task commands, and the window's side of the
 * controller (progress notifications with Cancel, files, questions). The store, the leases that let one
 * window poll and download each task, and the controller are plain Node in src/host/media; the view
 * is videoTasksView.ts.
 */
import { randomUUID } from 'node:crypto';
import * as vscode from 'vscode';
import { mediaFileName, type GatewayError } from '../../gateway';
import type { Registrar } from '../lazy/registrar';
import { withAbort } from '../../host/cancellation';
import { CommandId, VIDEO_VIEW_ID } from '../../host/commandIds';
import { errorWithFix } from '../../host/errorWords';
import { secondsPrompt } from '../../host/media/mediaWords';
import { VideoController, type VideoStep, type VideoUi } from '../../host/media/videoController';
import { TaskLeases, VideoTaskStore, type StoredVideoTask } from '../../host/media/videoTaskStore';
import { showGatewayError } from '../errorPresenter';
import type { GatewayService } from '../gateways/gatewayService';
import { freeFile, outputFolder, pickModel, priceOf, promptFromSelectionOrInput } from './mediaCommon';
import { TaskItem, VideoTasksView } from './videoTasksView';

/** The remote this window's extension host runs on ('' locally): a folder is only written from there. */
const here = (): string => vscode.env.remoteName ?? '';

/** The controller's window side: notifications, files and questions. */
class VscodeVideoUi implements VideoUi {
  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly service: GatewayService,
  ) {}

  polling<T>(
    task: StoredVideoTask,
    cancel: AbortController,
    work: (report: (message: string, increment: number) => void) => Promise<T>,
  ): Promise<T> {
    const title = vscode.l10n.t('Model Relay: video "{0}"', task.prompt.slice(0, 30));
    const shown = vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title, cancellable: true },
      async (progress, token) => {
        const sub = token.onCancellationRequested(() => cancel.abort());
        try {
          return await work((message, increment) => progress.report({ message, increment }));
        } finally {
          sub.dispose();
        }
      },
    );
    return Promise.resolve(shown);
  }

  downloading<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const title = vscode.l10n.t('Model Relay: downloading the video…');
    const shown = vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title, cancellable: true },
      (_p, token) => withAbort(token, work),
    );
    return Promise.resolve(shown);
  }

  async videoFile(task: StoredVideoTask, dir: string | undefined): Promise<string> {
    const folder = dir ? vscode.Uri.file(dir) : await outputFolder(this.context, this.service, 'videos');
    if (dir) await vscode.workspace.fs.createDirectory(folder);
    return (await freeFile(folder, mediaFileName(task.prompt, '.mp4', new Date(task.createdAt)))).fsPath;
  }

  async open(file: string): Promise<void> {
    await vscode.commands.executeCommand('vscode.open', vscode.Uri.file(file));
  }

  failed(reason: string): void {
    void vscode.window.showErrorMessage(vscode.l10n.t('Model Relay: the video task failed: {0}', reason));
  }

  async keepWaiting(minutes: number): Promise<boolean> {
    const keep = vscode.l10n.t('Keep Waiting');
    const pick = await vscode.window.showWarningMessage(
      vscode.l10n.t(
        'Model Relay: the video task is still not finished after {0} minutes (modelRelay.timeouts.videoOverallMinutes).',
        minutes,
      ),
      keep,
    );
    return pick === keep;
  }

  expired(error: GatewayError): void {
    const again = vscode.l10n.t('Generate Again');
    void vscode.window
      .showWarningMessage(vscode.l10n.t('Model Relay: {0}', errorWithFix(error)), again)
      .then((pick) => (pick === again ? vscode.commands.executeCommand(CommandId.GenerateVideo) : undefined));
  }

  notReady(error: GatewayError): void {
    void vscode.window.showInformationMessage(vscode.l10n.t('Model Relay: {0}', error.message));
  }

  alreadyWatched(task: StoredVideoTask, where: 'here' | 'elsewhere'): void {
    const text =
      where === 'here'
        ? vscode.l10n.t('Model Relay: video task {0} is already being watched.', task.id)
        : vscode.l10n.t('Model Relay: another window is watching video task {0}; it downloads the video.', task.id);
    void vscode.window.setStatusBarMessage(text, 3000);
  }

  async error(step: VideoStep, e: unknown): Promise<void> {
    const what = {
      check: vscode.l10n.t('Checking the video task'),
      download: vscode.l10n.t('Downloading the video'),
      refresh: vscode.l10n.t('Refreshing the video task'),
    }[step];
    await showGatewayError(what, e);
  }
}

/** Asks for the prompt, model and length, creates the task (billed, never sent twice) and hands it to the controller. */
async function generate(
  context: vscode.ExtensionContext,
  service: GatewayService,
  ctl: VideoController,
): Promise<StoredVideoTask | undefined> {
  const prompt = await promptFromSelectionOrInput(
    vscode.l10n.t('Model Relay: Generate Video'),
    vscode.l10n.t('Describe the video'),
  );
  if (!prompt) return undefined;
  const title = vscode.l10n.t('Model Relay: video model');
  const model = await pickModel(service, 'video', service.current.models.video, title);
  if (!model) return undefined;
  const secondsText = await vscode.window.showInputBox({
    title: vscode.l10n.t('Model Relay: video length — Enter creates the video task'),
    prompt: secondsPrompt(model, await priceOf(service, model)),
    value: String(service.current.videos.defaultSeconds),
    ignoreFocusOut: true,
    validateInput: (v) =>
      !v.trim() || /^[1-9]\d{0,3}$/.test(v.trim()) ? undefined : vscode.l10n.t('A whole number of seconds, e.g. 4.'),
  });
  if (secondsText === undefined) return undefined;
  const seconds = secondsText.trim() ? Number(secondsText.trim()) : undefined;
  try {
    // The folder is this window's: the video goes there, whichever window downloads it.
    const dir = await outputFolder(context, service, 'videos');
    const task = await vscode.window.withProgress(
      {
        location: vscode.ProgressLocation.Notification,
        title: vscode.l10n.t('Model Relay: creating a video task with {0}…', model),
        cancellable: false,
      },
      () => service.client.createVideo({ model, prompt, seconds }),
    );
    const stored: StoredVideoTask = {
      id: task.id,
      prompt,
      model,
      seconds,
      createdAt: Date.now(),
      state: task.phase === 'queued' ? 'queued' : 'in_progress',
      rawStatus: task.rawStatus,
      progress: task.progress,
      saveTo: { dir: dir.fsPath, remote: here() },
    };
    await ctl.started(stored);
    void vscode.commands.executeCommand(`${VIDEO_VIEW_ID}.focus`);
    return stored;
  } catch (e) {
    // The notification says when the call may have been billed (it is never sent twice).
    await showGatewayError(vscode.l10n.t('Creating the video task'), e, service);
    return undefined;
  }
}

const open = (file: string) => vscode.commands.executeCommand('vscode.open', vscode.Uri.file(file));

async function copyId(t: StoredVideoTask): Promise<void> {
  await vscode.env.clipboard.writeText(t.id);
  void vscode.window.showInformationMessage(vscode.l10n.t('Model Relay: copied task id {0}', t.id));
}

export function registerVideo(
  context: vscode.ExtensionContext,
  hub: Registrar,
  service: GatewayService,
): VideoController {
  const changed = new vscode.EventEmitter<void>();
  const store = new VideoTaskStore(context.globalState, () => changed.fire());
  const leases = new TaskLeases(store, randomUUID(), Date.now, (ms) => new Promise((r) => setTimeout(r, ms)));
  const ctl = new VideoController({
    store,
    leases,
    api: () => service.client,
    ui: new VscodeVideoUi(context, service),
    remote: here(),
    changedElsewhere: () => changed.fire(),
  });
  const view = new VideoTasksView(store, leases, changed.event);
  const taskOf = (arg: unknown): StoredVideoTask | undefined =>
    arg instanceof TaskItem ? store.get(arg.task.id) : typeof arg === 'string' ? store.get(arg) : undefined;
  const withTask = (run: (t: StoredVideoTask) => unknown) => (arg: unknown) => {
    const t = taskOf(arg);
    return t ? run(t) : undefined;
  };
  const refresh = withTask((t) => ctl.refresh(t.id));
  const download = withTask((t) => ctl.download(t.id, true));
  const openFile = withTask((t) => (t.file ? open(t.file) : undefined));
  const remove = withTask((t) => store.remove(t.id));
  context.subscriptions.push(
    changed,
    ctl,
    view,
    hub.tree(VIDEO_VIEW_ID, view),
    hub.command(CommandId.GenerateVideo, () => generate(context, service, ctl)),
    hub.command(CommandId.VideoRefresh, refresh),
    hub.command(CommandId.VideoDownload, download),
    hub.command(CommandId.VideoOpen, openFile),
    hub.command(CommandId.VideoCopyId, withTask(copyId)),
    hub.command(CommandId.VideoRemove, remove),
  );
  ctl.start();
  return ctl;
}
