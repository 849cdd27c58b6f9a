/**
 * The gateway's economy, as new-api and one-api run it (shared/reference/gateway-economy.md):
 * - token state (quota, expiry, status, model limits) and TokenAuth's refusals, worded per gateway flavor;
 * - model prices, the relay's pre-consume checks and what a call is billed;
 * - the read-only routes a token can query: /api/status, /api/usage/token/, /api/pricing and
 *   /v1/dashboard/billing/{subscription,usage} (also without /v1), with gin's 301 for a trailing slash.
 * Pure functions over the config and the tokens: server.ts keeps the state and writes the answers.
 */
import { createHash } from 'node:crypto';

type Json = Record<string, unknown>;

/** `new-api`: current (2026) strings, i18n by Accept-Language; `new-api-2025`: the hard-coded Chinese strings and TokenAuth of late 2025; `one-api`. */
export type GatewayFlavor = 'new-api' | 'new-api-2025' | 'one-api';
export type DisplayType = 'USD' | 'CNY' | 'TOKENS' | 'CUSTOM';
export type PricingAccess = 'public' | 'disabled' | 'login';
export type TokenStatus = 'enabled' | 'disabled' | 'expired' | 'exhausted';
export type Lang = 'en' | 'zh';

/** A token's economy. Raw quota ints (500,000 = $1 at the default unit). */
export interface TokenEconomy {
  /** the token's row id (one-api names it in its "exhausted" message); index + 1 unless given */
  id?: number;
  remainQuota?: number;
  usedQuota?: number;
  /** default: true when remainQuota is not given */
  unlimited?: boolean;
  /** unix seconds, 0 = never */
  expiresAt?: number;
  status?: TokenStatus;
  /** model limits (enabled when set; [] = no model at all) */
  modelLimits?: string[] | undefined;
}

/** A model's price: per token (`ratio`, 1 = $2 per 1M input tokens) or per call (`price`, USD). */
export interface ModelPricing {
  ratio?: number;
  completionRatio?: number;
  price?: number;
  /** cache reads are billed at this share of input (unset: 1, and /api/pricing omits it: relay-receipts.md §2.1) */
  cacheRatio?: number;
  /** cache writes (Anthropic semantic) at this share (unset: 1.25, omitted from /api/pricing: §2.1) */
  createCacheRatio?: number;
  enableGroups?: string[];
  /** dynamic pricing: listed by /api/pricing, nothing can be computed from its ratios */
  billingMode?: 'tiered_expr';
}

export interface EconomyConfig {
  gateway: GatewayFlavor;
  quotaPerUnit: number;
  displayType: DisplayType;
  /** the gateway's own CNY per USD (it bills with it) */
  usdExchangeRate: number;
  /** /api/status leaves usd_exchange_rate out (a gateway that does not say its rate) */
  hideExchangeRate?: boolean | undefined;
  customCurrencySymbol: string;
  customCurrencyExchangeRate: number;
  /** DisplayTokenStatEnabled: the billing endpoints report the token's numbers (true) or the wallet's */
  displayTokenStat: boolean;
  /** the account wallet (raw quota), and what it has spent */
  userQuota: number;
  userUsedQuota: number;
  pricingAccess: PricingAccess;
  /** CriticalRateLimit on /api/usage/token/, per client IP */
  criticalRateLimit: { max: number; windowMs: number };
  groupRatio: Record<string, number>;
  /** the groups an anonymous /api/pricing caller sees */
  usableGroups: Record<string, string>;
}

export type EconToken = TokenEconomy & { value: string; name: string; group: string; disabled?: boolean | undefined };
export type EconModel = ModelPricing & { id: string; capabilities: string[]; ownedBy?: string | undefined };
export interface TokenState {
  name: string;
  remainQuota: number;
  usedQuota: number;
  unlimited: boolean;
  expiresAt: number;
  status: TokenStatus;
  modelLimits: string[] | undefined;
}

