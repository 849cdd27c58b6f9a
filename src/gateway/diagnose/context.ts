/**
 * What the checks of one diagnosis share: the input as normalised once, the clock and time budget,
 * the dispatcher, and what earlier checks found (probes, the host that works, the model list, each
 * check's result). Checks read and write it instead of mutable locals in one long function.
 */
import type { Dispatcher } from 'undici';
import { GatewayClient } from '../client';
import { DEFAULT_DIAGNOSIS_TIMEOUTS } from '../defaults';
import { t } from '../l10n';
import { normalizeBaseUrl, type NormalizedBase } from '../endpoint';
import type { GatewayError } from '../errors/gatewayError';
import { CredentialScope } from '../http/egress';
import { bypassesProxy, createDispatcher, describeProxy, hostPort, type ProxyChoice } from '../http/proxy';
import { maskToken } from '../mask';
import type { Capability, ModelInfo } from '../models';
import type { HostProbe } from './hostProbe';
import type { CheckId, DiagnosisCheck, DiagnosisInput, DiagnosisModels } from './types';

/** Why a check is not run (or a halt that stops every further request). */
export interface Reason {
  cause: string;
  fix: string;
}

export interface HtmlSighting {
  url: string;
  status: number | undefined;
  message: string;
}

/** A configured model, with the capability it is configured for. */
export interface WantedModel {
  cap: Capability;
  key: keyof DiagnosisModels;
  label: string;
  model: string;
}

const CAPABILITY_OF: Record<keyof DiagnosisModels, Capability> = {
  chat: 'chat',
  native: 'native',
  responses: 'responses',
  image: 'image',
  imageEdit: 'image-edit',
  video: 'video',
};

/** The name of what a configured model is for, as said in the visibility check ("the chat model …"). */
function capabilityLabel(key: keyof DiagnosisModels): string {
  switch (key) {
    case 'chat':
      return t('chat');
    case 'native':
      return t('native');
    case 'responses':
      return t('responses');
    case 'image':
      return t('image');
    case 'imageEdit':
      return t('image edit');
    case 'video':
      return t('video');
  }
}

/** The configured models, each with the capability it is configured for. */
function wantedOf(models: DiagnosisModels): WantedModel[] {
  return (Object.keys(CAPABILITY_OF) as Array<keyof DiagnosisModels>).flatMap((key) => {
    const model = models[key];
    return model ? [{ cap: CAPABILITY_OF[key], key, label: capabilityLabel(key), model }] : [];
  });
}

/**
 * The first chat and native models of a token's list: by the gateway's capabilities where it says
 * them, else the first model for chat and the first Anthropic-family one for native.
 */
export function firstModels(list: readonly ModelInfo[]): Pick<DiagnosisModels, 'chat' | 'native'> {
  const guess = { chat: /./, native: /^claude/i };
  const first = (cap: 'chat' | 'native') =>
    list.find((m) => m.capabilities?.includes(cap))?.id ??
    list.find((m) => !m.capabilities && guess[cap].test(m.id))?.id;
  const picked = { chat: first('chat'), native: first('native') };
  return Object.fromEntries(Object.entries(picked).filter(([, v]) => v));
}

export class DiagnosisContext {
  readonly now: () => number;
  readonly startedAt: number;
  readonly requestMs: number;
  readonly totalMs: number;
  /** the caller's signal and the time budget */
  readonly signal: AbortSignal;
  readonly token: string | undefined;
  readonly masked: string | undefined;
  /** as given, or picked from the token's list (`useModelList`) */
  models: DiagnosisModels;
  wanted: WantedModel[];
  /** the base URL after the endpoint rules */
  readonly n: NormalizedBase;
  readonly backupNorm: Array<{ input: string; n: NormalizedBase }>;
  readonly backups: string[];
  readonly proxyChoice: ProxyChoice | undefined;
  readonly dispatcher: Dispatcher;
  /** HTML pages seen where the API should have answered */
  readonly html: HtmlSighting[] = [];
  readonly probes: HostProbe[] = [];
  /** each finished check, by id */
  readonly results = new Map<CheckId, DiagnosisCheck>();
  /** the host the network checks use (primary, or the first backup that works) */
  usedBase: string | undefined;
  /** the token's model list, once the token check read it */
  modelList: ModelInfo[] | undefined;
  tokenRefused = false;
  /** set by a 429: no further request is sent */
  halt: Reason | undefined;
  private readonly budget = new AbortController();
  private readonly budgetTimer: NodeJS.Timeout;
  private readonly ownedDispatcher: Dispatcher | undefined;
  private ownClient: GatewayClient | undefined;

  constructor(readonly input: DiagnosisInput) {
    this.now = input.now ?? Date.now;
    this.startedAt = this.now();
    this.requestMs = input.timeouts?.requestMs ?? DEFAULT_DIAGNOSIS_TIMEOUTS.requestMs;
    this.totalMs = input.timeouts?.totalMs ?? DEFAULT_DIAGNOSIS_TIMEOUTS.totalMs;
    this.budgetTimer = setTimeout(() => this.budget.abort(new Error('diagnosis time budget exhausted')), this.totalMs);
    this.budgetTimer.unref?.();
    this.signal = input.signal ? AbortSignal.any([input.signal, this.budget.signal]) : this.budget.signal;
    this.token = input.token?.trim() || undefined;
    this.masked = this.token ? maskToken(this.token) : undefined;
    this.models = Object.fromEntries(
      Object.entries(input.models ?? {}).map(([k, v]) => [k, typeof v === 'string' && v.trim() ? v.trim() : undefined]),
    );
    this.wanted = wantedOf(this.models);
    this.n = normalizeBaseUrl(input.baseUrl);
    this.backupNorm = (input.backupUrls ?? []).map((u) => ({ input: u, n: normalizeBaseUrl(u) }));
    this.backups = [
      ...new Set(this.backupNorm.map((b) => b.n.base).filter((b): b is string => !!b && b !== this.n.base)),
    ];
    this.proxyChoice = input.proxy ? describeProxy(input.proxy) : undefined;
    // Always a dispatcher of our own (never undici's global one, which a host may have replaced).
    this.dispatcher = input.dispatcher ?? (this.ownedDispatcher = createDispatcher(input.proxy ?? { env: {} }));
  }

