/**
 * The inline-completion engine's pauses (issue 25), as tables over a fake clock: the spending cap
 * (cost with a known price, tokens without), a failing gateway (401/403/404/429/5xx, classified by the
 * core's own error builder) paused with its cause and fix and asked again only after a back-off, and
 * the state reported once per change.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { errorFromResponse, GatewayError } from '../../src/gateway';
import { errorSummary } from '../../src/host/errorWords';
import { BACKOFF } from '../../src/host/completions/pauses';
import { Rig, type Editor } from './completionRig';

/** Types one character and waits out the wait and the reply. */
async function keystroke(rig: Rig, ed: Editor, ch = 'x') {
  void ed.type(ch);
  return rig.settleAll(ed, 700);
}

test('the spending cap: paused with one notice when the last hour reaches it, no requests, resumed as the hour moves on', async () => {
  // each request: 100 input + 10 output tokens
  const table: Array<{
    name: string;
    settings: Partial<Rig['settings']>;
    price?: { input: number; output: number };
    /** requests sent before the pause */
    allowed: number;
    cause: RegExp;
    fix: RegExp;
  }> = [
    {
      name: 'cost, price known: $0.0011 a request, cap $0.005',
      settings: { maxCostPerHour: 0.005 },
      price: { input: 0.00001, output: 0.00001 },
      allowed: 5,
      cause: /cost \$0\.0055 in the last hour, which reaches the limit of \$0\.0050 an hour/,
      fix: /maxCostPerHour/,
    },
    {
      name: 'tokens, price unknown: 110 a request, cap 300',
      settings: { maxTokensPerHour: 300 },
      allowed: 3,
      cause: /used 330 tokens in the last hour, which reaches the limit of 300 tokens/,
      fix: /maxTokensPerHour/,
    },
    {
      name: 'a known price without a cost cap: no token cap either',
      settings: { maxTokensPerHour: 300 },
      price: { input: 0.00001, output: 0.00001 },
      allowed: 12,
      cause: /^$/,
      fix: /^$/,
    },
  ];
  for (const row of table) {
    const rig = new Rig(row.settings);
    if (row.price) rig.prices['deepseek-chat'] = row.price;
    const ed = rig.editor();
    for (let i = 0; i < 12; i++) await keystroke(rig, ed);
    assert.equal(rig.client.requests.length, row.allowed, `${row.name}: requests`);
    const paused = rig.states.filter((s) => s.kind === 'paused-cap');
    if (row.allowed === 12) {
      assert.equal(paused.length, 0, row.name);
      continue;
    }
    assert.equal(paused.length, 1, `${row.name}: one notice`);
    const st = rig.engine.state();
    assert.equal(st.kind, 'paused-cap');
    assert.match((st as { cause: string }).cause, row.cause, row.name);
    assert.match((st as { fix: string }).fix, row.fix, row.name);
    // the cache still answers (it costs nothing): back to the last context asked for
    await ed.backspace(12 - row.allowed);
    assert.equal((await ed.last)?.source, 'cache', `${row.name}: the cache still answers`);
    // an hour (and the minute) later, the spending has left the window
    await rig.clock.advance(61 * 60_000);
    await keystroke(rig, ed, 'y');
    assert.equal(rig.client.requests.length, row.allowed + 1, `${row.name}: resumed`);
    assert.equal(rig.engine.state().kind, 'on');
  }
});

test('the spending cap is lifted at once by a higher cap (settings change)', async () => {
  const rig = new Rig({ maxTokensPerHour: 200 });
  const ed = rig.editor();
  for (let i = 0; i < 4; i++) await keystroke(rig, ed);
  assert.equal(rig.client.requests.length, 2);
  assert.equal(rig.engine.state().kind, 'paused-cap');
  rig.settings = { ...rig.settings, maxTokensPerHour: 10_000 };
  rig.engine.reset();
  assert.equal(rig.engine.state().kind, 'on');
  await keystroke(rig, ed);
  assert.equal(rig.client.requests.length, 3);
  assert.equal(rig.engine.stats().tokens, 330, 'the hour is kept across a reset');
});

test('an aborted request counts its prompt towards the cap (the gateway may have billed it)', async () => {
  const rig = new Rig({ maxTokensPerHour: 10_000 });
  const ed = rig.editor();
  void ed.type('m');
  await rig.clock.advance(200);
  void ed.type('a');
  await rig.clock.advance(0);
  const st = rig.engine.stats();
  assert.equal(st.aborted, 1);
  assert.ok(st.tokens > 0, `${st.tokens}`);
});

const gatewayError = (status: number, headers: Record<string, string> = {}) =>
  errorFromResponse({
    status,
    headers,
    body: JSON.stringify({ error: { message: `status ${status}`, type: 'x' } }),
    context: { model: 'deepseek-chat' },
  });

