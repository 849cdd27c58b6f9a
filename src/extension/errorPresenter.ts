/**
 * A core error as a notification: the cause, the fix and actions. The words for every other place
 * an error is shown (chat card, @relay, summaries) come from src/host/errorWords.ts.
 */
import * as vscode from 'vscode';
import { GatewayError } from '../gateway';
import { CommandId } from '../host/commandIds';
import type { GatewayService } from './gateways/gatewayService';
import { followBilledCall } from './usage/billedNotice';

/**
 * `service`, for a billed call: when it may have been charged, a second notification says whether the
 * gateway's usage log has it (./usage/billedNotice.ts).
 */
export async function showGatewayError(what: string, e: unknown, service?: GatewayService): Promise<void> {
  if (e instanceof GatewayError) {
    if (e.kind === 'aborted') return;
    if (service && e.mayHaveBeenBilled) void followBilledCall(what, e, service).catch(() => undefined);
    const status = e.status ? `HTTP ${e.status}` : e.kind;
    const parts = [
      vscode.l10n.t('Model Relay: {0} failed ({1}). {2}', what, status, e.reason),
      vscode.l10n.t('Fix: {0}', e.fix),
      e.billingNote() ?? '',
    ];
    const detail = [
      e.gatewayMessage ? vscode.l10n.t('Gateway said: {0}', e.gatewayMessage) : '',
      e.url ? `URL: ${e.url}` : '',
      e.maskedToken ? vscode.l10n.t('Token: {0}', e.maskedToken) : '',
      e.requestId ? vscode.l10n.t('Request id: {0}', e.requestId) : '',
    ]
      .filter(Boolean)
      .join(' · ');
    const actions: Array<[string, CommandId]> = [];
    if (e.kind === 'unauthorized') actions.push([vscode.l10n.t('Add Token'), CommandId.AddToken]);
    else if (e.detail === 'double_v1' || e.detail === 'html_page' || e.kind === 'network')
      actions.push([vscode.l10n.t('Configure Base URL'), CommandId.ConfigureBaseUrl]);
    actions.push([vscode.l10n.t('Show Log'), CommandId.ShowLog]);
    const choice = await vscode.window.showErrorMessage(
      `${parts.join(' ')}${detail ? ` (${detail})` : ''}`,
      ...actions.map(([label]) => label),
    );
    const command = actions.find(([label]) => label === choice)?.[1];
    if (command) await vscode.commands.executeCommand(command);
    return;
  }
  void vscode.window.showErrorMessage(
    vscode.l10n.t('Model Relay: {0} failed: {1}', what, e instanceof Error ? e.message : String(e)),
  );
}
