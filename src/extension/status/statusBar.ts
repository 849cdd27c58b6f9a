/** Status bar item: active gateway, token and health; click → Switch Gateway (gateways, tokens, actions). Words: src/host/status/statusBarWords.ts. */
import * as vscode from 'vscode';
import { CommandId } from '../../host/commandIds';
import { statusBarWords } from '../../host/status/statusBarWords';
import { Disposable } from '../disposable';
import type { GatewayService } from '../gateways/gatewayService';
import type { TokenStore } from '../gateways/tokenStore';

export class RelayStatusBar extends Disposable {
  constructor(
    private readonly service: GatewayService,
    private readonly tokens: TokenStore,
    /** the status bar item to fill (created by main.ts, which disposes it) */
    private readonly item: vscode.StatusBarItem,
  ) {
    super();
    this.item.name = 'Model Relay';
    this.item.command = CommandId.SwitchGateway;
    const update = () => void this.update().catch(() => undefined); // the secret storage unreadable: the last words stay
    // what it shows: the gateway and its settings, the token, the balance and the last request (not the models)
    for (const on of [
      service.onDidChangeConfiguration,
      service.onDidChangeToken,
      service.onDidChangeAccount,
      service.onDidRecordRequest,
    ])
      this._register(on(update));
    update();
    this.item.show();
  }

  async update(): Promise<void> {
    const words = statusBarWords({
      base: this.service.client.endpoints().base,
      gateway: this.service.gateway?.name,
      several: this.service.registry.gateways().length > 1,
      tokenName: this.tokens.activeName(),
      masked: await this.tokens.activeMasked(),
      quota: this.service.quota,
      warnBelow: this.service.current.quotaWarnBelow,
      now: Date.now(),
      last: this.service.lastRecord,
    });
    this.item.text = words.text;
    this.item.tooltip = new vscode.MarkdownString(words.tooltip.join('\n\n'));
    this.item.backgroundColor = words.look ? new vscode.ThemeColor(words.look) : undefined;
  }
}
