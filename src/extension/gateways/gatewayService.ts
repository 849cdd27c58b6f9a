/**
 * Holds the one GatewayClient of the extension host: builds it from settings, the active token and
 * the proxy dispatcher, hands it every settings change, and publishes request records to the log
 * channel and the status view. Logic that can live in the core lives in the core: the client
 * decides what a change resets (GatewayClient.configure) and notices a new token itself.
 */
import * as vscode from 'vscode';
import { Disposable } from '../disposable';
import type { Dispatcher } from 'undici';
import {
  GatewayClient,
  type ClientConfiguration,
  createDispatcher,
  describeProxy,
  formatRecord,
  priceText,
  type ModelPrice,
  type ProxyChoice,
  type Quota,
  type RequestRecord,
  type ProxySettings,
} from '../../gateway';
import { QuotaTracker } from '../../host/status/quotaSchedule';
import { readProxySettings, readSettings, affectsRelay, type RelaySettings } from './settings';
import type { TokenStore } from './tokenStore';

/** What decides the dispatcher: the proxy and certificate settings and the related environment. */
function proxySettingsKey(p: ProxySettings): string {
  const env = p.env ?? {};
  const pick = (n: string) => env[n] ?? env[n.toLowerCase()] ?? '';
  return JSON.stringify([
    p.proxy ?? '',
    p.strictSSL ?? true,
    p.noProxy ?? [],
    p.systemCertificates ?? true,
    pick('HTTPS_PROXY'),
    pick('HTTP_PROXY'),
    pick('NO_PROXY'),
    env.NODE_EXTRA_CA_CERTS ?? '',
  ]);
}

export class GatewayService extends Disposable {
  readonly client: GatewayClient;
  private settings: RelaySettings;
  private dispatcher: Dispatcher;
  private proxyChoice: ProxyChoice;
  private proxyKey: string;
  private readonly changed = this._register(new vscode.EventEmitter<void>());
  readonly onDidChange = this.changed.event;
  lastRecord: RequestRecord | undefined;
  modelCount: number | undefined;
  /** what is left on the active token, where the gateway tells (undefined: not known) */
  quota: Quota | undefined;
  private tracker: QuotaTracker | undefined;
  /** the gateway's public prices, where it publishes them (read with the model list, cached) */
  private prices: Map<string, ModelPrice> | undefined;

