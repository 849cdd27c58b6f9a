/**
 * A billed call (image, image edit, video task) that failed after it may have reached the gateway:
 * once its record should be in the gateway's usage log, a second notification says whether it was
 * billed ("billed $0.04 (…)") or that the gateway has no record of it.
 */
import * as vscode from 'vscode';
import type { GatewayError } from '../../gateway';
import { billedArrival, billedSentence, queryOf } from '../../host/usage/arrivals';
import type { GatewayService } from '../gateways/gatewayService';
import { gatewayArrivals } from './gatewayArrivals';

export async function followBilledCall(what: string, e: GatewayError, service: GatewayService): Promise<void> {
  if (!e.mayHaveBeenBilled || !e.requestId) return;
  // The local log has when it was sent and how long it took, and which gateway it went to.
  const sent = service.requests.byRequestId().get(e.requestId);
  const q = sent ? queryOf(sent) : { requestId: e.requestId, sentAt: Date.now() };
  const a = await billedArrival(gatewayArrivals(service), sent?.gateway, q);
  const text = vscode.l10n.t('Model Relay: {0} failed earlier. {1}', what, billedSentence(a));
  if (a.state === 'arrived') void vscode.window.showWarningMessage(text);
  else void vscode.window.showInformationMessage(text);
}
