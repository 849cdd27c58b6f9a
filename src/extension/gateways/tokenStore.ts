/**
 * The token store over VS Code's SecretStorage and global state: the logic (one event per change,
 * the active-token rule) is src/host/gateways/tokenStore.ts; this file only hands it the context.
 */
import * as vscode from 'vscode';
import { TokenStore as HostTokenStore } from '../../host/gateways/tokenStore';

export type { TokenSummary } from '../../host/gateways/tokenStore';

export class TokenStore extends HostTokenStore {
  constructor(context: vscode.ExtensionContext, log?: vscode.LogOutputChannel) {
    super(context.globalState, context.secrets, (e) =>
      log?.warn(
        vscode.l10n.t(
          'Model Relay: the tokens could not be read from the secret storage: {0}',
          e instanceof Error ? e.message : String(e),
        ),
      ),
    );
  }
}
