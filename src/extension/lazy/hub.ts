/**
 * The stand-ins, generated from package.json's `contributes` (./contributions.ts): one per command,
 * view, language-model vendor, chat participant and tool, registered with VS Code at activation into
 * `context.subscriptions`; and the Registrar through which the main part fills them. A Registrar call
 * for an id package.json does not contribute throws, so nothing is dropped silently. Activation code: no core.
 */
import * as vscode from 'vscode';
import { LM_VENDOR, PARTICIPANT_ID, type CommandId, type ToolName, type ViewId } from '../../host/commandIds';
import { contributions, key, type Contribution, type Kind } from './contributions';
import {
  CommandStandIn,
  LanguageModelsStandIn,
  ParticipantStandIn,
  ToolStandIn,
  TreeStandIn,
  WebviewViewStandIn,
  type Load,
} from './delegates';
import type { CommandHandler, Registrar } from './registrar';

type AnyStandIn =
  CommandStandIn | TreeStandIn<unknown> | WebviewViewStandIn | LanguageModelsStandIn | ParticipantStandIn | ToolStandIn;

/** The optional APIs (older VS Code builds and some forks lack them). */
const api = vscode as unknown as {
  lm?: { registerLanguageModelChatProvider?: unknown; registerTool?: unknown };
  chat?: { createChatParticipant?: unknown };
};
const available: Record<Kind, () => boolean> = {
  command: () => true,
  view: () => true,
  languageModels: () => typeof api.lm?.registerLanguageModelChatProvider === 'function',
  participant: () => typeof api.chat?.createChatParticipant === 'function',
  tool: () => typeof api.lm?.registerTool === 'function',
};

export class Hub implements Registrar {
  private readonly standIns = new Map<string, { c: Contribution; standIn: AnyStandIn }>();

  constructor(
    private readonly context: vscode.ExtensionContext,
    load: Load,
  ) {
    for (const c of contributions(context.extension.packageJSON))
      this.standIns.set(key(c), { c, standIn: standInFor(c, load) });
  }

  /** Registers every stand-in with VS Code (the APIs this build has) into `context.subscriptions`. */
  registerAll(): void {
    for (const { c, standIn } of this.standIns.values())
      if (available[c.kind]()) this.context.subscriptions.push(this.register(c, standIn));
  }

  private register(c: Contribution, s: AnyStandIn): vscode.Disposable {
    if (s instanceof CommandStandIn) return vscode.commands.registerCommand(c.id, s.run);
    if (s instanceof TreeStandIn)
      return vscode.Disposable.from(vscode.window.createTreeView(c.id, { treeDataProvider: s }), s);
    if (s instanceof WebviewViewStandIn) return vscode.window.registerWebviewViewProvider(c.id, s);
    if (s instanceof LanguageModelsStandIn)
      return vscode.Disposable.from(vscode.lm.registerLanguageModelChatProvider(c.id, s), s);
    if (s instanceof ToolStandIn) return vscode.lm.registerTool(c.id, s);
    const participant = vscode.chat.createChatParticipant(c.id, s.handle);
    participant.iconPath = vscode.Uri.joinPath(this.context.extensionUri, 'media', 'icon.png');
    return participant;
  }

  /** The stand-in for `kind:id`, which must be contributed and of the expected class. */
  private slot<S extends AnyStandIn>(kind: Kind, id: string, cls: abstract new (...a: never[]) => S): S {
    const found = this.standIns.get(`${kind}:${id}`)?.standIn;
    if (!found) throw new Error(`Model Relay: ${kind}:${id} is not contributed in package.json.`);
    if (!(found instanceof cls)) throw new Error(`Model Relay: ${kind}:${id} is contributed as another kind of view.`);
    if (found.implemented) throw new Error(`Model Relay: ${kind}:${id} is implemented twice.`);
    return found;
  }

  command(id: CommandId, fn: CommandHandler): vscode.Disposable {
    return this.slot('command', id, CommandStandIn).set(fn);
  }
  tree<T>(viewId: `${ViewId}`, provider: vscode.TreeDataProvider<T>): vscode.Disposable {
    return this.slot('view', viewId, TreeStandIn).set(provider);
  }
  webviewView(viewId: `${ViewId}`, provider: vscode.WebviewViewProvider): vscode.Disposable {
    return this.slot('view', viewId, WebviewViewStandIn).set(provider);
  }
  languageModels(provider: vscode.LanguageModelChatProvider): vscode.Disposable {
    return this.slot('languageModels', LM_VENDOR, LanguageModelsStandIn).set(provider);
  }
  participant(handler: vscode.ChatRequestHandler): vscode.Disposable {
    return this.slot('participant', PARTICIPANT_ID, ParticipantStandIn).set(handler);
  }
  tool<T>(name: `${ToolName}`, tool: vscode.LanguageModelTool<T>): vscode.Disposable {
    return this.slot('tool', name, ToolStandIn).set(tool);
  }

  unimplemented(): string[] {
    return [...this.standIns.entries()]
      .filter(([, { c, standIn }]) => available[c.kind]() && !standIn.implemented)
      .map(([k]) => k);
  }
}

function standInFor(c: Contribution, load: Load): AnyStandIn {
  switch (c.kind) {
    case 'command':
      return new CommandStandIn(load, c.id);
    case 'view':
      return c.webview ? new WebviewViewStandIn(load) : new TreeStandIn(load);
    case 'languageModels':
      return new LanguageModelsStandIn(load);
    case 'participant':
      return new ParticipantStandIn(load);
    case 'tool':
      return new ToolStandIn(load);
  }
}