  constructor(
    private readonly tokens: TokenStore,
    private readonly log: vscode.LogOutputChannel,
    /** whether a base URL is to be called as typed (Configure Base URL's "Keep what I typed") */
    private readonly keptAsTyped: (baseUrl: string) => boolean = () => false,
  ) {
    super();
    this.settings = readSettings();
    const proxy = readProxySettings();
    this.proxyKey = proxySettingsKey(proxy);
    this.proxyChoice = describeProxy(proxy);
    this.warnInvalidProxy();
    this.dispatcher = createDispatcher(proxy);
    this.client = new GatewayClient({
      ...this.configuration(),
      baseUrl: this.settings.baseUrl,
      token: () => this.tokens.activeToken(),
      dispatcher: this.dispatcher,
      onRequest: (r) => this.onRecord(r),
    });
    this._register(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (affectsRelay(e)) this.reload();
      }),
    );
    this._register(
      tokens.onDidChange(() => {
        this.modelCount = undefined;
        this.restartQuota();
        this.changed.fire();
      }),
    );
    this.restartQuota();
  }

  /** A new token or gateway: the balance is read again (slowly, see QuotaTracker; the core keeps each token's apart). */
  private restartQuota(): void {
    this.tracker?.dispose();
    this.quota = undefined;
    this.prices = undefined;
    this.tracker = new QuotaTracker(
      (maxAgeMs) =>
        this.client.endpoints().base && this.tokens.activeName()
          ? this.client.account.quota({ maxAgeMs })
          : Promise.resolve(undefined),
      (q) => {
        this.quota = q;
        this.changed.fire();
      },
    );
    this.tracker.start();
  }

  private warnInvalidProxy(): void {
    const p = this.proxyChoice;
    if (p.invalid)
      this.log.warn(
        vscode.l10n.t(
          'The proxy "{0}" ({1}) cannot be used: {2}. Requests go directly to the gateway; "Model Relay: Diagnose Connection" shows the proxy check.',
          p.display ?? '',
          p.source,
          p.invalid,
        ),
      );
  }

  /** Every setting the client takes, as now; applied at once (no reload needed). */
  private configuration(): ClientConfiguration {
    const s = this.settings;
    const t = s.timeouts;
    return {
      baseUrl: s.baseUrl,
      backupUrls: s.backupUrls,
      baseUrlVerbatim: this.keptAsTyped(s.baseUrl),
      extraHeaders: s.extraHeaders,
      timeouts: {
        chatMs: t.chatSeconds * 1000,
        streamIdleMs: t.streamIdleSeconds * 1000,
        chatOverallMs: t.chatOverallSeconds * 1000,
        imageMs: t.imageSeconds * 1000,
        videoMs: t.videoSeconds * 1000,
        videoOverallMs: t.videoOverallMinutes * 60_000,
      },
      retry: { maxRetries: s.maxRetries },
      defaultNativeMaxTokens: s.maxTokens,
    };
  }

  get current(): RelaySettings {
    return this.settings;
  }

  get proxy(): ProxyChoice {
    return this.proxyChoice;
  }

  /** Re-reads settings; applies to the next request at once. */
  reload(): void {
    this.settings = readSettings();
    const proxy = readProxySettings();
    const proxyKey = proxySettingsKey(proxy);
    if (proxyKey !== this.proxyKey) {
      // Only a changed proxy or certificate configuration replaces the dispatcher (and its open connections).
      this.proxyKey = proxyKey;
      this.proxyChoice = describeProxy(proxy);
      this.warnInvalidProxy();
      const old = this.dispatcher;
      this.dispatcher = createDispatcher(proxy);
      this.client.configure({ dispatcher: this.dispatcher });
      void old.close().catch(() => undefined);
    }
    if (this.client.configure(this.configuration()).endpoints) {
      this.modelCount = undefined;
      this.restartQuota();
    }
    this.changed.fire();
  }

  private onRecord(r: RequestRecord): void {
    const line = formatRecord(r);
    const ok = r.status !== undefined && r.status < 400 && !r.errorKind;
    if (ok || r.errorKind === 'aborted') this.log.info(line);
    else this.log.warn(line);
    // Balance reads are bookkeeping: logged, but not "the last request" of the status bar.
    if (r.capability === 'account') return;
    this.lastRecord = r;
    if (ok && r.method === 'POST' && r.capability !== 'models') this.tracker?.billed();
    this.changed.fire();
  }

  /** The model list, with the prices read alongside: every caller finds them in price() (one reader of prices). */
  async refreshModels(signal?: AbortSignal) {
    const [models] = await Promise.all([this.client.listModels(signal), this.refreshPricing()]);
    this.modelCount = models.length;
    this.changed.fire();
    return models;
  }

  /** The user asked for fresh figures (Refresh Status): the balance is read now. */
  refreshQuota(): void {
    this.tracker?.readNow();
  }

  /** Reads the gateway's prices (cached by the core; nothing where the gateway does not publish them). */
  async refreshPricing(): Promise<Map<string, ModelPrice> | undefined> {
    const prices = await this.client.account.pricing().catch(() => undefined);
    if (prices !== this.prices) {
      this.prices = prices;
      this.changed.fire();
    }
    return prices;
  }

  /** The model's price and groups as last read, without waiting ("$0.04 per call"). */
  price(model: string): { text: string | undefined; groups: string[]; price: ModelPrice | undefined } {
    const p = this.prices?.get(model);
    return { text: priceText(p), groups: p?.groups ?? [], price: p };
  }

  override dispose(): void {
    super.dispose();
    this.tracker?.dispose();
    void this.dispatcher.close().catch(() => undefined);
  }
}
