/**
 * The evidence commands: Show Request Log (the log as a document with the arrived column), its Refresh,
 * Show Live Output (the output channel), and Copy Support Report. Returns the gateways' usage logs as
 * the other views ask them (the chat's cards of failed billed calls).
 */
import type * as vscode from 'vscode';
import { CommandId } from '../../host/commandIds';
import type { ArrivalSource } from '../../host/usage/arrivals';
import type { DiagnoseController } from '../diagnose/diagnosePanel';
import type { GatewayService } from '../gateways/gatewayService';
import type { Registrar } from '../lazy/registrar';
import { gatewayArrivals } from '../usage/gatewayArrivals';
import { RequestLogDocument } from '../usage/requestLogDocument';
import { copySupportReport } from './supportCommand';

export function registerSupport(
  context: vscode.ExtensionContext,
  hub: Registrar,
  service: GatewayService,
  log: vscode.LogOutputChannel,
  diagnose: DiagnoseController,
): ArrivalSource {
  const arrivals = gatewayArrivals(service);
  const requestLog = new RequestLogDocument(service.requests, arrivals);
  const deps = { context, service, arrivals, diagnosis: () => diagnose.lastReport };
  context.subscriptions.push(
    requestLog,
    hub.command(CommandId.ShowLog, () => requestLog.show()),
    hub.command(CommandId.RefreshRequestLog, () => requestLog.refresh()),
    hub.command(CommandId.ShowOutput, () => log.show(true)),
    hub.command(CommandId.CopySupportReport, (from) => copySupportReport(deps, from)),
  );
  return arrivals;
}
