/** A token's balance in words, for the status bar, the Status view and relay-doctor. */
import { t } from '../l10n';
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
  const day = q.expiresAt?.slice(0, 10);
  const lines = q.unlimited
    ? [t('Quota: unlimited'), t('Used: {0}', money(q.used))]
    : [t('Remaining: {0}', money(q.remaining)), t('Used: {0}', money(q.used)), t('Granted: {0}', money(q.granted))];
  lines.push(
    !day ? t('Expires: never') : state === 'expired' ? t('Expires: {0} (expired)', day) : t('Expires: {0}', day),
  );
  if (q.modelLimits?.length) lines.push(t('Limited to models: {0}', q.modelLimits.join(', ')));
  lines.push(
    q.source === 'usage-token'
      ? t("Source: the gateway's token usage (/api/usage/token/)")
      : t('Source: the billing endpoints (/v1/dashboard/billing/*)'),
  );
  if (state === 'expired') return { short: t('expired'), level: 'error', lines };
  if (state === 'exhausted') return { short: t('exhausted'), level: 'error', lines };
  if (state === 'unlimited') return { short: t('unlimited'), level: 'ok', lines };
  return { short: money(q.remaining), level: q.remaining < warnBelow ? 'warning' : 'ok', lines };
}
