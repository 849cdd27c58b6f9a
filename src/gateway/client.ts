/**
 * GatewayClient: the one object the extension holds — a façade over the transport and the call
 * functions (chat/, media/). Pure Node (no vscode): base URL + backups, a token getter, an
 * optional undici dispatcher (proxy), injected sleep/now for tests.
 * A settings change resets only what it changes (`configure`): a new base URL or backups resets
 * failover, the model capabilities, the account and the usage log; a new token (noticed through the getter,
 * `TokenScope`) forgets its balance and its group's capabilities; anything else resets nothing.
 * Chat is built for the model (chat/modelRules.ts) and with what the gateway's refusals taught for
 * it — its surface, parameters it refuses (chat/refusals.ts): remembered per client, i.e. per
 * gateway, until its model list changes.
 */
import type { Dispatcher } from 'undici';
import type { GatewayError, Surface } from './errors/gatewayError';
import { chat } from './chat/chat';
import { chatStream, type ChatEventStream } from './chat/stream';
import { ModelMemory } from './chat/modelMemory';
import type { Learnt } from './chat/modelRules';
import type { RequestAdjustment } from './chat/wirePlan';
import { chatAdjusting, chatStreamAdjusting, type RefusalContext } from './chat/refusals';
import { explainSurfaceRefusal } from './chat/refusalWords';
import type { ChatRequest, ChatResult, SurfaceMove } from './chat/types';
import { FimRefusals, GatewayCompletions, type CompletionOverride } from './completions/completions';
import type { CompletionRequest, CompletionResult } from './completions/types';
import {
  ACCOUNT_TIMEOUT_MS,
  DEFAULT_CONCURRENCY,
  DEFAULT_DIAGNOSIS_TIMEOUTS,
  DEFAULT_MAX_TOKENS,
  DEFAULT_TIMEOUTS,
  type Timeouts,
} from './defaults';
import {
  compatibleBase,
  nativeBase,
  nativeMessagesUrl,
  normalizeBaseUrl,
  verbatimBaseUrl,
  type EndpointFinding,
} from './endpoint';
import { inAction, iterateInAction, newAction } from './http/action';
import type { CredentialScope } from './http/egress';
import { Limiter } from './http/limiter';
import type { BurstThresholds } from './http/sseStream';
import { Transport, realSleep, type Sleep, type TransportOptions } from './http/transport';
import { editImage, generateImage, type MediaCallContext } from './media/imageCalls';
import type { ImageEditRequest, ImageGenerateRequest, ImageResult } from './media/images';
import {
  createVideo,
  downloadVideo,
  getVideo,
  pollVideo,
  type DownloadOutcome,
  type PollRequest,
  type VideoCallContext,
  type VideoCreateRequest,
} from './media/videoCalls';
import type { PollOutcome, VideoTask } from './media/videos';
import { MODELS_PATH, parseModelList, type Capability, type ModelInfo } from './models';
import { Account } from './economy/account';
import { CriticalBudget } from './economy/criticalBudget';
import { TokenScope } from './economy/tokenScope';
import { UsageLog } from './economy/usageLog';
import type { CountText } from './economy/inputCount';
import { probeTool, type ProbeOptions, type ProbeTarget, type ToolProbe } from './tools/probes';

export interface GatewayClientOptions extends Omit<TransportOptions, 'primaryRecheckMs'> {
  timeouts?: Partial<Timeouts>;
  concurrency?: { image?: number; video?: number };
  defaultNativeMaxTokens?: number;
  burst?: BurstThresholds;
  /** hears a chat request moved to another surface (the model answers only there), before it is sent there */
  onSurfaceMove?: ((move: SurfaceMove) => void) | undefined;
  /**
   * hears what the gateway's refusals changed in a chat request (a parameter left out or set
   * otherwise: learnt now or remembered), when its reply arrives
   */
  onAdjustment?: ((adjustment: RequestAdjustment) => void) | undefined;
  /**
   * hears a model list read for the token in use, once the client has taken it (capabilities, and
   * what refusals taught forgotten when the list changed)
   */
  onModelsListed?: ((models: readonly ModelInfo[]) => void) | undefined;
  /**
   * the tokenizer a chat's input is counted with for its receipt (economy/inputCount.ts: plain text, a
   * model whose tokenizer it is); none: no call is counted
   */
  countText?: CountText | undefined;
}

