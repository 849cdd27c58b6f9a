/**
 * What is left on a token: new-api's `GET /api/usage/token/` (raw quota; answers even for expired
 * or exhausted tokens), else the OpenAI-legacy billing endpoints (one-api, older new-api; already
 * converted by the display mode). Reference: shared/reference/gateway-economy.md §1, §2.
 */
import { z } from 'zod';
import { fromQuota, type Units } from './units';

export const TOKEN_USAGE_PATH = '/api/usage/token/';
export const SUBSCRIPTION_PATH = '/v1/dashboard/billing/subscription';
export const BILLING_USAGE_PATH = '/v1/dashboard/billing/usage';
/** the billing endpoints' "unlimited" */
const UNLIMITED_LIMIT = 100_000_000;

export interface Quota {
  source: 'usage-token' | 'billing';
  unlimited: boolean;
  remaining: number;
  used: number;
  granted: number;
  /** "USD" | "CNY" | "tokens" | a custom symbol */
  unit: string;
  /** ISO-8601, or null when it never expires */
  expiresAt: string | null;
  /** the token's name, where the gateway says it */
  name?: string | undefined;
  /** the models the token is limited to, when it has limits */
  modelLimits?: string[] | undefined;
}

const usageSchema = z.object({
  code: z.boolean().optional(),
  data: z.object({
    name: z.string().nullish(),
    total_granted: z.number(),
    total_used: z.number(),
    total_available: z.number(),
    unlimited_quota: z.boolean(),
    model_limits: z.record(z.string(), z.unknown()).nullish(),
    model_limits_enabled: z.boolean().nullish(),
    expires_at: z.number().nullish(),
  }),
});

const isoFromSeconds = (s: number | null | undefined) => (s && s > 0 ? new Date(s * 1000).toISOString() : null);

/** new-api's token usage (raw quota ints), in the gateway's display unit. */
export function parseTokenUsage(json: unknown, units: Units | undefined): Quota | undefined {
  const r = usageSchema.safeParse(json);
  if (!r.success || r.data.code === false) return undefined;
  const d = r.data.data;
  const conv = (q: number) => (units ? fromQuota(q, units) : { amount: q, unit: 'tokens' });
  const limits = d.model_limits_enabled ? Object.keys(d.model_limits ?? {}) : [];
  return {
    source: 'usage-token',
    unlimited: d.unlimited_quota,
    remaining: conv(d.total_available).amount,
    used: conv(d.total_used).amount,
    granted: conv(d.total_granted).amount,
    unit: conv(0).unit,
    expiresAt: isoFromSeconds(d.expires_at),
    ...(d.name ? { name: d.name } : {}),
    ...(limits.length ? { modelLimits: limits } : {}),
  };
}

const subscriptionSchema = z.object({ hard_limit_usd: z.number(), access_until: z.number().nullish() });
const billingUsageSchema = z.object({ total_usage: z.number() });

/**
 * The billing pair: remaining = hard_limit_usd − total_usage/100, unlimited = 100000000. The
 * values come converted by the display mode: raw tokens in TOKENS mode, CNY in CNY mode, else USD.
 */
export function parseBilling(subscription: unknown, usage: unknown, units: Units | undefined): Quota | undefined {
  const s = subscriptionSchema.safeParse(subscription);
  const u = billingUsageSchema.safeParse(usage);
  if (!s.success || !u.success) return undefined;
  const unit = units?.display === 'TOKENS' ? 'tokens' : units?.display === 'CNY' ? 'CNY' : 'USD';
  const used = u.data.total_usage / 100;
  const unlimited = s.data.hard_limit_usd >= UNLIMITED_LIMIT;
  return {
    source: 'billing',
    unlimited,
    remaining: unlimited ? 0 : s.data.hard_limit_usd - used,
    used,
    granted: unlimited ? 0 : s.data.hard_limit_usd,
    unit,
    expiresAt: isoFromSeconds(s.data.access_until),
  };
}

/** Words for a token's state: "expired", "exhausted", "unlimited", or undefined (money is left). */
export function quotaState(q: Quota, now: number): 'expired' | 'exhausted' | 'unlimited' | undefined {
  if (q.expiresAt && Date.parse(q.expiresAt) <= now) return 'expired';
  if (q.unlimited) return 'unlimited';
  if (q.remaining <= 0) return 'exhausted';
  return undefined;
}
