/**
 * The chat webview view (`modelRelay.chat` in the Model Relay container): owns the ChatSession,
 * validates every webview message (zod), posts nothing before the webview's `ready`, persists the
 * conversation in workspace state, and fills the model picker from /v1/models.
 */
import * as vscode from 'vscode';
import { GatewayError, extensionForMime, noImageError, noImageModelError, mediaFileName, type RequestRecord } from '../../gateway';
import { outputFolder } from '../media/mediaCommon';
import { parseWebviewMessage, type ChatOptions, type ChatSnapshot, type HostToWebview, type ModelList, type SelectionContext, type WebviewToHost } from '../../shared/chatProtocol';
import { CommandId } from '../commandIds';
import type { GatewayService } from '../gatewayService';
import type { TokenStore } from '../tokenStore';
import { SECTION } from '../settings';
import { chatHtml } from './chatHtml';
import { ChatSession, restoreEntries, type SessionEvent } from './chatSession';

export const CHAT_VIEW_ID = 'modelRelay.chat';
const STATE_KEY = 'modelRelay.chat.v1';
const DIAGNOSE_COMMAND = 'modelRelay.diagnose';
/** Entries kept in workspace state. */
const MAX_SAVED_ENTRIES = 200;
/** Streamed text is posted at most this often (ms); the webview renders once per frame anyway. */
const DELTA_FLUSH_MS = 16;

interface SavedChat {
  entries?: unknown;
  options?: Partial<ChatOptions>;
  bufferNoticeShown?: boolean;
}

