/** Status bar item: active token name and health; click → the actions quick pick. */
import * as vscode from 'vscode';
import { CommandId } from '../../host/commandIds';
import { describeQuota } from '../../gateway';
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
    this.item.command = CommandId.ShowActions;
    this._register(service.onDidChange(() => void this.update()));
    this._register(tokens.onDidChange(() => void this.update()));
    void this.update();
    this.item.show();
  }

  async update(): Promise<void> {
    const name = this.tokens.activeName();
    const masked = await this.tokens.activeMasked();
    const base = this.service.client.endpoints().base;
    const r = this.service.lastRecord;
    const failing = r && (r.errorKind || (r.status !== undefined && r.status >= 400)) && r.errorKind !== 'aborted';
    const icon = !base || !masked ? '$(warning)' : failing ? '$(error)' : '$(pass)';
    const q =
      masked && this.service.quota
        ? describeQuota(this.service.quota, this.service.current.quotaWarnBelow, Date.now())
        : undefined;
    this.item.text = `${icon} Relay: ${name ?? vscode.l10n.t('no token')}${q ? ` · ${q.short}` : ''}`;
    const none = vscode.l10n.t('none');
    const last = r ? `${r.model ?? r.path} → ${r.status ?? r.errorKind} (${r.durationMs} ms)` : none;
    this.item.tooltip = new vscode.MarkdownString(
      [
        '**Model Relay**',
        vscode.l10n.t('Endpoint: {0}', base ?? vscode.l10n.t('not configured')),
        vscode.l10n.t('Token: {0} {1}', name ?? none, masked ?? ''),
        ...(q ? [q.lines.join('  \n')] : []),
        vscode.l10n.t('Last request: {0}', last),
        vscode.l10n.t('Click for actions.'),
      ].join('\n\n'),
    );
    // Balance below modelRelay.quota.warnBelow: the warning look; expired or used up: the error look.
    const look =
      q?.level === 'error'
        ? 'statusBarItem.errorBackground'
        : q?.level === 'warning' || failing
          ? 'statusBarItem.warningBackground'
          : undefined;
    this.item.backgroundColor = look ? new vscode.ThemeColor(look) : undefined;
  }
}
