/**
 * "Set Up Native CLI in Terminals": puts the base-URL and token variables into every new integrated
 * terminal through the environment variable collection, not persisted (the token is never written
 * to disk by VS Code). "Remove Native CLI Setup" clears them.
 */
import * as vscode from 'vscode';
import { applyCliEnvironment, maskToken, nativeCliEnvironment } from '../../gateway';
import type { GatewayService } from '../gateways/gatewayService';
import type { TokenStore } from '../gateways/tokenStore';
import { readSettings } from '../gateways/settings';

export function cliVariableNames(): { baseUrl: string; token: string } {
  const { baseUrlVariable, tokenVariable } = readSettings().nativeCli;
  return { baseUrl: baseUrlVariable, token: tokenVariable };
}

export async function setupNativeCli(
  context: vscode.ExtensionContext,
  service: GatewayService,
  tokens: TokenStore,
  preset?: { tokenName?: string; openTerminal?: boolean },
): Promise<boolean> {
  const base = service.client.endpoints().base;
  if (!base) {
    void vscode.window.showErrorMessage(
      vscode.l10n.t('Model Relay: set the base URL first ("Model Relay: Configure Base URL").'),
    );
    return false;
  }
  const list = await tokens.list();
  if (!list.length) {
    void vscode.window.showErrorMessage(
      vscode.l10n.t(
        'Model Relay: add a token first ("Model Relay: Add Token"); a dedicated "native-cli" token is recommended.',
      ),
    );
    return false;
  }
  let name = preset?.tokenName;
  if (!name) {
    const items = [...list]
      .sort((a, b) => (a.name === 'native-cli' ? -1 : b.name === 'native-cli' ? 1 : 0))
      .map((t) => ({
        label: t.name,
        description: t.masked,
        detail:
          t.name === 'native-cli'
            ? vscode.l10n.t('recommended: a dedicated token for the native command-line tool')
            : undefined,
      }));
    name = (
      await vscode.window.showQuickPick(items, {
        title: vscode.l10n.t('Model Relay: token for the native command-line tool'),
        placeHolder: vscode.l10n.t('A dedicated token is recommended'),
      })
    )?.label;
  }
  if (!name) return false;
  const value = await tokens.value(name);
  if (!value) {
    void vscode.window.showErrorMessage(vscode.l10n.t('Model Relay: no token named "{0}".', name));
    return false;
  }
  const names = cliVariableNames();
  const env = nativeCliEnvironment(base, value, names);
  applyCliEnvironment(
    context.environmentVariableCollection,
    env,
    vscode.l10n.t(
      'Model Relay: {0}={1} and {2} ({3}) for the native command-line tool',
      names.baseUrl,
      String(env[names.baseUrl]),
      names.token,
      maskToken(value),
    ),
  );
  const openTerminal = vscode.l10n.t('Open New Terminal');
  const open =
    preset?.openTerminal ??
    (await vscode.window.showInformationMessage(
      vscode.l10n.t(
        'Model Relay: new terminals get {0}={1} and {2}={3}. Existing terminals keep their old environment.',
        names.baseUrl,
        String(env[names.baseUrl]),
        names.token,
        maskToken(value),
      ),
      openTerminal,
    )) === openTerminal;
  if (open) vscode.window.createTerminal({ name: vscode.l10n.t('Native CLI (Model Relay)') }).show();
  return true;
}

export function removeNativeCli(context: vscode.ExtensionContext): void {
  context.environmentVariableCollection.clear();
  void vscode.window.showInformationMessage(
    vscode.l10n.t('Model Relay: the native CLI variables are removed from new terminals.'),
  );
}