export class ChatViewProvider implements vscode.WebviewViewProvider, vscode.Disposable {
  private view: vscode.WebviewView | undefined;
  private ready = false;
  private readonly session: ChatSession;
  private options: ChatOptions;
  private pendingContext: SelectionContext | undefined;
  private models: ModelList;
  private modelsLoaded = false;
  private canDiagnose = false;
  private bufferNoticeShown: boolean;
  private readonly deltas = new Map<string, string>();
  private deltaTimer: NodeJS.Timeout | undefined;
  private saveTimer: NodeJS.Timeout | undefined;
  private lastRecord: RequestRecord | undefined;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly service: GatewayService,
    tokens: TokenStore,
    private readonly log: vscode.LogOutputChannel,
  ) {
    const saved = context.workspaceState.get<SavedChat>(STATE_KEY) ?? {};
    this.bufferNoticeShown = saved.bufferNoticeShown === true;
    this.options = this.initialOptions(saved.options);
    this.models = { items: [], defaults: this.defaults(), loading: false };
    this.session = new ChatSession({
      backend: service.client,
      entries: restoreEntries(saved.entries),
      streaming: () => service.current.stream,
      maxRetries: () => service.current.maxRetries,
      bufferNoticeShown: this.bufferNoticeShown,
      onBufferNotice: () => {
        this.bufferNoticeShown = true;
        this.scheduleSave(0);
      },
      listener: (e) => this.onSessionEvent(e),
      image: {
        model: () => service.current.models.image || 'gpt-image-1',
        generate: async (prompt, signal) => {
          const model = service.current.models.image;
          if (!model) throw noImageModelError();
          const r = await service.client.generateImage({ model, prompt, signal });
          const img = r.images[0];
          if (!img) throw noImageError();
          const dir = await outputFolder(context, 'images.outputFolder', '.model-relay/images');
          const file = vscode.Uri.joinPath(dir, mediaFileName(prompt, extensionForMime(img.mime)));
          await vscode.workspace.fs.writeFile(file, img.bytes);
          return { dataUrl: `data:${img.mime};base64,${img.bytes.toString('base64')}`, savedPath: vscode.workspace.asRelativePath(file) };
        },
      },
    });
    this.disposables.push(
      service.onDidChange(() => {
        const r = service.lastRecord;
        if (r && r !== this.lastRecord) {
          this.lastRecord = r;
          this.session.noteRequestRecord(r);
        }
      }),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration(`${SECTION}.stream`)) this.post({ type: 'config', streaming: this.streamingSetting(), canDiagnose: this.canDiagnose });
        if (e.affectsConfiguration(`${SECTION}.models`) || e.affectsConfiguration(`${SECTION}.baseUrl`)) {
          this.models = { ...this.models, defaults: this.defaults() };
          this.modelsChanged();
        }
      }),
      // Which models a token sees depends on its group.
      tokens.onDidChange(() => this.modelsChanged()),
    );
  }

  // ----- view ----------------------------------------------------------------------------------

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    this.ready = false;
    const dist = vscode.Uri.joinPath(this.context.extensionUri, 'dist');
    const media = vscode.Uri.joinPath(this.context.extensionUri, 'media');
    view.webview.options = { enableScripts: true, localResourceRoots: [dist, media] };
    view.webview.html = chatHtml({
      cspSource: view.webview.cspSource,
      scriptUri: view.webview.asWebviewUri(vscode.Uri.joinPath(dist, 'webview.js')).toString(),
      styleUri: view.webview.asWebviewUri(vscode.Uri.joinPath(media, 'chat.css')).toString(),
    });
    const subs = [
      view.webview.onDidReceiveMessage((raw: unknown) => this.onMessage(raw)),
      // A hidden view loses its page; it says `ready` again when shown.
      view.onDidChangeVisibility(() => {
        if (!view.visible) this.ready = false;
      }),
    ];
    view.onDidDispose(() => {
      for (const s of subs) s.dispose();
      if (this.view === view) {
        this.view = undefined;
        this.ready = false;
      }
    });
  }

  /** Reveals the chat view (creating it when needed). */
  async reveal(): Promise<void> {
    await vscode.commands.executeCommand(`${CHAT_VIEW_ID}.focus`);
  }

  // ----- commands ------------------------------------------------------------------------------

  newChat(): void {
    this.pendingContext = undefined;
    this.session.clear();
  }

  /** Ask About Selection: attaches the selection; with a question, sends it at once. */
  async askAbout(context: SelectionContext, question?: string): Promise<void> {
    this.pendingContext = context;
    await this.reveal();
    if (question && question.trim()) {
      this.sendText(question);
      return;
    }
    this.post({ type: 'context', context });
    this.post({ type: 'focusInput' });
  }

  private sendText(text: string): void {
    const context = this.pendingContext;
    this.pendingContext = undefined;
    this.post({ type: 'context', context: undefined });
    void this.session.send(text, this.options, context);
  }

  // ----- messages from the webview ---------------------------------------------------------------

  private onMessage(raw: unknown): void {
    const msg = parseWebviewMessage(raw);
    if (!msg) {
      this.log.warn(`Chat view: ignored an invalid message (${typeof raw === 'object' && raw ? String((raw as { type?: unknown }).type) : typeof raw}).`);
      return;
    }
    void this.handle(msg).catch((e) => this.log.error(`Chat view: ${msg.type} failed: ${e instanceof Error ? e.message : String(e)}`));
  }

  private async handle(msg: WebviewToHost): Promise<void> {
    switch (msg.type) {
      case 'ready': {
        this.ready = true;
        // The snapshot already holds any streamed text not yet posted.
        this.deltas.clear();
        this.postNow({ type: 'init', state: this.snapshot(), models: this.models });
        if (!this.modelsLoaded) void this.loadModels();
        const canDiagnose = (await vscode.commands.getCommands(true)).includes(DIAGNOSE_COMMAND);
        if (canDiagnose !== this.canDiagnose) {
          this.canDiagnose = canDiagnose;
          this.post({ type: 'config', streaming: this.streamingSetting(), canDiagnose });
        }
        break;
      }
      case 'send':
        this.setOptions(msg.options);
        this.sendText(msg.text);
        break;
      case 'stop':
        this.session.stop();
        break;
      case 'regenerate':
        this.setOptions(msg.options);
        void this.session.regenerate(this.options);
        break;
      case 'newChat':
        this.newChat();
        break;
      case 'setOptions':
        this.setOptions(msg.options);
        break;
      case 'clearContext':
        this.pendingContext = undefined;
        break;
      case 'copyCode':
        await vscode.env.clipboard.writeText(msg.code);
        void vscode.window.setStatusBarMessage('Model Relay: code copied', 2000);
        break;
      case 'insertCode':
        await insertAtCursor(msg.code);
        break;
      case 'runDiagnose':
        if ((await vscode.commands.getCommands(true)).includes(DIAGNOSE_COMMAND)) await vscode.commands.executeCommand(DIAGNOSE_COMMAND);
        else await vscode.commands.executeCommand(CommandId.ShowLog);
        break;
      case 'showLog':
        await vscode.commands.executeCommand(CommandId.ShowLog);
        break;
      case 'disableStreaming':
        await vscode.workspace.getConfiguration(SECTION).update('stream', false, vscode.ConfigurationTarget.Global);
        this.post({ type: 'config', streaming: false, canDiagnose: this.canDiagnose });
        void vscode.window.showInformationMessage('Model Relay: streaming is off (modelRelay.stream = false). Replies now arrive in one piece.');
        break;
      case 'refreshModels':
        await this.loadModels();
        break;
      default: {
        const _exhaustive: never = msg;
        void _exhaustive;
      }
    }
  }

  // ----- session → webview ---------------------------------------------------------------------

  private onSessionEvent(e: SessionEvent): void {
    switch (e.type) {
      case 'entryDelta':
        this.deltas.set(e.id, (this.deltas.get(e.id) ?? '') + e.text);
        this.deltaTimer ??= setTimeout(() => this.flushDeltas(), DELTA_FLUSH_MS);
        this.scheduleSave(1000);
        return;
      case 'entryAdded':
        this.post({ type: 'entryAdded', entry: e.entry });
        break;
      case 'entryUpdated':
        this.post({ type: 'entryUpdated', entry: e.entry });
        break;
      case 'entryRemoved':
        this.post({ type: 'entryRemoved', id: e.id });
        break;
      case 'busy':
        this.post({ type: 'busy', busy: e.busy });
        break;
      case 'reset':
        this.deltas.clear();
        this.post({ type: 'reset', state: this.snapshot() });
        break;
      default: {
        const _exhaustive: never = e;
        void _exhaustive;
      }
    }
    this.scheduleSave(0);
  }

  private flushDeltas(): void {
    if (this.deltaTimer) clearTimeout(this.deltaTimer);
    this.deltaTimer = undefined;
    if (!this.deltas.size) return;
    const pending = [...this.deltas];
    this.deltas.clear();
    for (const [id, text] of pending) this.postNow({ type: 'entryDelta', id, text });
  }

  /** Posts in order (pending deltas first); dropped before `ready`: `init` carries the state. */
  private post(msg: HostToWebview): void {
    this.flushDeltas();
    this.postNow(msg);
  }

  private postNow(msg: HostToWebview): void {
    if (!this.view || !this.ready) return;
    void this.view.webview.postMessage(msg);
  }

  private snapshot(): ChatSnapshot {
    return {
      entries: [...this.session.entries],
      options: this.options,
      busy: this.session.busy,
      pendingContext: this.pendingContext,
      streaming: this.streamingSetting(),
      canDiagnose: this.canDiagnose,
    };
  }

  // ----- options, models, persistence ----------------------------------------------------------

  private defaults(): ModelList['defaults'] {
    return { compatible: this.service.current.models.chat, native: this.service.current.models.native };
  }

  private initialOptions(saved: Partial<ChatOptions> | undefined): ChatOptions {
    const s = this.service.current;
    const surface = saved?.surface === 'native' || saved?.surface === 'compatible' ? saved.surface : s.defaultSurface;
    const model = typeof saved?.model === 'string' && saved.model ? saved.model : surface === 'native' ? s.models.native : s.models.chat;
    return {
      surface,
      model,
      system: typeof saved?.system === 'string' ? saved.system : '',
      temperature: typeof saved?.temperature === 'number' && saved.temperature >= 0 && saved.temperature <= 2 ? saved.temperature : s.temperature,
      maxTokens: typeof saved?.maxTokens === 'number' && Number.isInteger(saved.maxTokens) && saved.maxTokens > 0 ? saved.maxTokens : s.maxTokens,
    };
  }

  private setOptions(o: ChatOptions): void {
    this.options = { ...o };
    this.scheduleSave(0);
  }

  private streamingSetting(): boolean {
    return vscode.workspace.getConfiguration(SECTION).get<boolean>('stream', true) !== false;
  }

  /** The model list is stale: reload it now if the view shows, else when it next does. */
  private modelsChanged(): void {
    this.modelsLoaded = false;
    if (this.view && this.ready) void this.loadModels();
  }

  private async loadModels(): Promise<void> {
    this.models = { ...this.models, defaults: this.defaults(), loading: true, error: undefined };
    this.post({ type: 'models', models: this.models });
    try {
      const list = await this.service.refreshModels();
      this.models = { items: list.map((m) => ({ id: m.id, capabilities: m.capabilities })), defaults: this.defaults(), loading: false };
      this.modelsLoaded = true;
    } catch (e) {
      const why = e instanceof GatewayError ? `${e.status ? `HTTP ${e.status}: ` : ''}${e.cause}` : e instanceof Error ? e.message : String(e);
      this.models = { ...this.models, defaults: this.defaults(), loading: false, error: why };
    }
    this.post({ type: 'models', models: this.models });
  }

  private scheduleSave(delayMs: number): void {
    if (this.saveTimer && delayMs > 0) return;
    if (this.saveTimer) clearTimeout(this.saveTimer);
    this.saveTimer = setTimeout(() => {
      this.saveTimer = undefined;
      void this.save();
    }, delayMs);
  }

  private async save(): Promise<void> {
    const saved: SavedChat = { entries: this.session.entries.slice(-MAX_SAVED_ENTRIES), options: this.options, bufferNoticeShown: this.bufferNoticeShown };
    await this.context.workspaceState.update(STATE_KEY, saved);
  }

  dispose(): void {
    this.session.stop();
    if (this.deltaTimer) clearTimeout(this.deltaTimer);
    if (this.saveTimer) {
      clearTimeout(this.saveTimer);
      void this.save();
    }
    for (const d of this.disposables) d.dispose();
  }
}

/** Inserts code at the cursor (replacing the selection) of the editor the user last worked in. */
async function insertAtCursor(code: string): Promise<void> {
  const editor = vscode.window.activeTextEditor ?? vscode.window.visibleTextEditors.find((e) => e.document.uri.scheme !== 'output');
  if (!editor) {
    void vscode.window.showWarningMessage('Model Relay: open a file to insert the code into.');
    return;
  }
  const target = await vscode.window.showTextDocument(editor.document, { viewColumn: editor.viewColumn, preserveFocus: false });
  const ok = await target.edit((b) => {
    for (const s of target.selections) b.replace(s, code);
  });
  if (!ok) void vscode.window.showWarningMessage('Model Relay: the code could not be inserted (is the file read-only?).');
}