export interface EndpointInfo {
  base: string | undefined;
  /** the base is used as typed (Keep what I typed), not as the endpoint rules would have it */
  verbatim: boolean;
  compatibleBase: string | undefined;
  nativeBase: string | undefined;
  nativeMessagesUrl: string | undefined;
  /** the exact URL the responses surface calls ({base}/v1/responses) */
  responsesUrl: string | undefined;
  findings: EndpointFinding[];
  backups: string[];
  /** the base serving requests now (primary or a backup) */
  activeBase: string | undefined;
  activeIsBackup: boolean;
}

export type ClientConfiguration = Pick<
  GatewayClientOptions,
  'timeouts' | 'retry' | 'concurrency' | 'defaultNativeMaxTokens'
> & {
  baseUrl?: string;
  backupUrls?: readonly string[];
  /** the primary base URL as given ("Keep what I typed"), not normalised */
  baseUrlVerbatim?: boolean;
  dispatcher?: Dispatcher | undefined;
  extraHeaders?: Record<string, string>;
};

/** What a `configure` call changed, for the caller's own caches (a model count, a balance schedule). */
export interface ConfigurationChange {
  /** another base URL or other backups: failover, capabilities and the account started over */
  endpoints: boolean;
}

const sameList = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i]);

export class GatewayClient {
  readonly transport: Transport;
  private timeouts: Timeouts;
  private readonly imageLimiter: Limiter;
  private readonly videoLimiter: Limiter;
  private readonly sleep: Sleep;
  private readonly now: () => number;
  private baseUrl: string;
  private backupUrls: readonly string[];
  private baseUrlVerbatim: boolean;
  private nativeMaxTokens: number;
  /** capabilities learnt from /v1/models (new-api's supported_endpoint_types), for the token's group */
  private readonly capabilities = new Map<string, Capability[]>();
  /** what this gateway's refusals taught per model (its surface, parameters it refuses), until its model list changes */
  private readonly learnt = new ModelMemory();
  /** the models this gateway refused fill-in-the-middle for (asked the chat way), until its model list changes */
  private readonly fimRefusals = new FimRefusals();
  /** which token the balance and the capabilities belong to */
  private readonly scope: TokenScope;
  /** balance, expiry, prices and groups, as the gateway tells this token */
  readonly account: Account;
  /** the gateway's own usage log for this token: arrival evidence, spend, the effective group */
  readonly usage: UsageLog;

  constructor(private readonly opts: GatewayClientOptions) {
    this.sleep = opts.sleep ?? realSleep;
    this.now = opts.now ?? Date.now;
    this.baseUrl = opts.baseUrl;
    this.backupUrls = opts.backupUrls ?? [];
    this.baseUrlVerbatim = opts.baseUrlVerbatim ?? false;
    this.nativeMaxTokens = opts.defaultNativeMaxTokens ?? DEFAULT_MAX_TOKENS;
    this.timeouts = { ...DEFAULT_TIMEOUTS, ...(opts.timeouts ?? {}) };
    this.imageLimiter = new Limiter(opts.concurrency?.image ?? DEFAULT_CONCURRENCY.image);
    this.videoLimiter = new Limiter(opts.concurrency?.video ?? DEFAULT_CONCURRENCY.video);
    const { gatewayName, baseUrl, token, dispatcher, extraHeaders, retry, random, onRequest, onRetry } = opts;
    const explain = async (err: GatewayError, t: string) =>
      explainSurfaceRefusal(await this.account.explainRefusal(err, t));
    this.transport = new Transport({
      gatewayName,
      baseUrl,
      backupUrls: this.backupUrls,
      baseUrlVerbatim: this.baseUrlVerbatim,
      token,
      dispatcher,
      extraHeaders,
      retry,
      sleep: this.sleep,
      now: this.now,
      onRetry,
      explain,
      ...(random ? { random } : {}),
      ...(onRequest ? { onRequest } : {}),
    });
    this.scope = new TokenScope(() => this.transport.token());
    this.scope.onForget(() => {
      this.capabilities.clear();
      this.learnt.forget();
      this.fimRefusals.forget();
    });
    const accountTimeout = () => Math.min(this.timeouts.chatMs, ACCOUNT_TIMEOUT_MS);
    // The balance and the usage log share the gateway's critical rate limit: one budget for both.
    const critical = new CriticalBudget(this.now);
    this.account = new Account(this.transport, this.now, accountTimeout, this.scope, critical);
    this.usage = new UsageLog(
      this.transport,
      this.now,
      accountTimeout,
      this.scope,
      critical,
      async (signal) => (await this.account.status(signal))?.units,
    );
    this.account.tokenGroup = () => this.usage.group;
  }

