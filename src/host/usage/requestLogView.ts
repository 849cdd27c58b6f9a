/**
 * The request log as a read-only document (Show Request Log): the requests this installation sent
 * (./localLog.ts, newest first, bounded), one aligned row each (a minute's code completions of one model
 * are one row, as the log keeps them), with the column **arrived** — whether
 * the gateway's usage log has the request (./arrivals.ts), looked up when the log is opened or
 * refreshed, all rows at once (one read per gateway). New requests appear as they are sent; their
 * arrival is looked up on the next refresh. Plain Node: src/extension/usage/requestLogDocument.ts shows it.
 */
import type { Arrival } from '../../gateway/economy/usageTypes';
import { t } from '../../gateway/l10n';
import { arrivalCell, logsUsage, lookUpArrivals, type ArrivalSource } from './arrivals';
import { requestCount, type LoggedRequest } from './localLog';

/** At most this many rows are shown (the newest). */
export const MAX_LOG_ROWS = 500;
/** A column wider than this is cut (with …); the arrived column (index 2) never is. */
const MAX_CELL = 48;
const ARRIVED_COLUMN = 2;

/** The part of LocalRequestLog the view reads. */
export interface RecordSource {
  all(): LoggedRequest[];
  onDidChange(listener: () => void): { dispose(): void };
}

/** A record's identity across reads of the local log. */
function keyOf(r: LoggedRequest): string {
  return `${r.time}|${r.requestId ?? ''}|${r.method}|${r.path}|${r.attempt}|${r.gateway ?? ''}`;
}

function utc(iso: string): string {
  return iso.replace('T', ' ').replace(/\.\d+Z$|Z$/, '');
}

function cut(s: string): string {
  return s.length > MAX_CELL ? `${s.slice(0, MAX_CELL - 1)}…` : s;
}

export class RequestLogView {
  /** arrivals by record key, from the last lookup */
  private arrivals = new Map<string, Arrival | undefined>();
  private lookingUp = false;
  private lookedUpAt: number | undefined;
  /** the lookup whose answers count (a refresh during a lookup starts a new one) */
  private generation = 0;
  private readonly listeners = new Set<() => void>();
  private readonly sub: { dispose(): void };

  constructor(
    private readonly records: RecordSource,
    private readonly source: ArrivalSource,
    private readonly now: () => number = Date.now,
  ) {
    this.sub = records.onDidChange(() => this.changed());
  }

  onDidChange(listener: () => void): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  private changed(): void {
    for (const l of this.listeners) l();
  }

  /** The rows shown: newest first, at most MAX_LOG_ROWS. */
  rows(): LoggedRequest[] {
    return this.records.all().slice(-MAX_LOG_ROWS).reverse();
  }

  /** Looks up every shown row's arrival (the view shows "checking" meanwhile); resolves when done. */
  async refresh(): Promise<void> {
    const gen = ++this.generation;
    const rows = this.rows();
    this.lookingUp = true;
    this.changed();
    const found = await lookUpArrivals(rows, this.source);
    if (gen !== this.generation) return;
    this.arrivals = new Map(rows.map((r, i) => [keyOf(r), found[i]]));
    this.lookingUp = false;
    this.lookedUpAt = this.now();
    this.changed();
  }

  /** A row's arrived cell: its arrival, "checking…" while looked up, or "refresh" for a row sent since. */
  private cell(r: LoggedRequest): string {
    if (requestCount(r) > 1) return '—'; // a minute's completions: each has its own arrival
    const k = keyOf(r);
    if (this.arrivals.has(k)) return arrivalCell(this.arrivals.get(k));
    if (!logsUsage(r)) return '—';
    return this.lookingUp ? t('checking…') : t('not looked up yet (Refresh)');
  }

  /** The whole document. */
  text(): string {
    const rows = this.rows();
    const sum = (list: readonly LoggedRequest[]) => list.reduce((n, r) => n + requestCount(r), 0);
    const [total, shown] = [sum(this.records.all()), sum(rows)];
    const head = [
      t('Model Relay request log: the requests sent from this installation (tokens only masked, no prompts).'),
      t(
        'Arrived: whether the gateway logged the request (its usage log, looked up when this log is opened or refreshed).',
      ),
      t('"no record": the gateway has no record of this request: it did not arrive, or was not billed.'),
      this.lookingUp
        ? t("Looking up the requests in the gateways' usage logs…")
        : this.lookedUpAt !== undefined
          ? t('Looked up at {0} UTC.', utc(new Date(this.lookedUpAt).toISOString()))
          : t('Not looked up yet.'),
      total > shown ? t('{0} requests; the newest {1} are shown.', total, shown) : t('{0} requests.', shown),
      t('Code completions that answered or were stopped are counted per minute and model, one row each.'),
      '',
    ];
    if (!rows.length) return [...head, t('No request has been sent yet.')].join('\n') + '\n';
    // What a reader scans for first (when, how it ended, whether it arrived) on the left, within a narrow editor.
    const header = [
      t('Time (UTC)'),
      t('Status'),
      t('Arrived'),
      t('Model'),
      t('Request'),
      t('Gateway'),
      t('Surface'),
      t('Duration'),
      t('Request id'),
      t('Token'),
    ];
    const table = rows.map((r) => [
      utc(r.time),
      String(r.status ?? r.errorKind ?? '—') + (r.attempt > 1 ? ` (#${r.attempt})` : ''),
      this.cell(r),
      r.model ?? '—',
      request(r),
      r.gateway && r.gateway !== r.host ? `${r.gateway} (${r.host})` : r.host,
      r.surface,
      requestCount(r) > 1 ? t('{0} ms on average', String(r.durationMs)) : `${r.durationMs} ms`,
      r.requestId ?? '—',
      r.maskedToken || '—',
    ]);
    return [...head, ...aligned([header, ...table])].join('\n') + '\n';
  }

  dispose(): void {
    this.generation++;
    this.sub.dispose();
    this.listeners.clear();
  }
}

/** The Request cell: a code completion is told apart (many small calls; the chat way's shares the chat path). */
function request(r: LoggedRequest): string {
  const sent = `${r.method} ${r.path}`;
  if (r.purpose !== 'completion') return sent;
  const n = requestCount(r);
  return n > 1 ? t('{0} ({1} code completions)', sent, String(n)) : t('{0} (code completion)', sent);
}

const WIDE = /[\u1100-\u115F\u2E80-\uA4CF\uAC00-\uD7A3\uF900-\uFAFF\uFE30-\uFE4F\uFF00-\uFF60\uFFE0-\uFFE6]/;

/** Columns a text takes in a monospaced editor (CJK characters take two). */
function width(s: string): number {
  let n = 0;
  for (const ch of s) n += WIDE.test(ch) ? 2 : 1;
  return n;
}

/** Rows of cells as aligned text columns (two spaces apart). */
function aligned(rows: string[][]): string[] {
  const cells = rows.map((r) => r.map((c, i) => (i === ARRIVED_COLUMN ? c : cut(c))));
  const widths = cells[0].map((_, i) => Math.max(...cells.map((r) => width(r[i] ?? ''))));
  return cells.map((r) =>
    r
      .map((c, i) => (i < r.length - 1 ? c + ' '.repeat(widths[i] - width(c)) : c))
      .join('  ')
      .trimEnd(),
  );
}
