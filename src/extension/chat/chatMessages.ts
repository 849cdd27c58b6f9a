/** What the chat view does with each (validated) message from its webview. */
import * as vscode from 'vscode';
import { CommandId } from '../../host/commandIds';
import type { ChatOptions, ImageAttachment, WebviewToHost } from '../../shared/chatProtocol';
import { disableStreaming } from '../gateways/settings';

/** The view's side of the conversation, as the messages need it. */
export interface ChatHost {
  webviewReady(): void;
  send(text: string, options: ChatOptions, images?: readonly ImageAttachment[]): void;
  stop(): void;
  regenerate(options: ChatOptions): void;
  retryWithoutStreaming(options: ChatOptions): void;
  newChat(): void;
  setOptions(options: ChatOptions): void;
  clearContext(): void;
  streamingChanged(streaming: boolean): void;
  refreshModels(): Promise<void>;
}

export async function handleChatMessage(host: ChatHost, msg: WebviewToHost): Promise<void> {
  switch (msg.type) {
    case 'ready':
      return host.webviewReady();
    case 'send':
      return host.send(msg.text, msg.options, msg.images);
    case 'stop':
      return host.stop();
    case 'regenerate':
      return host.regenerate(msg.options);
    case 'retryWithoutStreaming':
      return host.retryWithoutStreaming(msg.options);
    case 'newChat':
      return host.newChat();
    case 'setOptions':
      return host.setOptions(msg.options);
    case 'clearContext':
      return host.clearContext();
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
    case 'disableStreaming':
      await disableStreaming();
      host.streamingChanged(false);
      void vscode.window.showInformationMessage(
        vscode.l10n.t('Model Relay: streaming is off (modelRelay.stream = false). Replies now arrive in one piece.'),
      );
      return;
    case 'refreshModels':
      return host.refreshModels();
    default: {
      const _exhaustive: never = msg;
      void _exhaustive;
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
