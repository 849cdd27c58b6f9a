/**
 * Activation: light on purpose (its bundle holds no core, no undici, no zod). It registers every
 * command, view, language-model provider, participant and tool as a delegate, shows the status bar
 * item and the Status view's first rows, and loads the rest (./main.ts, bundled as dist/main.js) on
 * first use — a command, a view's content, VS Code asking for models — or a few seconds after start
 * to read the token's balance.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { CommandId } from '../host/commandIds';
import { DelegatingLanguageModels, DelegatingTool, DelegatingTree, DelegatingWebviewView } from './lazy/delegates';
import { activeTokenName } from '../host/gateways/activeToken';
import {
  CHAT_VIEW_ID,
  LM_VENDOR,
  PARTICIPANT_ID,
  STATUS_VIEW_ID,
  TOOL_NAMES,
  VIDEO_VIEW_ID,
  WALKTHROUGH_ID,
  type ToolName,
} from './lazy/ids';
import type { Registrar } from './lazy/registrar';
import type { RelayApi } from './main';

/** After this long the rest loads anyway (the balance in the status bar needs it). */
const BACKGROUND_LOAD_MS = 2_500;

export interface LazyRelayApi {
  /** the extension's objects, once its main part has loaded (loads it) */
  ready(): Promise<RelayApi>;
}

/** The Status view's first rows, shown while the rest loads (the settings are read there, once). */
function statusPlaceholder(context: vscode.ExtensionContext): vscode.TreeItem[] {
  const token = activeTokenName(context.globalState);
  // No token yet: nothing, so the view's welcome (base URL, token, walkthrough) shows at once.
  if (!token) return [];
  const tok = new vscode.TreeItem(vscode.l10n.t('Token'));
  tok.description = token;
  tok.iconPath = new vscode.ThemeIcon('key');
  const loading = new vscode.TreeItem(vscode.l10n.t('Gateway'));
  loading.description = vscode.l10n.t('loading the status…');
  loading.iconPath = new vscode.ThemeIcon('loading~spin');
  return [tok, loading];
}

class Hub implements Registrar {
  readonly statusItem = vscode.window.createStatusBarItem('modelRelay.status', vscode.StatusBarAlignment.Right, 100);
  private readonly commands = new Map<string, (...args: any[]) => unknown>();
  readonly trees = new Map<string, DelegatingTree<unknown>>();
  readonly chat: DelegatingWebviewView;
  readonly models: DelegatingLanguageModels;
  readonly tools = new Map<ToolName, DelegatingTool>();
  participantHandler: vscode.ChatRequestHandler | undefined;

  constructor(
    readonly context: vscode.ExtensionContext,
    readonly load: () => Promise<void>,
  ) {
    this.chat = new DelegatingWebviewView(load);
    this.models = new DelegatingLanguageModels(load);
    for (const id of [STATUS_VIEW_ID, VIDEO_VIEW_ID])
      this.trees.set(id, new DelegatingTree(load, id === STATUS_VIEW_ID ? () => statusPlaceholder(context) : () => []));
    for (const name of TOOL_NAMES) this.tools.set(name, new DelegatingTool(load));
  }

  /** The stand-in for a command: runs it if it is here already (the light ones), else loads the rest first. */
  stub(id: string): (...args: unknown[]) => Promise<unknown> {
    return async (...args) => {
      if (!this.commands.has(id)) await this.load();
      const fn = this.commands.get(id);
      if (!fn) throw new Error(vscode.l10n.t('Model Relay: the command {0} is not available.', id));
      return fn(...args);
    };
  }

