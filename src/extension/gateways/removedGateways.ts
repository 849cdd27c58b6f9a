/**
 * Gateways removed by editing the settings: their tokens are deleted by the registry's `settle`
 * (src/host/gateways/gatewayRegistry.ts), run by the focused window only — the one the user edits the
 * settings in, or the first one focused after a start — so the user is told once, not by every open
 * window. While the gateway is remembered from this session, the notice offers Undo: the entry goes
 * back into the settings, and the registry gives it its tokens back.
 */
import { hostname } from 'node:os';
import * as vscode from 'vscode';
import { withGatewayAdded } from '../../host/gateways/gatewayEdits';
import { LOCAL_SCOPE, type GatewayRegistry, type GatewayRemoval } from '../../host/gateways/gatewayRegistry';
import { rawGateways, SECTION, writeGateways } from './settings';

/**
 * Whose settings this window reads: a remote window (SSH, WSL, a container) reads that machine's
 * `modelRelay.gateways` (a machine setting), while the tokens are shared with the local windows.
 */
export function settingsScope(): string {
  const remote = vscode.env.remoteName;
  return remote ? `${remote}:${hostname()}` : LOCAL_SCOPE;
}

async function tell(r: GatewayRemoval, log: vscode.LogOutputChannel): Promise<void> {
  const text = vscode.l10n.t(
    'Model Relay: the gateway "{0}" was removed from your settings; its {1} token(s) were deleted.',
    r.name,
    String(r.tokens),
  );
  log.info(text);
  const undo = vscode.l10n.t('Undo');
  const pick = await vscode.window.showInformationMessage(text, ...(r.profile ? [undo] : []));
  if (pick === undo && r.profile) await writeGateways(withGatewayAdded(rawGateways(), r.profile));
}

/** Settles the tokens with the settings at the start, on each settings change and when the window gets focus. */
export function watchRemovedGateways(registry: GatewayRegistry, log: vscode.LogOutputChannel): vscode.Disposable {
  const settle = () => {
    if (!vscode.window.state.focused) return;
    registry.settle().then(
      (removals) => {
        for (const r of removals) tell(r, log).catch((e: unknown) => log.warn(String(e)));
      },
      (e: unknown) => log.warn(String(e)),
    );
  };
  const subs = [
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration(SECTION)) settle();
    }),
    vscode.window.onDidChangeWindowState((s) => {
      if (s.focused) settle();
    }),
  ];
  settle();
  return vscode.Disposable.from(...subs);
}
