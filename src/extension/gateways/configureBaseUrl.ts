/**
 * "Model Relay: Configure Base URL": input box validated by the core's endpoint rules; what to write
 * (and whether "Keep what I typed" applies) is decided in src/host/gateways/baseUrlChoice.ts.
 */
import * as vscode from 'vscode';
import { normalizeBaseUrl } from '../../gateway';
import { planBaseUrl, type BaseUrlPlan, type KeptBaseUrl } from '../../host/gateways/baseUrlChoice';
import { hasEntry, withGatewayBaseUrl } from '../../host/gateways/gatewayEdits';
import { rawGateways, writeBaseUrl, writeGateways } from './settings';
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

/**
 * Asks for a base URL (or takes `preset`), explains what the endpoint rules change and asks before
 * rewriting it; the address to write and whether it is kept as typed, or undefined when cancelled.
 */
export async function askBaseUrl(
  title: string,
  value: string,
  preset?: string,
): Promise<{ base: string; kept: boolean } | undefined> {
  const input =
    preset ??
    (await vscode.window.showInputBox({
      title,
      prompt: vscode.l10n.t(
        'The root address of the gateway, e.g. https://gateway.example.com — no trailing slash, no /v1',
      ),
      value,
      ignoreFocusOut: true,
      validateInput: validate,
    }));
  if (input === undefined) return undefined;
  const plan = planBaseUrl(input);
  if (!plan.normalized) {
    const err = plan.error;
    void vscode.window.showErrorMessage(
      err
        ? vscode.l10n.t('Model Relay: {0} {1}', err.message, err.fix)
        : vscode.l10n.t('Model Relay: Invalid base URL.'),
    );
    return undefined;
  }
  return confirm({ ...plan, normalized: plan.normalized });
}

/** Configure Base URL: the active gateway's address (the old setting for the gateway made from it). */
export async function configureBaseUrl(service: GatewayService, kept: KeptBaseUrl, preset?: string): Promise<void> {
  const gateway = service.gateway;
  const several = service.registry.gateways().length > 1;
  const title =
    several && gateway
      ? vscode.l10n.t('Model Relay: base URL of the gateway "{0}"', gateway.name)
      : vscode.l10n.t('Model Relay: Gateway base URL');
  const chosen = await askBaseUrl(title, service.current.baseUrl, preset);
  if (!chosen) return;
  // Remembered before the setting changes: the reload that follows the write reads it.
  await kept.remember(chosen.kept ? chosen.base : undefined);
  const raw = rawGateways();
  if (gateway && hasEntry(raw, gateway.id)) await writeGateways(withGatewayBaseUrl(raw, gateway.id, chosen.base));
  else await writeBaseUrl(chosen.base);
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
