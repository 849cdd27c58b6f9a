/**
 * The gateway's own usage log as new-api keeps it and lets a token read it (`GET /api/log/token`,
 * shared/reference/gateway-economy.md §6): one record per relayed request (type 2 "consume" for a billed
 * success, type 5 "error" when the gateway logs errors), visible after a delay.
 * Auth, per vintage of the route:
 * - `bearer` (≥ 2026-02, TokenAuthReadOnly + CriticalRateLimit): `Authorization: Bearer sk-…`; a request
 *   without the header is TokenAuth's 401 `{"success":false,"message":"Token not provided"}`;
 * - `query` (before): `?key=sk-…` looked up by a join, so an unknown or missing key (a Bearer header alone)
 *   is `{"success":true,"data":[]}`, and no critical rate limit;
 * - `query-refusing` (also before): `?key=sk-…` too, but GetLogByKey finds no token id for an unknown or
 *   missing key and answers `{"success":false,"message":"无效的令牌"}` (controller/log.go, `tokenId == 0`),
 *   so a Bearer header alone is refused rather than read as an empty log;
 * - one-api has no such route (RelayNotFound's 404, answered by economy.ts).
 * The record, per vintage of new-api (shared/reference/relay-receipts.md §1, labels of its table): `NA26`
 * (2026-06: `request_id`, `upstream_request_id`, `user_group_ratio`, `request_path`, `usage_semantic`; newest
 * first, at most 1000, ids renumbered), `NA25` (2025-04: `group`, cache fields, `claude`, model-mapping fields;
 * no request id; every row, unordered, `id % 1024`), `NA24` (2024-09: ratios and `frt` only, no `group`,
 * `admin_info` visible; every row, unordered). Each charges by its own formula (§2.2, §2.3).
 * Pure functions over the records: server.ts keeps them and writes the answers.
 */
import { admit, findToken, langOf, statusOf, type EconAnswer, type EconToken, type EconomyConfig } from './economy';

type Json = Record<string, unknown>;

/** new-api's usage-log record, by the reference's labels (relay-receipts.md, table at the top): 2026-06, 2025-04, 2024-09. */
export type LogVintage = 'NA26' | 'NA25' | 'NA24';

export interface UsageLogConfig {
  /** ms after the response finished before its record is visible (new-api writes it asynchronously) */
  delayMs: number;
  /** which style of auth the route answers: defaults by flavor (new-api: bearer, new-api-2025: query) */
  auth?: 'bearer' | 'query' | 'query-refusing' | undefined;
  /**
   * the record's shape and charge formula: defaults by flavor (new-api: NA26, new-api-2025: NA25). Only
   * NA26 records carry `request_id` (since 2026-02-04, relay-receipts.md §1.1).
   */
  vintage?: LogVintage | undefined;
  /** ErrorLogEnabled: failed relays leave a type-5 record */
  errorLog: boolean;
}

export const defaultUsageLog = (): UsageLogConfig => ({ delayMs: 1500, errorLog: true });

export const vintageOf = (cfg: EconomyConfig, log: UsageLogConfig): LogVintage =>
  log.vintage ?? (cfg.gateway === 'new-api' ? 'NA26' : 'NA25');

/** A record as the simulator keeps it (the wire fields, plus when it becomes visible and whose it is). */
export interface GatewayLogEntry {
  visibleAt: number;
  tokenValue: string;
  created_at: number;
  type: 2 | 5;
  content: string;
  model_name: string;
  quota: number;
  prompt_tokens: number;
  completion_tokens: number;
  use_time: number;
  is_stream: boolean;
  token_name: string;
  /** since 2024-12-24 (absent from NA24 records) */
  group?: string;
  /** since 2026-02-04 (NA26 only); `omitempty` */
  request_id?: string;
  /** the upstream relay's X-Oneapi-Request-Id when the channel is another one-api/new-api (since 2026-05-12, §4) */
  upstream_request_id?: string;
  /** a JSON string (§1.3) */
  other: string;
}

export const MAX_RECENT_ITEMS = 1000;
/** what the simulator keeps in all (a bound on its memory: more than the route ever answers) */
const KEEP = 5000;

/**
 * What the gateway billed for a relayed call, as its accounting worked it out (server.ts `account`): the
 * tokens as the record stores them (P, K, C cache reads, W cache writes, by the usage semantic, §2.2), the
 * ratios it writes in `other` and the quota it charged (which a dishonest gateway may compute with other ratios).
 */