  /**
   * Applies settings to the next request. Compares with what is in use: only another base URL,
   * other backups or another verbatim choice reset failover (back to the primary), the capabilities
   * and the account; the same values again (any other setting changed) keep them.
   */
  configure(c: ClientConfiguration): ConfigurationChange {
    const baseUrl = c.baseUrl ?? this.baseUrl;
    const backupUrls = c.backupUrls ?? this.backupUrls;
    const verbatim = c.baseUrlVerbatim ?? this.baseUrlVerbatim;
    const endpoints =
      baseUrl !== this.baseUrl || !sameList(backupUrls, this.backupUrls) || verbatim !== this.baseUrlVerbatim;
    if (endpoints) {
      this.baseUrl = baseUrl;
      this.backupUrls = [...backupUrls];
      this.baseUrlVerbatim = verbatim;
      this.transport.setEndpoints(this.baseUrl, this.backupUrls, this.baseUrlVerbatim);
      this.account.reset();
      this.usage.reset();
      this.scope.renew();
    }
    if ('dispatcher' in c) this.transport.setDispatcher(c.dispatcher);
    if (c.extraHeaders) this.transport.setExtraHeaders(c.extraHeaders);
    if (c.timeouts) this.timeouts = { ...this.timeouts, ...c.timeouts };
    if (c.retry) this.transport.setRetry(c.retry);
    if (c.defaultNativeMaxTokens !== undefined) this.nativeMaxTokens = c.defaultNativeMaxTokens;
    if (c.concurrency?.image) this.imageLimiter.max = c.concurrency.image;
    if (c.concurrency?.video) this.videoLimiter.max = c.concurrency.video;
    return { endpoints };
  }

  /** The endpoint rules applied to the configured base URL, for status views and diagnosis. */
  endpoints(): EndpointInfo {
    const n = normalizeBaseUrl(this.baseUrl);
    const base = (this.baseUrlVerbatim && verbatimBaseUrl(this.baseUrl)) || n.base;
    const backups = this.backupUrls.map((u) => normalizeBaseUrl(u).base).filter((b): b is string => !!b);
    const active = this.transport.activeBase;
    return {
      base,
      verbatim: !!base && base !== n.base,
      compatibleBase: base ? compatibleBase(base) : undefined,
      nativeBase: base ? nativeBase(base) : undefined,
      nativeMessagesUrl: base ? nativeMessagesUrl(base) : undefined,
      responsesUrl: base ? `${compatibleBase(base)}/responses` : undefined,
      findings: n.findings,
      backups,
      activeBase: active,
      activeIsBackup: !!active && active !== base,
    };
  }

  get limits(): { image: { running: number; queued: number }; video: { running: number; queued: number } } {
    return {
      image: { running: this.imageLimiter.running, queued: this.imageLimiter.queued },
      video: { running: this.videoLimiter.running, queued: this.videoLimiter.queued },
    };
  }