export const defaultEconomy = (): EconomyConfig => ({
  gateway: 'new-api',
  quotaPerUnit: 500_000,
  displayType: 'USD',
  usdExchangeRate: 7.3,
  customCurrencySymbol: '¤',
  customCurrencyExchangeRate: 1,
  displayTokenStat: true,
  userQuota: 500_000_000,
  userUsedQuota: 0,
  pricingAccess: 'public',
  criticalRateLimit: { max: 20, windowMs: 20 * 60_000 },
  groupRatio: { default: 1, vip: 0.8, svip: 0.6 },
  usableGroups: { default: '默认分组', vip: 'vip分组' },
});

// ---------------- tokens ----------------

/** Fills what a token left out, once (so billing an unlimited token never makes it finite). */
export function settle(tok: EconToken, index: number): void {
  if (tok.unlimited === undefined) tok.unlimited = tok.remainQuota === undefined;
  tok.remainQuota ??= 0;
  tok.usedQuota ??= 0;
  tok.expiresAt ??= 0;
  tok.id ??= index + 1;
}

export const statusOf = (tok: EconToken): TokenStatus => (tok.disabled ? 'disabled' : (tok.status ?? 'enabled'));

export const stateOf = (tok: EconToken): TokenState => ({
  name: tok.name,
  remainQuota: tok.remainQuota ?? 0,
  usedQuota: tok.usedQuota ?? 0,
  unlimited: tok.unlimited ?? true,
  expiresAt: tok.expiresAt ?? 0,
  status: statusOf(tok),
  modelLimits: tok.modelLimits ? [...tok.modelLimits] : undefined,
});

/** TokenAuth's key: the `sk-` prefix is optional, text after a further `-` names a channel. */
export const keyOf = (raw: string) => raw.replace(/^sk-/, '').split('-')[0];

export function findToken(tokens: EconToken[], raw: string | undefined): EconToken | undefined {
  if (!raw) return undefined;
  const i = tokens.findIndex((t) => keyOf(t.value) === keyOf(raw));
  if (i < 0) return undefined;
  settle(tokens[i], i);
  return tokens[i];
}

export const langOf = (acceptLanguage: unknown): Lang =>
  typeof acceptLanguage === 'string' && /^zh/i.test(acceptLanguage) ? 'zh' : 'en';

type Problem = 'missing' | 'unknown' | 'disabled' | 'expired' | 'statusExhausted' | 'exhausted';

function problemOf(raw: string | undefined, tok: EconToken | undefined, nowSec: number): Problem | undefined {
  if (!raw) return 'missing';
  if (!tok) return 'unknown';
  const status = statusOf(tok);
  if (status === 'exhausted') return 'statusExhausted';
  if (status === 'expired') return 'expired';
  if (status !== 'enabled') return 'disabled';
  if ((tok.expiresAt ?? 0) > 0 && tok.expiresAt! < nowSec) return 'expired';
  if (!tok.unlimited && (tok.remainQuota ?? 0) <= 0) return 'exhausted';
  return undefined;
}

/** Why TokenAuth answers 401 (`model/token.go ValidateUserToken`), in the flavor's words; undefined when the token passes. */
export function tokenRefusal(
  cfg: EconomyConfig,
  raw: string | undefined,
  tok: EconToken | undefined,
  nowSec: number,
  lang: Lang,
): string | undefined {
  const problem = problemOf(raw, tok, nowSec);
  if (!problem) return undefined;
  // new-api ≥ 59c582d13: one answer for every case, against token enumeration.
  if (cfg.gateway === 'new-api') return lang === 'zh' ? '无效的令牌' : 'Invalid token';
  const key = keyOf(raw ?? '');
  const masked = `sk-${key.slice(0, 3)}***${key.slice(-3)}`;
  const oneApi = cfg.gateway === 'one-api';
  switch (problem) {
    case 'missing':
      return '未提供令牌';
    case 'unknown':
      return '无效的令牌';
    case 'disabled':
      return '该令牌状态不可用';
    case 'expired':
      return '该令牌已过期';
    case 'statusExhausted':
      return oneApi
        ? `令牌 ${tok!.name}（#${tok!.id ?? 0}）额度已用尽`
        : `该令牌额度已用尽 TokenStatusExhausted[${masked}]`;
    case 'exhausted':
      return oneApi
        ? '该令牌额度已用尽'
        : `[${masked}] 该令牌额度已用尽 !token.UnlimitedQuota && token.RemainQuota = ${tok!.remainQuota ?? 0}`;
  }
}

