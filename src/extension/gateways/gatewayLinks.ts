/**
 * Copy Gateway Link, and the URI handler that opens one: shows what the link would add and asks
 * before adding (then asks for a token: a link never carries one). What a link may carry and what
 * is refused is src/host/gateways/gatewayLink.ts.
 */
import * as vscode from 'vscode';
import { decodeGatewayLink, encodeGatewayLink, GATEWAY_LINK_PATH } from '../../host/gateways/gatewayLink';
import { addGateway, pickGateway, type GatewayCommandDeps } from './gatewayCommands';

/** Copies the link of a gateway (the active one, or the one picked) without its token. */
export async function copyGatewayLink(deps: GatewayCommandDeps, extensionId: string): Promise<void> {
  const g = await pickGateway(deps.service, vscode.l10n.t('Model Relay: Copy Gateway Link'));
  if (!g) return;
  const { uri, leftOut } = encodeGatewayLink(`${vscode.env.uriScheme}://${extensionId}`, g);
  await vscode.env.clipboard.writeText(uri);
  void vscode.window.showInformationMessage(
    leftOut.length
      ? vscode.l10n.t(
          'Model Relay: copied the link of the gateway "{0}". It carries no token; the headers {1} were left out because they look like credentials.',
          g.name,
          leftOut.join(', '),
        )
      : vscode.l10n.t(
          'Model Relay: copied the link of the gateway "{0}". It carries no token: whoever opens it is asked for their own.',
          g.name,
        ),
  );
}

/** Opens a gateway link: refuses what it must, shows the rest, asks, then adds and asks for a token. */
export async function openGatewayLink(deps: GatewayCommandDeps, uri: vscode.Uri): Promise<void> {
  if (uri.path !== GATEWAY_LINK_PATH) {
    void vscode.window.showErrorMessage(vscode.l10n.t('Model Relay: this link is not one Model Relay opens.'));
    return;
  }
  const link = decodeGatewayLink(uri.query);
  if (!link.ok) {
    void vscode.window.showErrorMessage(vscode.l10n.t('Model Relay: {0}', link.problem));
    return;
  }
  const g = link.gateway;
  const headers = Object.keys(g.extraHeaders ?? {});
  const detail = [
    vscode.l10n.t('Base URL: {0}', g.baseUrl),
    ...(g.backupUrls?.length ? [vscode.l10n.t('Backup addresses: {0}', g.backupUrls.join(', '))] : []),
    ...(headers.length ? [vscode.l10n.t('Headers: {0}', headers.join(', '))] : []),
    vscode.l10n.t('The link carries no token: you will be asked for yours next.'),
  ].join('\n');
  const add = vscode.l10n.t('Add Gateway');
  const ok = await vscode.window.showInformationMessage(
    vscode.l10n.t('Model Relay: add the gateway "{0}"?', g.name),
    { modal: true, detail },
    add,
  );
  if (ok === add) await addGateway(deps, g);
}
