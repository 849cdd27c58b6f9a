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
import { checkStateText, INPUT_TOLERANCE, receiptDisclaimer, type CheckState } from '../../gateway/economy/receipts';
import type {
  UsageReceiptCell,
  UsageReceiptSummary,
  UsageRow,
  UsageTotalsView,
  UsageViewState,
} from '../../shared/usageProtocol';
import { requestCount, type LoggedRequest } from './localLog';
import type { CallReceipt } from './receiptSource';

/** Where the view's data comes from. */
export interface UsageSource {
  /**
   * one read of the gateway's usage log (the reader shares one in-flight read and backs off on 429); its
   * records are shown through `lastLog`
   */
  readLog(): Promise<UsageLogRead>;
  /**
   * the newest successful read of the gateway's log that `readLog` or another consumer of the same reads made
   * (the receipt book's, which reads for the chat panel too): the rows shown
   */
  lastLog(): Extract<UsageLogRead, { state: 'ok' }> | undefined;
  /** this installation's requests, oldest first (LocalRequestLog.all()) */
  local(): readonly LoggedRequest[];
  /** the active gateway's host: local records of other gateways are left out */
  host(): string | undefined;
  /** model prices (/api/pricing), undefined when the gateway publishes none */
  prices(): Promise<Map<string, ModelPrice> | undefined>;
  /** the gateway's units (/api/status), undefined when unknown */
  units(): Promise<Units | undefined>;
  /** the receipt of a record of `lastLog` (the receipt book's), where reconciled */
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
  /** the receipt of a record of the gateway's log, where reconciled */
  receiptOf?: ((r: UsageRecord) => CallReceipt | undefined) | undefined;
}

function totalsView(x: UsageTotals, unit: string): UsageTotalsView {
  return { amount: x.amount, text: unit ? formatAmount(x.amount, unit) : '', requests: x.requests };
}

/** The Receipts column's cell: ✓ consistent, ! inconsistent, – not checkable, with the reason on hover. */
export function receiptCell(c: CallReceipt): UsageReceiptCell {
  const state = c.billing;
  const said = c.receipt.billing.filter((x) => x.state === state).map((x) => x.text);
  return {
    state,
    mark: state === 'consistent' ? '✓' : state === 'inconsistent' ? '!' : '–',
    title: [t('Receipt: {0}', checkStateText(state)), ...said, c.receipt.matchText].join('\n'),
  };
}

/** The receipts' summary is over this many of the gateway's newest billed records. */
export const RECEIPT_SUMMARY_CALLS = 100;
/** A constant excess: at least this many calls with a local count, this share of them near the median excess. */
const CONSTANT_EXCESS = { calls: 3, share: 0.8 };

const checkOf = (c: CallReceipt, id: string) => [...c.receipt.billing, ...c.receipt.route].find((x) => x.id === id);
const countOf = (list: readonly CallReceipt[], id: string, state: CheckState) =>
  list.filter((c) => checkOf(c, id)?.state === state).length;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/**
 * The input tokens billed against a local count, over the calls where one was made: the median ratio; or,
 * where most calls were billed about the same number of tokens more than counted (§7.5: a constant excess,
 * such as a system prompt the provider adds), that number, with its possible causes and no accusation.
 */
