/**
 * The Status view: one tree for 1..N gateways (a tree of one shows its gateway's rows directly) —
 * endpoints, tokens, balances, last requests, visible models, actions. The rows and their words are
 * src/host/status/statusRows.ts; this file reads the facts from the service and the gateways' token
 * stores and turns rows into tree items.
 */
import { toolLabel } from '../../gateway/tools';
import type { ToolTerminals } from '../../host/tools/toolTerminals';
import * as vscode from 'vscode';
import { Disposable } from '../disposable';
import { LastRequests } from '../../host/status/lastRequests';
import { statusRows, type GatewayFacts, type StatusRow } from '../../host/status/statusRows';
import type { GatewayService } from '../gateways/gatewayService';
import type { ChatSetupWatch } from '../lm/chatSetup';

export class StatusItem extends vscode.TreeItem {
  readonly children: StatusItem[];
  /** the gateway a gateway node stands for (Switch to This Gateway's argument) */
  readonly gatewayId: string | undefined;

  constructor(row: StatusRow) {
    const children = (row.children ?? []).map((c) => new StatusItem(c));
    super(
      row.label,
      !children.length
        ? vscode.TreeItemCollapsibleState.None
        : row.collapsed
          ? vscode.TreeItemCollapsibleState.Collapsed
          : vscode.TreeItemCollapsibleState.Expanded,
    );
    this.children = children;
    this.gatewayId = row.gatewayId;
    this.id = row.id;
    if (row.description !== undefined) this.description = row.description;
    if (row.icon) this.iconPath = new vscode.ThemeIcon(row.icon);
    if (row.tooltip) this.tooltip = row.tooltip;
    if (row.command) this.command = row.command;
    if (row.contextValue) this.contextValue = row.contextValue;
  }
}

export class StatusViewProvider extends Disposable implements vscode.TreeDataProvider<StatusItem> {
  private readonly emitter = this._register(new vscode.EventEmitter<StatusItem | undefined>());
  readonly onDidChangeTreeData = this.emitter.event;
  private readonly last = new LastRequests();
  /** each listed gateway's token store, listened to (another gateway's token added or switched) */
  private readonly storeSubs = new Map<string, { dispose(): void }>();

  constructor(
    private readonly service: GatewayService,
    /** whether VS Code's chat needs enabling (a row that runs Chat: Manage Language Models) */
    private readonly chatSetup?: ChatSetupWatch,
    /** the terminal tools set up (the "Terminal tools" row) */
    private readonly tools?: ToolTerminals,
  ) {
    super();
    if (tools) this._register(tools.onDidChange(() => this.emitter.fire(undefined)));
    if (chatSetup) this._register(chatSetup.onDidChange(() => this.emitter.fire(undefined)));
    const redraw = () => this.emitter.fire(undefined);
    for (const on of [
      service.onDidChangeConfiguration,
      service.onDidChangeToken,
      service.onDidChangeAccount,
      service.onDidChangeModels,
    ])
      this._register(on(redraw));
    this._register(
      service.onDidRecordRequest((r) => {
        this.last.note(r); // each gateway's last request is kept
        redraw();
      }),
    );
    this._register({ dispose: () => this.storeSubs.forEach((s) => s.dispose()) });
  }

  getTreeItem(e: StatusItem): vscode.TreeItem {
    return e;
  }

  /** Listens to the token stores of the gateways listed now (and lets go of the others). */
  private listenToStores(ids: readonly string[]): void {
    for (const [id, sub] of this.storeSubs)
      if (!ids.includes(id)) {
        sub.dispose();
        this.storeSubs.delete(id);
      }
    for (const id of ids)
      if (!this.storeSubs.has(id))
        this.storeSubs.set(
          id,
          this.service.registry.tokensOf(id).onDidChange(() => this.emitter.fire(undefined)),
        );
  }

  /**
   * What the tree shows of each gateway. While none is configured, the one a token may be stored for
   * before the base URL is set (its endpoint says "not configured"): a tree of one, like any other.
   */
  private async gatewayFacts(): Promise<GatewayFacts[]> {
    const profiles = this.service.registry.gateways();
    this.listenToStores(profiles.map((g) => g.id));
    // The other gateways' balances: read in the background (cached for minutes); a new one redraws the tree.
    if (profiles.length > 1) void this.service.readOtherBalances(0);
    const shown = profiles.length ? profiles : [{ id: this.service.registry.activeId(), name: '' }];
    return Promise.all(
      shown.map(async (profile) => {
        const client = this.service.clientOf(profile.id);
        return {
          profile,
          endpoints: client.endpoints(),
          tokens: await this.service.registry.tokensOf(profile.id).list(),
          quota: this.service.quotaOf(profile.id),
          group: client.usage.group,
          last: this.last.of(profile.name),
          learnt: client.learntSurfaces(),
        };
      }),
    );
  }

  /** The set-up tools, each with its gateway when there are several, and those needing attention. */
  private toolFacts(): { tools?: string[]; toolsAttention?: string[] } {
    const terminals = this.tools;
    if (!terminals) return {};
    const several = this.service.registry.gateways().length > 1;
    const named = (id: string) => this.service.registry.get(id)?.name ?? id;
    return {
      tools: terminals.tools().map((tool) => {
        const e = terminals.entry(tool)!;
        return several ? `${toolLabel(tool)} (${named(e.gatewayId)})` : toolLabel(tool);
      }),
      toolsAttention: terminals.attention().map((a) => `${a.why} ${a.fix}`),
    };
  }

  async getChildren(parent?: StatusItem): Promise<StatusItem[]> {
    if (parent) return parent.children;
    const rows = statusRows({
      gateways: await this.gatewayFacts(),
      activeId: this.service.registry.activeId(),
      warnBelow: this.service.current.quotaWarnBelow,
      now: Date.now(),
      modelCount: this.service.modelCount,
      proxy: this.service.proxy,
      chatNeedsEnabling: this.chatSetup?.needsEnabling,
      ...this.toolFacts(),
    });
    return rows.map((r) => new StatusItem(r));
  }
}
