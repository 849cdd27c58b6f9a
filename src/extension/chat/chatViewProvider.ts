/**
 * The chat webview view (`modelRelay.chat` in the Model Relay container): its lifecycle, and the
 * wiring between the ChatSession (src/host/chat/session.ts), the webview (validated messages in,
 * batched text and reasoning deltas out, nothing before its `ready`), the model list (and which
 * models take images: src/host/chat/images.ts) and the saved conversation.
 */
import * as vscode from 'vscode';
import { replyCost } from '../../gateway';
import { DeltaBatcher } from '../../host/chat/deltaBatcher';
import { restoreEntries } from '../../host/chat/history';
import { checkImagesFor, imageCapableModel, modelTraits } from '../../host/chat/images';
import { ChatSession, MAX_INLINE_IMAGE_CHARS, type SessionEvent, type SessionModels } from '../../host/chat/session';
import { ChatModels } from '../../host/chat/chatModels';
import { ChatStore, restoreOptions } from '../../host/chat/chatStore';
import { chatHtml } from '../../host/webviewHtml';
import { chatStrings } from '../../host/chat/chatWords';
import {
  parseWebviewMessage,
  type ChatOptions,
  type ChatSnapshot,
  type ChatSurface,
  type HostToWebview,
  type ImageAttachment,
  type SelectionContext,
} from '../../shared/chatProtocol';
import { modelsForSurface } from '../../shared/modelOrder';
import { Disposable } from '../disposable';
import type { GatewayService } from '../gateways/gatewayService';
import { generateAndSaveImage } from '../media/mediaCommon';
import { SECTION } from '../gateways/settings';
import type { TokenStore } from '../gateways/tokenStore';
import { handleChatMessage, type ChatHost } from './chatMessages';

import { CHAT_VIEW_ID } from '../../host/commandIds';

export { CHAT_VIEW_ID };

/** The model named for an `/image` reply before one is configured (the request then says what to set). */
const IMAGE_MODEL_PLACEHOLDER = 'gpt-image-1';

