/**
 * The Usage view's host side, over fixtures through its UsageSource: the gateway's log with the
 * "sent from here" marks, the once-a-minute rule and the rate limit (reads counted), the estimate
 * path on gateways without the log (priced from /api/pricing, labelled), the CSV of the rows shown,
 * and the page's strict CSP.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ModelPrice, Units } from '../../src/gateway';
import type { UsageLogRead, UsageRecord } from '../../src/gateway/economy/usageTypes';
import type { LoggedRequest } from '../../src/host/usage/localLog';
import { estimateRecords, usageCsv, type UsageSource } from '../../src/host/usage/usageData';
import { usageHtml, usageStrings } from '../../src/host/usage/usageHtml';
import { UsageViewModel } from '../../src/host/usage/usageView';
import { receiptOf, type ReceiptCall } from '../../src/gateway/economy/receipts';
import { callReceipt } from '../../src/host/usage/receiptBook';
import type { CallReceipt } from '../../src/host/usage/receiptSource';
import type { UsageViewState } from '../../src/shared/usageProtocol';

const NOW = Date.UTC(2026, 10, 24, 12, 0);
const units: Units = { quotaPerUnit: 500_000, display: 'USD', usdExchangeRate: 7.3, customSymbol: '¤', customRate: 1 };

function rec(over: Partial<UsageRecord>): UsageRecord {
  return {
    time: NOW - 60_000,
    kind: 'consume',
    model: 'gpt-4o-mini',
    quota: 150,
    cost: { amount: 0.0003, unit: 'USD' },
    promptTokens: 120,
    completionTokens: 30,
    useTimeS: 2,
    firstResponseMs: 340,
    stream: true,
    tokenName: 'vscode',
    group: 'default',
    requestId: undefined,
    requestPath: '/v1/chat/completions',
    other: undefined,
    ...over,
  };
}

function local(over: Partial<LoggedRequest>): LoggedRequest {
  return {
    time: new Date(NOW - 120_000).toISOString(),
    surface: 'compatible',
    capability: 'chat',
    host: 'gw.example',
    method: 'POST',
    path: '/v1/chat/completions',
    model: 'gpt-4o-mini',
    status: 200,
    errorKind: undefined,
    durationMs: 812,
    maskedToken: 'sk-abc...wxyz',
    requestId: undefined,
    attempt: 1,
    stream: true,
    ...over,
  };
}

const prices = new Map<string, ModelPrice>([
  ['gpt-4o-mini', { model: 'gpt-4o-mini', input: 0.15, output: 0.6, unit: 'USD', groups: ['default'], dynamic: false }],
  ['gpt-image-1', { model: 'gpt-image-1', perCall: 0.04, unit: 'USD', groups: ['default'], dynamic: false }],
]);

/** A source over fixture reads: the newest successful one is the log shown (as the receipt book keeps it). */
function source(reads: UsageLogRead[], localRecords: LoggedRequest[] = []) {
  const calls = { log: 0 };
  let lastOk: Extract<UsageLogRead, { state: 'ok' }> | undefined;
  const s: UsageSource = {
    readLog: () => {
      calls.log++;
      const read = reads.length > 1 ? reads.shift()! : reads[0]!;
      if (read.state === 'ok') lastOk = read;
      return Promise.resolve(read);
    },
    lastLog: () => lastOk,
    local: () => localRecords,
    host: () => 'gw.example',
    prices: () => Promise.resolve(prices),
    units: () => Promise.resolve(units),
  };
  return { s, calls };
}

/** The call a record stands for, as made from here. */
const local0 = (r: UsageRecord): ReceiptCall => ({
  time: new Date(r.time - 1000).toISOString(),
  model: r.model,
  requestId: r.requestId,
  maskedToken: 'sk-abc...wxyz',
  stream: r.stream,
  durationMs: 1000,
  surface: 'compatible',
  usage: { promptTokens: r.promptTokens, completionTokens: r.completionTokens },
});

function model(s: UsageSource, clock: { now: number }) {
  const states: UsageViewState[] = [];
  const m = new UsageViewModel(s, {
    now: () => clock.now,
    utcOffsetMin: () => 0,
    lang: 'en',
    onState: (x) => states.push(x),
  });
  return { m, states };
}

