/** The Status view: which endpoint and token are active, the last request, visible models, actions. */
import * as vscode from 'vscode';
import { CommandId } from '../../host/commandIds';
import { describeQuota } from '../../gateway';
import { Disposable } from '../disposable';
import type { GatewayService } from '../gateways/gatewayService';
import type { TokenStore } from '../gateways/tokenStore';

export class StatusItem extends vscode.TreeItem {
  constructor(
    label: string,
    description: string | undefined,
    opts: { icon?: string; tooltip?: string; command?: vscode.Command; contextValue?: string; id: string },
  ) {
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

  /**
   * The rows; none at all while neither a base URL nor a token is set, so the view's welcome
   * content (what Model Relay is, Configure Base URL / Add Token / Get Started) shows instead.
   */
  async getChildren(): Promise<StatusItem[]> {
    const ep = this.service.client.endpoints();
    const name = this.tokens.activeName();
    if (!ep.base && !name) return [];
    const items: StatusItem[] = [];
    const copy = (value: string | undefined): vscode.Command | undefined =>
      value ? { command: CommandId.CopyValue, title: vscode.l10n.t('Copy'), arguments: [value] } : undefined;
    const configure: vscode.Command = {
      command: CommandId.ConfigureBaseUrl,
      title: vscode.l10n.t('Configure Base URL'),
    };
    if (!ep.base) {
      items.push(
        new StatusItem(vscode.l10n.t('Endpoint'), vscode.l10n.t('not configured — click to set the base URL'), {
          id: 'endpoint',
          icon: 'warning',
          command: configure,
        }),
      );
    } else {
      const active = ep.activeIsBackup
        ? vscode.l10n.t('backup {0} serving', String(ep.activeBase))
        : vscode.l10n.t('primary serving');
      const tooltip = vscode.l10n.t(
        'Primary: {0}\nBackups: {1}\nServing now: {2}',
        ep.base,
        ep.backups.join(', ') || vscode.l10n.t('none'),
        String(ep.activeBase),
      );
      items.push(
        new StatusItem(vscode.l10n.t('Endpoint'), `${ep.base} (${active})`, {
          id: 'endpoint',
          icon: ep.activeIsBackup ? 'arrow-swap' : 'globe',
          tooltip,
          command: configure,
        }),
      );
      items.push(
        new StatusItem(vscode.l10n.t('Compatible surface'), ep.compatibleBase, {
          id: 'compatible',
          icon: 'symbol-interface',
          tooltip: vscode.l10n.t('Base URL for chat-completions-compatible clients ({base}/v1). Click to copy.'),
          command: copy(ep.compatibleBase),
        }),
      );
      items.push(
        new StatusItem(vscode.l10n.t('Native surface'), `${ep.nativeBase}  →  ${ep.nativeMessagesUrl}`, {
          id: 'native',
          icon: 'symbol-method',
          tooltip: vscode.l10n.t(
            'Base URL for native messages clients ({base}); they append /v1/messages. Click to copy.',
          ),
          command: copy(ep.nativeBase),
        }),
      );
      if (ep.backups.length)
        items.push(new StatusItem(vscode.l10n.t('Backups'), ep.backups.join(', '), { id: 'backups', icon: 'server' }));
      for (const [i, f] of ep.findings.filter((x) => x.severity !== 'info').entries()) {
        items.push(
          new StatusItem(vscode.l10n.t('Base URL'), `${f.message} ${f.fix}`, {
            id: `finding-${i}`,
            icon: 'warning',
            tooltip: `${f.message}\n${f.fix}`,
            command: configure,
          }),
        );
      }
    }
    const masked = await this.tokens.activeMasked();
    items.push(
      name && masked
        ? new StatusItem(vscode.l10n.t('Token'), `${name}  ${masked}`, {
            id: 'token',
            icon: 'key',
            tooltip: vscode.l10n.t('Active token (masked). Click to switch.'),
            command: { command: CommandId.SwitchToken, title: vscode.l10n.t('Switch Token') },
          })
        : new StatusItem(vscode.l10n.t('Token'), vscode.l10n.t('none — click to add one'), {
            id: 'token',
            icon: 'warning',
            command: { command: CommandId.AddToken, title: vscode.l10n.t('Add Token') },
          }),
    );
    if (name && masked && this.service.quota) {
      const q = describeQuota(this.service.quota, this.service.current.quotaWarnBelow, Date.now());
      const icon = q.level === 'error' ? 'error' : q.level === 'warning' ? 'warning' : 'credit-card';
      items.push(
        new StatusItem(vscode.l10n.t('Balance'), q.short, { id: 'balance', icon, tooltip: q.lines.join('\n') }),
      );
      for (const line of q.lines.slice(0, -1)) {
        const [label, value] = [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim()];
        items.push(new StatusItem(`  ${label}`, value, { id: `balance-${label}`, tooltip: line }));
      }
    }
    const r = this.service.lastRecord;
    items.push(
      new StatusItem(
        vscode.l10n.t('Last request'),
        r
          ? vscode.l10n.t(
              '{0} {1} → {2} in {3} ms ({4})',
              r.surface,
              r.model ?? r.path,
              r.status ?? r.errorKind ?? '?',
              r.durationMs,
              r.host,
            )
          : vscode.l10n.t('none yet'),
        {
          id: 'last',
          icon: !r ? 'circle-outline' : r.status && r.status < 400 && !r.errorKind ? 'pass' : 'error',
          tooltip: r
            ? vscode.l10n.t('{0} {1}\nrequest id: {2}\ntoken: {3}', r.method, r.path, r.requestId ?? '-', r.maskedToken)
            : undefined,
          command: { command: CommandId.ShowLog, title: vscode.l10n.t('Show Request Log') },
        },
      ),
    );
    const mc = this.service.modelCount;
    const models =
      mc === undefined
        ? vscode.l10n.t('not listed yet — click to list')
        : vscode.l10n.t('{0} visible to this token', mc);
    items.push(
      new StatusItem(vscode.l10n.t('Models'), models, {
        id: 'models',
        icon: 'list-unordered',
        command: { command: CommandId.ListModels, title: vscode.l10n.t('List Models') },
      }),
    );
    const p = this.service.proxy;
    const proxy =
      p.source === 'none'
        ? vscode.l10n.t('none')
        : p.strictSSL
          ? vscode.l10n.t('{0} (from {1})', String(p.display), p.source)
          : vscode.l10n.t('{0} (from {1}), certificates not checked', String(p.display), p.source);
    items.push(new StatusItem(vscode.l10n.t('Proxy'), proxy, { id: 'proxy', icon: 'cloud' }));
    items.push(
      new StatusItem(vscode.l10n.t('Diagnose'), vscode.l10n.t('why do I get 401/403/404/429/5xx? — click to run'), {
        id: 'diagnose',
        icon: 'pulse',
        command: { command: CommandId.Diagnose, title: vscode.l10n.t('Diagnose Connection') },
      }),
    );
    return items;
  }
}
