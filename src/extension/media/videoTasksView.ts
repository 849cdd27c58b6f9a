/**
 * The Video Tasks view: one row per stored task (its state in words, progress, model, time), a
 * tooltip with the details and which window checks it. Reads the store; the controller changes it.
 */
import * as vscode from 'vscode';
import { CommandId } from '../../host/commandIds';
import { taskStateLine, taskStatusLine, watcherLine } from '../../host/media/mediaWords';
import {
  ACTIVE_STATES,
  type StoredVideoTask,
  type TaskLeases,
  type TaskState,
  type VideoTaskStore,
} from '../../host/media/videoTaskStore';
import { Disposable } from '../disposable';

const ICONS: Record<TaskState, string> = {
  queued: 'clock',
  in_progress: 'sync~spin',
  completed: 'check',
  downloaded: 'file-media',
  failed: 'error',
  timed_out: 'watch',
  expired: 'history',
  paused: 'debug-pause',
};

function tooltip(task: StoredVideoTask, leases: TaskLeases): vscode.MarkdownString {
  return new vscode.MarkdownString(
    [
      `**${task.prompt.replace(/[*_`[\]]/g, '\\$&')}**`,
      vscode.l10n.t('Task: `{0}`', task.id),
      vscode.l10n.t('Model: {0}', task.model),
      taskStatusLine(task),
      ACTIVE_STATES.has(task.state) ? watcherLine(leases.holder(task)) : '',
      task.reason ? vscode.l10n.t('Reason: {0}', task.reason) : '',
      task.file ? vscode.l10n.t('File: {0}', vscode.workspace.asRelativePath(task.file)) : '',
    ]
      .filter(Boolean)
      .join('\n\n'),
  );
}

export class TaskItem extends vscode.TreeItem {
  constructor(
    readonly task: StoredVideoTask,
    leases: TaskLeases,
  ) {
    super(task.prompt.length > 50 ? `${task.prompt.slice(0, 50)}…` : task.prompt, vscode.TreeItemCollapsibleState.None);
    this.id = task.id;
    this.description = [taskStateLine(task), task.model, new Date(task.createdAt).toLocaleTimeString()].join(' · ');
    this.tooltip = tooltip(task, leases);
    this.iconPath = new vscode.ThemeIcon(ICONS[task.state]);
    this.contextValue = `videoTask.${task.state}`;
    if (task.file) this.command = { command: CommandId.VideoOpen, title: vscode.l10n.t('Open'), arguments: [this] };
  }
}

export class VideoTasksView extends Disposable implements vscode.TreeDataProvider<TaskItem> {
  private readonly emitter = this._register(new vscode.EventEmitter<TaskItem | undefined>());
  readonly onDidChangeTreeData = this.emitter.event;

  constructor(
    private readonly store: VideoTaskStore,
    private readonly leases: TaskLeases,
    changed: vscode.Event<void>,
  ) {
    super();
    this._register(changed(() => this.emitter.fire(undefined)));
  }

  getTreeItem(e: TaskItem): vscode.TreeItem {
    return e;
  }

  getChildren(): TaskItem[] {
    return this.store.all().map((t) => new TaskItem(t, this.leases));
  }
}
