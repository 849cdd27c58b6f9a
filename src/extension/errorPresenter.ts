/**
 * A core error as a notification: the cause, the fix and actions. The words for every other place
 * an error is shown (chat card, @relay, summaries) come from src/host/errorPresenter.ts.
 */
import * as vscode from 'vscode';
import { GatewayError } from '../gateway';
import { CommandId } from '../host/commandIds';

export async function showGatewayError(what: string, e: unknown): Promise<void> {
  if (e instanceof GatewayError) {
    if (e.kind === 'aborted') return;
    const status = e.status ? `HTTP ${e.status}` : e.kind;
    const parts = [`Model Relay: ${what} failed (${status}). ${e.cause}`, `Fix: ${e.fix}`, e.billingNote() ?? ''];
    const detail = [e.gatewayMessage ? `Gateway said: ${e.gatewayMessage}` : '', e.url ? `URL: ${e.url}` : '', e.maskedToken ? `Token: ${e.maskedToken}` : '', e.requestId ? `Request id: ${e.requestId}` : ''].filter(Boolean).join(' · ');
    const actions = e.kind === 'unauthorized' ? ['Add Token', 'Show Log'] : e.detail === 'double_v1' || e.detail === 'html_page' || e.kind === 'network' ? ['Configure Base URL', 'Show Log'] : ['Show Log'];
    const choice = await vscode.window.showErrorMessage(`${parts.join(' ')}${detail ? ` (${detail})` : ''}`, ...actions);
    if (choice === 'Add Token') await vscode.commands.executeCommand(CommandId.AddToken);
    else if (choice === 'Configure Base URL') await vscode.commands.executeCommand(CommandId.ConfigureBaseUrl);
    else if (choice === 'Show Log') await vscode.commands.executeCommand(CommandId.ShowLog);
    return;
  }
  void vscode.window.showErrorMessage(`Model Relay: ${what} failed: ${e instanceof Error ? e.message : String(e)}`);
}