  command(id: CommandId, fn: (...args: any[]) => unknown): vscode.Disposable {
    this.commands.set(id, fn);
    return { dispose: () => this.commands.delete(id) };
  }
  tree<T>(viewId: string, provider: vscode.TreeDataProvider<T>): vscode.Disposable {
    return (this.trees.get(viewId) as DelegatingTree<T> | undefined)?.set(provider) ?? { dispose: () => undefined };
  }
  webviewView(viewId: string, provider: vscode.WebviewViewProvider): vscode.Disposable {
    if (viewId === CHAT_VIEW_ID) this.chat.impl = provider;
    return { dispose: () => (this.chat.impl = undefined) };
  }
  languageModels(provider: vscode.LanguageModelChatProvider): vscode.Disposable {
    return this.models.set(provider);
  }
  participant(handler: vscode.ChatRequestHandler): vscode.Disposable {
    this.participantHandler = handler;
    return { dispose: () => (this.participantHandler = undefined) };
  }
  tool(name: ToolName, tool: vscode.LanguageModelTool<any>): vscode.Disposable {
    const d = this.tools.get(name);
    if (d) d.impl = tool;
    return { dispose: () => d && (d.impl = undefined) };
  }
}

/** Registers the delegates with VS Code (each API feature-detected: older builds lack some). */
function registerDelegates(hub: Hub): void {
  const { context } = hub;
  const api = vscode as unknown as {
    lm?: { registerLanguageModelChatProvider?: unknown; registerTool?: unknown };
    chat?: { createChatParticipant?: unknown };
  };
  const subs = context.subscriptions;
  for (const id of Object.values(CommandId)) subs.push(vscode.commands.registerCommand(id, hub.stub(id)));
  for (const [id, tree] of hub.trees) subs.push(vscode.window.registerTreeDataProvider(id, tree));
  subs.push(vscode.window.registerWebviewViewProvider(CHAT_VIEW_ID, hub.chat));
  if (typeof api.lm?.registerLanguageModelChatProvider === 'function')
    subs.push(vscode.lm.registerLanguageModelChatProvider(LM_VENDOR, hub.models));
  if (typeof api.lm?.registerTool === 'function')
    for (const [name, tool] of hub.tools) subs.push(vscode.lm.registerTool(name, tool));
  if (typeof api.chat?.createChatParticipant === 'function') {
    const participant = vscode.chat.createChatParticipant(PARTICIPANT_ID, async (req, ctx, stream, token) => {
      await hub.load();
      return hub.participantHandler?.(req, ctx, stream, token);
    });
    participant.iconPath = vscode.Uri.joinPath(context.extensionUri, 'media', 'icon.png');
    subs.push(participant);
  }
}

/** "Model Relay: Get Started": the walkthrough contributed in package.json, beside the current editor. */
function openWalkthrough(context: vscode.ExtensionContext): Thenable<unknown> {
  return vscode.commands.executeCommand(
    'workbench.action.openWalkthrough',
    `${context.extension.id}#${WALKTHROUGH_ID}`,
    false,
  );
}

export function activate(context: vscode.ExtensionContext): LazyRelayApi {
  let loading: Promise<RelayApi> | undefined;
  const loadMain = (): Promise<RelayApi> =>
    (loading ??= Promise.resolve().then(() => {
      // A runtime path: the bundler must not pull the rest into the activation bundle.
      const main = require(/* webpackIgnore: true */ path.join(__dirname, 'main.js')) as typeof import('./main');
      return main.start(context, hub);
    }));
  const hub: Hub = new Hub(context, async () => {
    try {
      await loadMain();
    } catch (e) {
      void vscode.window.showErrorMessage(
        vscode.l10n.t('Model Relay could not load: {0}', e instanceof Error ? e.message : String(e)),
      );
      throw e;
    }
  });
  context.subscriptions.push(hub.statusItem);
  const token = activeTokenName(context.globalState);
  hub.statusItem.name = 'Model Relay';
  // the same words as the status bar once the rest has loaded (src/host/status/statusBarWords.ts: relayText)
  hub.statusItem.text = `$(pass) ${token ? vscode.l10n.t('Relay: {0}', token) : vscode.l10n.t('Relay: no token')}`;
  hub.statusItem.command = CommandId.ShowActions;
  hub.statusItem.show();
  registerDelegates(hub);
  context.subscriptions.push(hub.command(CommandId.GetStarted, () => openWalkthrough(context)));
  const timer = setTimeout(() => void hub.load().catch(() => undefined), BACKGROUND_LOAD_MS);
  context.subscriptions.push({ dispose: () => clearTimeout(timer) });
  return { ready: loadMain };
}

export function deactivate(): void {}
