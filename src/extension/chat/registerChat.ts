/** Registers the chat view and its commands: Open Chat, New Chat, Ask About Selection. */
import * as vscode from 'vscode';
import { CHAT_VIEW_ID, CommandId } from '../../host/commandIds';
import type { GatewayService } from '../gateways/gatewayService';
import { MAX_CONTEXT_CHARS } from '../../host/chat/history';
import { ChatViewProvider } from './chatViewProvider';
import type { Registrar } from '../lazy/registrar';
import type { SelectionContext } from '../../shared/chatProtocol';
import type { ArrivalSource } from '../../host/usage/arrivals';
import type { ReceiptSource } from '../../host/usage/receiptSource';

export function registerChat(
  context: vscode.ExtensionContext,
  hub: Registrar,
  service: GatewayService,
  log: vscode.LogOutputChannel,
  arrivals: ArrivalSource,
  /** the receipts of billed calls (the usage room's book); absent, replies show no receipt line */
  receipts?: ReceiptSource,
): ChatViewProvider {
  const provider = new ChatViewProvider(context, service, log, arrivals, receipts);
  context.subscriptions.push(
    provider,
    hub.webviewView(CHAT_VIEW_ID, provider),
    hub.command(CommandId.OpenChat, () => provider.focusInput()),
    hub.command(CommandId.NewChat, async () => {
      provider.newChat();
      await provider.reveal();
    }),
    // An optional argument `{ question }` sends at once (for keybindings and automation).
    hub.command(CommandId.AskAboutSelection, async (arg?: unknown) => {
      const editor = vscode.window.activeTextEditor;
      if (!editor) {
        void vscode.window.showWarningMessage(
          vscode.l10n.t('Model Relay: open a file and select some code to ask about.'),
        );
        return;
      }
      const ctx = selectionContext(editor);
      if (!ctx) {
        void vscode.window.showWarningMessage(vscode.l10n.t('Model Relay: select some code to ask about first.'));
        return;
      }
      const question =
        arg && typeof arg === 'object' && typeof (arg as { question?: unknown }).question === 'string'
          ? (arg as { question: string }).question
          : undefined;
      await provider.askAbout(ctx, question);
    }),
  );
  return provider;
}

function selectionContext(editor: vscode.TextEditor): SelectionContext | undefined {
  const sel = editor.selection;
  if (sel.isEmpty) return undefined;
  const code = editor.document.getText(sel);
  if (!code.trim()) return undefined;
  // A selection ending at column 0 of a line does not include that line.
  const endLine = sel.end.character === 0 && sel.end.line > sel.start.line ? sel.end.line : sel.end.line + 1;
  return {
    fileName: vscode.workspace.asRelativePath(editor.document.uri, false),
    language: editor.document.languageId,
    code: code.length > MAX_CONTEXT_CHARS ? code.slice(0, MAX_CONTEXT_CHARS) : code,
    startLine: sel.start.line + 1,
    endLine,
  };
}