/** TokenAuth's model limits (403); undefined when the model is allowed. */
export function modelRefusal(cfg: EconomyConfig, tok: EconToken, model: string, lang: Lang): string | undefined {
  const limits = tok.modelLimits;
  if (!limits) return undefined;
  if (cfg.gateway === 'one-api')
    return !limits.length || limits.includes(model) ? undefined : `该令牌无权使用模型：${model}`;
  const en = cfg.gateway === 'new-api' && lang === 'en';
  if (!limits.length) return en ? 'This token has no access to any models' : '该令牌无权访问任何模型';
  if (limits.includes(model)) return undefined;
  return en ? `This token has no access to model ${model}` : `该令牌无权访问模型 ${model}`;
}

/** The distributor's 503 when the token's group has no channel for the model (one-api: no code). */
export function noChannel(
  cfg: EconomyConfig,
  group: string,
  model: string,
  lang: Lang,
): { message: string; code?: string } {
  if (cfg.gateway === 'one-api') return { message: `当前分组 ${group} 下对于模型 ${model} 无可用渠道` };
  if (cfg.gateway === 'new-api' && lang === 'en')
    return {
      message: `No available channel for model ${model} under group ${group} (distributor)`,
      code: 'model_not_found',
    };
  return { message: `分组 ${group} 下模型 ${model} 无可用渠道（distributor）`, code: 'model_not_found' };
}

export const errorType = (cfg: EconomyConfig) => (cfg.gateway === 'one-api' ? 'one_api_error' : 'new_api_error');

/** A TokenAuth / distributor error body: new-api carries `code` (usually ''), one-api has none. */
export function middlewareError(cfg: EconomyConfig, message: string, code = ''): Json {
  return cfg.gateway === 'one-api'
    ? { error: { message, type: 'one_api_error' } }
    : { error: { message, type: 'new_api_error', code } };
}

// ---------------- money ----------------

/** `logger.FormatQuota`: full-width ＄ for USD, ¥, the custom symbol, or the raw integer for TOKENS. */
export function formatQuota(cfg: EconomyConfig, quota: number): string {
  const usd = quota / cfg.quotaPerUnit;
  switch (cfg.displayType) {
    case 'CNY':
      return `¥${(usd * cfg.usdExchangeRate).toFixed(6)}`;
    case 'CUSTOM':
      return `${cfg.customCurrencySymbol || '¤'}${(usd * (cfg.customCurrencyExchangeRate > 0 ? cfg.customCurrencyExchangeRate : 1)).toFixed(6)}`;
    case 'TOKENS':
      return String(Math.trunc(quota));
    default:
      return `＄${usd.toFixed(6)}`;
  }
}

/** The billing endpoints' unit: new-api by quota_display_type (CUSTOM falls back to USD), one-api by display_in_currency only. */
export function displayAmount(cfg: EconomyConfig, quota: number): number {
  if (cfg.displayType === 'TOKENS') return quota;
  if (cfg.gateway !== 'one-api' && cfg.displayType === 'CNY') return (quota / cfg.quotaPerUnit) * cfg.usdExchangeRate;
  return quota / cfg.quotaPerUnit;
}

export const groupRatioOf = (cfg: EconomyConfig, group: string) => cfg.groupRatio[group] ?? 1;

/** What the relay pre-consumes: per call price × unit × group, or max_tokens (4096 when absent) × ratio × group. */
export function estimateQuota(cfg: EconomyConfig, m: EconModel, group: string, maxTokens: number | undefined): number {
  const g = groupRatioOf(cfg, group);
  if (m.price !== undefined) return Math.round(m.price * cfg.quotaPerUnit * g);
  return Math.round((maxTokens ?? 4096) * (m.ratio ?? 0) * g);
}

