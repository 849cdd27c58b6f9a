/**
 * The Usage view's messages between the host (src/host/usage) and its page (src/webview/usage): what
 * the page shows, already in the gateway's unit and words, and what it asks for. Plain data only.
 */

/** One row of the table (one usage-log record, or one local request on the estimate path). */
export interface UsageRow {
  /** ms since the epoch */
  time: number;
  model: string;
  tokensIn: number | undefined;
  tokensOut: number | undefined;
  /** in `UsageViewState.unit`; undefined when no price is known (estimate path) */
  cost: number | undefined;
  /** the cost as the gateway shows money (`$0.0123`, `¥0.09`, `1.2K tokens`), or '' */
  costText: string;
  latencyMs: number | undefined;
  /** the latency in words: the gateway counts whole seconds (`use_time`), the local log milliseconds */
  latencyText: string;
  firstResponseMs: number | undefined;
  stream: boolean;
  group: string;
  /** the request id is in this installation's request log */
  fromHere: boolean;
  /** the gateway logged an error (type 5), or the local request failed */
  error: boolean;
  /** the record's receipt (the gateway's log only, once reconciled); undefined: none */
  receipt?: UsageReceiptCell | undefined;
}

/** A record's receipt in the Receipts column: the state of its billing checks, the reason on hover. */
export interface UsageReceiptCell {
  state: 'consistent' | 'inconsistent' | 'not-checkable';
  /** ✓ consistent, ! inconsistent, – not checkable */
  mark: string;
  /** the state and the checks' sentences (each naming its witness), and how the record was matched */
  title: string;
}

/** The gateway's receipts over its last calls, in sentences (translated on the host). */
export interface UsageReceiptSummary {
  /** "Receipts of the last 100 calls, according to the gateway's log" */
  title: string;
  /** the price list share, recorded redirects, input tokens against local counts, forwards; `warn`: an inconsistency */
  lines: Array<{ text: string; warn: boolean }>;
  /** said once: no relay can prove which model served a request */
  disclaimer: string;
}

export interface UsageTotalsView {
  amount: number;
  text: string;
  requests: number;
}

export interface UsageViewState {
  /** 'log': the gateway's usage log; 'estimate': the local request log priced from /api/pricing */
  source: 'log' | 'estimate';
  /** the unit of every amount (USD, CNY, a custom symbol, tokens), '' when nothing is priced */
  unit: string;
  /** newest first */
  rows: UsageRow[];
  totals: { today: UsageTotalsView; last7Days: UsageTotalsView; last30Days: UsageTotalsView };
  /** oldest first, local days */
  perDay: Array<{ day: string; amount: number }>;
  /** most spent first */
  perModel: Array<{ model: string; amount: number }>;
  /** a line about where the figures come from and when they were read (translated) */
  status: string;
  /** when a refresh may read again (ms since the epoch); undefined: at once */
  nextReadAt: number | undefined;
  /** a read is under way */
  reading: boolean;
  /** the page's language (dates), VS Code's display language */
  lang: string;
  /** the receipts' summary (the gateway's log only, once reconciled); undefined: none */
  receipts?: UsageReceiptSummary | undefined;
}

/**
 * The state travels as one JSON string: a webview's postMessage clones an object tree field by field,
 * which for 1,000 rows costs more than the whole first paint; a string is cloned at once and parsed fast.
 */
export type UsageHostMessage = { type: 'state'; json: string };

export type UsagePageMessage =
  | { type: 'ready' }
  | { type: 'refresh' }
  /** the rows shown (filtered and sorted), as indices into `UsageViewState.rows` */
  | { type: 'export'; rows: number[] };

/** Every word of the page, translated on the host. */
export const USAGE_STRING_KEYS = [
  'title',
  'estimate',
  'refresh',
  'exportCsv',
  'today',
  'last7Days',
  'last30Days',
  'perDay',
  'perModel',
  'chartAlt',
  'filter',
  'filterLabel',
  'records',
  'shown',
  'colTime',
  'colModel',
  'colIn',
  'colOut',
  'colCost',
  'colLatency',
  'colFirst',
  'colStream',
  'colGroup',
  'colHere',
  'colReceipt',
  'yes',
  'no',
  'error',
  'noRecords',
  'nextRead',
  'requests',
  'sortHint',
] as const;

export type UsageStrings = Record<(typeof USAGE_STRING_KEYS)[number], string>;

export function parseUsageStrings(v: unknown): UsageStrings | undefined {
  if (!v || typeof v !== 'object') return undefined;
  const o = v as Record<string, unknown>;
  return USAGE_STRING_KEYS.every((k) => typeof o[k] === 'string') ? (o as UsageStrings) : undefined;
}
