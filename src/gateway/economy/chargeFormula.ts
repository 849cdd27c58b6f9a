/**
 * A usage-log record's charge recomputed from its own recorded ratios and tokens, by the formula of the
 * gateway's vintage (shared/reference/relay-receipts.md §2.2, §2.3), which the record itself tells (§1.4):
 * - per call (`model_price` ≥ 0): `model_price · quota_per_unit · group_ratio` (rounded; truncated before 2025);
 * - OpenAI semantic, a record with cache fields (≥ 2025-03-08): `((P − C − W − I) + C·cache_ratio +
 *   W·cache_creation_ratio + I·image_ratio + K·completion_ratio) · model_ratio · group_ratio`, rounded;
 * - Anthropic semantic (`usage_semantic: "anthropic"`, before 2026-01-15 `claude: true`): `(P + C·cache_ratio
 *   + W·cache_creation_ratio (5 m / 1 h split) + K·completion_ratio) · model_ratio · group_ratio`;
 * - older records (no cache fields): `(P + K·completion_ratio) · model_ratio · group_ratio`, NA24 rounding
 *   `K·completion_ratio` first: the nearer of the two is taken.
 * Within ±1 quota for rounding (new-api rounds a decimal; NA25's Claude path truncates). Not recomputable:
 * dynamic (tiered) prices, surcharges this client does not recompute (web search, file search, audio…),
 * a record without its ratios, a per-call charge without the gateway's quota per unit.
 */
import type { UsageRecord } from './usageTypes';

/** ±1 quota: rounding (§2.2) */
export const CHARGE_TOLERANCE = 1;

export type ChargeFormula = 'per-call' | 'openai' | 'anthropic' | 'before-cache';
export type UsageSemantic = 'openai' | 'anthropic';

/** The ratios a record says were applied (`other`, §1.3); undefined where it does not say. */
export interface RecordRatios {
  model: number | undefined;
  completion: number | undefined;
  /** the effective group ratio */
  group: number | undefined;
  cache: number | undefined;
  cacheCreation: number | undefined;
  /** per call, USD; -1 (or absent) for a per-token model */
  modelPrice: number | undefined;
  /** a special user-group ratio; -1 (or absent) for none */
  userGroup: number | undefined;
}

/** The tokens a record bills, in its usage semantic (§2.2). */
export interface RecordTokens {
  semantic: UsageSemantic;
  /** P: input (OpenAI semantic: including cached tokens; Anthropic: excluding them) */
  prompt: number;
  /** K */
  completion: number;
  /** C: cache reads */
  cacheRead: number;
  /** W: cache writes */
  cacheWrite: number;
}

const num = (o: Record<string, unknown> | undefined, key: string): number | undefined => {
  const v = o?.[key];
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
};

export function ratiosOf(r: UsageRecord): RecordRatios {
  const o = r.other;
  return {
    model: num(o, 'model_ratio'),
    completion: num(o, 'completion_ratio'),
    group: num(o, 'group_ratio'),
    cache: num(o, 'cache_ratio'),
    cacheCreation: num(o, 'cache_creation_ratio'),
    modelPrice: num(o, 'model_price'),
    userGroup: num(o, 'user_group_ratio'),
  };
}

export const semanticOf = (r: UsageRecord): UsageSemantic =>
  r.other?.usage_semantic === 'anthropic' || r.other?.claude === true ? 'anthropic' : 'openai';

export function tokensOf(r: UsageRecord): RecordTokens {
  return {
    semantic: semanticOf(r),
    prompt: r.promptTokens,
    completion: r.completionTokens,
    cacheRead: num(r.other, 'cache_tokens') ?? 0,
    cacheWrite: num(r.other, 'cache_creation_tokens') ?? 0,
  };
}

/** The record bills per call (`model_price` ≥ 0). */
export const perCall = (r: UsageRecord): boolean => (num(r.other, 'model_price') ?? -1) >= 0;

/** `other` keys of terms this client does not recompute (§1.3, §2.2 surcharges). */
const SURCHARGES = [
  'web_search',
  'file_search',
  'image_generation_call',
  'audio',
  'ws',
  'audio_input_seperate_price',
] as const;

export type Recomputed =
  | { state: 'recomputed'; formula: ChargeFormula; expected: number }
  | {
      state: 'not-recomputable';
      reason: 'dynamic' | 'no-ratios' | 'surcharges' | 'no-units';
      /** the surcharges found */
      detail?: string | undefined;
    };

/** Round half away from zero (Go's decimal `Round(0)`). */
const round = (x: number) => Math.sign(x) * Math.round(Math.abs(x));