function inputRatioLine(list: readonly CallReceipt[]): { text: string; warn: boolean } {
  const pairs: Array<{ billed: number; local: number }> = [];
  const tokenizers = new Set<string>();
  for (const c of list) {
    const i = checkOf(c, 'input')?.inputs;
    if (!i || typeof i.local_count !== 'number' || i.local_count <= 0) continue;
    pairs.push({ billed: Number(i.billed_input), local: i.local_count });
    tokenizers.add(String(i.tokenizer));
  }
  if (!pairs.length)
    return {
      text: t('Input tokens against a local count: not available (no local count was made for these calls).'),
      warn: false,
    };
  const excess = median(pairs.map((p) => p.billed - p.local));
  const near = pairs.filter(
    (p) => Math.abs(p.billed - p.local - excess) <= Math.max(INPUT_TOLERANCE.minTokens, excess * 0.1),
  );
  if (
    pairs.length >= CONSTANT_EXCESS.calls &&
    excess > INPUT_TOLERANCE.minTokens &&
    near.length >= pairs.length * CONSTANT_EXCESS.share
  )
    return {
      text: t(
        "According to the gateway's log, about {0} more input tokens per call were billed than this client sent, in {1} of {2} calls with a local count (tokenizer {3}); causes include a provider system prompt, wrapping, or a different tokenizer.",
        String(Math.round(excess)),
        String(near.length),
        String(pairs.length),
        [...tokenizers].join(', '),
      ),
      warn: true,
    };
  return {
    text: t(
      'Median input tokens billed against a local count: ×{0} over {1} calls (tokenizer {2}, tolerance ±{3} %).',
      median(pairs.map((p) => p.billed / p.local)).toFixed(2),
      String(pairs.length),
      [...tokenizers].join(', '),
      String(INPUT_TOLERANCE.share * 100),
    ),
    warn: countOf(list, 'input', 'inconsistent') > 0,
  };
}

/**
 * The gateway's receipts over its newest calls (`list`, newest first): the share consistent with the price
 * list, the model redirects and the forwards its log records, the input tokens against local counts.
 */
export function receiptSummary(list: readonly CallReceipt[]): UsageReceiptSummary | undefined {
  if (!list.length) return undefined;
  const n = list.length;
  const ok = countOf(list, 'price-list', 'consistent');
  const bad = countOf(list, 'price-list', 'inconsistent');
  const redirects = new Map<string, number>();
  for (const c of list) {
    const up = c.receipt.upstreamModel;
    if (up !== undefined) {
      const pair = t('{0} → {1}', c.receipt.billedModel, up);
      redirects.set(pair, (redirects.get(pair) ?? 0) + 1);
    }
  }
  const redirected = [...redirects.values()].reduce((a, b) => a + b, 0);
  const chains = list.filter((c) => c.receipt.record.upstreamRequestId).length;
  return {
    title: t("Receipts of the last {0} calls, according to the gateway's log", String(n)),
    lines: [
      {
        text: t(
          'Consistent with the price list: {0} of {1} calls ({2} %); inconsistent: {3}; not checkable: {4}.',
          String(ok),
          String(n),
          String(Math.round((ok / n) * 100)),
          String(bad),
          String(n - ok - bad),
        ),
        warn: bad > 0,
      },
      redirected
        ? {
            text: t(
              'Model redirects recorded by the gateway: {0} ({1}).',
              String(redirected),
              [...redirects.keys()].join(', '),
            ),
            warn: true,
          }
        : {
            text: t('No model redirect was recorded by the gateway (this does not show which model served the calls).'),
            warn: false,
          },
      inputRatioLine(list),
      chains
        ? { text: t('Forwarded to another one-api/new-api relay: {0} calls.', String(chains)), warn: true }
        : { text: t('No forward to another relay was recorded by the gateway.'), warn: false },
    ],
    disclaimer: receiptDisclaimer(),
  };
}

function row(r: UsageRecord, ours: ReadonlySet<string>, estimated: boolean, c?: CallReceipt): UsageRow {
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
    receipt: c && receiptCell(c),
  };
}

/** The page's state: rows, totals, the two charts' series, and the status line. */
export function usageState(i: StateInput): UsageViewState {
  const s = summarizeUsage(i.records, { now: i.now, utcOffsetMin: i.utcOffsetMin });
  const unit = s.unit ?? '';
  const estimated = i.source === 'estimate';
  const receipts = estimated || !i.receiptOf ? [] : i.records.map(i.receiptOf);
  const summary = receiptSummary(
    receipts.filter((c): c is CallReceipt => c !== undefined).slice(0, RECEIPT_SUMMARY_CALLS),
  );
  return {
    source: i.source,
    unit,
    rows: i.records.map((r, k) => row(r, i.ours, estimated, receipts[k])),
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
    ...(summary ? { receipts: summary } : {}),
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
  'receipt',
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
        r.receipt?.state,
      ]
        .map(cell)
        .join(','),
    );
  }
  return `${lines.join('\r\n')}\r\n`;
}
