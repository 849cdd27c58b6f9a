/**
 * `relay-doctor usage [--json] [--since 24h|7d|30d]`: where the money went, from the gateway's own usage
 * log (new-api `GET /api/log/token`): totals for today, 7 and 30 days, spend per day and per model, and
 * the records, in the gateway's own unit. `--json` gives the summary and the records with `other` parsed.
 */
import { formatAmount, type GatewayClient, type UsageRecord } from '../gateway';
import { summarizeUsage, type UsageTotals } from '../gateway/economy/usageSummary';
import { cells, padCells } from '../gateway/diagnose/textWidth';
import { t } from '../gateway/l10n';

export const SINCE = { '24h': 86_400_000, '7d': 7 * 86_400_000, '30d': 30 * 86_400_000 } as const;
export type Since = keyof typeof SINCE;
export const isSince = (s: unknown): s is Since => typeof s === 'string' && s in SINCE;

/** Why the usage log cannot be shown (exit 1): what happened, its cause and the fix, in a terminal's words. */
class UsageLogError extends Error {
  constructor(
    message: string,
    override readonly cause: string,
    readonly fix: string = t("See the usage log in the gateway's web console."),
  ) {
    super(message);
  }
}

/**
 * One read of the log: its records, newest first, since `since` (all when undefined), with the time of the
 * read and the gateway's units; throws when it cannot be read (`relay-doctor usage` and `receipts`).
 */
export async function readUsageLog(client: GatewayClient, since: Since | undefined, now: number) {
  const read = await client.usage.read();
  if (read.state === 'unsupported')
    throw new UsageLogError(
      t('This gateway does not show a token its usage log.'),
      t('The gateway does not answer GET /api/log/token for this token (one-api, or new-api older than the route).'),
    );
  if (read.state === 'limited')
    throw new UsageLogError(
      t(
        "The gateway's usage log is paused by its rate limit (shared with the balance): try again after {0}.",
        new Date(read.until).toISOString(),
      ),
      t('The gateway limits how often a token may read its usage log and balance.'),
      t('Run it again after that time.'),
    );
  // A classified failure (the token refused, the gateway down…) says its own cause and fix.
  if (read.state === 'failed')
    throw (
      read.error ?? new UsageLogError(t("The gateway's usage log could not be read: {0}", read.message), read.message)
    );
  const from = since ? now - SINCE[since] : -Infinity;
  return { records: read.records.filter((r) => r.time >= from), readAt: read.readAt, units: read.units };
}

const money = (amount: number, unit: string | undefined) => (unit ? formatAmount(amount, unit) : '-');

/** Columns padded to their widest cell, in terminal cells (a Chinese character takes two; the last column left ragged). */
export function table(rows: string[][]): string[] {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => cells(r[i] ?? ''))));
  return rows.map((r) =>
    r
      .map((c, i) => (i < r.length - 1 ? padCells(c, widths[i]) : c))
      .join('  ')
      .trimEnd(),
  );
}

function totalsLine(label: string, x: UsageTotals, unit: string | undefined): string {
  return t(
    '{0}: {1} in {2} requests ({3} tokens in, {4} out)',
    label,
    money(x.amount, unit),
    x.requests,
    x.promptTokens,
    x.completionTokens,
  );
}

/** A record's time as the tables write it: `2026-06-01 14:02:03` (UTC). */
export const utcTime = (ms: number) => new Date(ms).toISOString().replace('T', ' ').slice(0, 19);

function recordRow(r: UsageRecord): string[] {
  return [
    utcTime(r.time),
    r.model,
    `${r.promptTokens}/${r.completionTokens}`,
    formatAmount(r.cost.amount, r.cost.unit),
    `${r.useTimeS} s`,
    r.firstResponseMs !== undefined ? `${r.firstResponseMs} ms` : '-',
    r.stream ? t('stream') : '-',
    r.group || '-',
    r.kind === 'error' ? t('error') : '',
    r.requestId ?? '-',
  ];
}

function text(recs: UsageRecord[], since: Since | undefined, now: number, utcOffsetMin: number): string {
  const s = summarizeUsage(recs, { now, utcOffsetMin });
  if (!recs.length)
    return `${since ? t('The gateway has no usage records for this token in the last {0}.', since) : t('The gateway has no usage records for this token.')}\n`;
  const head = (h: string) => `\n${h}\n`;
  const lines = [
    totalsLine(t('Today'), s.today, s.unit),
    totalsLine(t('Last 7 days'), s.last7Days, s.unit),
    totalsLine(t('Last 30 days'), s.last30Days, s.unit),
    head(t('Per day')),
    ...table([
      [t('day'), t('requests'), t('tokens in/out'), t('cost')],
      ...s.perDay.map((d) => [
        d.day,
        String(d.requests),
        `${d.promptTokens}/${d.completionTokens}`,
        money(d.amount, s.unit),
      ]),
    ]),
    head(t('Per model')),
    ...table([
      [t('model'), t('requests'), t('tokens in/out'), t('cost')],
      ...s.perModel.map((m) => [
        m.model,
        String(m.requests),
        `${m.promptTokens}/${m.completionTokens}`,
        money(m.amount, s.unit),
      ]),
    ]),
    head(t('Records (newest first)')),
    ...table([
      [
        t('time (UTC)'),
        t('model'),
        t('tokens in/out'),
        t('cost'),
        t('duration'),
        t('first response'),
        t('stream'),
        t('group'),
        '',
        t('request id'),
      ],
      ...recs.map(recordRow),
    ]),
  ];
  if (s.otherUnit) lines.push('', t('{0} records in another unit are left out of the amounts.', s.otherUnit));
  return `${lines.join('\n')}\n`;
}

export async function usageCommand(
  client: GatewayClient,
  o: { json: boolean; since: Since | undefined },
  out: { write(s: string): unknown },
  now = Date.now(),
  utcOffsetMin = -new Date(now).getTimezoneOffset(),
): Promise<number> {
  const { records: recs, readAt } = await readUsageLog(client, o.since, now);
  if (o.json) {
    const summary = summarizeUsage(recs, { now, utcOffsetMin });
    const json = {
      readAt: new Date(readAt).toISOString(),
      since: o.since ?? null,
      unit: summary.unit ?? null,
      summary,
      records: recs.map((r) => ({ ...r, time: new Date(r.time).toISOString() })),
    };
    out.write(`${JSON.stringify(json, null, 2)}\n`);
    return 0;
  }
  out.write(text(recs, o.since, now, utcOffsetMin));
  return 0;
}