  private chatSettings() {
    const { chatMs: timeoutMs, streamIdleMs: idleTimeoutMs, chatOverallMs: overallMs } = this.timeouts;
    return {
      timeoutMs,
      idleTimeoutMs,
      overallMs,
      defaultNativeMaxTokens: this.nativeMaxTokens,
      now: this.now,
      ...(this.opts.burst ? { burst: this.opts.burst } : {}),
      countText: this.opts.countText,
    };
  }

  private refusals(): RefusalContext {
    return {
      memory: this.learnt,
      maxTokens: this.nativeMaxTokens,
      onMove: this.opts.onSurfaceMove,
      onAdjustment: this.opts.onAdjustment,
    };
  }

  /**
   * A non-streamed chat on the model's surface, built for the model; refused before any reply (the
   * model answers only on /v1/responses, or refuses a parameter), adjusted and sent again (chat/refusals.ts).
   */
  chat(req: ChatRequest): Promise<ChatResult> {
    return inAction(() =>
      chatAdjusting(req, this.refusals(), (at) => chat(this.transport, at.req, this.chatSettings(), at.learnt)),
    );
  }

  /** A streamed chat (as `chat`), adjusted and sent again only on a refusal before any reply. */
  chatStream(req: ChatRequest): ChatEventStream {
    // one user action (http/action.ts), entered again at every step of the stream
    const action = newAction();
    const stream = inAction(
      () =>
        chatStreamAdjusting(req, this.refusals(), (at) =>
          chatStream(this.transport, at.req, this.chatSettings(), at.learnt),
        ),
      action,
    );
    return {
      [Symbol.asyncIterator]: () => iterateInAction(() => stream, action)[Symbol.asyncIterator](),
      batches: () => iterateInAction(() => stream.batches(), action),
    };
  }

  /** Resolves once every request record so far is written (a chat's record waits for the count of its input). */
  recordsWritten(): Promise<void> {
    return this.transport.recordsWritten();
  }

  /** The surface this gateway's refusals taught for a model (until its model list changes), if any. */
  learntSurface(model: string): Surface | undefined {
    return this.learnt.of(model)?.surface;
  }

  /** Every surface learnt from this gateway's refusals, oldest first. */
  learntSurfaces(): Array<{ model: string; surface: Surface }> {
    return this.learnt.surfaces();
  }

  /** Everything this gateway's refusals taught for a model (until its model list changes), if anything. */
  learntFor(model: string): Learnt | undefined {
    return this.learnt.of(model);
  }

  /** The origins this gateway's token may go to: its configured base URL and backups (egress.ts). */
  get credentialScope(): CredentialScope {
    return this.transport.credentialScope;
  }

  /** A terminal tool's probe (its own address and credential) through this client's dispatcher, into its request log. */
  probeTool(target: ProbeTarget, o: Omit<ProbeOptions, 'dispatcher' | 'onRequest' | 'scope'> = {}): Promise<ToolProbe> {
    return probeTool(target, {
      now: this.now,
      // this client's limits where they are shorter than a probe's own (a caller may set its own)
      timeoutMs: Math.min(this.timeouts.chatMs, DEFAULT_DIAGNOSIS_TIMEOUTS.requestMs),
      deadlineMs: this.timeouts.chatOverallMs,
      ...o,
      // this gateway's own origins, whatever the caller passed: the tool's address must be one of them
      scope: this.transport.credentialScope,
      dispatcher: this.transport.dispatcher,
      ...(this.opts.onRequest ? { onRequest: this.opts.onRequest } : {}),
    });
  }

  /**
   * A code-completion client on this gateway (issue 25): FIM on /v1/completions or a short chat,
   * per model; `overrides` is read at each request (`modelRelay.models.overrides`: `fim`, `surface`).
   * Every client made here shares this gateway's memory of FIM refusals.
   */
  completions(overrides?: () => Readonly<Record<string, CompletionOverride>>): GatewayCompletions {
    return new GatewayCompletions({
      transport: this.transport,
      chat: (r) => this.chat(r),
      refusals: this.fimRefusals,
      capabilitiesOf: (m) => this.capabilitiesOf(m),
      timeoutMs: () => this.timeouts.chatMs,
      now: this.now,
      current: () => this.scope.current(),
      overrides,
    });
  }

