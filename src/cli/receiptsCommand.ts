/**
 * Receipts in a terminal (shared/reference/relay-receipts.md §8): what the gateway's own usage log says it
 * charged, reconciled with its formula, its price list and — for a call made here — the response.
 * - `relay-doctor receipts [--json] [--since 24h|7d|30d]`: one row per billed record of the token's log with
 *   each check's state (✓ consistent, ! inconsistent, – not checkable), each inconsistent check's sentence
 *   in full under its row, then a summary per model and the sentence every receipt carries. One read of
 *   the log serves the whole command (usageCommand.ts reads it), and one of the price list. Exit 1 when any
 *   check is inconsistent.
 * - `relay-doctor chat … --receipt`: after the answer, waits for the call's record — bounded in time and in
 *   reads of the log (RECEIPT_WAIT) — and prints the whole receipt on stderr, or says honestly that the
 *   record is not there yet, or why the log cannot tell.
 * The checks and their sentences are the core's (receipts.ts): each names its witness, and the route the
 * gateway recorded (a redirect, a forward) is kept apart from the billing checks.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import {
  USAGE_LOG_TIMING,
  checkStateText,
  formatAmount,
  overallState,
  matchCalls,
  receiptDisclaimer,
  receiptOf,
  ratioInputs,
  reconcile,
  type CheckState,
  type GatewayClient,
  type PriceList,
  type Receipt,
  type ReceiptCall,
  type ReceiptCheck,
  type RequestRecord,
} from '../gateway';
import { t } from '../gateway/l10n';
import type { CliIo } from './main';
import { RECEIPT_WAIT } from './usage';
import { readUsageLog, table, utcTime, type Since } from './usageCommand';

const MARK: Record<CheckState, string> = { consistent: '✓', inconsistent: '!', 'not-checkable': '–' };

/** A check's short name, as a column of the table and a label of the full receipt. */
function checkName(c: ReceiptCheck): string {
  switch (c.id) {
    case 'arithmetic':
      return t('formula');
    case 'price-list':
      return t('price list');
    case 'tokens':
      return t('tokens');
    case 'input':
      return t('input');
    case 'redirect':
      return t('redirect');
    case 'chain':
      return t('forward');
  }
}

/** "! inconsistent: According to the gateway's log, …" */
const checkLine = (c: ReceiptCheck) => t('{0} {1}: {2}', MARK[c.state], checkStateText(c.state), c.text);

const anyInconsistent = (r: Receipt) => overallState([...r.billing, ...r.route]) === 'inconsistent';

/** The model billed, and where the gateway's log says the call went when it recorded a redirect. */
const modelCell = (r: Receipt) => (r.upstreamModel ? `${r.billedModel} → ${r.upstreamModel}` : r.billedModel);

function tokensCell(r: Receipt): string {
  const { prompt, completion, cacheRead, cacheWrite } = r.tokens;
  return cacheRead + cacheWrite > 0
    ? t('{0}/{1} (cache {2})', prompt, completion, cacheRead + cacheWrite)
    : `${prompt}/${completion}`;
}

// ---------------- relay-doctor receipts ----------------

interface ModelSummary {
  model: string;
  records: number;
  charge: { amount: number; unit: string };
  /** records by the state of their billing checks together */
  billing: Record<CheckState, number>;
  /** records whose route check recorded a redirect / a forward to another relay */
  redirects: number;
  forwards: number;
}

function perModel(receipts: readonly Receipt[]): ModelSummary[] {
  const by = new Map<string, ModelSummary>();
  for (const r of receipts) {
    let s = by.get(r.billedModel);
    if (!s) {
      s = {
        model: r.billedModel,
        records: 0,
        charge: { amount: 0, unit: r.charge.unit },
        billing: { consistent: 0, inconsistent: 0, 'not-checkable': 0 },
        redirects: 0,
        forwards: 0,
      };
      by.set(r.billedModel, s);
    }
    s.records++;
    // (a gateway's log has one display unit: a record in another is left out of the sum)
    if (r.charge.unit === s.charge.unit) s.charge.amount += r.charge.amount;
    s.billing[overallState(r.billing)]++;
    for (const c of r.route)
      if (c.state === 'inconsistent') {
        if (c.id === 'redirect') s.redirects++;
        else s.forwards++;
      }
  }
  return [...by.values()].sort((a, b) => b.charge.amount - a.charge.amount || a.model.localeCompare(b.model));
}

const orNull = <T>(v: T | undefined): T | null => (v === undefined ? null : v);
const checkJson = (c: ReceiptCheck) => ({
  id: c.id,
  state: c.state,
  reason: orNull(c.reason),
  text: c.text,
  inputs: c.inputs,
});