export interface GatewayBill {
  quota: number;
  prompt: number;
  completion: number;
  cacheRead: number;
  cacheWrite: number;
  /** `anthropic`: P excludes cache reads and writes (a /v1/messages call; §2.2, §2.6 R4) */
  semantic: 'openai' | 'anthropic';
  modelRatio: number;
  completionRatio: number;
  groupRatio: number;
  cacheRatio: number;
  cacheCreationRatio: number;
  /** per call, USD; -1 for a per-token model (`GetModelPrice`, §1.3) */
  modelPrice: number;
  /** the channel's model mapping fired and new-api recorded it (§3) */
  upstreamModel?: string | undefined;
  /** the channel is another one-api/new-api relay: its request id (§4) */
  upstreamRequestId?: string | undefined;
  /** the channel's system prompt was prepended to the client's own (§1.3, since 2025-08-09) */
  systemPromptOverwritten?: boolean | undefined;
}

/** The ratios and tokens a charge is computed from (the record's, or the ones a dishonest gateway used). */
export type ChargeTerms = Pick<
  GatewayBill,
  | 'prompt'
  | 'completion'
  | 'cacheRead'
  | 'cacheWrite'
  | 'semantic'
  | 'modelRatio'
  | 'completionRatio'
  | 'groupRatio'
  | 'cacheRatio'
  | 'cacheCreationRatio'
  | 'modelPrice'
>;

/** The quota each vintage charges (relay-receipts.md §2.2 NA26, §2.3 NA25 and NA24). */
export function quotaOf(vintage: LogVintage, b: ChargeTerms, quotaPerUnit: number): number {
  const { prompt: P, completion: K, cacheRead: C, cacheWrite: W } = b;
  const g = b.groupRatio;
  if (b.modelPrice >= 0) {
    const perCall = b.modelPrice * quotaPerUnit * g;
    // NA24: int(model_price·QPU·gr), truncated; later: rounded.
    return vintage === 'NA24' ? Math.trunc(perCall) : Math.round(perCall);
  }
  if (vintage === 'NA24') return Math.round((P + Math.round(K * b.completionRatio)) * b.modelRatio * g);
  const anthropic = b.semantic === 'anthropic';
  // The OpenAI semantic's P includes the cached tokens, the Anthropic one's does not.
  const fresh = anthropic ? P : P - C - W;
  const exact = (fresh + C * b.cacheRatio + W * b.cacheCreationRatio + K * b.completionRatio) * b.modelRatio * g;
  // NA25's Claude path truncates (service/quota.go); its text path and NA26 round.
  if (vintage === 'NA25') return anthropic ? Math.trunc(exact) : Math.round(exact);
  if (P + K === 0) return 0;
  const q = Math.round(exact);
  return b.modelRatio * g !== 0 && q <= 0 ? 1 : q;
}

export interface RelayOutcome {
  tok: EconToken;
  model: string;
  status: number;
  requestId: string;
  startedMs: number;
  endMs: number;
  firstByteMs: number | undefined;
  stream: boolean;
  path: string;
  billed: GatewayBill | undefined;
  errorMessage?: string | undefined;
}

/** `other`, as each vintage writes it (relay-receipts.md §1.3). */
function otherOf(vintage: LogVintage, o: RelayOutcome, b: GatewayBill | undefined): Json {
  const other: Json = {};
  if (b) {
    Object.assign(other, {
      model_ratio: b.modelRatio,
      completion_ratio: b.completionRatio,
      group_ratio: b.groupRatio,
      model_price: b.modelPrice,
    });
  }
  if (o.firstByteMs !== undefined) other.frt = o.firstByteMs - o.startedMs;
  // ≤ 2024-12-27 the token's view showed the channels tried (§1.2).
  if (vintage === 'NA24') return b ? { ...other, admin_info: { use_channel: ['1'] } } : other;
  if (b) {
    other.cache_tokens = b.cacheRead;
    other.cache_ratio = b.cacheRatio;
    if (b.semantic === 'anthropic') {
      if (vintage === 'NA26') other.usage_semantic = 'anthropic';
      else other.claude = true;
      other.cache_creation_tokens = b.cacheWrite;
      other.cache_creation_ratio = b.cacheCreationRatio;
    }
    if (b.upstreamModel !== undefined)
      Object.assign(other, { is_model_mapped: true, upstream_model_name: b.upstreamModel });
  }
  if (vintage === 'NA25') return other;
  if (b) other.user_group_ratio = -1;
  if (b?.systemPromptOverwritten) other.is_system_prompt_overwritten = true;
  other.request_path = o.path;
  return other;
}

