/**
 * The Status view: which endpoint and token are active, the balance, the last request, visible
 * models, actions; with several gateways one node per gateway (src/host/status/statusTree.ts). The
 * rows and their words are src/host/status; this file reads the facts from the service and the
 * gateways' token stores and turns rows into tree items.
 */
import { toolLabel } from '../../gateway/tools';
import type { ToolTerminals } from '../../host/tools/toolTerminals';
import * as vscode from 'vscode';
import { Disposable } from '../disposable';
import type { StatusRow } from '../../host/status/statusRows';
import { LastRequests, statusTree, type GatewayFacts } from '../../host/status/statusTree';
import type { GatewayService } from '../gateways/gatewayService';
import type { TokenStore } from '../gateways/tokenStore';
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
    private readonly tokens: TokenStore,
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

  private async gatewayFacts(): Promise<GatewayFacts[]> {
    const profiles = this.service.registry.gateways();
    // One gateway (or none): today's flat rows, read from the active token store and the service.
    if (profiles.length <= 1) return [];
    this.listenToStores(profiles.map((g) => g.id));
    // The other gateways' balances: read in the background (cached for minutes); a new one redraws the tree.
    void this.service.readOtherBalances(0);
    return Promise.all(
      profiles.map(async (profile) => ({
        profile,
        endpoints: this.service.clientOf(profile.id).endpoints(),
        tokens: await this.service.registry.tokensOf(profile.id).list(),
        quota: this.service.quotaOf(profile.id),
        group: this.service.clientOf(profile.id).usage.group,
        last: this.last.of(profile.name),
        learnt: this.service.clientOf(profile.id).learntSurfaces(),
      })),
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
    const rows = statusTree({
      gateways: await this.gatewayFacts(),
      activeId: this.service.gateway?.id,
      endpoints: this.service.client.endpoints(),
      tokenName: this.tokens.activeName(),
      masked: await this.tokens.activeMasked(),
      quota: this.service.quota,
      group: this.service.client.usage.group,
      warnBelow: this.service.current.quotaWarnBelow,
      now: Date.now(),
      last: this.service.lastRecord,
      modelCount: this.service.modelCount,
      proxy: this.service.proxy,
      chatNeedsEnabling: this.chatSetup?.needsEnabling,
      learnt: this.service.client.learntSurfaces(),
      ...this.toolFacts(),
    });
    return rows.map((r) => new StatusItem(r));
  }
}