/** A receipt as `--json` writes it (its shape is documented in help.ts). */
function receiptJson(r: Receipt) {
  return {
    time: new Date(r.record.time).toISOString(),
    requestId: orNull(r.record.requestId),
    match: r.match.by,
    matchText: r.matchText,
    requestedModel: orNull(r.requestedModel),
    billedModel: r.billedModel,
    upstreamModel: orNull(r.upstreamModel),
    tokens: r.tokens,
    charge: r.charge,
    group: orNull(r.group),
    ratios: Object.fromEntries(Object.entries(r.ratios).map(([k, v]) => [k, orNull(v as number | undefined)])),
    latency: {
      useTimeS: r.latency.useTimeS,
      firstResponseMs: orNull(r.latency.firstResponseMs),
      clientMs: orNull(r.latency.clientMs),
    },
    billingState: overallState(r.billing),
    routeState: overallState(r.route),
    billing: r.billing.map(checkJson),
    route: r.route.map(checkJson),
  };
}

const minute = (ms: number) => `${utcTime(ms).slice(0, 16)} UTC`;

function head(n: number, since: Since | undefined, readAt: number, prices: PriceList | undefined): string[] {
  const legend = (['consistent', 'inconsistent', 'not-checkable'] as const)
    .map((s) => `${MARK[s]} ${checkStateText(s)}`)
    .join('   ');
  return [
    since
      ? t("According to the gateway's log (read {0}), billed records in the last {2}: {1}.", minute(readAt), n, since)
      : t("According to the gateway's log (read {0}), billed records: {1}.", minute(readAt), n),
    prices
      ? t('Price list as of {0}.', minute(prices.readAt))
      : t('The gateway does not publish a price list to this token.'),
    legend,
    t(
      'Billing checks: formula, price list, tokens, input. What the log records of the route, which says nothing about the charge: redirect, forward. Tokens and input need the call as it was made here (relay-doctor chat --receipt compares the tokens).',
    ),
  ];
}

function receiptsText(receipts: readonly Receipt[], since: Since | undefined, readAt: number, prices?: PriceList) {
  if (!receipts.length)
    return `${since ? t('The gateway has no billed records for this token in the last {0}.', since) : t('The gateway has no billed records for this token.')}\n`;
  const checks = [...receipts[0].billing, ...receipts[0].route];
  const rows = table([
    [t('time (UTC)'), t('model'), t('tokens in/out'), t('cost'), ...checks.map(checkName)],
    ...receipts.map((r) => [
      utcTime(r.record.time),
      modelCell(r),
      tokensCell(r),
      r.charge.text,
      ...[...r.billing, ...r.route].map((c) => MARK[c.state]),
    ]),
  ]);
  const lines = [...head(receipts.length, since, readAt, prices), '', rows[0]];
  receipts.forEach((r, i) => {
    lines.push(rows[i + 1]);
    for (const c of [...r.billing, ...r.route]) if (c.state === 'inconsistent') lines.push(`    ${checkLine(c)}`);
  });
  lines.push(
    '',
    t('Per model'),
    ...table([
      [t('model'), t('records'), t('cost'), t('billing ✓/!/–'), t('redirects recorded'), t('forwards recorded')],
      ...perModel(receipts).map((s) => [
        s.model,
        String(s.records),
        formatAmount(s.charge.amount, s.charge.unit),
        `${s.billing.consistent}/${s.billing.inconsistent}/${s.billing['not-checkable']}`,
        String(s.redirects),
        String(s.forwards),
      ]),
    ]),
    '',
    receiptDisclaimer(),
  );
  return `${lines.join('\n')}\n`;
}

/** Runs `relay-doctor receipts`; resolves to 0, or 1 when any check of any record is inconsistent. */
export async function receiptsCommand(
  client: GatewayClient,
  o: { json: boolean; since: Since | undefined },
  out: { write(s: string): unknown },
  now = Date.now(),
): Promise<number> {
  const log = await readUsageLog(client, o.since, now);
  const prices = await client.account.priceList();
  const { receipts } = reconcile([], log.records, { prices, units: log.units });
  const code = receipts.some(anyInconsistent) ? 1 : 0;
  if (o.json) {
    const json = {
      readAt: new Date(log.readAt).toISOString(),
      since: o.since ?? null,
      priceListReadAt: prices ? new Date(prices.readAt).toISOString() : null,
      inconsistent: receipts.filter(anyInconsistent).length,
      receipts: receipts.map(receiptJson),
      perModel: perModel(receipts),
      disclaimer: receiptDisclaimer(),
    };
    out.write(`${JSON.stringify(json, null, 2)}\n`);
    return code;
  }
  out.write(receiptsText(receipts, o.since, log.readAt, prices));
  return code;
}

// ---------------- relay-doctor chat --receipt ----------------

