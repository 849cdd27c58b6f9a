/**
 * The receipt book against the simulator's usage-log vintages: calls made through a client (its request
 * log stands for the local log), the log and the price list read through the client's own reader. Honest →
 * consistent; a dishonest overcharge → inconsistent; NA25 (no request ids) matched by time; one read for many
 * calls; no read while the log is rate-limited; a wish read again a bounded number of times; the book bounded.
 * Timers are in the test's hands (each scheduled read runs when the test says).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { UsageLogRead, UsageRecord } from '../../src/gateway/economy/usageTypes';
import type { LoggedRequest } from '../../src/host/usage/localLog';
import {
  RECEIPT_BOUNDS,
  RECEIPT_READ_DELAYS_MS,
  ReceiptBook,
  type ReceiptReader,
} from '../../src/host/usage/receiptBook';
import { useVintageSims, wordsOf } from '../gateway/receiptsFixture';
import { makeClient, type TestClient } from '../gateway/helpers';
import type { Simulator } from '../sim/server';
import { maskToken } from '../../src/gateway/mask';
import { UsageViewModel } from '../../src/host/usage/usageView';
import { clock as clockText, type UsageSource } from '../../src/host/usage/usageData';
import type { UsageViewState } from '../../src/shared/usageProtocol';

const sims = useVintageSims();

/** Timers the test runs by hand. */
function timers() {
  const pending: Array<{ fn: () => void; ms: number; gone: boolean }> = [];
  return {
    timer: (fn: () => void, ms: number) => {
      const t = { fn, ms, gone: false };
      pending.push(t);
      return { dispose: () => void (t.gone = true) };
    },
    live: () => pending.filter((t) => !t.gone),
    /** runs the timers due now (each once), and lets their reads finish */
    async run() {
      const due = pending.filter((t) => !t.gone);
      for (const t of due) t.gone = true;
      for (const t of due) t.fn();
      await new Promise((r) => setTimeout(r, 300));
    },
  };
}

function bookOf(sim: Simulator, tc: TestClient, clock: { ahead: number }, t = timers()) {
  const reader: ReceiptReader = {
    host: new URL(tc.client.endpoints().base!).host,
    read: () => tc.client.usage.read(),
    priceList: () => tc.client.account.priceList(),
    maskedToken: () => Promise.resolve(maskToken(sim.tokens.production)),
  };
  const book = new ReceiptBook({
    readerOf: () => reader,
    local: () => tc.records as LoggedRequest[],
    now: () => Date.now() + clock.ahead,
    timer: t.timer,
  });
  return { book, t };
}

async function chats(tc: TestClient, n: number) {
  for (let i = 0; i < n; i++)
    await tc.client.chat({
      surface: 'compatible',
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: wordsOf(5 + i, `m${i}`) }],
    });
  return tc.records.filter((r) => r.method === 'POST' && r.status === 200);
}

/** A client whose clock is the book's: a minute passes for the reader when the test says. */
const makeTc = (sim: Simulator, clock: { ahead: number }) => makeClient(sim, { now: () => Date.now() + clock.ahead });

test('an honest gateway: many calls, one read of the log a few seconds after the last, every receipt consistent', async () => {
  const sim = sims.NA26;
  const clock = { ahead: 0 };
  const tc = makeTc(sim, clock);
  const { book, t } = bookOf(sim, tc, clock);
  const calls = await chats(tc, 5);
  let changes = 0;
  book.onDidChange(() => changes++);
  const before = sim.criticalRequests();
  for (const c of calls) book.want(c);
  assert.equal(sim.criticalRequests(), before, 'nothing is read per request');
  assert.deepEqual(
    t.live().map((x) => x.ms),
    [RECEIPT_READ_DELAYS_MS[0]],
    'one read scheduled for all the calls',
  );
  await t.run();
  assert.equal(sim.criticalRequests() - before, 1, 'one read of the log for five calls');
  for (const c of calls) {
    const r = book.find(c);
    assert.ok(r, 'each call has its receipt');
    assert.equal(r.billing, 'consistent');
    assert.equal(r.receipt.match.by, 'request-id');
  }
  assert.equal(changes, 1);
  assert.equal(t.live().length, 0, 'every wish answered: no read is left scheduled');
  book.dispose();
});

