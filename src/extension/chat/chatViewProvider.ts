/**
 * The chat webview view (`modelRelay.chat` in the Model Relay container), VS Code's side of it: the
 * page's lifecycle (HTML, `ready`, hidden, disposed), each validated message from the page (the switch
 * below) and what needs VS Code (clipboard, editor, commands, `/image` generation, webview URIs). The
 * conversation, what is posted and when it is saved live in src/host/chat/chatView.ts; the model list
 * in src/host/chat/chatModels.ts.
 */
import * as vscode from 'vscode';
import { replyCost } from '../../gateway';
import { listModelsAcross } from '../../gateway';
import { chatGateways, ChatModels } from '../../host/chat/chatModels';
import { gatewayBackend } from '../../host/chat/gatewayBackend';
import { ChatView } from '../../host/chat/chatView';
import { chatStrings } from '../../host/chat/chatWords';
import { CHAT_IMAGES_FOLDER, ChatImageFiles } from '../../host/chat/imageFiles';
import { sessionModels } from '../../host/chat/modelTraits';
import type { ImageBackend } from '../../host/chat/session';
import { CommandId } from '../../host/commandIds';
import { chatHtml } from '../../host/webviewHtml';
import { parseWebviewMessage, type SelectionContext, type WebviewToHost } from '../../shared/chatProtocol';
import { Disposable } from '../disposable';
import type { GatewayService } from '../gateways/gatewayService';
import { disableStreaming, SECTION } from '../gateways/settings';
import { CHAT_VIEW_ID } from '../../host/commandIds';
import { generateAndSaveImage } from '../media/mediaCommon';
import type { ArrivalSource } from '../../host/usage/arrivals';
import type { ReceiptSource } from '../../host/usage/receiptSource';
import type { ReportedError } from '../support/supportCommand';

/** The model named for an `/image` reply before one is configured (the request then says what to set). */
const IMAGE_MODEL_PLACEHOLDER = 'gpt-image-1';

