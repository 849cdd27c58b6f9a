/**
 * What the Usage view shows, as plain data: the gateway's usage log (new-api `/api/log/token`) or, on
 * gateways without it, this installation's request log priced from `/api/pricing` (an estimate,
 * labelled so everywhere). Totals and spend per day and per model come from the core's summarizeUsage.
 * The data arrives through `UsageSource` (the extension wires it to the gateway client), so all of
 * this is tested in Node with fixtures.
 */
import type { ModelPrice, Units } from '../../gateway';
import { formatAmount, unitOf } from '../../gateway/economy/units';
import { summarizeUsage, type UsageTotals } from '../../gateway/economy/usageSummary';
import type { UsageLogRead, UsageRecord } from '../../gateway/economy/usageTypes';
import { t } from '../../gateway/l10n';
import type { UsageRow, UsageTotalsView, UsageViewState } from '../../shared/usageProtocol';
import { requestCount, type LoggedRequest } from './localLog';
import type { CallReceipt } from './receiptSource';

/** Where the view's data comes from. */
export interface UsageSource {
  /** one read of the gateway's usage log (the reader shares one in-flight read and backs off on 429) */
  readLog(): Promise<UsageLogRead>;
  /** this installation's requests, oldest first (LocalRequestLog.all()) */
  local(): readonly LoggedRequest[];
  /** the active gateway's host: local records of other gateways are left out */
  host(): string | undefined;
  /** model prices (/api/pricing), undefined when the gateway publishes none */
  prices(): Promise<Map<string, ModelPrice> | undefined>;
  /** the gateway's units (/api/status), undefined when unknown */
  units(): Promise<Units | undefined>;
  /** the receipt of a record of a read made through `readLog` (the receipt book's), where reconciled */
  receiptOf?(r: UsageRecord): CallReceipt | undefined;
}

/** The gateway's log is read at most once a minute (it shares the critical rate limit with the balance). */
export const READ_INTERVAL_MS = 60_000;

/** The local requests of the active gateway as usage records, priced where the price is known (else cost NaN). */
export function estimateRecords(
  local: readonly LoggedRequest[],
  host: string | undefined,
  prices: Map<string, ModelPrice> | undefined,
  units: Units | undefined,
): UsageRecord[] {
  const unit = units ? (units.display === 'TOKENS' ? 'USD' : unitOf(units)) : 'USD';
  const out: UsageRecord[] = [];
  for (const r of local) {
    if (r.capability === 'models' || r.capability === 'account' || (host && r.host !== host)) continue;
    const time = Date.parse(r.time);
    if (!Number.isFinite(time)) continue;
    const ok = r.status !== undefined && r.status >= 200 && r.status < 300;
    const model = r.model ?? '';
    const count = requestCount(r);
    out.push({
      time,
      kind: ok ? 'consume' : 'error',
      model,
      quota: 0,
      cost: { amount: ok ? estimate(prices?.get(model), r) : 0, unit: prices?.get(model)?.unit ?? unit },
      promptTokens: r.usage?.promptTokens ?? 0,
      completionTokens: r.usage?.completionTokens ?? 0,
      useTimeS: r.durationMs / 1000,
      firstResponseMs: undefined,
      stream: r.stream,
      tokenName: r.maskedToken,
      group: '',
      requestId: r.requestId,
      requestPath: r.path,
      other: undefined,
      ...(count > 1 ? { count } : {}),
    });
  }
  return out.reverse(); // newest first, as the gateway answers
}

function estimate(p: ModelPrice | undefined, r: LoggedRequest): number {
  if (!p || p.dynamic) return NaN;
  if (p.perCall !== undefined) return p.perCall * requestCount(r);
  if (p.input === undefined || p.output === undefined || !r.usage) return NaN;
  return (r.usage.promptTokens * p.input + r.usage.completionTokens * p.output) / 1e6;
}

export interface StateInput {
  /** the records shown: the log's, or the estimate's */
  records: readonly UsageRecord[];
  source: 'log' | 'estimate';
  /** request ids of this installation's requests */
  ours: ReadonlySet<string>;
  status: string;
  nextReadAt: number | undefined;
  reading: boolean;
  now: number;
  utcOffsetMin: number;
  lang: string;
}

function totalsView(x: UsageTotals, unit: string): UsageTotalsView {
  return { amount: x.amount, text: unit ? formatAmount(x.amount, unit) : '', requests: x.requests };
}

