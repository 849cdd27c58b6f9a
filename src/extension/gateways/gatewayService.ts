/**
 * Holds the gateways' clients: the core's GatewaySet, one client per gateway (its profile's base URL,
 * backups and headers, and its own token store — a client never holds another gateway's token; its
 * records name the gateway; chat failover across gateways runs on it), handed every settings change;
 * `client` and `current` are the active gateway's, so every consumer works on the gateway active when
 * it calls. With no gateway configured yet, `client` is an unconfigured one (the default gateway's tokens).
 * Publishes request records to the log channel and the status views. Says what changed once, by kind
 * (as VS Code's own onDidChangeConfiguration / onDidChangeSessions): configuration, token, account,
 * models, request — each consumer listens to the kinds it shows, so a request record wakes only what
 * shows requests. Configuration and token are upstream of the rest: either resets the active
 * gateway's balance, prices and model count, which tell their own event when read again; a view that
 * shows those listens to configuration and token too. Logic that can live in the core
 * lives in the core: the client decides what a change resets (GatewayClient.configure) and notices a
 * new token itself; which gateway is active is src/host/gateways/gatewayRegistry.ts.
 */
import * as vscode from 'vscode';
import { Disposable } from '../disposable';
import type { Dispatcher } from 'undici';
import {
  GatewayClient,
  GatewaySet,
  createDispatcher,
  describeProxy,
  formatRecord,
  priceText,
  surfaceMoveWords,
  type ModelPrice,
  type SurfaceMove,
  type ProxyChoice,
  type Quota,
  type CountText,
  type RequestLogSink,
  type RequestRecord,
  type ProxySettings,
} from '../../gateway';
import type { GatewayProfile, SharedConfiguration } from '../../gateway';
import { DEFAULT_GATEWAY_ID, ProblemsOnce, namedGatewayIds, settingsFor } from '../../host/gateways/gatewayList';
import type { GatewayRegistry } from '../../host/gateways/gatewayRegistry';
import { QuotaTracker } from '../../host/status/quotaSchedule';
import type { LocalRequestLog } from '../../host/usage/localLog';
import { TokenCounter, loadBundledTokenizer } from '../../host/lm/tokenCounter';
import { rawGateways, readProxySettings, readSettings, affectsRelay, type RelaySettings } from './settings';
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

/** How long another gateway's balance is trusted before it is read again (ms). */
const OTHER_BALANCE_MAX_AGE_MS = 5 * 60_000;
/** How long the picker waits for the other gateways' balances before it opens (ms). */
const OTHER_BALANCE_BOUND_MS = 800;

export class GatewayService extends Disposable {
  /** one client per configured gateway */
  readonly gateways: GatewaySet;
  /** the client while no gateway is configured (no base URL yet; the default gateway's tokens) */
  private readonly unconfigured: GatewayClient;
  private settings: RelaySettings;
  private readonly problems: ProblemsOnce;
  /** the last balance read per gateway id (for the Switch Gateway picker) */
  private readonly quotas = new Map<string, Quota>();
  private dispatcher: Dispatcher;
  private proxyChoice: ProxyChoice;
  private proxyKey: string;
  private readonly configurationChanged = this._register(new vscode.EventEmitter<void>());
  /** The settings were read again (addresses, models, limits, proxy) and apply already. */
  readonly onDidChangeConfiguration = this.configurationChanged.event;
  private readonly tokenChanged = this._register(new vscode.EventEmitter<void>());
  /** The active gateway's token was added, removed, switched or replaced, or another gateway became active. */
  readonly onDidChangeToken = this.tokenChanged.event;
  private readonly accountChanged = this._register(new vscode.EventEmitter<void>());
  /** A balance was read: the active gateway's (`quota`) or another's (`quotaOf`). */
  readonly onDidChangeAccount = this.accountChanged.event;
  private readonly modelsChanged = this._register(new vscode.EventEmitter<void>());
  /**
   * A model list was read (`modelCount`; what refusals taught is forgotten when the list changed), the
   * prices were read, or a model's surface was learnt.
   */
  readonly onDidChangeModels = this.modelsChanged.event;
  private readonly requestRecorded = this._register(new vscode.EventEmitter<RequestRecord>());
  /** A request was sent and recorded (`lastRecord`); balance reads are bookkeeping and tell nothing. */
  readonly onDidRecordRequest = this.requestRecorded.event;
  lastRecord: RequestRecord | undefined;
  /** how many models the active gateway's last list read named (undefined: not read since its token or address) */
  modelCount: number | undefined;
  /** what is left on the active token, where the gateway tells (undefined: not known) */
  quota: Quota | undefined;
  private tracker: QuotaTracker | undefined;
  /** the gateway's public prices, where it publishes them (read with the model list, cached) */
  private prices: Map<string, ModelPrice> | undefined;
  /**
   * The window's tokenizer (o200k, loaded on its first count) and its count cache: VS Code's token counts
   * for our models, and the local count of what a chat sent, for its receipt's input check.
   */
  readonly tokenizer = new TokenCounter(loadBundledTokenizer);

