/**
 * "Set Up Native CLI in Terminals" (Claude Code's setup without the model picks): puts the base-URL
 * and token variables into every new integrated terminal through the environment variable
 * collection, not persisted (the token is never written to disk by VS Code), beside the other set-up
 * tools' (src/host/tools/toolTerminals.ts), and keeps them true: the token removed → cleared, its
 * value or the base URL changed → updated; remembered (without the token) for the next window.
 * "Remove Native CLI Setup" takes back Claude Code's variables only.
 */
import * as vscode from 'vscode';
import { maskToken } from '../../gateway';
import { NATIVE_CLI_TEMPLATE, ToolTerminals } from '../../host/tools/toolTerminals';
import { Disposable } from '../disposable';
import type { GatewayService } from '../gateways/gatewayService';
import type { TokenStore } from '../gateways/tokenStore';

export class NativeCliSetup extends Disposable {
  /** every set-up tool's variables in new terminals (Set Up Tools… adds to the same collection) */
  readonly terminals: ToolTerminals;

  constructor(
    context: vscode.ExtensionContext,
    private readonly service: GatewayService,
    private readonly tokens: TokenStore,
    log: vscode.LogOutputChannel,
  ) {
    super();
    this.terminals = new ToolTerminals(
      context.environmentVariableCollection,
      {
        base: () => service.client.endpoints().base,
        verbatim: () => service.client.endpoints().verbatim,
        names: () => ({
          baseUrl: service.current.nativeCli.baseUrlVariable,
          token: service.current.nativeCli.tokenVariable,
        }),
        value: (name: string) => tokens.value(name),
      },
      context.globalState,
    );
    const warn = (e: unknown) => log.warn(e instanceof Error ? e.message : String(e));
    void this.terminals.restore().catch(warn);
    this._register(tokens.onDidChange(() => void this.terminals.follow().catch(warn)));
    this._register(service.onDidChange(() => void this.terminals.followSettings().catch(warn)));
  }

  async setUp(preset?: { tokenName?: string; openTerminal?: boolean }): Promise<boolean> {
    if (!this.service.client.endpoints().base) {
      void vscode.window.showErrorMessage(
        vscode.l10n.t('Model Relay: set the base URL first ("Model Relay: Configure Base URL").'),
      );
      return false;
    }
    const name = preset?.tokenName ?? (await this.pickToken());
    if (!name) return false;
    // Claude Code set up with a model mapping keeps it; else today's two variables
    const env = await this.terminals.setUp(
      'claude-code',
      name,
      this.terminals.template('claude-code') ?? NATIVE_CLI_TEMPLATE,
      this.terminals.choices('claude-code'),
    );
    const value = await this.tokens.value(name);
    if (!env || !value) {
      void vscode.window.showErrorMessage(vscode.l10n.t('Model Relay: no token named "{0}".', name));
      return false;
    }
    const { baseUrlVariable, tokenVariable } = this.service.current.nativeCli;
    const openTerminal = vscode.l10n.t('Open New Terminal');
    const open =
      preset?.openTerminal ??
      (await vscode.window.showInformationMessage(
        vscode.l10n.t(
          'Model Relay: new terminals get {0}={1} and {2}={3}. Existing terminals keep their old environment.',
          baseUrlVariable,
          String(env[baseUrlVariable]),
          tokenVariable,
          maskToken(value),
        ),
        openTerminal,
      )) === openTerminal;
    if (open) vscode.window.createTerminal({ name: vscode.l10n.t('Native CLI (Model Relay)') }).show();
    return true;
  }

  async remove(): Promise<void> {
    await this.terminals.remove('claude-code');
    void vscode.window.showInformationMessage(
      vscode.l10n.t('Model Relay: the native CLI variables are removed from new terminals.'),
    );
  }

  /** The token for the tool: a dedicated "native-cli" token first. */
  private async pickToken(): Promise<string | undefined> {
    const list = await this.tokens.list();
    if (!list.length) {
      void vscode.window.showErrorMessage(
        vscode.l10n.t(
          'Model Relay: add a token first ("Model Relay: Add Token"); a dedicated "native-cli" token is recommended.',
        ),
      );
      return undefined;
    }
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
    const pick = await vscode.window.showQuickPick(items, {
      title: vscode.l10n.t('Model Relay: token for the native command-line tool'),
      placeHolder: vscode.l10n.t('A dedicated token for the tool is recommended: its usage and limits stay separate'),
    });
    return pick?.label;
  }
}