test('NA25 (no request ids in the log): the calls are matched by time, token and model', async () => {
  const sim = sims.NA25;
  const clock = { ahead: 0 };
  const tc = makeTc(sim, clock);
  const { book, t } = bookOf(sim, tc, clock);
  const calls = await chats(tc, 2);
  for (const c of calls) book.want(c);
  await t.run();
  for (const c of calls) {
    const r = book.find({ time: c.time, model: c.model, requestId: c.requestId, host: c.host });
    assert.ok(r);
    assert.equal(r.receipt.match.by, 'time');
    assert.match(r.receipt.matchText, /^Matched by time, token and model/);
    assert.equal(r.billing, 'consistent');
  }
  book.dispose();
});

test('a dishonest overcharge (a higher ratio recorded as charged): the receipt is inconsistent', async () => {
  const sim = sims.NA26;
  sim.config.dishonest = { overcharge: { factor: 1.5, recorded: 'charged' } };
  const clock = { ahead: 0 };
  const tc = makeTc(sim, clock);
  const { book, t } = bookOf(sim, tc, clock);
  const [c] = await chats(tc, 1);
  book.want(c);
  await t.run();
  const r = book.find(c)!;
  assert.equal(r.billing, 'inconsistent');
  assert.equal(r.receipt.billing.find((x) => x.id === 'price-list')?.state, 'inconsistent');
  book.dispose();
});

test('a read the Usage view makes through the book serves the wishes: no read of its own', async () => {
  const sim = sims.NA26;
  const clock = { ahead: 0 };
  const tc = makeTc(sim, clock);
  const { book, t } = bookOf(sim, tc, clock);
  const [c] = await chats(tc, 1);
  book.want(c);
  const before = sim.criticalRequests();
  const read = await book.read({ gateway: undefined, host: c.host });
  assert.equal(read.state, 'ok');
  assert.ok(book.find(c), 'found by the view’s read');
  assert.ok(read.state === 'ok' && book.ofRecord(read.records[0]), 'each record of the read has its receipt');
  await t.run();
  assert.equal(sim.criticalRequests() - before, 1, 'the wish asked nothing more');
  book.dispose();
});

test('never while rate-limited: nothing is asked, and the next try is set after the limit ends', async () => {
  const sim = sims.NA26;
  sim.config.criticalRateLimit = { max: 1, windowMs: 60_000 };
  try {
    const clock = { ahead: 0 };
    const tc = makeTc(sim, clock);
    const { book, t } = bookOf(sim, tc, clock);
    const calls = await chats(tc, 2);
    assert.equal((await book.read({ gateway: undefined, host: calls[0].host })).state, 'ok');
    clock.ahead += 61_000;
    // the second read is refused (429): the log is limited
    const limited = await tc.client.usage.read();
    assert.equal(limited.state, 'limited');
    // fed to the book by the view's next read (answered without asking while the budget is paused)
    const seen = await book.read({ gateway: undefined, host: calls[0].host });
    assert.equal(seen.state, 'limited');
    const until = (seen as Extract<UsageLogRead, { state: 'limited' }>).until;
    const before = sim.criticalRequests();
    book.want({ ...calls[1], requestId: 'not-yet-logged' });
    for (let i = 0; i < 3; i++) await t.run();
    assert.equal(sim.criticalRequests(), before, 'nothing asked while limited');
    const next = t.live();
    assert.equal(next.length, 1);
    assert.ok(Date.now() + clock.ahead + next[0].ms >= until, 'the next try is after the limit');
    book.dispose();
  } finally {
    sim.config.criticalRateLimit = { max: 20, windowMs: 20 * 60_000 };
  }
});

/** A fake gateway: its reads counted, its records given by the test. */
function fakeReader(records: () => UsageRecord[]) {
  const n = { reads: 0 };
  const reader: ReceiptReader = {
    host: 'gw.example',
    read: () => {
      n.reads++;
      return Promise.resolve({ state: 'ok', records: records(), readAt: Date.now(), units: undefined });
    },
    priceList: () => Promise.resolve(undefined),
  };
  return { reader, n };
}

const NOW = Date.UTC(2026, 10, 24, 12, 0);
function localCall(i: number): LoggedRequest {
  return {
    time: new Date(NOW + i * 1000).toISOString(),
    surface: 'compatible',
    capability: 'chat',
    host: 'gw.example',
    method: 'POST',
    path: '/v1/chat/completions',
    model: 'gpt-4o-mini',
    status: 200,
    errorKind: undefined,
    durationMs: 500,
    maskedToken: 'sk-abc...wxyz',
    requestId: `req-${i}`,
    attempt: 1,
    stream: false,
  };
}
function record(i: number): UsageRecord {
  return {
    time: NOW + i * 1000 + 1000,
    kind: 'consume',
    model: 'gpt-4o-mini',
    quota: 150,
    cost: { amount: 0.0003, unit: 'USD' },
    promptTokens: 10,
    completionTokens: 5,
    useTimeS: 1,
    firstResponseMs: undefined,
    stream: false,
    tokenName: 'vscode',
    group: 'default',
    requestId: `req-${i}`,
    requestPath: '/v1/chat/completions',
    other: undefined,
  };
}