  constructor(
    readonly registry: GatewayRegistry,
    tokens: TokenStore,
    private readonly log: vscode.LogOutputChannel,
    /** the requests this installation sent, kept across windows (the request log, the Usage view, support reports) */
    readonly requests: LocalRequestLog,
    /** whether a base URL is to be called as typed (Configure Base URL's "Keep what I typed") */
    private readonly keptAsTyped: (baseUrl: string) => boolean = () => false,
  ) {
    super();
    this.problems = new ProblemsOnce((p) => log.warn(p));
    this.settings = this.readGateways();
    const proxy = readProxySettings();
    this.proxyKey = proxySettingsKey(proxy);
    this.proxyChoice = describeProxy(proxy);
    this.warnInvalidProxy();
    this.dispatcher = createDispatcher(proxy);
    const shared = this.shared();
    const countText = (text: string) => this.tokenizer.exactly(text);
    this.gateways = new GatewaySet(registry.gateways(), {
      ...shared,
      token: (id) => registry.tokensOf(id).activeToken(),
      dispatcher: this.dispatcher,
      countText,
      verbatim: (baseUrl) => this.keptAsTyped(baseUrl),
      onRequest: (r) => this.onRecord(r),
      onSurfaceMove: (m) => this.onSurfaceMove(m),
      onModelsListed: (id, models) => {
        if (id === this.registry.activeId()) this.modelCount = models.length;
        this.modelsChanged.fire();
      },
    });
    const fallbackTokens = registry.tokensOf(DEFAULT_GATEWAY_ID);
    this.unconfigured = new GatewayClient({
      ...shared,
      baseUrl: '',
      token: () => fallbackTokens.activeToken(),
      dispatcher: this.dispatcher,
      countText,
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
        this.tokenChanged.fire();
      }),
    );
    this.restartQuota();
  }

  /** The settings, with the gateways handed to the registry and their problems told to the log (once). */
  private readGateways(): RelaySettings {
    const s = readSettings();
    this.problems.report(s.gatewayProblems);
    this.registry.update(s.gateways, namedGatewayIds(rawGateways()));
    return s;
  }

  /** The active gateway (undefined while none is configured). */
  get gateway(): GatewayProfile | undefined {
    return this.registry.active();
  }

  /** The active gateway's client. */
  get client(): GatewayClient {
    return this.clientOf(this.registry.activeId());
  }

  /** A gateway's client: its own address, headers and token store (the unconfigured one for an unknown id). */
  clientOf(id: string): GatewayClient {
    return this.gateways.get(id) ?? this.unconfigured;
  }

  /** The last balance read for a gateway's active token (undefined: not read yet). */
  quotaOf(id: string): Quota | undefined {
    return this.quotas.get(id);
  }

  /**
   * The other gateways' balances (the active one has its tracker): each read with that gateway's own
   * token, served from the core's cache while younger than OTHER_BALANCE_MAX_AGE_MS, so opening the
   * picker or the Status tree again reads nothing. Resolves within `boundMs`; an answer after it still
   * updates the views (an account event, only when a balance changed).
   */
  async readOtherBalances(boundMs = OTHER_BALANCE_BOUND_MS): Promise<void> {
    const active = this.registry.activeId();
    const reads = this.registry
      .gateways()
      .filter((g) => g.id !== active && this.registry.tokensOf(g.id).activeName())
      .map(async (g) => {
        const q = await this.gateways
          .get(g.id)
          ?.account.quota({ maxAgeMs: OTHER_BALANCE_MAX_AGE_MS })
          .catch(() => undefined);
        if (!q || g.id === this.registry.activeId()) return;
        const had = this.quotas.get(g.id);
        this.quotas.set(g.id, q);
        if (JSON.stringify(had) !== JSON.stringify(q)) this.accountChanged.fire();
      });
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all(reads), new Promise((r) => (timer = setTimeout(r, boundMs)))]);
    clearTimeout(timer);
  }

  /** A new token or gateway: the balance is read again (slowly, see QuotaTracker; the core keeps each token's apart). */
  private restartQuota(): void {
    this.tracker?.dispose();
    this.quota = undefined;
    this.prices = undefined;
    const id = this.registry.activeId();
    const client = this.client;
    const store = this.registry.tokensOf(id);
    this.tracker = new QuotaTracker(
      (maxAgeMs) =>
        client.endpoints().base && store.activeName() ? client.account.quota({ maxAgeMs }) : Promise.resolve(undefined),
      (q) => {
        this.quota = q;
        if (q) this.quotas.set(id, q);
        else this.quotas.delete(id);
        this.accountChanged.fire();
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

  /** Every setting the gateways' clients share, as now; applied at once (no reload needed). */
  private shared(): SharedConfiguration {
    const s = this.settings;
    const t = s.timeouts;
    return {
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

  /** The settings as the active gateway makes them (its address, backups, headers and models). */
  get current(): RelaySettings {
    return settingsFor(this.settings, this.registry.active());
  }

  /** The settings as a gateway makes them (the active one's: `current`). */
  settingsOf(id: string): RelaySettings {
    return settingsFor(this.settings, this.registry.get(id));
  }

  get proxy(): ProxyChoice {
    return this.proxyChoice;
  }

  /** Re-reads settings; applies to the next request at once. */
  reload(): void {
    const endpointsKey = () => {
      const e = this.client.endpoints();
      return JSON.stringify([e.base, e.backups, e.verbatim]);
    };
    const before = endpointsKey();
    this.settings = this.readGateways();
    const proxy = readProxySettings();
    const proxyKey = proxySettingsKey(proxy);
    if (proxyKey !== this.proxyKey) {
      // Only a changed proxy or certificate configuration replaces the dispatcher (and its open connections).
      this.proxyKey = proxyKey;
      this.proxyChoice = describeProxy(proxy);
      this.warnInvalidProxy();
      const old = this.dispatcher;
      this.dispatcher = createDispatcher(proxy);
      this.gateways.configureAll({ dispatcher: this.dispatcher });
      this.unconfigured.configure({ dispatcher: this.dispatcher });
      void old.close().catch(() => undefined);
    }
    // A gateway no longer listed loses its client (a request in flight keeps its own address and token).
    this.gateways.configure(this.registry.gateways());
    this.gateways.configureAll(this.shared());
    this.unconfigured.configure(this.shared());
    if (endpointsKey() !== before) {
      this.modelCount = undefined;
      this.restartQuota();
    }
    this.configurationChanged.fire();
  }

  /** A model's request moved to the surface it answers on: the log says so once (when learnt); the models changed. */
  private onSurfaceMove(m: SurfaceMove): void {
    if (!m.learntNow) return;
    this.log.info(surfaceMoveWords(m));
    this.modelsChanged.fire();
  }

  /**
   * How requests sent outside the clients (Diagnose's checks) reach the request log, the status bar and the
   * receipts, as the clients' do; and how their inputs are counted.
   */
  get requestLogging(): { onRequest: RequestLogSink; countText: CountText } {
    return { onRequest: (r) => this.onRecord(r), countText: (text) => this.tokenizer.exactly(text) };
  }

  private onRecord(r: RequestRecord): void {
    const line = formatRecord(r);
    const ok = r.status !== undefined && r.status < 400 && !r.errorKind;
    if (ok || r.errorKind === 'aborted') this.log.info(line);
    else this.log.warn(line);
    this.requests.add(r);
    // Balance reads are bookkeeping: logged, but not "the last request" of the status bar.
    if (r.capability === 'account') return;
    this.lastRecord = r;
    if (ok && r.method === 'POST' && r.capability !== 'models') this.tracker?.billed();
    this.requestRecorded.fire(r);
  }

  /** The model list, with the prices read alongside: every caller finds them in price() (one reader of prices). */
  async refreshModels(signal?: AbortSignal) {
    const [models] = await Promise.all([this.client.listModels(signal), this.refreshPricing()]);
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
      this.modelsChanged.fire();
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