function row(r: UsageRecord, ours: ReadonlySet<string>, estimated: boolean): UsageRow {
  const known = Number.isFinite(r.cost.amount);
  const text = known ? formatAmount(r.cost.amount, r.cost.unit) : '';
  return {
    time: r.time,
    model: (r.count ?? 1) > 1 ? t('{0} ({1} code completions)', r.model, String(r.count)) : r.model,
    tokensIn: estimated && !r.promptTokens && !r.completionTokens ? undefined : r.promptTokens,
    tokensOut: estimated && !r.promptTokens && !r.completionTokens ? undefined : r.completionTokens,
    cost: known ? r.cost.amount : undefined,
    costText: known && estimated && r.kind === 'consume' ? `≈ ${text}` : text,
    latencyMs: Math.round(r.useTimeS * 1000),
    latencyText: estimated
      ? t('{0} ms', String(Math.round(r.useTimeS * 1000)))
      : r.useTimeS < 1
        ? t('under 1 s')
        : t('{0} s', String(r.useTimeS)),
    firstResponseMs: r.firstResponseMs,
    stream: r.stream,
    group: r.group,
    fromHere: estimated || (r.requestId !== undefined && ours.has(r.requestId)),
    error: r.kind === 'error',
  };
}

/** The page's state: rows, totals, the two charts' series, and the status line. */
export function usageState(i: StateInput): UsageViewState {
  const s = summarizeUsage(i.records, { now: i.now, utcOffsetMin: i.utcOffsetMin });
  const unit = s.unit ?? '';
  const estimated = i.source === 'estimate';
  return {
    source: i.source,
    unit,
    rows: i.records.map((r) => row(r, i.ours, estimated)),
    totals: {
      today: totalsView(s.today, unit),
      last7Days: totalsView(s.last7Days, unit),
      last30Days: totalsView(s.last30Days, unit),
    },
    perDay: s.perDay.map((d) => ({ day: d.day, amount: d.amount })),
    perModel: s.perModel.map((m) => ({ model: m.model || '-', amount: m.amount })),
    status: i.status,
    nextReadAt: i.nextReadAt,
    reading: i.reading,
    lang: i.lang,
  };
}

/** A time the user reads in the status line (local clock, hours and minutes). */
export function clock(ms: number): string {
  const d = new Date(ms);
  return `${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`;
}

/** The status line of a read (the log's read time, the rate limit, the estimate's reason). */
export function statusLine(read: UsageLogRead | undefined, lastOk: number | undefined): string {
  if (!read) return t('Reading the gateway usage log…');
  switch (read.state) {
    case 'ok':
      return t('The gateway usage log, read at {0}.', clock(read.readAt));
    case 'unsupported':
      return t(
        'This gateway has no usage log: an estimate from the requests sent from here, priced from the gateway pricing where known.',
      );
    case 'limited':
      return lastOk !== undefined
        ? t('The gateway usage log, read at {0}; rate-limited until {1}.', clock(lastOk), clock(read.until))
        : t(
            'The gateway usage log is rate-limited until {0}: an estimate from the requests sent from here meanwhile.',
            clock(read.until),
          );
    case 'failed':
      return lastOk !== undefined
        ? t('The gateway usage log, read at {0}; the last read failed: {1}', clock(lastOk), read.message)
        : t(
            'The gateway usage log could not be read ({0}): an estimate from the requests sent from here meanwhile.',
            read.message,
          );
  }
}

const CSV_HEADER = [
  'time',
  'model',
  'tokens_in',
  'tokens_out',
  'cost',
  'unit',
  'latency_ms',
  'first_response_ms',
  'stream',
  'group',
  'from_here',
  'error',
  'estimate',
];

/** A CSV cell: quoted when needed; a leading =, +, - or @ is defused so a spreadsheet does not run it. */
function cell(v: string | number | boolean | undefined): string {
  if (v === undefined) return '';
  let s = String(v);
  if (typeof v === 'string' && /^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** The rows shown (by index into state.rows, in the order shown) as CSV (RFC 4180, CRLF, ISO times). */
export function usageCsv(state: UsageViewState, indices: readonly number[]): string {
  const lines = [CSV_HEADER.join(',')];
  const estimate = state.source === 'estimate';
  for (const i of indices) {
    const r = state.rows[i];
    if (!r) continue;
    lines.push(
      [
        new Date(r.time).toISOString(),
        r.model,
        r.tokensIn,
        r.tokensOut,
        r.cost,
        r.cost === undefined ? undefined : state.unit,
        r.latencyMs,
        r.firstResponseMs,
        r.stream,
        r.group,
        r.fromHere,
        r.error,
        estimate,
      ]
        .map(cell)
        .join(','),
    );
  }
  return `${lines.join('\r\n')}\r\n`;
}