/** The record new-api writes for a relayed request, or undefined when it writes none. */
export function entryOf(cfg: UsageLogConfig, vintage: LogVintage, o: RelayOutcome): GatewayLogEntry | undefined {
  const ok = o.status >= 200 && o.status < 300 && o.billed;
  if (!ok && !(o.status >= 400 && cfg.errorLog)) return undefined;
  const b = ok ? o.billed! : undefined;
  const other = otherOf(vintage, o, b);
  if (!ok) other.status_code = o.status;
  return {
    visibleAt: o.endMs + cfg.delayMs,
    tokenValue: o.tok.value,
    created_at: Math.floor(o.endMs / 1000),
    type: ok ? 2 : 5,
    content: ok ? '' : (o.errorMessage ?? `status ${o.status}`),
    model_name: o.model,
    quota: b?.quota ?? 0,
    prompt_tokens: b?.prompt ?? 0,
    completion_tokens: b?.completion ?? 0,
    use_time: Math.max(0, Math.round((o.endMs - o.startedMs) / 1000)),
    is_stream: o.stream,
    token_name: o.tok.name,
    ...(vintage === 'NA24' ? {} : { group: o.tok.group }),
    ...(vintage === 'NA26' ? { request_id: o.requestId } : {}),
    ...(vintage === 'NA26' && b?.upstreamRequestId ? { upstream_request_id: b.upstreamRequestId } : {}),
    other: JSON.stringify(other),
  };
}

/** Appends, keeping the newest KEEP. */
export function append(entries: GatewayLogEntry[], e: GatewayLogEntry): void {
  entries.push(e);
  if (entries.length > KEEP) entries.splice(0, entries.length - KEEP);
}

/**
 * `{"success":true,"data":[…]}`: the token's visible records. NA26: newest first, at most 1000, `id`
 * renumbered 1..N; older vintages: every row in the table's order (oldest first here: no ORDER BY, no
 * LIMIT), NA25 with `id % 1024`, NA24 with the row id (§1.2).
 */
export function logBody(
  vintage: LogVintage,
  entries: GatewayLogEntry[],
  tokenValue: string | undefined,
  nowMs: number,
): Json {
  const mine: Array<{ e: GatewayLogEntry; rowId: number }> = [];
  entries.forEach((e, i) => {
    if (e.tokenValue === tokenValue && e.visibleAt <= nowMs) mine.push({ e, rowId: i + 1 });
  });
  const rows = vintage === 'NA26' ? mine.reverse().slice(0, MAX_RECENT_ITEMS) : mine;
  const data = rows.map(({ e, rowId }, i) => {
    const { visibleAt: _v, tokenValue: _t, ...wire } = e;
    const id = vintage === 'NA26' ? i + 1 : vintage === 'NA25' ? rowId % 1024 : rowId;
    return { id, user_id: 1, username: '', channel: 0, ...wire };
  });
  return { success: true, message: '', data };
}

export interface LogRequest {
  authorization?: string | undefined;
  /** `?key=` in the query (the older vintage's style) */
  queryKey?: string | undefined;
  acceptLanguage?: string | undefined;
  ip: string;
  nowMs: number;
}
export interface LogWorld {
  cfg: EconomyConfig;
  tokens: EconToken[];
  /** the critical rate limit's hits per IP, shared with /api/usage/token/ */
  critical: Map<string, number[]>;
  log: UsageLogConfig;
  entries: GatewayLogEntry[];
}

/** `GET /api/log/token` of a new-api flavor, per vintage (one-api's 404 is economy.ts's). */
export function logAnswer(req: LogRequest, world: LogWorld): EconAnswer {
  const { cfg, log } = world;
  const vintage = log.auth ?? (cfg.gateway === 'new-api' ? 'bearer' : 'query');
  if (vintage === 'query') {
    // GetLogByKey(c.Query("key")): a join on the key, so a missing or unknown key reads an empty list.
    const tok = findToken(world.tokens, req.queryKey);
    return {
      status: 200,
      json: logBody(vintageOf(cfg, log), world.entries, tok?.value, req.nowMs),
      key: req.queryKey,
      token: tok,
    };
  }
  if (vintage === 'query-refusing') {
    // The token id found by the key in the query; none (no key, or an unknown one) is refused in a 200.
    const tok = findToken(world.tokens, req.queryKey);
    if (!tok) return { status: 200, json: { success: false, message: '无效的令牌' }, key: req.queryKey };
    return {
      status: 200,
      json: logBody(vintageOf(cfg, log), world.entries, tok.value, req.nowMs),
      key: req.queryKey,
      token: tok,
    };
  }
  const slot = admit(world.critical.get(req.ip) ?? [], req.nowMs, cfg.criticalRateLimit);
  world.critical.set(req.ip, slot.hits);
  if (!slot.ok) return { status: 429 };
  const zh = langOf(req.acceptLanguage) === 'zh';
  const key = req.authorization?.replace(/^[Bb]earer /, '').trim() || undefined;
  if (!key) return { status: 401, json: { success: false, message: zh ? '未提供令牌' : 'Token not provided' } };
  const tok = findToken(world.tokens, key);
  // TokenAuthReadOnly: expired and exhausted tokens still read their log; disabled ones do not.
  if (!tok || statusOf(tok) === 'disabled')
    return { status: 401, json: { success: false, message: zh ? '无效的令牌' : 'Invalid token' }, key };
  return { status: 200, json: logBody(vintageOf(cfg, log), world.entries, tok.value, req.nowMs), key, token: tok };
}
