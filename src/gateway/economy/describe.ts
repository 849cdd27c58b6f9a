/** A token's balance in words, for the status bar, the Status view and relay-doctor. */
import { quotaState, type Quota } from './quota';
import { formatAmount } from './units';

export interface QuotaWords {
  /** for the status bar: "$3.75", "expired", "exhausted", "unlimited" */
  short: string;
  level: 'ok' | 'warning' | 'error';
  /** for the tooltip and the Status view: "Remaining: $3.75", … */
  lines: string[];
}

export function describeQuota(q: Quota, warnBelow: number, now: number): QuotaWords {
  const money = (n: number) => formatAmount(n, q.unit);
  const state = quotaState(q, now);
  const expiry = q.expiresAt ? `${q.expiresAt.slice(0, 10)}${state === 'expired' ? ' (expired)' : ''}` : 'never';
  const lines = q.unlimited ? ['Quota: unlimited', `Used: ${money(q.used)}`] : [`Remaining: ${money(q.remaining)}`, `Used: ${money(q.used)}`, `Granted: ${money(q.granted)}`];
  lines.push(`Expires: ${expiry}`);
  if (q.modelLimits?.length) lines.push(`Limited to models: ${q.modelLimits.join(', ')}`);
  lines.push(`Source: ${q.source === 'usage-token' ? 'the gateway\'s token usage (/api/usage/token/)' : 'the billing endpoints (/v1/dashboard/billing/*)'}`);
  if (state === 'expired') return { short: 'expired', level: 'error', lines };
  if (state === 'exhausted') return { short: 'exhausted', level: 'error', lines };
  if (state === 'unlimited') return { short: 'unlimited', level: 'ok', lines };
  return { short: money(q.remaining), level: q.remaining < warnBelow ? 'warning' : 'ok', lines };
}