/** A billed chat call in a request log: its successful request (the last one, after a surface move). */
export const isChatCall = (r: RequestRecord) =>
  r.method === 'POST' &&
  r.status !== undefined &&
  r.status >= 200 &&
  r.status < 300 &&
  (r.capability === 'chat' || r.capability === 'native' || r.capability === 'responses');

/** The whole receipt of one call, as stderr shows it. */
function fullReceipt(r: Receipt): string {
  const tk = r.tokens;
  const price = r.ratios.modelPrice;
  const ratios = [
    // (USD per call, before the group ratio)
    ...(price !== undefined && price >= 0 ? [`model_price ${price}`] : []),
    ...Object.entries(ratioInputs(r.ratios)).map(([k, v]) => `${k} ×${String(v)}`),
  ].join(', ');
  const lines = [
    `relay-doctor: ${t("receipt, according to the gateway's log: {0}", r.matchText)}`,
    `  ${t('model: requested {0}, billed {1}', r.requestedModel ?? '-', r.billedModel)}`,
    ...(r.upstreamModel ? [`  ${t("the gateway's log says the call went to {0}", r.upstreamModel)}`] : []),
    `  ${t('tokens: {0} in, {1} out, {2} cache read, {3} cache write', tk.prompt, tk.completion, tk.cacheRead, tk.cacheWrite)}`,
    `  ${t('charge: {0} ({1} quota), group {2}', r.charge.text, r.charge.quota, r.group ?? '-')}`,
    ...(ratios ? [`  ${t('ratios recorded: {0}', ratios)}`] : []),
    `  ${t('time: {0} s at the gateway, first response {1}, {2} ms here', r.latency.useTimeS, r.latency.firstResponseMs !== undefined ? `${r.latency.firstResponseMs} ms` : '-', r.latency.clientMs ?? '-')}`,
    `  ${t('billing:')}`,
    ...r.billing.map((c) => `    ${checkName(c)} — ${checkLine(c)}`),
    `  ${t("the route the gateway's log records (says nothing about the charge):")}`,
    ...r.route.map((c) => `    ${checkName(c)} — ${checkLine(c)}`),
    `  ${receiptDisclaimer()}`,
  ];
  return `${lines.join('\n')}\n`;
}

/** Why the log cannot give this call's receipt, when a read did not answer with records. */
function unreadable(read: Awaited<ReturnType<GatewayClient['usage']['read']>>): string | undefined {
  if (read.state === 'unsupported')
    return t('This gateway does not show a token its usage log: the call has no receipt here.');
  if (read.state === 'limited')
    return t(
      "The gateway's usage log is paused by its rate limit (shared with the balance) until {0}: no receipt now; relay-doctor receipts shows it later.",
      new Date(read.until).toISOString(),
    );
  if (read.state === 'failed') return t("The gateway's usage log could not be read: {0}", read.message);
  return undefined;
}

/**
 * After a chat answer: waits for `call`'s record in the gateway's usage log (from when it is due, at most
 * RECEIPT_WAIT.reads reads within RECEIPT_WAIT.ms) and prints its receipt on stderr; or why there is none.
 * Never throws for the receipt's sake: the answer was given, and the exit code stays the chat's.
 */
export async function chatReceipt(
  client: GatewayClient,
  call: ReceiptCall | undefined,
  io: Pick<CliIo, 'stderr'>,
): Promise<void> {
  const say = (s: string) => void io.stderr.write(`relay-doctor: ${s}\n`);
  if (!call) return say(t('no receipt: the call was not recorded.'));
  const end = Date.parse(call.time) + call.durationMs;
  const deadline = end + RECEIPT_WAIT.ms;
  say(t("waiting up to {0} s for the gateway's record of this call…", RECEIPT_WAIT.ms / 1000));
  let next = end + USAGE_LOG_TIMING.graceMs;
  for (let reads = 1; ; reads++) {
    await sleep(Math.max(0, next - Date.now()));
    try {
      const read = await client.usage.read();
      const why = unreadable(read);
      if (why) return say(why);
      if (read.state !== 'ok') return;
      const [m] = matchCalls([call], read.records);
      if (m.record) {
        const prices = await client.account.priceList();
        return void io.stderr.write(fullReceipt(receiptOf(m.record, { prices, units: read.units }, call, m.match)));
      }
    } catch (e) {
      return say(t('no receipt: {0}', e instanceof Error ? e.message : String(e)));
    }
    // The log is read at most once a minute: the next read, if it still falls within the wait.
    next = Date.now() + USAGE_LOG_TIMING.minIntervalMs;
    if (reads >= RECEIPT_WAIT.reads || next > deadline)
      return say(
        t(
          "No record of this call in the gateway's log yet ({0} reads in {1} s): its receipt is not available now; relay-doctor receipts shows it once the gateway has written it.",
          reads,
          Math.round((Date.now() - end) / 1000),
        ),
      );
  }
}
