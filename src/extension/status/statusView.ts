/**
 * The Status view: which endpoint and token are active, the balance, the last request, visible
 * models, actions. The rows and their words are src/host/status/statusRows.ts; this file reads the
 * facts from the service and the token store and turns rows into tree items.
 */
import * as vscode from 'vscode';
import { Disposable } from '../disposable';
import { statusRows, type StatusRow } from '../../host/status/statusRows';
import type { GatewayService } from '../gateways/gatewayService';
import type { TokenStore } from '../gateways/tokenStore';

export class StatusItem extends vscode.TreeItem {
  readonly children: StatusItem[];

  constructor(row: StatusRow) {
    const children = (row.children ?? []).map((c) => new StatusItem(c));
    super(row.label, children.length ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None);
    this.children = children;
    this.id = row.id;
    if (row.description !== undefined) this.description = row.description;
    if (row.icon) this.iconPath = new vscode.ThemeIcon(row.icon);
    if (row.tooltip) this.tooltip = row.tooltip;
    if (row.command) this.command = row.command;
  }
}

export class StatusViewProvider extends Disposable implements vscode.TreeDataProvider<StatusItem> {
  private readonly emitter = this._register(new vscode.EventEmitter<StatusItem | undefined>());
  readonly onDidChangeTreeData = this.emitter.event;

  constructor(
    private readonly service: GatewayService,
    private readonly tokens: TokenStore,
  ) {
    super();
    this._register(service.onDidChange(() => this.emitter.fire(undefined)));
    this._register(tokens.onDidChange(() => this.emitter.fire(undefined)));
  }

  getTreeItem(e: StatusItem): vscode.TreeItem {
    return e;
  }

  async getChildren(parent?: StatusItem): Promise<StatusItem[]> {
    if (parent) return parent.children;
    const rows = statusRows({
      endpoints: this.service.client.endpoints(),
      tokenName: this.tokens.activeName(),
      masked: await this.tokens.activeMasked(),
      quota: this.service.quota,
      warnBelow: this.service.current.quotaWarnBelow,
      now: Date.now(),
      last: this.service.lastRecord,
      modelCount: this.service.modelCount,
      proxy: this.service.proxy,
    });
    return rows.map((r) => new StatusItem(r));
  }
}