/** What a successful call costs: per call, or (prompt + completion × completion ratio) × ratio × group. */
export function chargeQuota(
  cfg: EconomyConfig,
  m: EconModel,
  group: string,
  usage?: { prompt: number; completion: number },
): number {
  const g = groupRatioOf(cfg, group);
  if (m.price !== undefined) return Math.round(m.price * cfg.quotaPerUnit * g);
  if (!usage) return 0;
  return Math.round((usage.prompt + usage.completion * (m.completionRatio ?? 1)) * (m.ratio ?? 0) * g);
}

/** The relay's quota checks before a call (403). */
export function quotaRefusal(
  cfg: EconomyConfig,
  tok: EconToken,
  need: number,
): { message: string; code: string } | undefined {
  const wallet = cfg.userQuota;
  const tokenShort = !tok.unlimited && (tok.remainQuota ?? 0) < need;
  if (cfg.gateway === 'one-api') {
    if (wallet - need < 0) return { code: 'insufficient_user_quota', message: 'user quota is not enough' };
    // one-api skips the token check when the wallet holds over 100 times the estimate.
    if (wallet > 100 * need || !tokenShort) return undefined;
    return { code: 'pre_consume_token_quota_failed', message: '令牌额度不足' };
  }
  const f = (q: number) => formatQuota(cfg, q);
  const now = cfg.gateway === 'new-api';
  if (wallet <= 0)
    return {
      code: 'insufficient_user_quota',
      message: now ? `用户额度不足, 剩余额度: ${f(wallet)}` : 'user quota is not enough',
    };
  if (wallet - need < 0)
    return {
      code: 'insufficient_user_quota',
      message: now
        ? `预扣费额度失败, 用户剩余额度: ${f(wallet)}, 需要预扣费额度: ${f(need)}`
        : `chat pre-consumed quota failed, user quota: ${f(wallet)}, need quota: ${f(need)}`,
    };
  if (tokenShort)
    return {
      code: 'pre_consume_token_quota_failed',
      message: `token quota is not enough, token remain quota: ${f(tok.remainQuota ?? 0)}, need quota: ${f(need)}`,
    };
  return undefined;
}

/** Deducts a billed call from the token (remain −, used +, unlimited or not, as new-api does) and the wallet. */
export function bill(cfg: EconomyConfig, tok: EconToken, quota: number): void {
  if (quota <= 0) return;
  tok.remainQuota = (tok.remainQuota ?? 0) - quota;
  tok.usedQuota = (tok.usedQuota ?? 0) + quota;
  cfg.userQuota -= quota;
  cfg.userUsedQuota += quota;
}

// ---------------- bodies ----------------

export function subscriptionBody(cfg: EconomyConfig, tok: EconToken): Json {
  const tokenMode = cfg.displayTokenStat;
  const remain = tokenMode ? (tok.remainQuota ?? 0) : cfg.userQuota;
  // one-api bug (controller/billing.go:27-30): in wallet mode the used quota is only read when the first read fails.
  const used = tokenMode ? (tok.usedQuota ?? 0) : cfg.gateway === 'one-api' ? 0 : cfg.userUsedQuota;
  const amount = tokenMode && tok.unlimited ? 100000000 : displayAmount(cfg, remain + used);
  const accessUntil = tokenMode && (tok.expiresAt ?? 0) > 0 ? tok.expiresAt! : 0;
  return {
    object: 'billing_subscription',
    has_payment_method: true,
    soft_limit_usd: amount,
    hard_limit_usd: amount,
    system_hard_limit_usd: amount,
    access_until: accessUntil,
  };
}

export function usageBody(cfg: EconomyConfig, tok: EconToken): Json {
  const used = cfg.displayTokenStat ? (tok.usedQuota ?? 0) : cfg.userUsedQuota;
  return { object: 'list', total_usage: displayAmount(cfg, used) * 100 };
}

