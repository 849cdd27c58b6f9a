/**
 * Model prices and the groups that may use each model, from new-api's `GET /api/pricing` (public
 * where the gateway allows it). Formulas as the gateway's own pricing page computes them:
 * reference shared/reference/gateway-economy.md §3.
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
}

const pricingSchema = z.object({
  data: z.array(
    z.object({
      model_name: z.string(),
      quota_type: z.number().nullish(),
      model_ratio: z.number().nullish(),
      model_price: z.number().nullish(),
      completion_ratio: z.number().nullish(),
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

export function parsePricing(json: unknown, units: Units, tokenGroup?: string): Map<string, ModelPrice> | undefined {
  const r = pricingSchema.safeParse(json);
  if (!r.success) return undefined;
  const ratios = r.data.group_ratio ?? {};
  const out = new Map<string, ModelPrice>();
  for (const m of r.data.data) {
    const groups = m.enable_groups ?? [];
    const g = groupRatio(groups, ratios, tokenGroup);
    const base = { model: m.model_name, groups, unit: fromUsd(0, units).unit };
    if (m.billing_mode === 'tiered_expr') out.set(m.model_name, { ...base, dynamic: true });
    else if (m.quota_type === 1)
      out.set(m.model_name, { ...base, dynamic: false, perCall: fromUsd((m.model_price ?? 0) * g, units).amount });
    else {
      const input = fromUsd(((m.model_ratio ?? 0) * g * 1e6) / units.quotaPerUnit, units).amount;
      out.set(m.model_name, { ...base, dynamic: false, input, output: input * (m.completion_ratio ?? 1) });
    }
  }
  return out;
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