test('the gateway log: rows in its unit, "sent from here" by request id, totals and both charts', async () => {
  const records = [
    rec({ requestId: 'req-ours', cost: { amount: 0.5, unit: 'USD' } }),
    rec({ requestId: 'req-other', model: 'gpt-image-1', cost: { amount: 0.04, unit: 'USD' }, stream: false }),
    rec({ time: NOW - 3 * 86_400_000, requestId: undefined, cost: { amount: 1, unit: 'USD' } }),
  ];
  const { s } = source([{ state: 'ok', records, readAt: NOW, units }], [local({ requestId: 'req-ours' })]);
  const { m, states } = model(s, { now: NOW });
  await m.refresh();
  const st = states.at(-1)!;
  assert.equal(st.source, 'log');
  assert.equal(st.unit, 'USD');
  assert.deepEqual(
    st.rows.map((r) => [r.model, r.fromHere, r.costText]),
    [
      ['gpt-4o-mini', true, '$0.50'],
      ['gpt-image-1', false, '$0.04'],
      ['gpt-4o-mini', false, '$1.00'],
    ],
  );
  assert.equal(st.rows[0]!.latencyMs, 2000);
  assert.equal(st.rows[0]!.latencyText, '2 s', 'the gateway counts whole seconds');
  assert.equal(st.rows[0]!.firstResponseMs, 340);
  assert.equal(st.totals.today.text, '$0.54');
  assert.equal(st.totals.last7Days.text, '$1.54');
  assert.equal(st.perDay.length, 4);
  assert.deepEqual(
    st.perModel.map((p) => p.model),
    ['gpt-4o-mini', 'gpt-image-1'],
  );
  assert.match(st.status, /read at/);
  assert.ok(st.nextReadAt && st.nextReadAt === NOW + 60_000);
});

test('reads at most once a minute, one at a time, and not while rate-limited', async () => {
  const ok: UsageLogRead = { state: 'ok', records: [rec({})], readAt: NOW, units };
  const { s, calls } = source([ok, { state: 'limited', until: NOW + 10 * 60_000 }, ok]);
  const clock = { now: NOW };
  const { m, states } = model(s, clock);
  await Promise.all([m.refresh(), m.refresh(), m.refresh()]);
  assert.equal(calls.log, 1, 'one read shared');
  clock.now += 30_000;
  await m.refresh();
  assert.equal(calls.log, 1, 'not again within a minute');
  assert.match(states.at(-1)!.status, /read at/);
  assert.equal(states.at(-1)!.nextReadAt, NOW + 60_000);
  clock.now = NOW + 61_000;
  await m.refresh();
  assert.equal(calls.log, 2);
  const limited = states.at(-1)!;
  assert.equal(limited.source, 'log', 'the last good read stays on screen');
  assert.match(limited.status, /rate-limited until/);
  assert.equal(limited.nextReadAt, NOW + 10 * 60_000);
  clock.now = NOW + 5 * 60_000;
  await m.refresh();
  assert.equal(calls.log, 2, 'no read before the limit ends');
  clock.now = NOW + 10 * 60_000 + 1;
  await m.refresh();
  assert.equal(calls.log, 3);
});

test('a gateway without the log: an estimate from the local requests of this gateway, priced where known', async () => {
  const mine = [
    local({ usage: { promptTokens: 1_000_000, completionTokens: 100_000 } }), // 0.15 + 0.06
    local({ model: 'gpt-image-1', path: '/v1/images/generations', capability: 'image', stream: false }),
    local({ model: 'mystery-model', usage: { promptTokens: 10, completionTokens: 5 } }),
    local({ status: 400, errorKind: 'bad_request' }),
    local({ host: 'other.example' }),
    local({ capability: 'models', path: '/v1/models', model: undefined }),
  ];
  const { s } = source([{ state: 'unsupported' }], mine);
  const { m, states } = model(s, { now: NOW });
  await m.refresh();
  const st = states.at(-1)!;
  assert.equal(st.source, 'estimate');
  assert.match(st.status, /estimate/);
  assert.equal(st.nextReadAt, undefined, 'nothing to wait for: the estimate reads nothing rate-limited');
  assert.deepEqual(
    st.rows.map((r) => [r.model, r.costText, r.error, r.fromHere]),
    [
      ['gpt-4o-mini', '$0.00', true, true],
      ['mystery-model', '', false, true],
      ['gpt-image-1', '≈ $0.04', false, true],
      ['gpt-4o-mini', '≈ $0.21', false, true],
    ],
  );
  assert.equal(st.rows[3]!.tokensIn, 1_000_000);
  assert.equal(st.rows[3]!.latencyText, '812 ms', 'the local log counts milliseconds');
  assert.equal(st.rows[2]!.tokensIn, undefined, 'an image answer without usage has no token counts');
  assert.equal(st.totals.today.text, '$0.25');
  assert.equal(st.totals.today.requests, 4);
});