export function tokenUsageBody(tok: EconToken): Json {
  const remain = tok.remainQuota ?? 0;
  const used = tok.usedQuota ?? 0;
  const limits = tok.modelLimits;
  return {
    code: true,
    message: 'ok',
    data: {
      object: 'token_usage',
      name: tok.name,
      total_granted: remain + used,
      total_used: used,
      total_available: remain,
      unlimited_quota: !!tok.unlimited,
      model_limits: Object.fromEntries((limits ?? []).map((m) => [m, true])),
      model_limits_enabled: !!limits,
      expires_at: (tok.expiresAt ?? 0) > 0 ? tok.expiresAt : 0,
    },
  };
}

export function statusBody(cfg: EconomyConfig, serverAddress: string, startTime: number): Json {
  const common = {
    start_time: startTime,
    logo: '',
    footer_html: '',
    server_address: serverAddress,
    top_up_link: '',
    quota_per_unit: cfg.quotaPerUnit,
    display_in_currency: cfg.displayType !== 'TOKENS',
  };
  if (cfg.gateway === 'one-api')
    return {
      success: true,
      message: '',
      data: {
        version: 'v0.6.10',
        system_name: 'One API',
        ...common,
        chat_link: '',
        email_verification: false,
        github_oauth: false,
        wechat_login: false,
        turnstile_check: false,
      },
    };
  const nav = {
    home: true,
    console: true,
    pricing: { enabled: cfg.pricingAccess !== 'disabled', requireAuth: cfg.pricingAccess === 'login' },
    docs: true,
    about: true,
  };
  return {
    success: true,
    message: '',
    data: {
      version: cfg.gateway === 'new-api' ? 'v0.10.6' : 'v0.9.9',
      system_name: 'New API',
      ...common,
      docs_link: '',
      quota_display_type: cfg.displayType,
      custom_currency_symbol: cfg.customCurrencySymbol,
      custom_currency_exchange_rate: cfg.customCurrencyExchangeRate,
      ...(cfg.hideExchangeRate ? {} : { usd_exchange_rate: cfg.usdExchangeRate, price: cfg.usdExchangeRate }),
      chats: [],
      demo_site_enabled: false,
      self_use_mode_enabled: false,
      default_use_auto_group: false,
      setup: true,
      checkin_enabled: false,
      HeaderNavModules: JSON.stringify(nav),
    },
  };
}

const ENDPOINT_OF: Record<string, string> = {
  chat: 'openai',
  native: 'anthropic',
  gemini: 'gemini',
  image: 'image-generation',
  'image-edit': 'image-generation',
  video: 'openai-video',
};
const ENDPOINT_PATH: Record<string, string> = {
  openai: '/v1/chat/completions',
  anthropic: '/v1/messages',
  'image-generation': '/v1/images/generations',
  'openai-video': '/v1/videos',
  'openai-response': '/v1/responses',
  gemini: '/v1beta/models/{model}:generateContent',
};
const VENDORS: Record<string, { name: string; icon: string }> = {
  openai: { name: 'OpenAI', icon: 'OpenAI' },
  anthropic: { name: 'Anthropic', icon: 'Claude.Color' },
  deepseek: { name: 'DeepSeek', icon: 'DeepSeek.Color' },
  qwen: { name: 'Qwen', icon: 'Qwen.Color' },
};

/** The model's `supported_endpoint_types` (as /v1/models lists them in the real profile). */
export const endpointTypesOf = (m: EconModel) =>
  // new-api derives `openai-response` from these names only (common/endpoint_type.go); responses-only gpt-5/codex
  // models on OpenAI channels are listed as plain `openai`.
  /o3-pro|o3-deep-research|o4-mini-deep-research/.test(m.id)
    ? ['openai-response']
    : [...new Set(m.capabilities.map((cap) => ENDPOINT_OF[cap] ?? 'openai'))];

