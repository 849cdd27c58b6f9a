/**
 * Watches whether VS Code's own chat still needs enabling before it answers with our models (the
 * rule and why: src/host/lm/chatSetup.ts): re-read when extensions are enabled or disabled, when the
 * chat models change and when chat.disableAIFeatures changes; the Status view shows a row while it
 * does, and Check Gateway Models in VS Code Chat offers Chat: Manage Language Models.
 */
import * as vscode from 'vscode';
import { LM_VENDOR } from '../../host/commandIds';
import {
  BUILTIN_CHAT_EXTENSION,
  MANAGE_LANGUAGE_MODELS,
  chatNeedsEnabling,
  type ChatSetupFacts,
} from '../../host/lm/chatSetup';
import { Disposable } from '../disposable';
import { editorFlag } from '../gateways/settings';

const AI_FEATURES_OFF = 'chat.disableAIFeatures';

type Lm = { selectChatModels?: unknown; onDidChangeChatModels?: vscode.Event<void> };

/** What decides it, read now. */
async function facts(): Promise<ChatSetupFacts> {
  const lm = (vscode as { lm?: Lm }).lm;
  const models =
    typeof lm?.selectChatModels === 'function'
      ? await vscode.lm.selectChatModels().then(
          (m) => m,
          () => [],
        )
      : [];
  return {
    manageCommand: (await vscode.commands.getCommands(true)).includes(MANAGE_LANGUAGE_MODELS),
    chatExtensionEnabled: !!vscode.extensions.getExtension(BUILTIN_CHAT_EXTENSION),
    aiFeaturesDisabled: editorFlag(AI_FEATURES_OFF),
    vendor: LM_VENDOR,
    vendors: models.map((m) => m.vendor),
  };
}

export class ChatSetupWatch extends Disposable {
  private readonly emitter = this._register(new vscode.EventEmitter<void>());
  /** fires when `needsEnabling` changed */
  readonly onDidChange = this.emitter.event;
  /** VS Code's chat lists our models but is not set up yet */
  needsEnabling = false;
  private reading: Promise<boolean> | undefined;
  private again = false;

  constructor() {
    super();
    const update = () => void this.update();
    this._register(vscode.extensions.onDidChange(update));
    const lm = (vscode as { lm?: Lm }).lm;
    if (lm?.onDidChangeChatModels) this._register(lm.onDidChangeChatModels(update));
    this._register(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration(AI_FEATURES_OFF)) update();
      }),
    );
    update();
  }

  /** Reads the facts again (one read at a time; a change meanwhile reads once more); returns the answer. */
  update(): Promise<boolean> {
    if (this.reading) {
      this.again = true;
      return this.reading;
    }
    const reading = (async () => {
      do {
        this.again = false;
        const f = await facts().catch(() => undefined);
        const now = f ? chatNeedsEnabling(f) : false;
        if (now !== this.needsEnabling && !this.isDisposed) {
          this.needsEnabling = now;
          this.emitter.fire();
        }
      } while (this.again);
      return this.needsEnabling;
    })().finally(() => (this.reading = undefined));
    this.reading = reading;
    return reading;
  }
}

/** Offers Chat: Manage Language Models (one click) while VS Code's chat needs enabling. */
export async function offerManageLanguageModels(message: string): Promise<void> {
  const manage = vscode.l10n.t('Manage Language Models');
  if ((await vscode.window.showInformationMessage(message, manage)) === manage)
    await vscode.commands.executeCommand(MANAGE_LANGUAGE_MODELS);
}
