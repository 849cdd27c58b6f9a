/**
 * "Model Relay: Configure Base URL": input box validated by the core's endpoint rules; what to write
 * (and whether "Keep what I typed" applies) is decided in src/host/gateways/baseUrlChoice.ts.
 */
import * as vscode from 'vscode';
import { normalizeBaseUrl } from '../../gateway';
import { planBaseUrl, type BaseUrlPlan, type KeptBaseUrl } from '../../host/gateways/baseUrlChoice';
import { writeBaseUrl } from './settings';
import type { GatewayService } from './gatewayService';

function validate(v: string): vscode.InputBoxValidationMessage | undefined {
  const n = normalizeBaseUrl(v);
  const err = n.findings.find((f) => f.severity === 'error');
  if (err) return { message: `${err.message} ${err.fix}`, severity: vscode.InputBoxValidationSeverity.Error };
  const note = n.findings.find((f) => f.severity === 'warn') ?? n.findings.find((f) => f.severity === 'info');
  if (!note) return undefined;
  return {
    message: `${note.message} ${vscode.l10n.t('Will use {0}.', String(n.base))}`,
    severity:
      note.severity === 'warn' ? vscode.InputBoxValidationSeverity.Warning : vscode.InputBoxValidationSeverity.Info,
  };
}

/** The address to write and whether it is kept as typed; undefined when the user cancels. */
async function confirm(
  plan: BaseUrlPlan & { normalized: string },
): Promise<{ base: string; kept: boolean } | undefined> {
  if (!plan.warnings.length) return { base: plan.normalized, kept: false };
  const detail = plan.warnings.map((f) => `• ${f.message}\n  ${f.fix}`).join('\n');
  const useFixed = vscode.l10n.t('Use {0}', plan.normalized);
  const keep = vscode.l10n.t('Keep what I typed');
  const choice = await vscode.window.showWarningMessage(
    vscode.l10n.t('Model Relay: the base URL needs attention.'),
    { modal: true, detail },
    ...(plan.keepable ? [useFixed, keep] : [useFixed]),
  );
  if (choice === undefined) return undefined;
  return choice === keep && plan.keepable
    ? { base: plan.keepable, kept: true }
    : { base: plan.normalized, kept: false };
}

export async function configureBaseUrl(service: GatewayService, kept: KeptBaseUrl, preset?: string): Promise<void> {
  const input =
    preset ??
    (await vscode.window.showInputBox({
      title: vscode.l10n.t('Model Relay: Gateway base URL'),
      prompt: vscode.l10n.t(
        'The root address of the gateway, e.g. https://gateway.example.com — no trailing slash, no /v1',
      ),
      value: service.current.baseUrl,
      ignoreFocusOut: true,
      validateInput: validate,
    }));
  if (input === undefined) return;
  const plan = planBaseUrl(input);
  if (!plan.normalized) {
    const err = plan.error;
    void vscode.window.showErrorMessage(
      err
        ? vscode.l10n.t('Model Relay: {0} {1}', err.message, err.fix)
        : vscode.l10n.t('Model Relay: Invalid base URL.'),
    );
    return;
  }
  const chosen = await confirm({ ...plan, normalized: plan.normalized });
  if (!chosen) return;
  // Remembered before the setting changes: the reload that follows the write reads it.
  await kept.remember(chosen.kept ? chosen.base : undefined);
  await writeBaseUrl(chosen.base);
  service.reload();
  const ep = service.client.endpoints();
  void vscode.window.showInformationMessage(
    vscode.l10n.t(
      'Model Relay: base URL set to {0}. Compatible surface: {1} · native surface: {2}',
      String(ep.base),
      String(ep.compatibleBase),
      String(ep.nativeBase),
    ),
  );
}
