/**
 * Copy Support Report (the command, the chat's error cards, the Diagnose panel, the request log's
 * title bar): gathers what src/host/support/supportReport.ts builds from, copies the report to the
 * clipboard and shows it first, as an untitled Markdown document in the editor (where it can be read
 * before it is pasted anywhere), with a notice that it was copied.
 */
import * as vscode from 'vscode';
import type { DiagnosisReport } from '../../gateway';
import type { ChatErrorInfo } from '../../shared/chatProtocol';
import { knownSecrets, supportReport } from '../../host/support/supportReport';
import type { ArrivalSource } from '../../host/usage/arrivals';
import type { GatewayService } from '../gateways/gatewayService';

export interface SupportDeps {
  context: vscode.ExtensionContext;
  service: GatewayService;
  arrivals: ArrivalSource;
  /** the last diagnosis the Diagnose panel showed, when one was run */
  diagnosis: () => DiagnosisReport | undefined;
}

/** An error card's error and when it happened, for a report asked from the card. */
export interface ReportedError {
  error: ChatErrorInfo;
  at: number;
}

function isReportedError(v: unknown): v is ReportedError {
  if (!v || typeof v !== 'object') return false;
  const r = v as Partial<ReportedError>;
  return typeof r.at === 'number' && !!r.error && typeof r.error === 'object' && typeof r.error.kind === 'string';
}

function versionOf(packageJson: unknown): string {
  const v = (packageJson as { version?: unknown } | undefined)?.version;
  return typeof v === 'string' ? v : '?';
}

export async function copySupportReport(deps: SupportDeps, from?: unknown): Promise<void> {
  const { service } = deps;
  const reported = isReportedError(from) ? from : undefined;
  const gateway = service.gateway;
  const ids = [...new Set([...service.registry.gateways().map((g) => g.id), service.registry.activeId()])];
  const text = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Window, title: vscode.l10n.t('Model Relay: making the support report…') },
    async () =>
      supportReport(
        {
          extensionVersion: versionOf(deps.context.extension.packageJSON),
          vscodeVersion: `${vscode.version} (${vscode.env.appName})`,
          language: vscode.env.language,
          platform: `${process.platform} ${process.arch}`,
          gateway: gateway
            ? { name: gateway.name, baseUrl: service.current.baseUrl }
            : service.current.baseUrl
              ? { name: '—', baseUrl: service.current.baseUrl }
              : undefined,
          proxy: service.proxy.display,
          records: service.requests.all(),
          error: reported?.error,
          errorAt: reported?.at,
          diagnosis: deps.diagnosis(),
          secrets: await knownSecrets(ids, (id) => service.registry.tokensOf(id)),
          now: Date.now(),
        },
        deps.arrivals,
      ),
  );
  await vscode.env.clipboard.writeText(text);
  const doc = await vscode.workspace.openTextDocument({ language: 'markdown', content: text });
  // In the active group: shown "beside", the untitled document also opened in the active group (two tabs).
  await vscode.window.showTextDocument(doc, { preview: false });
  void vscode.window.showInformationMessage(
    vscode.l10n.t(
      'Model Relay: the support report was copied to the clipboard. It holds no token, no URL credentials and no prompt text; paste it into your report to the gateway operator.',
    ),
  );
}