test('a failing gateway: one paused state with its cause and fix, no retry per keystroke, asked again after the back-off', async () => {
  const table: Array<[number, Record<string, string>, number]> = [
    [401, {}, BACKOFF.configMs],
    [403, {}, BACKOFF.configMs],
    [404, {}, BACKOFF.configMs],
    [429, {}, BACKOFF.firstMs],
    [429, { 'retry-after': '120' }, 120_000],
    [500, {}, BACKOFF.firstMs],
    [502, {}, BACKOFF.firstMs],
  ];
  for (const [status, headers, backoff] of table) {
    const name = `HTTP ${status}${headers['retry-after'] ? ' with Retry-After' : ''}`;
    const rig = new Rig();
    const err = gatewayError(status, headers);
    rig.client.failWith = () => err;
    const ed = rig.editor();
    assert.equal(await keystroke(rig, ed), undefined);
    const st = rig.engine.state();
    assert.deepEqual(st, { kind: 'paused-error', cause: errorSummary(err), fix: err.fix }, name);
    // typing on: no request while the back-off runs
    for (let i = 0; i < 20; i++) await keystroke(rig, ed);
    assert.equal(rig.client.requests.length, 1, `${name}: no retry per keystroke`);
    await rig.clock.advance(backoff - 20 * 700 - 700 - 1);
    await keystroke(rig, ed);
    assert.equal(rig.client.requests.length, 1, `${name}: not before ${backoff} ms`);
    // after the back-off: one request; it succeeds, suggestions resume
    rig.client.failWith = undefined;
    await rig.clock.advance(1000);
    const s = await keystroke(rig, ed);
    assert.equal(rig.client.requests.length, 2, name);
    assert.equal(s?.source, 'network', name);
    assert.deepEqual(
      rig.states.map((x) => x.kind),
      ['paused-error', 'on'],
      `${name}: the state told once per change`,
    );
  }
});

test('the back-off doubles while the gateway keeps failing; a reset (token or settings change) lifts it', async () => {
  const rig = new Rig();
  rig.client.failWith = () => gatewayError(503);
  const ed = rig.editor();
  const sentAt: number[] = [];
  for (let i = 0; i < 600; i++) {
    const before = rig.client.requests.length;
    await keystroke(rig, ed);
    if (rig.client.requests.length > before) sentAt.push(rig.clock.now());
  }
  const gaps = sentAt.slice(1).map((t, i) => Math.round((t - sentAt[i]!) / 1000));
  // 30 s, 60 s, 120 s, 240 s (each rounded up to the next keystroke)
  assert.deepEqual(
    gaps.map((g) => [30, 60, 120, 240].find((b) => g >= b && g < b + 2)),
    [30, 60, 120, 240].slice(0, gaps.length),
  );
  assert.ok(gaps.length >= 3, `${gaps}`);
  assert.equal(rig.states.length, 1, 'one state for all those failures');
  rig.engine.reset();
  assert.equal(rig.engine.state().kind, 'on');
  rig.client.failWith = undefined;
  const before = rig.client.requests.length;
  await keystroke(rig, ed);
  assert.equal(rig.client.requests.length, before + 1, 'asked at once after the reset');
});

test('aborts are not errors, and an unexpected failure pauses with words, not a crash', async () => {
  const rig = new Rig();
  const ed = rig.editor();
  for (let i = 0; i < 5; i++) {
    void ed.type('m');
    await rig.clock.advance(200);
  }
  await rig.settleAll(ed);
  assert.equal(rig.client.aborted, 4);
  assert.deepEqual(rig.states, [], 'no state change for aborts');
  rig.client.failWith = () => new TypeError('boom');
  await keystroke(rig, ed);
  const st = rig.engine.state();
  assert.equal(st.kind, 'paused-error');
  assert.match((st as { cause: string }).cause, /boom/);
  assert.ok(!(rig.client.failWith() instanceof GatewayError));
});

test('the cap gives one notice even when replies still in flight add to the hour after it', async () => {
  const rig = new Rig({ maxTokensPerHour: 100 });
  rig.client.latencyMs = 100;
  const a = rig.editor();
  const c = rig.editor('y = ');
  c.id = 'file:///w/src/c.ts';
  void a.type('m'); // asks at 150, answered at 250: 110 tokens, the cap
  await rig.clock.advance(100);
  void c.type('n'); // asks at 250, answered at 350
  await rig.clock.advance(200);
  void a.type('o'); // 300: paused
  await rig.clock.advance(100);
  assert.equal(rig.client.answered, 2, 'c was in flight when the cap was reached');
  void a.type('p'); // 400: still paused, now 220 tokens in the hour
  await rig.clock.advance(1000);
  assert.equal(rig.client.requests.length, 2);
  assert.equal(rig.engine.state().kind, 'paused-cap');
  assert.equal(rig.states.filter((s) => s.kind === 'paused-cap').length, 1, 'one notice');
});