test('a record not there yet: read again later, a bounded number of times, then the wish is dropped', async () => {
  const { reader, n } = fakeReader(() => []);
  const t = timers();
  const book = new ReceiptBook({ readerOf: () => reader, local: () => [localCall(0)], now: () => NOW, timer: t.timer });
  book.want(localCall(0));
  for (let i = 0; i < 6; i++) await t.run();
  assert.equal(n.reads, RECEIPT_READ_DELAYS_MS.length);
  assert.equal(t.live().length, 0);
});

test('calls in a burst move the first read on, but no further than half a minute after the first', async () => {
  const { reader, n } = fakeReader(() => []);
  const t = timers();
  let now = NOW;
  const book = new ReceiptBook({ readerOf: () => reader, local: () => [], now: () => now, timer: t.timer });
  for (let i = 0; i < 40; i++, now += 2_000) book.want(localCall(i));
  assert.equal(t.live().length, 1, 'one read pending');
  assert.equal(n.reads, 0);
});

test('inline completions aggregated per minute: one receipt per request id kept', async () => {
  const agg: LoggedRequest = {
    ...localCall(0),
    purpose: 'completion',
    count: 3,
    requestId: undefined,
    requestIds: ['req-0', 'req-1', 'req-2'],
  };
  const { reader } = fakeReader(() => [2, 1, 0].map(record));
  const book = new ReceiptBook({ readerOf: () => reader, local: () => [agg], now: () => NOW, timer: timers().timer });
  await book.read({ gateway: undefined, host: 'gw.example' });
  for (const id of agg.requestIds!) assert.equal(book.find({ ...agg, requestId: id })?.receipt.match.by, 'request-id');
});

test(`bounded: at most ${RECEIPT_BOUNDS.calls} calls' receipts per gateway, the oldest dropped`, async () => {
  const n = RECEIPT_BOUNDS.calls + 500;
  const local = Array.from({ length: n }, (_, i) => localCall(i));
  const { reader } = fakeReader(() => Array.from({ length: n }, (_, i) => record(n - 1 - i)));
  const book = new ReceiptBook({ readerOf: () => reader, local: () => local, now: () => NOW, timer: timers().timer });
  await book.read({ gateway: undefined, host: 'gw.example' });
  assert.equal(book.find(local[0]), undefined, 'the oldest calls are not kept');
  assert.ok(book.find(local[n - 1]));
  const kept = local.filter((c) => book.find(c)).length;
  assert.equal(kept, RECEIPT_BOUNDS.calls);
});

/**
 * The Usage view over the book (as the panel wires it): its reads go through the book, its rows are the book's
 * newest read and carry the receipts, and it follows the book's changes.
 */
async function usageViewOver(tc: TestClient, book: ReceiptBook, host: string) {
  const states: UsageViewState[] = [];
  const source: UsageSource = {
    readLog: () => book.read({ gateway: undefined, host }),
    lastLog: () => book.lastLog(host),
    receiptOf: (r) => book.ofRecord(r),
    local: () => tc.records as LoggedRequest[],
    host: () => host,
    prices: () => tc.client.account.pricing(),
    units: async () => (await tc.client.account.status())?.units,
  };
  const m = new UsageViewModel(source, { lang: 'en', onState: (s) => states.push(s) });
  book.onDidChange(() => m.localChanged());
  await m.refresh();
  return { st: states.at(-1)!, m, states };
}

