/** "Model Relay: Configure Base URL": input box validated by the core's endpoint rules. */
import * as vscode from 'vscode';
import { normalizeBaseUrl } from '../../gateway';
import { writeBaseUrl } from './settings';
import type { GatewayService } from './gatewayService';

export async function configureBaseUrl(service: GatewayService, preset?: string): Promise<void> {
  const current = service.current.baseUrl;
  const input =
    preset ??
    (await vscode.window.showInputBox({
      title: vscode.l10n.t('Model Relay: Gateway base URL'),
      prompt: vscode.l10n.t(
        'The root address of the gateway, e.g. https://gateway.example.com — no trailing slash, no /v1',
      ),
      value: current,
      ignoreFocusOut: true,
      validateInput: (v) => {
        const n = normalizeBaseUrl(v);
        const err = n.findings.find((f) => f.severity === 'error');
        if (err) return { message: `${err.message} ${err.fix}`, severity: vscode.InputBoxValidationSeverity.Error };
        const warn = n.findings.find((f) => f.severity === 'warn');
        if (warn)
          return {
            message: `${warn.message} ${vscode.l10n.t('Will use {0}.', String(n.base))}`,
            severity: vscode.InputBoxValidationSeverity.Warning,
          };
        const info = n.findings.find((f) => f.severity === 'info');
        if (info)
          return {
            message: `${info.message} ${vscode.l10n.t('Will use {0}.', String(n.base))}`,
            severity: vscode.InputBoxValidationSeverity.Info,
          };
        return undefined;
      },
    }));
  if (input === undefined) return;
  const n = normalizeBaseUrl(input);
  if (!n.base) {
    const err = n.findings[0];
    void vscode.window.showErrorMessage(
      `Model Relay: ${err?.message ?? vscode.l10n.t('Invalid base URL.')} ${err?.fix ?? ''}`,
    );
    return;
  }
  const serious = n.findings.filter((f) => f.severity === 'warn');
  let base = n.base;
  if (serious.length) {
    const detail = serious.map((f) => `• ${f.message}\n  ${f.fix}`).join('\n');
    const useFixed = vscode.l10n.t('Use {0}', n.base);
    const keep = vscode.l10n.t('Keep what I typed');
    const choice = await vscode.window.showWarningMessage(
      vscode.l10n.t('Model Relay: the base URL needs attention.'),
      { modal: true, detail },
      useFixed,
      keep,
    );
    if (choice === undefined) return;
    if (choice === keep) {
      // Only scheme and whitespace are kept as typed; a /v1 would break the native surface.
      base = input.trim().replace(/\/+$/, '');
    }
  }
  await writeBaseUrl(base);
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
