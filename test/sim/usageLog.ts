/**
 * The gateway's own usage log as new-api keeps it and lets a token read it (`GET /api/log/token`,
 * shared/reference/gateway-economy.md §6): one record per relayed request (type 2 "consume" for a billed
 * success, type 5 "error" when the gateway logs errors), visible after a delay, newest first, at most 1000.
 * Vintages, from new-api's source:
 * - `bearer` (≥ 2026-02, TokenAuthReadOnly + CriticalRateLimit): `Authorization: Bearer sk-…`; a request
 *   without the header is TokenAuth's 401 `{"success":false,"message":"Token not provided"}`;
 * - `query` (before): `?key=sk-…` looked up by a join, so an unknown or missing key (a Bearer header alone)
 *   is `{"success":true,"data":[]}`, and no critical rate limit;
 * - `query-refusing` (also before): `?key=sk-…` too, but GetLogByKey finds no token id for an unknown or
 *   missing key and answers `{"success":false,"message":"无效的令牌"}` (controller/log.go, `tokenId == 0`),
 *   so a Bearer header alone is refused rather than read as an empty log;
 * - one-api has no such route (RelayNotFound's 404, answered by economy.ts).
 * Pure functions over the records: server.ts keeps them and writes the answers.
 */
import { admit, findToken, langOf, statusOf, type EconAnswer, type EconToken, type EconomyConfig } from './economy';

type Json = Record<string, unknown>;

export interface UsageLogConfig {
  /** ms after the response finished before its record is visible (new-api writes it asynchronously) */
  delayMs: number;
  /** which style of auth the route answers: defaults by flavor (new-api: bearer, new-api-2025: query) */
  auth?: 'bearer' | 'query' | 'query-refusing' | undefined;
  /** records carry `request_id` (servers older than early 2026 do not) */
  requestIds: boolean;
  /** ErrorLogEnabled: failed relays leave a type-5 record */
  errorLog: boolean;
}

export const defaultUsageLog = (): UsageLogConfig => ({ delayMs: 1500, requestIds: true, errorLog: true });

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
  group: string;
  request_id: string;
  other: string;
}

export const MAX_RECENT_ITEMS = 1000;
/** what the simulator keeps in all (a bound on its memory: more than the route ever answers) */
const KEEP = 5000;

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
  billed:
    | {
        quota: number;
        prompt: number;
        completion: number;
        modelRatio: number;
        completionRatio: number;
        groupRatio: number;
      }
    | undefined;
  errorMessage?: string | undefined;
}

/** The record new-api writes for a relayed request, or undefined when it writes none. */
export function entryOf(cfg: UsageLogConfig, o: RelayOutcome): GatewayLogEntry | undefined {
  const ok = o.status >= 200 && o.status < 300 && o.billed;
  if (!ok && !(o.status >= 400 && cfg.errorLog)) return undefined;
  const b = ok ? o.billed! : undefined;
  const other: Json = {
    ...(b ? { model_ratio: b.modelRatio, completion_ratio: b.completionRatio, group_ratio: b.groupRatio } : {}),
    ...(o.firstByteMs !== undefined ? { frt: o.firstByteMs - o.startedMs } : {}),
    request_path: o.path,
    ...(ok ? {} : { status_code: o.status }),
  };
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
    group: o.tok.group,
    request_id: cfg.requestIds ? o.requestId : '',
    other: JSON.stringify(other),
  };
}

/** Appends, keeping the newest KEEP. */
export function append(entries: GatewayLogEntry[], e: GatewayLogEntry): void {
  entries.push(e);
  if (entries.length > KEEP) entries.splice(0, entries.length - KEEP);
}

/** `{"success":true,"data":[…]}`: the token's visible records, newest first, at most 1000, `id` renumbered. */
export function logBody(
  cfg: UsageLogConfig,
  entries: GatewayLogEntry[],
  tokenValue: string | undefined,
  nowMs: number,
): Json {
  const mine = entries.filter((e) => e.tokenValue === tokenValue && e.visibleAt <= nowMs).reverse();
  const data = mine.slice(0, MAX_RECENT_ITEMS).map((e, i) => {
    const { visibleAt: _v, tokenValue: _t, request_id, ...wire } = e;
    return { id: i + 1, user_id: 1, username: '', channel: 0, ...wire, ...(cfg.requestIds ? { request_id } : {}) };
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
    return { status: 200, json: logBody(log, world.entries, tok?.value, req.nowMs), key: req.queryKey, token: tok };
  }
  if (vintage === 'query-refusing') {
    // The token id found by the key in the query; none (no key, or an unknown one) is refused in a 200.
    const tok = findToken(world.tokens, req.queryKey);
    if (!tok) return { status: 200, json: { success: false, message: '无效的令牌' }, key: req.queryKey };
    return { status: 200, json: logBody(log, world.entries, tok.value, req.nowMs), key: req.queryKey, token: tok };
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
  return { status: 200, json: logBody(log, world.entries, tok.value, req.nowMs), key, token: tok };
}