export class ChatViewProvider extends Disposable implements vscode.WebviewViewProvider {
  private view: vscode.WebviewView | undefined;
  /** the subscriptions of the current page (replaced when VS Code resolves the view again) */
  private viewSubs: vscode.Disposable | undefined;
  private readonly chat: ChatView;
  private readonly models: ChatModels;
  private readonly imagesDir: vscode.Uri;
  /** the subscriptions to the token stores of the gateways that are not active */
  private otherTokens: vscode.Disposable | undefined;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly service: GatewayService,
    private readonly log: vscode.LogOutputChannel,
    arrivals: ArrivalSource,
    /** the receipts of billed calls (the usage room's book): a reply's receipt line; absent, none */
    receipts?: ReceiptSource,
  ) {
    super();
    this.imagesDir = vscode.Uri.joinPath(context.storageUri ?? context.globalStorageUri, CHAT_IMAGES_FOLDER);
    const files = new ChatImageFiles(this.imagesDir.fsPath, (what, e) =>
      log.warn(`Chat images: ${what} failed: ${e instanceof Error ? e.message : String(e)}`),
    );
    this.chat = new ChatView({
      // the chosen model's gateway (the active one by default), with modelRelay.fallbacks
      backend: gatewayBackend({
        set: service.gateways,
        activeId: () => service.registry.activeId(),
        fallbacks: () => service.current.fallbacks,
        unconfigured: () => service.client,
      }),
      state: context.workspaceState,
      files,
      settings: () => service.current,
      models: sessionModels({
        overrides: () => service.current.modelOverrides,
        list: () => this.models.current,
        costOf: (model, usage, gateway) => {
          const active = service.registry.activeId();
          const price =
            this.models.priceOf(gateway ?? active, model) ??
            ((gateway ?? active) === active ? service.price(model).price : undefined);
          return replyCost(price, usage);
        },
      }),
      modelList: () => this.models.current,
      image: this.imageBackend(),
      // a failed /image that may have been charged: its card says whether the gateway logged it
      arrivals,
      // a finished reply's receipt, once the gateway's log holds its record
      receipts,
      post: (msg) => void this.view?.webview.postMessage(msg),
      src: (file) => this.view?.webview.asWebviewUri(vscode.Uri.joinPath(this.imagesDir, file)).toString(),
      // Windows without a workspace share the global storage: none of them removes the others' images.
      ownsImageFolder: context.storageUri !== undefined,
    });
    this.models = new ChatModels(
      {
        gateways: () => chatGateways(service.registry),
        listModels: (ids, boundMs) => listModelsAcross(service.gateways, { ids, boundMs }),
        // the active gateway's through the service, so every reader of its prices finds them (price())
        prices: (id) =>
          id === service.registry.activeId()
            ? service.refreshPricing()
            : service
                .clientOf(id)
                .account.pricing()
                .catch(() => undefined),
        learnt: (id) => service.clientOf(id).learntSurfaces(),
      },
      (models) => this.chat.post({ type: 'models', models }),
      () => this.chat.isReady,
    );
    this._register({ dispose: () => this.chat.dispose() });
    this._register({
      dispose: () => {
        this.viewSubs?.dispose();
      },
    });
    this.watchChanges();
  }

  /** What makes the model list or the streaming setting change: settings, the active gateway, tokens. */
  private watchChanges(): void {
    const service = this.service;
    this._register(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration(`${SECTION}.stream`)) this.chat.streamingChanged(this.service.current.stream);
        if (
          e.affectsConfiguration(`${SECTION}.models`) ||
          e.affectsConfiguration(`${SECTION}.baseUrl`) ||
          e.affectsConfiguration(`${SECTION}.gateways`)
        ) {
          this.watchOtherTokens();
          this.models.defaultsChanged();
        }
      }),
    );
    // Another gateway made active: its group is marked, and its models are the defaults.
    this._register(
      service.registry.onDidChange(() => {
        this.watchOtherTokens();
        this.models.defaultsChanged();
      }),
    );
    this._register({
      dispose: () => {
        this.otherTokens?.dispose();
      },
    });
    this.watchOtherTokens();
    // Which models a token sees depends on its group (the active gateway's tokens; the others' below).
    this._register(service.onDidChangeToken(() => this.models.stale()));
    // A request (here or in VS Code's chat) may have taught a model's surface, a list read forgotten one:
    // the picker says so.
    this._register(service.onDidChangeModels(() => this.models.surfacesLearnt()));
  }

  /**
   * A token added to, switched on or removed from another gateway adds, changes or removes its group
   * (the active gateway's tokens are the service's token event, which follows the active gateway).
   */
  private watchOtherTokens(): void {
    this.otherTokens?.dispose();
    const { registry } = this.service;
    const active = registry.activeId();
    this.otherTokens = vscode.Disposable.from(
      ...registry
        .gateways()
        .filter((g) => g.id !== active)
        .map((g) => registry.tokensOf(g.id).onDidChange(() => this.models.stale())),
    );
  }

  private imageBackend(): ImageBackend {
    const service = this.service;
    return {
      model: () => service.current.models.image || IMAGE_MODEL_PLACEHOLDER,
      generate: async (prompt, signal) => {
        const { file, image } = await generateAndSaveImage(
          this.context,
          service,
          service.current.models.image,
          prompt,
          signal,
        );
        return { bytes: image.bytes, savedPath: vscode.workspace.asRelativePath(file) };
      },
    };
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    this.viewSubs?.dispose();
    this.view = view;
    this.chat.webviewGone();
    const dist = vscode.Uri.joinPath(this.context.extensionUri, 'dist');
    const media = vscode.Uri.joinPath(this.context.extensionUri, 'media');
    view.webview.options = { enableScripts: true, localResourceRoots: [dist, media, this.imagesDir] };
    view.webview.html = chatHtml({
      cspSource: view.webview.cspSource,
      scriptUri: view.webview.asWebviewUri(vscode.Uri.joinPath(dist, 'webview.js')).toString(),
      styleUri: view.webview.asWebviewUri(vscode.Uri.joinPath(media, 'chat.css')).toString(),
      codiconUri: view.webview.asWebviewUri(vscode.Uri.joinPath(dist, 'codicons', 'codicon.css')).toString(),
      strings: chatStrings(),
      lang: vscode.env.language,
    });
    const subs = vscode.Disposable.from(
      view.webview.onDidReceiveMessage((raw: unknown) => this.onMessage(raw)),
      // A hidden view loses its page; it says `ready` again when shown.
      view.onDidChangeVisibility(() => {
        if (!view.visible) this.chat.webviewGone();
      }),
      view.onDidDispose(() => {
        subs.dispose();
        if (this.view !== view) return;
        this.view = undefined;
        this.viewSubs = undefined;
        this.chat.webviewGone();
      }),
    );
    this.viewSubs = subs;
  }

  /** Reveals the chat view (creating it when needed). */
  async reveal(): Promise<void> {
    await vscode.commands.executeCommand(`${CHAT_VIEW_ID}.focus`);
  }

  /** Open Chat: reveals the view with the keyboard focus in its input (once the page is ready). */
  async focusInput(): Promise<void> {
    await this.reveal();
    this.chat.focusInput();
  }

  /** Ask About Selection: attaches the selection; with a question, sends it (or queues it while a reply streams). */
  async askAbout(context: SelectionContext, question?: string): Promise<void> {
    await this.reveal();
    this.chat.askAbout(context, question);
  }

  newChat(): void {
    this.chat.newChat();
  }

  private onMessage(raw: unknown): void {
    const msg = parseWebviewMessage(raw);
    if (!msg) {
      const type = typeof raw === 'object' && raw ? String((raw as { type?: unknown }).type).slice(0, 40) : typeof raw;
      this.log.warn(`Chat view: ignored an invalid message (${type}).`);
      // The webview cleared its composer: it gets the message back.
      if (type === 'send')
        this.chat.post({
          type: 'sendRefused',
          message: vscode.l10n.t(
            'The message could not be sent: it or its images are not valid (PNG, JPEG, GIF or WebP; at most 4, 5 MB each).',
          ),
        });
      return;
    }
    this.handle(msg).catch((e: unknown) =>
      this.log.error(`Chat view: ${msg.type} failed: ${e instanceof Error ? e.message : String(e)}`),
    );
  }

  /** What each (validated) message from the page does. */
  private async handle(msg: WebviewToHost): Promise<void> {
    switch (msg.type) {
      case 'ready':
        this.chat.webviewReady();
        return this.models.ensureLoaded();
      case 'send':
        return this.chat.send(msg.text, msg.options, msg.images);
      case 'stop':
        return this.chat.stop();
      case 'regenerate':
        return this.chat.regenerate(msg.options);
      case 'retryWithoutStreaming':
        return this.chat.retryWithoutStreaming(msg.options);
      case 'retryBilled':
        return this.chat.retryBilled(msg.options);
      case 'newChat':
        return this.chat.newChat();
      case 'setOptions':
        return this.chat.setOptions(msg.options);
      case 'clearContext':
        return this.chat.clearContext();
      case 'copyCode':
        await vscode.env.clipboard.writeText(msg.code);
        void vscode.window.setStatusBarMessage(vscode.l10n.t('Model Relay: code copied'), 2000);
        return;
      case 'insertCode':
        return insertAtCursor(msg.code);
      case 'runDiagnose':
        await vscode.commands.executeCommand(CommandId.Diagnose);
        return;
      case 'showLog':
        await vscode.commands.executeCommand(CommandId.ShowLog);
        return;
      case 'copySupportReport': {
        const reported: ReportedError | undefined = this.chat.errorOf(msg.entryId);
        await vscode.commands.executeCommand(CommandId.CopySupportReport, reported);
        return;
      }
      case 'disableStreaming':
        await disableStreaming();
        this.chat.streamingChanged(false);
        void vscode.window.showInformationMessage(
          vscode.l10n.t('Model Relay: streaming is off (modelRelay.stream = false). Replies now arrive in one piece.'),
        );
        return;
      case 'refreshModels':
        return this.models.load();
      default: {
        const _exhaustive: never = msg;
        void _exhaustive;
      }
    }
  }
}

/** Inserts code at the cursor (replacing the selection) of the editor the user last worked in. */
async function insertAtCursor(code: string): Promise<void> {
  const editor =
    vscode.window.activeTextEditor ?? vscode.window.visibleTextEditors.find((e) => e.document.uri.scheme !== 'output');
  if (!editor) {
    void vscode.window.showWarningMessage(vscode.l10n.t('Model Relay: open a file to insert the code into.'));
    return;
  }
  const target = await vscode.window.showTextDocument(editor.document, {
    viewColumn: editor.viewColumn,
    preserveFocus: false,
  });
  const ok = await target.edit((b) => {
    for (const s of target.selections) b.replace(s, code);
  });
  if (!ok)
    void vscode.window.showWarningMessage(
      vscode.l10n.t('Model Relay: the code could not be inserted (is the file read-only?).'),
    );
}
