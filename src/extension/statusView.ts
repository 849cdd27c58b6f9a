/** The Status view: which endpoint and token are active, the last request, visible models, actions. */
import * as vscode from 'vscode';
import { CommandId } from '../host/commandIds';
import { describeQuota } from '../gateway';
import { Disposable } from './disposable';
import type { GatewayService } from './gatewayService';
import type { TokenStore } from './tokenStore';

export class StatusItem extends vscode.TreeItem {
  constructor(label: string, description: string | undefined, opts: { icon?: string; tooltip?: string; command?: vscode.Command; contextValue?: string; id: string }) {
    super(label, vscode.TreeItemCollapsibleState.None);
    this.id = opts.id;
    if (description !== undefined) this.description = description;
    if (opts.icon) this.iconPath = new vscode.ThemeIcon(opts.icon);
    if (opts.tooltip) this.tooltip = opts.tooltip;
    if (opts.command) this.command = opts.command;
    if (opts.contextValue) this.contextValue = opts.contextValue;
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

  async getChildren(): Promise<StatusItem[]> {
    const ep = this.service.client.endpoints();
    const items: StatusItem[] = [];
    const copy = (value: string | undefined): vscode.Command | undefined => (value ? { command: CommandId.CopyValue, title: 'Copy', arguments: [value] } : undefined);
    if (!ep.base) {
      items.push(new StatusItem('Endpoint', 'not configured — click to set the base URL', { id: 'endpoint', icon: 'warning', command: { command: CommandId.ConfigureBaseUrl, title: 'Configure Base URL' } }));
    } else {
      const active = ep.activeIsBackup ? `backup ${ep.activeBase} serving` : 'primary serving';
      items.push(new StatusItem('Endpoint', `${ep.base} (${active})`, { id: 'endpoint', icon: ep.activeIsBackup ? 'arrow-swap' : 'globe', tooltip: `Primary: ${ep.base}\nBackups: ${ep.backups.join(', ') || 'none'}\nServing now: ${ep.activeBase}`, command: { command: CommandId.ConfigureBaseUrl, title: 'Configure Base URL' } }));
      items.push(new StatusItem('Compatible surface', ep.compatibleBase, { id: 'compatible', icon: 'symbol-interface', tooltip: 'Base URL for chat-completions-compatible clients ({base}/v1). Click to copy.', command: copy(ep.compatibleBase) }));
      items.push(new StatusItem('Native surface', `${ep.nativeBase}  →  ${ep.nativeMessagesUrl}`, { id: 'native', icon: 'symbol-method', tooltip: 'Base URL for native messages clients ({base}); they append /v1/messages. Click to copy.', command: copy(ep.nativeBase) }));
      if (ep.backups.length) items.push(new StatusItem('Backups', ep.backups.join(', '), { id: 'backups', icon: 'server' }));
      for (const [i, f] of ep.findings.filter((x) => x.severity !== 'info').entries()) {
        items.push(new StatusItem('Base URL', `${f.message} ${f.fix}`, { id: `finding-${i}`, icon: 'warning', tooltip: `${f.message}\n${f.fix}`, command: { command: CommandId.ConfigureBaseUrl, title: 'Configure Base URL' } }));
      }
    }
    const name = this.tokens.activeName();
    const masked = await this.tokens.activeMasked();
    items.push(
      name && masked
        ? new StatusItem('Token', `${name}  ${masked}`, { id: 'token', icon: 'key', tooltip: 'Active token (masked). Click to switch.', command: { command: CommandId.SwitchToken, title: 'Switch Token' } })
        : new StatusItem('Token', 'none — click to add one', { id: 'token', icon: 'warning', command: { command: CommandId.AddToken, title: 'Add Token' } }),
    );
    if (name && masked && this.service.quota) {
      const q = describeQuota(this.service.quota, this.service.current.quotaWarnBelow, Date.now());
      const icon = q.level === 'error' ? 'error' : q.level === 'warning' ? 'warning' : 'credit-card';
      items.push(new StatusItem('Balance', q.short, { id: 'balance', icon, tooltip: q.lines.join('\n') }));
      for (const line of q.lines.slice(0, -1)) {
        const [label, value] = [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim()];
        items.push(new StatusItem(`  ${label}`, value, { id: `balance-${label}`, tooltip: line }));
      }
    }
    const r = this.service.lastRecord;
    items.push(
      new StatusItem('Last request', r ? `${r.surface} ${r.model ?? r.path} → ${r.status ?? r.errorKind ?? '?'} in ${r.durationMs} ms (${r.host})` : 'none yet', {
        id: 'last',
        icon: !r ? 'circle-outline' : r.status && r.status < 400 && !r.errorKind ? 'pass' : 'error',
        tooltip: r ? `${r.method} ${r.path}\nrequest id: ${r.requestId ?? '-'}\ntoken: ${r.maskedToken}` : undefined,
        command: { command: CommandId.ShowLog, title: 'Show Request Log' },
      }),
    );
    const mc = this.service.modelCount;
    items.push(new StatusItem('Models', mc === undefined ? 'not listed yet — click to list' : `${mc} visible to this token`, { id: 'models', icon: 'list-unordered', command: { command: CommandId.ListModels, title: 'List Models' } }));
    const p = this.service.proxy;
    items.push(new StatusItem('Proxy', p.source === 'none' ? 'none' : `${p.display} (from ${p.source})${p.strictSSL ? '' : ', certificates not checked'}`, { id: 'proxy', icon: 'cloud' }));
    items.push(new StatusItem('Diagnose', 'why do I get 401/403/404/429/5xx? — click to run', { id: 'diagnose', icon: 'pulse', command: { command: CommandId.Diagnose, title: 'Diagnose Connection' } }));
    return items;
  }
}
