/**
 * Model prices and the groups that may use each model, from new-api's `GET /api/pricing` (public
 * where the gateway allows it). Formulas as the gateway's own pricing page computes them:
 * reference shared/reference/gateway-economy.md §3. The ratios themselves are kept too, with the group
 * ratios and the time of the read: what a receipt's ratios are compared with (relay-receipts.md §2.5).
 */
import { z } from 'zod';
import { t } from '../l10n';
import { formatAmount, fromUsd, type Units } from './units';

export const PRICING_PATH = '/api/pricing';

export interface ModelPrice {
  model: string;
  /** per 1M tokens, in `unit` (per-token models) */
  input?: number | undefined;
  output?: number | undefined;
  /** per call, in `unit` (per-call models) */
  perCall?: number | undefined;
  unit: string;
  /** the groups this model is enabled for */
  groups: string[];
  /** priced by an expression (tiered): no fixed price */
  dynamic: boolean;
  /** the ratios as published (absent for a dynamic price) */
  ratios?: PublishedRatios | undefined;
}

/** A model's ratios as /api/pricing publishes them (relay-receipts.md §2.5). */
export interface PublishedRatios {
  /** per call (`quota_type` 1): USD per call before the group ratio; undefined for a per-token model */
  modelPrice: number | undefined;
  modelRatio: number;
  completionRatio: number;
  /** cache reads; unpublished means the default 1 (§2.1) */
  cacheRatio: number;
  /** cache writes; unpublished means the default 1.25 (§2.1) */
  createCacheRatio: number;
}

/** The price list as read at one time: the pricing list is "now", a record "then" (§2.5). */
export interface PriceList {
  /** when the gateway answered (ms since the epoch) */
  readAt: number;
  /** the group ratios published (the groups an anonymous caller sees; a token's own group may be absent) */
  groupRatios: Record<string, number>;
  models: Map<string, ModelPrice>;
}

const pricingSchema = z.object({
  data: z.array(
    z.object({
      model_name: z.string(),
      quota_type: z.number().nullish(),
      model_ratio: z.number().nullish(),
      model_price: z.number().nullish(),
      completion_ratio: z.number().nullish(),
      cache_ratio: z.number().nullish(),
      create_cache_ratio: z.number().nullish(),
      enable_groups: z.array(z.string()).nullish(),
      billing_mode: z.string().nullish(),
    }),
  ),
  group_ratio: z.record(z.string(), z.number()).nullish(),
});

/**
 * The group ratio a price is quoted at: the token's own group when known (only the gateway's usage log
 * tells an sk- token) and the gateway publishes its ratio; else the "default" group where the model is
 * enabled for it (where most tokens are), else the cheapest of the model's groups, as the gateway's own
 * pricing page does for an unknown group.
 */
function groupRatio(groups: readonly string[], ratios: Record<string, number>, tokenGroup?: string): number {
  if (tokenGroup && typeof ratios[tokenGroup] === 'number') return ratios[tokenGroup];
  if (groups.includes('default') && typeof ratios.default === 'number') return ratios.default;
  // (a loop, not Math.min(...list): the gateway decides how many groups a model lists)
  let least: number | undefined;
  for (const g of groups) {
    const r = ratios[g];
    if (typeof r === 'number' && (least === undefined || r < least)) least = r;
  }
  return least ?? 1;
}

/** The price list read at `readAt`, prices quoted for the token's group where known. */
export function parsePriceList(
  json: unknown,
  units: Units,
  readAt: number,
  tokenGroup?: string,
): PriceList | undefined {
  const r = pricingSchema.safeParse(json);
  if (!r.success) return undefined;
  const ratios = r.data.group_ratio ?? {};
  const models = new Map<string, ModelPrice>();
  for (const m of r.data.data) {
    const groups = m.enable_groups ?? [];
    const g = groupRatio(groups, ratios, tokenGroup);
    const base = { model: m.model_name, groups, unit: fromUsd(0, units).unit };
    if (m.billing_mode === 'tiered_expr') {
      models.set(m.model_name, { ...base, dynamic: true });
      continue;
    }
    const perCall = m.quota_type === 1;
    const published: PublishedRatios = {
      modelPrice: perCall ? (m.model_price ?? 0) : undefined,
      modelRatio: m.model_ratio ?? 0,
      completionRatio: m.completion_ratio ?? 1,
      cacheRatio: m.cache_ratio ?? 1,
      createCacheRatio: m.create_cache_ratio ?? 1.25,
    };
    if (perCall)
      models.set(m.model_name, {
        ...base,
        dynamic: false,
        perCall: fromUsd((m.model_price ?? 0) * g, units).amount,
        ratios: published,
      });
    else {
      const input = fromUsd(((m.model_ratio ?? 0) * g * 1e6) / units.quotaPerUnit, units).amount;
      models.set(m.model_name, {
        ...base,
        dynamic: false,
        input,
        output: input * (m.completion_ratio ?? 1),
        ratios: published,
      });
    }
  }
  return { readAt, groupRatios: { ...ratios }, models };
}

/** The prices per model (the price list without its time). */
export function parsePricing(json: unknown, units: Units, tokenGroup?: string): Map<string, ModelPrice> | undefined {
  return parsePriceList(json, units, 0, tokenGroup)?.models;
}

/** "$0.15 / $0.60 per 1M tokens", "$0.04 per call", "priced by usage tier", or undefined. */
export function priceText(p: ModelPrice | undefined): string | undefined {
  if (!p) return undefined;
  if (p.dynamic) return t('priced by usage tier');
  if (p.perCall !== undefined) return t('{0} per call', formatAmount(p.perCall, p.unit));
  if (p.input !== undefined && p.output !== undefined)
    return t('{0} in / {1} out per 1M tokens', formatAmount(p.input, p.unit), formatAmount(p.output, p.unit));
  return undefined;
}

/** What a chat reply cost, where its model has a per-token price. */
export function replyCost(
  p: ModelPrice | undefined,
  usage: { inputTokens?: number | undefined; outputTokens?: number | undefined } | undefined,
): string | undefined {
  if (!p || p.dynamic || p.input === undefined || p.output === undefined || !usage) return undefined;
  const cost = ((usage.inputTokens ?? 0) * p.input + (usage.outputTokens ?? 0) * p.output) / 1e6;
  return `≈ ${formatAmount(cost, p.unit)}`;
}