function perToken(r: UsageRecord, ratios: RecordRatios, t: RecordTokens): Recomputed {
  const { model: mr, completion: cr, group: gr } = ratios;
  if (mr === undefined || cr === undefined || gr === undefined)
    return { state: 'not-recomputable', reason: 'no-ratios' };
  const o = r.other;
  const cacheKnown = o !== undefined && 'cache_tokens' in o;
  if (!cacheKnown && t.semantic === 'openai') {
    const plain = round((t.prompt + t.completion * cr) * mr * gr);
    const na24 = round((t.prompt + round(t.completion * cr)) * mr * gr);
    const expected = Math.abs(na24 - r.quota) < Math.abs(plain - r.quota) ? na24 : plain;
    return { state: 'recomputed', formula: 'before-cache', expected };
  }
  const cache = t.cacheRead * (ratios.cache ?? 1);
  const w5 = num(o, 'cache_creation_tokens_5m') ?? 0;
  const w1h = num(o, 'cache_creation_tokens_1h') ?? 0;
  const ccr = ratios.cacheCreation ?? 1.25;
  const writes =
    (t.cacheWrite - w5 - w1h) * ccr +
    w5 * (num(o, 'cache_creation_ratio_5m') ?? ccr) +
    w1h * (num(o, 'cache_creation_ratio_1h') ?? ccr);
  const anthropic = t.semantic === 'anthropic';
  const images = o?.image === true ? (num(o, 'image_output') ?? 0) : 0;
  const fresh = anthropic ? t.prompt : t.prompt - t.cacheRead - t.cacheWrite - images;
  const exact = (fresh + cache + writes + images * (num(o, 'image_ratio') ?? 1) + t.completion * cr) * mr * gr;
  // No tokens billed, nothing charged (§2.2, NA26: its Anthropic records say `usage_semantic`; older ones `claude`).
  const na26Rule = !anthropic || o?.usage_semantic === 'anthropic';
  if (t.prompt + t.completion === 0 && na26Rule)
    return { state: 'recomputed', formula: anthropic ? 'anthropic' : 'openai', expected: 0 };
  const q = round(exact);
  const expected = mr * gr !== 0 && q <= 0 ? 1 : q;
  return { state: 'recomputed', formula: anthropic ? 'anthropic' : 'openai', expected };
}

/** The record's quota recomputed by its vintage's formula, or why it cannot be (its ratios and tokens: when already read). */
export function recompute(
  r: UsageRecord,
  quotaPerUnit: number | undefined,
  ratios: RecordRatios = ratiosOf(r),
  tokens: RecordTokens = tokensOf(r),
): Recomputed {
  const o = r.other;
  if (o?.billing_mode === 'tiered_expr') return { state: 'not-recomputable', reason: 'dynamic' };
  const found = SURCHARGES.filter((k) => o?.[k] !== undefined && o[k] !== false && o[k] !== 0);
  if (found.length) return { state: 'not-recomputable', reason: 'surcharges', detail: found.join(', ') };
  if (!perCall(r)) return perToken(r, ratios, tokens);
  if (ratios.group === undefined) return { state: 'not-recomputable', reason: 'no-ratios' };
  if (quotaPerUnit === undefined) return { state: 'not-recomputable', reason: 'no-units' };
  return {
    state: 'recomputed',
    formula: 'per-call',
    expected: round(ratios.modelPrice! * quotaPerUnit * ratios.group),
  };
}

/** The formula, as notation (shown with the check's inputs). */
export const FORMULA_TEXT: Record<ChargeFormula, string> = {
  'per-call': 'model_price × quota_per_unit × group_ratio',
  openai:
    '((P − C − W) + C × cache_ratio + W × cache_creation_ratio + K × completion_ratio) × model_ratio × group_ratio',
  anthropic: '(P + C × cache_ratio + W × cache_creation_ratio + K × completion_ratio) × model_ratio × group_ratio',
  'before-cache': '(P + K × completion_ratio) × model_ratio × group_ratio',
};

/**
 * The input tokens the response reported for what the record bills (§2.6 R4): an OpenAI-format or
 * Responses answer of an Anthropic-semantic record says `P + C + W`; the record stores P.
 */
export const reportedPrompt = (t: RecordTokens, surface: string): number =>
  t.semantic === 'anthropic' && surface !== 'native' ? t.prompt + t.cacheRead + t.cacheWrite : t.prompt;

/** All the input a record bills: P (OpenAI semantic), P + C + W (Anthropic). */
export const billedInput = (t: RecordTokens): number =>
  t.semantic === 'anthropic' ? t.prompt + t.cacheRead + t.cacheWrite : t.prompt;