  /** One code completion by the model's family (no overrides): `completions().complete(req)`. */
  complete(req: CompletionRequest): Promise<CompletionResult> {
    return this.completions().complete(req);
  }

  /** The models this gateway refused FIM for (their completions are asked the chat way), oldest first. */
  fimRefusedModels(): string[] {
    return this.fimRefusals.models();
  }

  async listModels(signal?: AbortSignal): Promise<ModelInfo[]> {
    const gen = await this.scope.current();
    const { data, res } = await this.transport.json({
      method: 'GET',
      path: MODELS_PATH,
      surface: 'compatible',
      capability: 'models',
      signal,
      timeoutMs: this.timeouts.chatMs,
    });
    const models = parseModelList(data, res.context);
    // A list read for the previous token (or gateway) says nothing about this one's group.
    if (this.scope.holds(gen)) {
      for (const m of models) if (m.capabilities) this.capabilities.set(m.id, m.capabilities);
      // Another list may route a model elsewhere: what its refusals taught is forgotten.
      this.learnt.listed(models);
      this.fimRefusals.listed(models);
      this.opts.onModelsListed?.(models);
    }
    return models;
  }

  async listModelIds(signal?: AbortSignal): Promise<string[]> {
    return (await this.listModels(signal)).map((m) => m.id);
  }

  /** Known capabilities of a model (from the last model list), or undefined when unknown. */
  capabilitiesOf(model: string): Capability[] | undefined {
    return this.capabilities.get(model);
  }

  /** The listed models known to have `cap` (from the last model list). */
  modelsWith(cap: Capability): string[] {
    return [...this.capabilities].filter(([, caps]) => caps.includes(cap)).map(([id]) => id);
  }

  private imageCalls(): MediaCallContext {
    return {
      transport: this.transport,
      limiter: this.imageLimiter,
      timeoutMs: this.timeouts.imageMs,
      now: this.now,
      capabilitiesOf: (m) => this.capabilitiesOf(m),
      modelsWith: (cap) => this.modelsWith(cap),
    };
  }

  private videoCalls(): VideoCallContext {
    const t = this.timeouts;
    return {
      transport: this.transport,
      limiter: this.videoLimiter,
      timeoutMs: t.videoMs,
      idleTimeoutMs: t.streamIdleMs,
      overallTimeoutMs: t.videoOverallMs,
      now: this.now,
      sleep: this.sleep,
      random: this.opts.random,
      capabilitiesOf: (m) => this.capabilitiesOf(m),
      modelsWith: (cap) => this.modelsWith(cap),
    };
  }

  // The media calls consult the capabilities: the token in use is checked first (another one's group may differ).
  async generateImage(req: ImageGenerateRequest): Promise<ImageResult> {
    await this.scope.current();
    return generateImage(this.imageCalls(), req);
  }

  async editImage(req: ImageEditRequest): Promise<ImageResult> {
    await this.scope.current();
    return editImage(this.imageCalls(), req);
  }

  /** Creates a video task. Costs money: retried only when the request provably never left. */
  async createVideo(req: VideoCreateRequest): Promise<VideoTask> {
    await this.scope.current();
    return createVideo(this.videoCalls(), req);
  }

  getVideo(id: string, signal?: AbortSignal): Promise<VideoTask> {
    return getVideo(this.videoCalls(), id, signal);
  }

  /** Waits for a task with backoff; outcomes: completed, failed, timed_out, cancelled. */
  pollVideo(id: string, o: PollRequest = {}): Promise<PollOutcome> {
    return pollVideo(this.videoCalls(), id, o);
  }

  /** Streams a completed task's content to `filePath`; outcomes: downloaded, expired, not_ready. */
  downloadVideo(id: string, filePath: string, signal?: AbortSignal): Promise<DownloadOutcome> {
    return downloadVideo(this.videoCalls(), id, filePath, signal);
  }
}
