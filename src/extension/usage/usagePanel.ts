/**
 * "Model Relay: Show Usage": the Usage view as an editor panel (one at a time). The page and what it
 * shows are src/host/usage and src/webview/usage; this file opens the panel, hands the page the host's
 * state, and saves Export CSV where the user chooses. One view model per gateway, kept while the
 * window lives, so closing and reopening the panel never reads the gateway's log more than once a minute.
 */
import * as vscode from 'vscode';
import { hostOf } from '../../gateway';
import { CommandId } from '../../host/commandIds';
import { ReceiptBook } from '../../host/usage/receiptBook';
import { clock, type UsageSource } from '../../host/usage/usageData';
import { usageHtml, usageStrings } from '../../host/usage/usageHtml';
import { UsageViewModel } from '../../host/usage/usageView';
import type { UsageHostMessage, UsagePageMessage } from '../../shared/usageProtocol';
import type { Registrar } from '../lazy/registrar';
import type { GatewayService } from '../gateways/gatewayService';
import { gatewayReceiptReaders } from './gatewayArrivals';

/** The active gateway's host, derived as the core derives its request records' (`hostOf`). */
function activeHost(service: GatewayService): string | undefined {
  const base = service.client.endpoints().base;
  return base ? hostOf(base) : undefined;
}

function sourceOf(service: GatewayService, book: ReceiptBook): UsageSource {
  return {
    // the core's reader (once a minute, one shared read, the critical budget shared with the balance),
    // through the receipt book: the same read reconciles the receipts of the calls made from here
    readLog: () => {
      const host = activeHost(service);
      return host === undefined ? service.client.usage.read() : book.read({ gateway: undefined, host });
    },
    // the newest read the book reconciled, the view's or one made for the chat panel's receipts
    lastLog: () => {
      const host = activeHost(service);
      return host === undefined ? undefined : book.lastLog(host);
    },
    receiptOf: (r) => book.ofRecord(r),
    local: () => service.requests.all(),
    host: () => activeHost(service),
    prices: () => service.client.account.pricing(),
    units: async () => (await service.client.account.status())?.units,
  };
}

function isPageMessage(v: unknown): v is UsagePageMessage {
  if (!v || typeof v !== 'object') return false;
  const m = v as { type?: unknown; rows?: unknown };
  if (m.type === 'ready' || m.type === 'refresh') return true;
  return (
    m.type === 'export' &&
    Array.isArray(m.rows) &&
    m.rows.length <= 100_000 &&
    m.rows.every((i) => Number.isInteger(i) && (i as number) >= 0)
  );
}

export class UsagePanel implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private subs: vscode.Disposable[] = [];
  private readonly models = new Map<string, UsageViewModel>();

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly service: GatewayService,
    private readonly book: ReceiptBook,
  ) {}

  private model(): UsageViewModel {
    const key = this.currentKey();
    let m = this.models.get(key);
    if (!m)
      this.models.set(
        key,
        (m = new UsageViewModel(sourceOf(this.service, this.book), {
          lang: vscode.env.language,
          onState: (state) => {
            if (this.models.get(this.currentKey()) === m)
              void this.post({ type: 'state', json: JSON.stringify(state) });
          },
        })),
      );
    return m;
  }

  private currentKey(): string {
    return this.service.gateway?.id ?? this.service.client.endpoints().base ?? '';
  }

  private post(msg: UsageHostMessage): Thenable<boolean> | undefined {
    return this.panel?.webview.postMessage(msg);
  }

  show(): void {
    if (this.panel) {
      this.panel.reveal();
      void this.model().refresh();
      return;
    }
    const dist = vscode.Uri.joinPath(this.context.extensionUri, 'dist');
    const media = vscode.Uri.joinPath(this.context.extensionUri, 'media');
    const panel = vscode.window.createWebviewPanel(
      'modelRelay.usage',
      vscode.l10n.t('Model Relay: Usage'),
      vscode.ViewColumn.Active,
      {
        enableScripts: true,
        retainContextWhenHidden: true,
        localResourceRoots: [dist, media],
      },
    );
    this.panel = panel;
    const w = panel.webview;
    w.html = usageHtml({
      cspSource: w.cspSource,
      scriptUri: w.asWebviewUri(vscode.Uri.joinPath(dist, 'usage.js')).toString(),
      styleUri: w.asWebviewUri(vscode.Uri.joinPath(media, 'usage.css')).toString(),
      strings: usageStrings(),
      lang: vscode.env.language,
    });
    let shownKey = this.currentKey();
    this.subs = [
      panel.onDidDispose(() => {
        this.panel = undefined;
        for (const d of this.subs.splice(0)) d.dispose();
      }),
      w.onDidReceiveMessage((raw: unknown) => {
        if (isPageMessage(raw)) void this.onMessage(raw);
      }),
      this.service.requests.onDidChange(() => this.model().localChanged()),
      // a read the book reconciled for the chat panel: its rows and marks follow (no read of the gateway)
      this.book.onDidChange(() => this.model().localChanged()),
      // another gateway (a switch, or its address in the settings): its own figures
      ...[this.service.onDidChangeConfiguration, this.service.onDidChangeToken].map((on) =>
        on(() => {
          if (this.currentKey() !== shownKey) void this.model().refresh();
          shownKey = this.currentKey();
        }),
      ),
    ];
  }

  private async onMessage(msg: UsagePageMessage): Promise<void> {
    const m = this.model();
    switch (msg.type) {
      case 'ready': {
        const st = m.state();
        if (st) await this.post({ type: 'state', json: JSON.stringify(st) });
        return m.refresh();
      }
      case 'refresh':
        return m.refresh();
      case 'export':
        return this.exportCsv(m, msg.rows);
    }
  }

  private async exportCsv(m: UsageViewModel, rows: number[]): Promise<void> {
    const csv = m.csv(rows);
    if (csv === undefined) return;
    const estimate = m.state()?.source === 'estimate';
    const name = `model-relay-usage${estimate ? '-estimate' : ''}-${new Date().toISOString().slice(0, 10)}.csv`;
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
    const target = await vscode.window.showSaveDialog({
      defaultUri: folder ? vscode.Uri.joinPath(folder, name) : undefined,
      filters: { CSV: ['csv'] },
      saveLabel: vscode.l10n.t('Export CSV'),
    });
    if (!target) return;
    try {
      await vscode.workspace.fs.writeFile(target, new TextEncoder().encode(csv));
      void vscode.window.showInformationMessage(
        vscode.l10n.t(
          'Model Relay: {0} usage records saved to {1}.',
          String(rows.length),
          target.fsPath || target.path,
        ),
      );
    } catch (e) {
      void vscode.window.showErrorMessage(
        vscode.l10n.t('Model Relay: the CSV could not be saved: {0}', e instanceof Error ? e.message : String(e)),
      );
    }
  }

  dispose(): void {
    this.panel?.dispose();
  }
}

/**
 * Registers Show Usage, with the window's receipt book (the receipts of the billed calls made from here):
 * the Usage view reads through it, and it is handed back for the chat panel.
 */
export function registerUsage(context: vscode.ExtensionContext, hub: Registrar, service: GatewayService): ReceiptBook {
  const book = new ReceiptBook({
    readerOf: gatewayReceiptReaders(service),
    local: () => service.requests.all(),
    formatTime: clock,
  });
  const panel = new UsagePanel(context, service, book);
  context.subscriptions.push(
    book,
    panel,
    hub.command(CommandId.ShowUsage, () => panel.show()),
  );
  return book;
}