/** `GET /api/pricing` for an anonymous caller. Since 2026-04 (flavor new-api) only models usable by the default usable groups are listed. */
export function pricingBody(cfg: EconomyConfig, models: EconModel[]): Json {
  const usable = cfg.usableGroups;
  const listed = models
    .filter((m) => m.ratio !== undefined || m.price !== undefined || m.billingMode)
    .filter((m) => cfg.gateway !== 'new-api' || (m.enableGroups ?? []).some((g) => g === 'all' || g in usable));
  const vendorIds = [...new Set(listed.map((m) => m.ownedBy ?? '').filter((o) => VENDORS[o]))];
  const data = listed.map((m) => {
    const perCall = m.price !== undefined;
    const vendor = vendorIds.indexOf(m.ownedBy ?? '');
    return {
      model_name: m.id,
      quota_type: perCall ? 1 : 0,
      model_ratio: perCall ? 0 : (m.ratio ?? 0),
      model_price: m.price ?? 0,
      owner_by: '',
      completion_ratio: perCall ? 0 : (m.completionRatio ?? 1),
      // omitempty (gateway-economy.md §3)
      ...(m.cacheRatio !== undefined ? { cache_ratio: m.cacheRatio } : {}),
      ...(m.createCacheRatio !== undefined ? { create_cache_ratio: m.createCacheRatio } : {}),
      enable_groups: m.enableGroups ?? [],
      supported_endpoint_types: endpointTypesOf(m),
      ...(vendor >= 0 ? { vendor_id: vendor + 1 } : {}),
      ...(m.billingMode
        ? { billing_mode: m.billingMode, billing_expr: 'tier(input_tokens <= 32000 ? 1 : 2) * model_ratio' }
        : {}),
    };
  });
  const endpoints = [...new Set(data.flatMap((d) => d.supported_endpoint_types))];
  return {
    success: true,
    data,
    group_ratio: Object.fromEntries(Object.entries(cfg.groupRatio).filter(([g]) => g in usable)),
    usable_group: usable,
    vendors: vendorIds.map((o, i) => ({ id: i + 1, name: VENDORS[o].name, icon: VENDORS[o].icon })),
    supported_endpoint: Object.fromEntries(
      endpoints.map((e) => [e, { path: ENDPOINT_PATH[e] ?? '/v1/chat/completions', method: 'POST' }]),
    ),
    auto_groups: ['default'],
    pricing_version: createHash('md5').update(JSON.stringify(data)).digest('hex'),
  };
}

// ---------------- routes ----------------

export interface EconRequest {
  method: string;
  path: string;
  search: string;
  authorization?: string | undefined;
  acceptLanguage?: string | undefined;
  ip: string;
  nowMs: number;
  requestId: string;
  serverAddress: string;
  startTime: number;
}
export interface EconWorld {
  cfg: EconomyConfig;
  tokens: EconToken[];
  models: EconModel[];
  critical: Map<string, number[]>;
}
/** An answer: JSON, an empty body, or gin's redirect page (which carries no request id header). */
export interface EconAnswer {
  status: number;
  json?: unknown;
  html?: string;
  location?: string;
  noRequestId?: boolean;
  key?: string | undefined;
  token?: EconToken | undefined;
}

function routesOf(cfg: EconomyConfig): string[] {
  const billing = [
    '/v1/dashboard/billing/subscription',
    '/v1/dashboard/billing/usage',
    '/dashboard/billing/subscription',
    '/dashboard/billing/usage',
  ];
  return cfg.gateway === 'one-api'
    ? ['/api/status', ...billing]
    : ['/api/status', '/api/usage/token/', '/api/pricing', ...billing];
}

/** One sliding window of the rate limiter: whether this hit is admitted, and the hits to keep. */
export function admit(
  hits: number[],
  nowMs: number,
  limit: { max: number; windowMs: number },
): { ok: boolean; hits: number[] } {
  const kept = hits.filter((t) => nowMs - t < limit.windowMs);
  if (kept.length >= limit.max) return { ok: false, hits: kept };
  return { ok: true, hits: [...kept, nowMs] };
}

const notFound = (req: EconRequest): EconAnswer => ({
  status: 404,
  json: {
    error: { message: `Invalid URL (${req.method} ${req.path})`, type: 'invalid_request_error', param: '', code: '' },
  },
});

