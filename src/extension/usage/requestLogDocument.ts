/**
 * Show Request Log: the request log (src/host/usage/requestLogView.ts) as a read-only document in
 * the editor, with Refresh (the arrived column looked up again), Show Live Output (the "Model Relay"
 * output channel, every request line as it happens) and Copy Support Report in its title bar.
 */
import * as vscode from 'vscode';
import type { ArrivalSource } from '../../host/usage/arrivals';
import type { LocalRequestLog } from '../../host/usage/localLog';
import { RequestLogView } from '../../host/usage/requestLogView';
import { Disposable } from '../disposable';

export const REQUEST_LOG_SCHEME = 'model-relay-log';
/** New requests redraw the open log at most this often (ms). */
const REDRAW_MS = 250;

export class RequestLogDocument extends Disposable implements vscode.TextDocumentContentProvider {
  private readonly view: RequestLogView;
  private readonly changed = this._register(new vscode.EventEmitter<vscode.Uri>());
  readonly onDidChange = this.changed.event;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(requests: LocalRequestLog, arrivals: ArrivalSource) {
    super();
    this.view = new RequestLogView(requests, arrivals);
    this._register({ dispose: () => this.view.dispose() });
    this._register({ dispose: () => clearTimeout(this.timer) });
    this._register(this.view.onDidChange(() => this.redraw()));
    this._register(vscode.workspace.registerTextDocumentContentProvider(REQUEST_LOG_SCHEME, this));
  }

  /** The document's address (its name is the tab's title). */
  get uri(): vscode.Uri {
    return vscode.Uri.from({ scheme: REQUEST_LOG_SCHEME, path: `/${vscode.l10n.t('Model Relay Request Log')}.log` });
  }

  provideTextDocumentContent(): string {
    return this.view.text();
  }

  private redraw(): void {
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      this.changed.fire(this.uri);
    }, REDRAW_MS);
  }

  /** Opens the log (or brings it forward) and looks up the arrivals. */
  async show(): Promise<void> {
    const doc = await vscode.workspace.openTextDocument(this.uri);
    await vscode.window.showTextDocument(doc, { preview: false });
    await this.refresh();
  }

  /** Looks up every row's arrival again (one read per gateway). */
  refresh(): Promise<void> {
    return this.view.refresh();
  }
}