test('estimateRecords: CNY prices stay in their unit; a dynamic price is unknown', () => {
  const cny = new Map<string, ModelPrice>([
    ['m', { model: 'm', input: 1, output: 2, unit: 'CNY', groups: [], dynamic: false }],
    ['tiered', { model: 'tiered', unit: 'CNY', groups: [], dynamic: true }],
  ]);
  const out = estimateRecords(
    [
      local({ model: 'm', usage: { promptTokens: 1_000_000, completionTokens: 1_000_000 } }),
      local({ model: 'tiered', usage: { promptTokens: 1, completionTokens: 1 } }),
    ],
    'gw.example',
    cny,
    { ...units, display: 'CNY' },
  );
  assert.deepEqual(out[1]!.cost, { amount: 3, unit: 'CNY' });
  assert.ok(Number.isNaN(out[0]!.cost.amount));
});

test('CSV: the rows shown in their order, quoted, spreadsheet formulas defused, estimate column', async () => {
  const { s } = source([
    {
      state: 'ok',
      records: [rec({ model: '=HYPERLINK("x")', group: 'a,b' }), rec({ model: 'plain', stream: false })],
      readAt: NOW,
      units,
    },
  ]);
  const { m } = model(s, { now: NOW });
  await m.refresh();
  const csv = m.csv([1, 0])!;
  const lines = csv.split('\r\n');
  assert.equal(
    lines[0],
    'time,model,tokens_in,tokens_out,cost,unit,latency_ms,first_response_ms,stream,group,from_here,error,estimate,receipt',
  );
  assert.equal(lines[1], '2026-11-24T11:59:00.000Z,plain,120,30,0.0003,USD,2000,340,false,default,false,false,false,');
  assert.equal(
    lines[2],
    `2026-11-24T11:59:00.000Z,"'=HYPERLINK(""x"")",120,30,0.0003,USD,2000,340,true,"a,b",false,false,false,`,
  );
  assert.equal(lines.length, 4);
  assert.equal(usageCsv(m.state()!, [99]).split('\r\n').length, 2, 'an index out of range is skipped');
});

test('the page: nonce script only, no inline script or style, the words escaped into data-strings', () => {
  const html = usageHtml({
    cspSource: 'vscode-resource:',
    scriptUri: 'vscode-resource:/dist/usage.js',
    styleUri: 'vscode-resource:/media/usage.css',
    strings: { ...usageStrings(), title: 'A "quoted" <title>' },
    nonce: 'abc123',
  });
  const csp = /content="([^"]*)"/.exec(html)![1]!;
  assert.match(csp, /script-src 'nonce-abc123'/);
  assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
  assert.match(csp, /default-src 'none'/);
  assert.doesNotMatch(html, /<script nonce="abc123">/, 'no inline script');
  assert.match(html, /<script nonce="abc123" src="vscode-resource:\/dist\/usage.js">/);
  assert.doesNotMatch(html, /<title>A "quoted"/);
});

test('a minute of counted code completions: each request counted, priced and marked as sent from here', async () => {
  const minute: LoggedRequest = local({
    purpose: 'completion',
    path: '/v1/completions',
    stream: false,
    count: 150,
    requestIds: ['req-c1', 'req-c2'],
    usage: { promptTokens: 1_000_000, completionTokens: 100_000 }, // summed: 0.15 + 0.06
  });
  const { s } = source([{ state: 'unsupported' }], [minute]);
  const { m, states } = model(s, { now: NOW });
  await m.refresh();
  const est = states.at(-1)!;
  assert.deepEqual(
    est.rows.map((r) => [r.model, r.costText, r.tokensIn]),
    [['gpt-4o-mini (150 code completions)', '≈ $0.21', 1_000_000]],
  );
  assert.equal(est.totals.today.requests, 150, 'every request of the minute is counted');
  const perCall = estimateRecords([{ ...minute, model: 'gpt-image-1' }], 'gw.example', prices, units);
  assert.equal(perCall[0]!.cost.amount, 0.04 * 150, 'a price per call, times the calls');
  // the gateway's log: its rows of those completions are marked as sent from here
  const logged = [rec({ requestId: 'req-c2' }), rec({ requestId: 'req-other' })];
  const withLog = source([{ state: 'ok', records: logged, readAt: NOW, units }], [minute]);
  const view = model(withLog.s, { now: NOW });
  await view.m.refresh();
  assert.deepEqual(
    view.states.at(-1)!.rows.map((r) => r.fromHere),
    [true, false],
  );
});