test('the Usage view: a dishonest overcharge is inconsistent in its row (the reason on hover), its summary and its CSV', async () => {
  const sim = sims.NA26;
  const clock = { ahead: 0 };
  const tc = makeTc(sim, clock);
  const { book } = bookOf(sim, tc, clock);
  const calls = await chats(tc, 2);
  sim.config.dishonest = { overcharge: { factor: 1.5, recorded: 'charged' } };
  await chats(tc, 1);
  const { st, m } = await usageViewOver(tc, book, calls[0].host);
  assert.deepEqual(
    st.rows.map((r) => [r.receipt?.mark, r.receipt?.state]),
    [
      ['!', 'inconsistent'],
      ['✓', 'consistent'],
      ['✓', 'consistent'],
    ],
  );
  assert.match(st.rows[0].receipt!.title, /^Receipt: inconsistent\n/);
  assert.match(
    st.rows[0].receipt!.title,
    /According to the gateway's log, the ratios applied differ from the price list/,
  );
  assert.match(st.rows[1].receipt!.title, /Gateway receipt \S+, matched by request id\.$/);
  const r = st.receipts!;
  assert.equal(r.title, "Receipts of the last 3 calls, according to the gateway's log");
  assert.deepEqual(
    r.lines.map((l) => [l.text, l.warn]),
    [
      ['Consistent with the price list: 2 of 3 calls (67 %); inconsistent: 1; not checkable: 0.', true],
      ['No model redirect was recorded by the gateway (this does not show which model served the calls).', false],
      ['Input tokens against a local count: not available (no local count was made for these calls).', false],
      ['No forward to another relay was recorded by the gateway.', false],
    ],
  );
  assert.match(r.disclaimer, /No relay can currently prove which model served a request/);
  const csv = m.csv([0, 1])!.split('\r\n');
  assert.match(csv[0], /,receipt$/);
  assert.match(csv[1], /,inconsistent$/);
  assert.match(csv[2], /,consistent$/);
  for (const s of [JSON.stringify(st)]) assert.doesNotMatch(s, /verified|genuine/i);
  book.dispose();
});

test("a read the book makes for the chat panel's receipts brings the Usage view its new rows with their marks, without a read of the view's own", async () => {
  const sim = sims.NA26;
  const clock = { ahead: 0 };
  const tc = makeTc(sim, clock);
  const { book, t } = bookOf(sim, tc, clock);
  const [first] = await chats(tc, 1);
  const { states } = await usageViewOver(tc, book, first.host);
  assert.equal(states.at(-1)!.rows.length, 1);
  const calls = await chats(tc, 2);
  clock.ahead += 61_000; // the reader answers a read younger than a minute again
  const before = sim.criticalRequests();
  const shown = states.length;
  for (const c of calls.slice(1)) book.want(c);
  await t.run();
  assert.equal(sim.criticalRequests() - before, 1, "the wishes' one read, nothing more");
  assert.equal(states.length, shown + 1, 'the view follows the book once');
  const st = states.at(-1)!;
  assert.deepEqual(
    st.rows.map((r) => r.receipt?.mark),
    ['✓', '✓', '✓'],
    'the calls the chat made since are rows, with their marks',
  );
  assert.deepEqual(
    st.rows.map((r) => r.fromHere),
    [true, true, true],
  );
  const read = book.lastLog(first.host)!;
  assert.match(st.status, new RegExp(`read at ${clockText(read.readAt)}\\.$`));
  book.dispose();
});

test('the Usage view: model redirects and forwards the gateway recorded are counted in the summary', async () => {
  const sim = sims.NA26;
  sim.config.dishonest = { mapModels: { 'gpt-4o-mini': 'cheap-mini' }, forward: true };
  const clock = { ahead: 0 };
  const tc = makeTc(sim, clock);
  const { book } = bookOf(sim, tc, clock);
  const calls = await chats(tc, 2);
  const { st } = await usageViewOver(tc, book, calls[0].host);
  const lines = st.receipts!.lines;
  assert.deepEqual(lines[1], {
    text: 'Model redirects recorded by the gateway: 2 (gpt-4o-mini → cheap-mini).',
    warn: true,
  });
  assert.deepEqual(lines[3], { text: 'Forwarded to another one-api/new-api relay: 2 calls.', warn: true });
  assert.equal(lines[0].warn, false, 'a route is not a billing finding');
  book.dispose();
});

test("a read of another gateway's log (the active one changed since the wish) is not reconciled with this gateway's calls", async () => {
  const { reader } = fakeReader(() => [record(0)]);
  const book = new ReceiptBook({
    readerOf: () => ({ ...reader, host: 'other.example' }),
    local: () => [localCall(0)],
    now: () => NOW,
    timer: timers().timer,
  });
  await book.read({ gateway: undefined, host: 'gw.example' });
  assert.equal(book.find(localCall(0)), undefined);
});

test("NA25 (matched by time): a call made with another token is never matched with this token's log", async () => {
  const sim = sims.NA25;
  const clock = { ahead: 0 };
  const other = makeClient(sim, { tokenName: 'test', now: () => Date.now() + clock.ahead });
  const tc = makeTc(sim, clock);
  const [theirs] = await chats(other, 1);
  const [ours] = await chats(tc, 1);
  const { book } = bookOf(sim, { ...tc, records: [...other.records, ...tc.records] }, clock);
  await book.read({ gateway: undefined, host: ours.host });
  assert.equal(book.find(ours)?.receipt.match.by, 'time');
  assert.equal(book.find(theirs), undefined);
  book.dispose();
});