export class ChatViewProvider extends Disposable implements vscode.WebviewViewProvider, ChatHost {
  private view: vscode.WebviewView | undefined;
  private ready = false;
  /** Open Chat asked for the input's focus before the page said `ready` */
  private focusWhenReady = false;
  private readonly session: ChatSession;
  private readonly store: ChatStore;
  private readonly models: ChatModels;
  private readonly deltas = new DeltaBatcher((id, text) => this.postNow({ type: 'entryDelta', id, text }));
  private readonly reasoning = new DeltaBatcher((id, text) => this.postNow({ type: 'entryReasoning', id, text }));
  /** Image input and thinking per model: the family table, overridden in modelRelay.models.overrides. */
  private readonly modelInfo: SessionModels = {
    traits: (model) => modelTraits(model, this.service.current.modelOverrides),
    imageModel: (surface: ChatSurface) => {
      const list = this.models.current;
      return imageCapableModel(
        [...modelsForSurface(list, surface), ...list.items.map((m) => m.id)],
        this.service.current.modelOverrides,
      );
    },
    costOf: (model, usage) => replyCost(this.service.price(model).price, usage),
  };
  private options: ChatOptions;
  private pendingContext: SelectionContext | undefined;
  private bufferNoticeShown: boolean;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly service: GatewayService,
    tokens: TokenStore,
    private readonly log: vscode.LogOutputChannel,
  ) {
    super();
    this.store = new ChatStore(context.workspaceState, () => ({
      entries: this.session.entries,
      options: this.options,
      bufferNoticeShown: this.bufferNoticeShown,
    }));
    const saved = this.store.load();
    this.bufferNoticeShown = saved.bufferNoticeShown === true;
    this.options = restoreOptions(saved.options, service.current);
    this.models = new ChatModels(
      service,
      (models) => this.post({ type: 'models', models }),
      () => !!this.view && this.ready,
    );
    this.session = this.createSession(saved.entries);
    this._register({ dispose: () => this.shutdown() });
    this._register(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration(`${SECTION}.stream`)) this.streamingChanged(this.service.current.stream);
        if (e.affectsConfiguration(`${SECTION}.models`) || e.affectsConfiguration(`${SECTION}.baseUrl`))
          this.models.defaultsChanged();
      }),
    );
    // Which models a token sees depends on its group.
    this._register(tokens.onDidChange(() => this.models.stale()));
  }

  private createSession(savedEntries: unknown): ChatSession {
    const service = this.service;
    return new ChatSession({
      backend: service.client,
      entries: restoreEntries(savedEntries),
      streaming: () => service.current.stream,
      bufferNoticeShown: this.bufferNoticeShown,
      onBufferNotice: () => {
        this.bufferNoticeShown = true;
        this.store.schedule(0);
      },
      listener: (e) => this.onSessionEvent(e),
      models: this.modelInfo,
      image: {
        model: () => service.current.models.image || IMAGE_MODEL_PLACEHOLDER,
        generate: async (prompt, signal) => {
          const { file, image } = await generateAndSaveImage(
            this.context,
            service,
            service.current.models.image,
            prompt,
            signal,
          );
          // Sized before encoding: an image too large to show inline is only linked, never base64-encoded.
          const inline = Math.ceil(image.bytes.length / 3) * 4 + 32 <= MAX_INLINE_IMAGE_CHARS;
          return {
            dataUrl: inline ? `data:${image.mime};base64,${image.bytes.toString('base64')}` : '',
            savedPath: vscode.workspace.asRelativePath(file),
          };
        },
      },
    });
  }

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
      codiconUri: view.webview.asWebviewUri(vscode.Uri.joinPath(dist, 'codicons', 'codicon.css')).toString(),
      strings: chatStrings(),
      lang: vscode.env.language,
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

  /** Open Chat: reveals the view with the keyboard focus in its input (once the page is ready). */
  async focusInput(): Promise<void> {
    await this.reveal();
    if (this.view && this.ready) this.post({ type: 'focusInput' });
    else this.focusWhenReady = true;
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

  // ----- ChatHost: what the webview's messages do ----------------------------------------------

  webviewReady(): void {
    this.ready = true;
    // The snapshot already holds any streamed text not yet posted.
    this.deltas.clear();
    this.reasoning.clear();
    this.postNow({ type: 'init', state: this.snapshot(), models: this.models.current });
    if (this.focusWhenReady) this.postNow({ type: 'focusInput' });
    this.focusWhenReady = false;
    this.models.ensureLoaded();
  }

  send(text: string, options: ChatOptions, images?: readonly ImageAttachment[]): void {
    this.setOptions(options);
    this.sendText(text, images);
  }

  stop(): void {
    this.session.stop();
  }

  regenerate(options: ChatOptions): void {
    this.setOptions(options);
    void this.session.regenerate(this.options);
  }

  retryWithoutStreaming(options: ChatOptions): void {
    this.setOptions(options);
    void this.session.retryWithoutStreaming(this.options);
  }

  newChat(): void {
    this.pendingContext = undefined;
    this.session.clear();
  }

  setOptions(o: ChatOptions): void {
    this.options = { ...o };
    this.store.schedule(0);
  }

  clearContext(): void {
    this.pendingContext = undefined;
  }

  streamingChanged(streaming: boolean): void {
    this.post({ type: 'config', streaming });
  }

  refreshModels(): Promise<void> {
    return this.models.load();
  }

  // ----- plumbing -------------------------------------------------------------------------------

  private sendText(text: string, images: readonly ImageAttachment[] = []): void {
    // Refused before anything changes: the selection stays attached, the webview puts the message back.
    const checked = checkImagesFor(this.options, images, this.modelInfo);
    if ('refused' in checked) {
      this.post({ type: 'sendRefused', message: checked.refused });
      return;
    }
    const context = this.pendingContext;
    this.pendingContext = undefined;
    this.post({ type: 'context', context: undefined });
    void this.session.send(text, this.options, context, images);
  }

  private onMessage(raw: unknown): void {
    const msg = parseWebviewMessage(raw);
    if (!msg) {
      const type = typeof raw === 'object' && raw ? String((raw as { type?: unknown }).type).slice(0, 40) : typeof raw;
      this.log.warn(`Chat view: ignored an invalid message (${type}).`);
      // The webview cleared its composer: it gets the message back.
      if (type === 'send')
        this.post({
          type: 'sendRefused',
          message: vscode.l10n.t(
            'The message could not be sent: it or its images are not valid (PNG, JPEG, GIF or WebP; at most 4, 5 MB each).',
          ),
        });
      return;
    }
    void handleChatMessage(this, msg).catch((e) =>
      this.log.error(`Chat view: ${msg.type} failed: ${e instanceof Error ? e.message : String(e)}`),
    );
  }

  private onSessionEvent(e: SessionEvent): void {
    if (e.type === 'entryDelta' || e.type === 'entryReasoning') {
      (e.type === 'entryDelta' ? this.deltas : this.reasoning).add(e.id, e.text);
      this.store.schedule(1000);
      return;
    }
    if (e.type === 'reset') {
      this.deltas.clear();
      this.reasoning.clear();
      this.post({ type: 'reset', state: this.snapshot() });
    } else {
      this.post(e);
    }
    this.store.schedule(0);
  }

  /** Posts in order (pending deltas first); dropped before `ready`: `init` carries the state. */
  private post(msg: HostToWebview): void {
    this.reasoning.flush();
    this.deltas.flush();
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
      streaming: this.service.current.stream,
    };
  }

  private shutdown(): void {
    this.session.stop();
    this.deltas.clear();
    this.reasoning.clear();
    this.store.flush();
  }
}
