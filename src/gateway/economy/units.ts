/**
 * The gateway's units: raw "quota" integers and how the gateway shows money (USD, CNY, a custom
 * currency, or raw tokens), read from the public `GET /api/status` — never hard-coded.
 * Reference: shared/reference/gateway-economy.md §0 and §4.
 */
import { z } from 'zod';
import { t } from '../l10n';

export const STATUS_PATH = '/api/status';

export type DisplayType = 'USD' | 'CNY' | 'TOKENS' | 'CUSTOM';

export interface Units {
  /** raw quota per 1 USD (500,000 on a default gateway) */
  quotaPerUnit: number;
  display: DisplayType;
  /** CNY per USD, as the gateway says (undefined: it does not, and amounts stay in USD) */
  usdExchangeRate: number | undefined;
  customSymbol: string;
  customRate: number;
}

export interface GatewayStatus {
  units: Units;
  /** new-api (it has quota_display_type or self_use_mode_enabled); one-api otherwise */
  newApi: boolean;
  /** whether /api/pricing is offered, and whether it needs a dashboard login (undefined: not said) */
  pricing: { enabled: boolean; requireAuth: boolean } | undefined;
  systemName: string | undefined;
}

const statusSchema = z.object({
  success: z.boolean().optional(),
  data: z.object({
    quota_per_unit: z.number().positive().nullish(),
    display_in_currency: z.boolean().nullish(),
    quota_display_type: z.string().nullish(),
    usd_exchange_rate: z.number().positive().nullish(),
    custom_currency_symbol: z.string().nullish(),
    custom_currency_exchange_rate: z.number().positive().nullish(),
    self_use_mode_enabled: z.boolean().nullish(),
    system_name: z.string().nullish(),
    HeaderNavModules: z.string().nullish(),
  }),
});

function pricingModule(raw: string | null | undefined): GatewayStatus['pricing'] {
  if (!raw) return undefined;
  try {
    const p = (JSON.parse(raw) as { pricing?: unknown }).pricing;
    if (typeof p === 'boolean') return { enabled: p, requireAuth: false };
    if (p && typeof p === 'object')
      return {
        enabled: (p as { enabled?: unknown }).enabled !== false,
        requireAuth: (p as { requireAuth?: unknown }).requireAuth === true,
      };
  } catch {
    /* not JSON: say nothing */
  }
  return undefined;
}

/** The status document, or undefined when it is not a gateway's (then money cannot be shown). */
export function parseStatus(json: unknown): GatewayStatus | undefined {
  const r = statusSchema.safeParse(json);
  if (!r.success || !r.data.data.quota_per_unit) return undefined;
  const d = r.data.data;
  const type = d.quota_display_type?.toUpperCase();
  const display: DisplayType =
    type === 'CNY' || type === 'TOKENS' || type === 'CUSTOM' || type === 'USD'
      ? type
      : d.display_in_currency === false
        ? 'TOKENS'
        : 'USD';
  return {
    units: {
      quotaPerUnit: d.quota_per_unit!,
      display,
      usdExchangeRate: d.usd_exchange_rate ?? undefined,
      customSymbol: d.custom_currency_symbol || '¤',
      customRate: d.custom_currency_exchange_rate ?? 1,
    },
    newApi: d.quota_display_type != null || d.self_use_mode_enabled != null,
    pricing: pricingModule(d.HeaderNavModules),
    systemName: d.system_name ?? undefined,
  };
}

/** The unit a money amount is shown in: "USD", "CNY", a custom symbol, or "tokens". */
export function unitOf(units: Units): string {
  return units.display === 'TOKENS' ? 'tokens' : fromUsd(0, units).unit;
}

/**
 * A USD amount in the gateway's display currency (TOKENS mode keeps USD for prices). A CNY gateway
 * that does not say its exchange rate gets its amounts in its own unit, USD: no rate is guessed.
 */
export function fromUsd(usd: number, units: Units): { amount: number; unit: string } {
  if (units.display === 'CNY' && units.usdExchangeRate !== undefined)
    return { amount: usd * units.usdExchangeRate, unit: 'CNY' };
  if (units.display === 'CUSTOM') return { amount: usd * units.customRate, unit: units.customSymbol };
  return { amount: usd, unit: 'USD' };
}

/** Raw quota in the gateway's display unit. */
export function fromQuota(quota: number, units: Units): { amount: number; unit: string } {
  if (units.display === 'TOKENS') return { amount: quota, unit: 'tokens' };
  return fromUsd(quota / units.quotaPerUnit, units);
}

const SYMBOLS: Record<string, string> = { USD: '$', CNY: '¥' };

/** `$3.75`, `¥27.38`, `¤3.75`, `1.9M tokens`: money as the gateway shows it. */
export function formatAmount(amount: number, unit: string): string {
  if (unit === 'tokens') {
    const abs = Math.abs(amount);
    const short =
      abs >= 1e9
        ? `${(amount / 1e9).toFixed(1)}B`
        : abs >= 1e6
          ? `${(amount / 1e6).toFixed(1)}M`
          : abs >= 1e4
            ? `${(amount / 1e3).toFixed(0)}k`
            : String(Math.round(amount));
    return t('{0} tokens', short);
  }
  const symbol = SYMBOLS[unit] ?? unit;
  const abs = Math.abs(amount);
  if (abs === 0 || abs >= 0.01) return `${symbol}${amount.toFixed(2)}`;
  // A single chat reply often costs a fraction of a cent: two significant digits, down to a millionth.
  if (abs < 0.0000005) return `${amount < 0 ? '-' : ''}<${symbol}0.000001`;
  const digits = Math.min(6, Math.max(4, 1 - Math.floor(Math.log10(abs))));
  return `${symbol}${amount.toFixed(digits)}`;
}