/** TokenAuth's key: after `Bearer ` (new-api also `bearer `). */
function rawKey(cfg: EconomyConfig, authorization: string | undefined): string | undefined {
  if (!authorization) return undefined;
  const scheme = cfg.gateway === 'one-api' ? /^Bearer / : /^[Bb]earer /;
  return authorization.replace(scheme, '').trim() || undefined;
}

/** The answer to an economy route of the real profile, or undefined when the path is not one (the relay's routes go on). */
export function economyAnswer(req: EconRequest, world: EconWorld): EconAnswer | undefined {
  const { cfg } = world;
  const routes = routesOf(cfg);
  if (req.method === 'GET' && !routes.includes(req.path)) {
    const other = req.path.endsWith('/') ? req.path.slice(0, -1) : `${req.path}/`;
    if (routes.includes(other))
      return {
        status: 301,
        location: `${other}${req.search}`,
        html: `<a href="${other}${req.search}">Moved Permanently</a>.\n\n`,
        noRequestId: true,
      };
  }
  // Unknown /api routes are RelayNotFound; unknown /v1 routes are the relay's own 404, others the console page.
  if (req.method !== 'GET' || !routes.includes(req.path))
    return req.path.startsWith('/api/') ? notFound(req) : undefined;
  if (req.path === '/api/status') return { status: 200, json: statusBody(cfg, req.serverAddress, req.startTime) };
  if (req.path === '/api/pricing') return pricingAnswer(req, cfg, world.models);
  if (req.path === '/api/usage/token/') {
    const slot = admit(world.critical.get(req.ip) ?? [], req.nowMs, cfg.criticalRateLimit);
    world.critical.set(req.ip, slot.hits);
    if (!slot.ok) return { status: 429 };
  }
  const lang = langOf(req.acceptLanguage);
  const key = rawKey(cfg, req.authorization);
  const tok = findToken(world.tokens, key);
  if (req.path === '/api/usage/token/' && cfg.gateway === 'new-api') {
    // TokenAuthReadOnly (2026-02): expired, exhausted and disabled tokens still read their usage.
    if (!key)
      return { status: 401, json: { success: false, message: lang === 'zh' ? '未提供令牌' : 'Token not provided' } };
    if (!tok)
      return { status: 401, json: { success: false, message: lang === 'zh' ? '无效的令牌' : 'Invalid token' }, key };
  } else {
    const refusal = tokenRefusal(cfg, key, tok, Math.floor(req.nowMs / 1000), lang);
    if (refusal)
      return { status: 401, json: middlewareError(cfg, `${refusal} (request id: ${req.requestId})`), key, token: tok };
  }
  if (req.path === '/api/usage/token/') {
    const parts = (req.authorization ?? '').split(' ');
    if (parts.length !== 2 || parts[0].toLowerCase() !== 'bearer')
      return { status: 401, json: { success: false, message: 'Invalid Bearer token' }, key, token: tok };
    return { status: 200, json: tokenUsageBody(tok!), key, token: tok };
  }
  return {
    status: 200,
    json: req.path.endsWith('subscription') ? subscriptionBody(cfg, tok!) : usageBody(cfg, tok!),
    key,
    token: tok,
  };
}

function pricingAnswer(req: EconRequest, cfg: EconomyConfig, models: EconModel[]): EconAnswer {
  // HeaderNavModuleAuth("pricing") since 2026-05; before that TryUserAuth (always anonymous for an sk- key).
  if (cfg.gateway === 'new-api' && cfg.pricingAccess === 'disabled')
    return { status: 403, json: { success: false, message: 'pricing is disabled' } };
  if (cfg.gateway === 'new-api' && cfg.pricingAccess === 'login') {
    // UserAuth: no session; an Authorization header is taken as a dashboard access token, which an sk- key is not.
    if (!req.authorization)
      return { status: 401, json: { success: false, message: '无权进行此操作，未登录且未提供 access token' } };
    return { status: 200, json: { success: false, message: '无权进行此操作，access token 无效' } };
  }
  return { status: 200, json: pricingBody(cfg, models) };
}
