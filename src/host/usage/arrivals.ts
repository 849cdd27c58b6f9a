/**
 * Whether our requests reached the gateway, by its usage log: the seam to the usage-log reader
 * (`ArrivalSource`, wired by src/extension to each gateway client's reader), the lookup of many local
 * records at once (grouped by gateway, rows without a request id or that the gateway never logs are not
 * asked about), the wait for a billed call's record (written a few seconds after the response), and the
 * words every view uses for an arrival. Plain Node, no `vscode`.
 */
import { formatAmount, type RequestRecord } from '../../gateway';
import type { Arrival } from '../../gateway/economy/usageTypes';
import { t } from '../../gateway/l10n';

/** One request to look up in the gateway's usage log. */
export interface ArrivalQuery {
  /** the gateway's request id (X-Oneapi-Request-Id); undefined: it cannot be matched */
  requestId: string | undefined;
  /** when the request was sent (ms since the epoch) */
  sentAt: number;
  /** how long it took, when known (the record is written after the response finished) */
  durationMs?: number | undefined;
}

/**
 * Asks one gateway's usage log about a request. `gateway` is the gateway's id or its name as a request
 * record names it (`RequestRecord.gateway`); undefined: the active gateway. The reader behind it shares
 * one read of the log among concurrent questions and reads at most once a minute (the log shares the
 * gateway's critical rate limit), so asking about every row of a view costs one read per gateway.
 */
export type ArrivalSource = (gateway: string | undefined, q: ArrivalQuery) => Promise<Arrival>;

/** What the usage-log reader of one gateway's client answers (GatewayClient's usage log). */
export interface ArrivalReader {
  arrival(requestId: string, sentAt: number, durationMs?: number): Promise<Arrival>;
}

/**
 * The source over the gateways' readers: `readerOf(gateway)` finds the reader of the gateway a record
 * names (undefined: the active one); a gateway no longer configured (renamed, removed) cannot be asked.
 * A gateway without the endpoint is the reader's to say (unknown: unsupported).
 */
export function arrivalSource(readerOf: (gateway: string | undefined) => ArrivalReader | undefined): ArrivalSource {
  return async (gateway, q) => {
    if (!q.requestId) return { state: 'unknown', reason: 'no-request-id' };
    const reader = readerOf(gateway);
    if (!reader) return { state: 'unknown', reason: 'failed' };
    return reader.arrival(q.requestId, q.sentAt, q.durationMs);
  };
}

/** A failure of the source is an unknown arrival, never an error of the view. */
async function ask(source: ArrivalSource, gateway: string | undefined, q: ArrivalQuery): Promise<Arrival> {
  try {
    return await source(gateway, q);
  } catch {
    return { state: 'unknown', reason: 'failed' };
  }
}

/** Whether the gateway writes a usage record for such a request (model lists and balance reads leave none). */
export function logsUsage(r: RequestRecord): boolean {
  return r.capability !== 'models' && r.capability !== 'account' && r.method === 'POST';
}

export function queryOf(r: RequestRecord): ArrivalQuery {
  const sentAt = Date.parse(r.time);
  return { requestId: r.requestId, sentAt: Number.isFinite(sentAt) ? sentAt : 0, durationMs: r.durationMs };
}

/**
 * The arrival of each record (by index in `records`): undefined where the gateway logs no usage for
 * it; unknown without asking where the record has no request id. All questions go out at once, per
 * gateway, so the reader answers them from one read.
 */
export async function lookUpArrivals(
  records: readonly RequestRecord[],
  source: ArrivalSource,
): Promise<Array<Arrival | undefined>> {
  return Promise.all(
    records.map((r): Promise<Arrival | undefined> => {
      if (!logsUsage(r)) return Promise.resolve(undefined);
      if (!r.requestId) return Promise.resolve({ state: 'unknown', reason: 'no-request-id' });
      return ask(source, r.gateway, queryOf(r));
    }),
  );
}

/**
 * When a billed call's record is looked for after it failed (ms after each other): the gateway writes it
 * a few seconds after the response (the reader allows 5 s), and the reader reads at most once a minute.
 */
export const BILLED_CHECK_DELAYS_MS = [6_000, 20_000, 65_000];

/**
 * Whether a billed call that failed was logged (and so billed): asked after the record should exist,
 * again while the reader says it is too soon (bounded by `delaysMs`), then the last answer.
 */
export async function billedArrival(
  source: ArrivalSource,
  gateway: string | undefined,
  q: ArrivalQuery,
  opts: { sleep?: (ms: number) => Promise<void>; delaysMs?: readonly number[]; signal?: AbortSignal } = {},
): Promise<Arrival> {
  if (!q.requestId) return { state: 'unknown', reason: 'no-request-id' };
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref?.()));
  let last: Arrival = { state: 'pending' };
  for (const ms of opts.delaysMs ?? BILLED_CHECK_DELAYS_MS) {
    await sleep(ms);
    if (opts.signal?.aborted) return last;
    last = await ask(source, gateway, q);
    if (last.state !== 'pending') return last;
  }
  return last;
}

/** What the gateway billed for a logged request: "$0.0400 (12 in / 345 out tokens)". */
export function billedWords(a: Extract<Arrival, { state: 'arrived' }>): string {
  const r = a.record;
  return t(
    '{0} ({1} in / {2} out tokens)',
    formatAmount(r.cost.amount, r.cost.unit),
    String(r.promptTokens),
    String(r.completionTokens),
  );
}

/** Why an arrival is unknown, in a few words. */
function unknownWhy(reason: Extract<Arrival, { state: 'unknown' }>['reason']): string {
  switch (reason) {
    case 'unsupported':
      return t('this gateway does not let a token read its usage log');
    case 'no-request-id':
      return t('the gateway gave this request no request id');
    case 'no-ids-in-log':
      return t("this gateway's usage log has no request ids");
    case 'limited':
      return t('the usage log is rate-limited for now, look again in a minute');
    case 'failed':
      return t('the usage log could not be read');
    case 'rolled-out':
      return t('the request is older than the newest records the gateway shows');
  }
}

/** The request log's "arrived" cell (short). */
export function arrivalCell(a: Arrival | undefined): string {
  if (!a) return '—';
  switch (a.state) {
    case 'arrived':
      return t('arrived: billed {0}', billedWords(a));
    case 'no-record':
      return t('no record');
    case 'pending':
      return t('pending');
    case 'unknown':
      return t('unknown ({0})', unknownWhy(a.reason));
  }
}

/** A billed call that failed, once its record was looked for: one sentence for its card or notification. */
export function billedSentence(a: Arrival): string {
  switch (a.state) {
    case 'arrived':
      return t('The gateway logged this request: billed {0}.', billedWords(a));
    case 'no-record':
      return t('The gateway has no record of this request: it did not arrive, or was not billed.');
    case 'pending':
      return t("The gateway's usage log has no record of this request yet: look again in the request log later.");
    case 'unknown':
      return t('Whether it was billed is not known ({0}).', unknownWhy(a.reason));
  }
}
