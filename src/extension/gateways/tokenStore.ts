/**
 * The token stores over VS Code's SecretStorage and global state: the logic (one event per change,
 * the active-token rule, each gateway's keys) is src/host/gateways/tokenStore.ts; what every consumer
 * holds is the active gateway's tokens (src/host/gateways/activeTokens.ts). This file only hands
 * them the context.
 */
import * as vscode from 'vscode';
import { tokenKeys } from '../../host/gateways/activeToken';
import { TokenStore as GatewayTokenStore } from '../../host/gateways/tokenStore';

export type { TokenSummary } from '../../host/gateways/tokenStore';
/** The active gateway's tokens (what chat, language models, media, status and terminals use). */
export type { ActiveTokens as TokenStore } from '../../host/gateways/activeTokens';

/** Makes one gateway's token store over the extension's secret storage and global state. */
export function gatewayTokenStores(
  context: vscode.ExtensionContext,
  log?: vscode.LogOutputChannel,
): (gatewayId: string) => GatewayTokenStore {
  return (gatewayId) =>
    new GatewayTokenStore(
      context.globalState,
      context.secrets,
      (e) =>
        log?.warn(
          vscode.l10n.t(
            'Model Relay: the tokens could not be read from the secret storage: {0}',
            e instanceof Error ? e.message : String(e),
          ),
        ),
      tokenKeys(gatewayId),
    );
}