  /** Where the token may go: the base URL and backups this diagnosis was given (the user's configuration), nothing else. */
  get credentialScope(): CredentialScope {
    return (this.scope ??= new CredentialScope(
      this.input.gatewayName ?? t('the gateway'),
      [this.n.base, ...this.backups].filter((b): b is string => !!b),
    ));
  }
  private scope: CredentialScope | undefined;

  /** The client every check after reachability uses: the host that works, no retries, short timeouts. */
  get client(): GatewayClient | undefined {
    if (!this.usedBase) return undefined;
    const requestMs = this.requestMs;
    return (this.ownClient ??= new GatewayClient({
      gatewayName: this.credentialScope.gateway,
      baseUrl: this.usedBase,
      token: () => this.token,
      dispatcher: this.dispatcher,
      extraHeaders: this.input.extraHeaders,
      retry: { maxRetries: 0 },
      timeouts: {
        chatMs: requestMs,
        streamIdleMs: requestMs,
        chatOverallMs: requestMs,
        imageMs: Math.max(requestMs, 60_000),
        videoMs: requestMs,
      },
      ...(this.input.sleep ? { sleep: this.input.sleep } : {}),
      now: this.now,
      onRequest: this.input.onRequest,
      countText: this.input.countText,
    }));
  }

  /** The token's model list was read: kept, and the models to check picked from it when asked and none was given. */
  useModelList(list: ModelInfo[]): void {
    this.modelList = list;
    try {
      this.input.onModelList?.(list);
    } catch {
      /* a broken listener must not break the diagnosis */
    }
    const pick = this.input.pickModels;
    if (!pick || this.models.chat || this.models.native) return;
    const picked = firstModels(list);
    this.models = { ...this.models, ...picked };
    this.wanted = wantedOf(this.models);
    try {
      pick(picked);
    } catch {
      /* a broken listener must not break the diagnosis */
    }
  }

  noteHtml(e: GatewayError | undefined): void {
    if (e?.detail === 'html_page' && e.url && !this.html.some((h) => h.url === e.url))
      this.html.push({ url: e.url, status: e.status, message: e.message });
  }

  /** Why the diagnosis stopped (cancelled, out of time), or undefined while it runs. */
  stopped(): string | undefined {
    if (this.input.signal?.aborted) return t('The diagnosis was cancelled.');
    if (this.budget.signal.aborted)
      return t('The diagnosis ran out of its {0} s time budget.', Math.round(this.totalMs / 1000));
    return undefined;
  }

  /** Why a network check cannot run, or undefined when it can. */
  blocked(needsToken = true): Reason | undefined {
    const s = this.stopped();
    if (s) return { cause: s, fix: t('Run the diagnosis again.') };
    if (this.halt) return this.halt;
    if (!this.n.base) return { cause: t('No usable base URL.'), fix: t('Fix the base URL first.') };
    if (!this.client)
      return {
        cause: t('No host works, so nothing further could be tested.'),
        fix: t('Fix reachability first (see above).'),
      };
    if (needsToken && !this.token) return { cause: t('No token is set.'), fix: t('Add a token first.') };
    if (needsToken && this.tokenRefused)
      return { cause: t('The token was refused (401), so this was not tested.'), fix: t('Fix the token first.') };
    return undefined;
  }

  /**
   * The model the responses checks use: the one given; else the first the token's list says answers
   * on /v1/responses (new-api's `openai-response`); else one the gateway's refusals taught during
   * this diagnosis (a chat model moved there) or before it (the caller's client). Undefined: the
   * token sees no responses model.
   */
  responsesModel(): string | undefined {
    return (
      this.models.responses ??
      this.modelList?.find((m) => m.capabilities?.includes('responses'))?.id ??
      [...(this.ownClient?.learntSurfaces() ?? []), ...(this.input.learntSurfaces ?? [])].find(
        (l) => l.surface === 'responses',
      )?.model
    );
  }

  /** Whether the token's model list shows `model` (undefined when unknown). */
  listed(model: string | undefined): boolean | undefined {
    return model && this.modelList ? this.modelList.some((x) => x.id === model) : undefined;
  }

  /** Whether requests to `base` go through the proxy (the dispatcher's own no-proxy matcher decides). */
  viaProxyFor(base: string): boolean {
    const p = this.proxyChoice;
    if (!p || p.source === 'none' || p.invalid) return false;
    return !bypassesProxy(hostPort(base), p.noProxy);
  }

  async close(): Promise<void> {
    clearTimeout(this.budgetTimer);
    if (this.ownedDispatcher) await this.ownedDispatcher.close().catch(() => undefined);
  }
}