test('receipts: a mark per reconciled row (none on the estimate), the summary over the newest calls with the median input ratio', async () => {
  const mapped = rec({ requestId: 'req-1', other: { is_model_mapped: true, upstream_model_name: 'cheap-mini' } });
  const plain = rec({ requestId: 'req-2' });
  const unreconciled = rec({ requestId: 'req-3' });
  const counted = (r: UsageRecord, local: number): CallReceipt =>
    callReceipt(
      receiptOf(r, {}, { ...local0(r), localInput: { tokens: local, tokenizer: 'o200k_base' } }, { by: 'request-id' }),
    );
  const byRecord = new Map<UsageRecord, CallReceipt>([
    [mapped, counted(mapped, 100)],
    [plain, counted(plain, 60)],
  ]);
  const { s } = source([{ state: 'ok', records: [mapped, plain, unreconciled], readAt: NOW, units }]);
  const { m, states } = model({ ...s, receiptOf: (r) => byRecord.get(r) }, { now: NOW });
  await m.refresh();
  const st = states.at(-1)!;
  assert.deepEqual(
    st.rows.map((r) => r.receipt?.state),
    [byRecord.get(mapped)!.billing, byRecord.get(plain)!.billing, undefined],
  );
  assert.equal(
    st.rows[0]!.receipt!.mark,
    { consistent: '✓', inconsistent: '!', 'not-checkable': '–' }[st.rows[0]!.receipt!.state],
  );
  const lines = st.receipts!.lines.map((l) => l.text);
  assert.equal(st.receipts!.title, "Receipts of the last 2 calls, according to the gateway's log");
  // billed 120 against 100 and 60 counted here: ×1.2 and ×2, the median ×1.60
  assert.equal(
    lines[2],
    'Median input tokens billed against a local count: ×1.60 over 2 calls (tokenizer o200k_base, tolerance ±5 %).',
  );
  assert.equal(lines[1], 'Model redirects recorded by the gateway: 1 (gpt-4o-mini → cheap-mini).');
  // the estimate has no receipts: no column, no summary
  const est = source([{ state: 'unsupported' }], [local({})]);
  const view = model({ ...est.s, receiptOf: () => byRecord.get(plain) }, { now: NOW });
  await view.m.refresh();
  assert.equal(view.states.at(-1)!.rows[0]!.receipt, undefined);
  assert.equal(view.states.at(-1)!.receipts, undefined);
});

test('receipts: about the same excess of input tokens on most calls is said as such, with its possible causes (a constant excess, §7.5)', async () => {
  // each record bills 120 input tokens; counted here: 80, 80, 81, 79 and 200
  const records = [80, 80, 81, 79, 200].map((_, i) => rec({ requestId: `req-${i}` }));
  const byRecord = new Map<UsageRecord, CallReceipt>(
    records.map((r, i) => [
      r,
      callReceipt(
        receiptOf(
          r,
          {},
          { ...local0(r), localInput: { tokens: [80, 80, 81, 79, 200][i], tokenizer: 'o200k_base' } },
          { by: 'request-id' },
        ),
      ),
    ]),
  );
  const { s } = source([{ state: 'ok', records, readAt: NOW, units }]);
  const { m, states } = model({ ...s, receiptOf: (r) => byRecord.get(r) }, { now: NOW });
  await m.refresh();
  const line = states.at(-1)!.receipts!.lines[2]!;
  assert.deepEqual(line, {
    text: "According to the gateway's log, about 40 more input tokens per call were billed than this client sent, in 4 of 5 calls with a local count (tokenizer o200k_base); causes include a provider system prompt, wrapping, or a different tokenizer.",
    warn: true,
  });
});
