/**
 * A token's balance in words, for the status bar, the Status view and relay-doctor: rows of a label
 * and a value (each translated whole, so no caller splits a translated line at a ':' that Chinese
 * writes as '：'), and the same rows as lines ("Remaining: $3.75") where one text is wanted.
 */
import { t } from '../l10n';
import { quotaState, type Quota } from './quota';
import { formatAmount } from './units';

export interface QuotaRow {
  /** what the row is, for ids and for choosing rows */
  id: 'remaining' | 'used' | 'granted' | 'quota' | 'expires' | 'models' | 'source';
  /** "Remaining" */
  label: string;
  /** "$3.75" */
  value: string;
}

export interface QuotaWords {
  /** for the status bar: "$3.75", "expired", "exhausted", "unlimited" */
  short: string;
  level: 'ok' | 'warning' | 'error';
  /** for the Status view: label and value of each figure, where it came from last */
  rows: QuotaRow[];
  /** the rows as lines, for tooltips and the command line: "Remaining: $3.75", … */
  lines: string[];
}

function quotaRows(q: Quota, state: ReturnType<typeof quotaState>): QuotaRow[] {
  const money = (n: number) => formatAmount(n, q.unit);
  const day = q.expiresAt?.slice(0, 10);
  const rows: QuotaRow[] = q.unlimited
    ? [
        { id: 'quota', label: t('Quota'), value: t('unlimited') },
        { id: 'used', label: t('Used'), value: money(q.used) },
      ]
    : [
        { id: 'remaining', label: t('Remaining'), value: money(q.remaining) },
        { id: 'used', label: t('Used'), value: money(q.used) },
        { id: 'granted', label: t('Granted'), value: money(q.granted) },
      ];
  rows.push({
    id: 'expires',
    label: t('Expires'),
    value: !day ? t('never') : state === 'expired' ? t('{0} (expired)', day) : day,
  });
  if (q.modelLimits?.length)
    rows.push({ id: 'models', label: t('Limited to models'), value: q.modelLimits.join(', ') });
  rows.push({
    id: 'source',
    label: t('Source'),
    value:
      q.source === 'usage-token'
        ? t("the gateway's token usage (/api/usage/token/)")
        : t('the billing endpoints (/v1/dashboard/billing/*)'),
  });
  return rows;
}

export function describeQuota(q: Quota, warnBelow: number, now: number): QuotaWords {
  const state = quotaState(q, now);
  const rows = quotaRows(q, state);
  const lines = rows.map((r) => t('{0}: {1}', r.label, r.value));
  if (state === 'expired') return { short: t('expired'), level: 'error', rows, lines };
  if (state === 'exhausted') return { short: t('exhausted'), level: 'error', rows, lines };
  if (state === 'unlimited') return { short: t('unlimited'), level: 'ok', rows, lines };
  const short = formatAmount(q.remaining, q.unit);
  return { short, level: q.remaining < warnBelow ? 'warning' : 'ok', rows, lines };
}
