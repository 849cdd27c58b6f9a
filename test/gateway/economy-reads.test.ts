/**
 * The account's reads over real HTTP against the simulator: only answers are kept (a failed /api/status is
 * asked again after a short back-off and the units come back; an absent route is an answer), and a shared
 * read runs on a signal of its own (one caller's abort rejects that caller only; the read stops when every
 * caller has left). The regression these guard: one failed status read kept as "no units" for an hour showed
 * a USD balance as raw quota ("Relay: production · 3.8M tokens" instead of "$7.50").
 */
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { describeQuota, isGatewayError } from '../../src/gateway';
import { ACCOUNT_RETRY, ACCOUNT_TTL } from '../../src/gateway/economy/account';
import { startSimulator, type Simulator } from '../sim/server';
import { makeClient, thrown } from './helpers';

let real: Simulator;
let strict: Simulator;
before(async () => {
  real = await startSimulator({ profile: 'real', quotaPerUnit: 500_000, displayType: 'USD' });
  strict = await startSimulator({ profile: 'strict' });
});
after(async () => {
  await real.close();
  await strict.close();
});
beforeEach(() => {
  real.reset();
  strict.reset();
});

function clocked(sim: Simulator) {
  const clock = { now: 1_800_000_000_000 };
  return { ...makeClient(sim, { now: () => clock.now }), clock };
}
const asked = (sim: Simulator, path: string) => sim.log.filter((r) => r.path === path).length;
const balanceWords = async (c: ReturnType<typeof clocked>) => {
  const q = await c.client.account.quota({ maxAgeMs: 0 });
  return q && describeQuota(q, 0, c.clock.now).short;
};

test('a failed status read is not kept: the balance read fails (no "tokens"), and the next read after the back-off has the units', async () => {
  const c = clocked(real);
  real.fault({ path: '/api/status', kind: 'reset', count: 1 });
  const e = await thrown(() => c.client.account.quota());
  assert.ok(isGatewayError(e) && e.kind === 'network', String(e));
  assert.equal(asked(real, '/api/usage/token/'), 0, 'the balance was not read without its units');
  assert.equal(c.client.account.lastQuota, undefined, 'no figure in raw quota was kept');

  // Within the back-off the gateway is not asked again.
  await thrown(() => c.client.account.status());
  assert.equal(asked(real, '/api/status'), 1);

  c.clock.now += ACCOUNT_RETRY.firstMs;
  assert.equal(await balanceWords(c), '$7.50', 'the units are back on the next read');
  assert.equal((await c.client.account.status())?.units.display, 'USD');
  assert.equal(asked(real, '/api/status'), 2, 'and kept: asked once more, not on every read');
  await c.client.account.status();
  assert.equal(asked(real, '/api/status'), 2);
});

test('the back-off doubles while the status read keeps failing, bounded by its maximum; an answer ends it', async () => {
  const c = clocked(real);
  real.fault({ path: '/api/status', kind: 'status', status: 502, body: 'html' });
  const waits: number[] = [];
  let last = c.clock.now;
  for (let i = 0; i < 10; i++) {
    await thrown(() => c.client.account.status());
    // Step in seconds until the gateway is asked again (bounded).
    const before = asked(real, '/api/status');
    for (let s = 0; s < 1_000 && asked(real, '/api/status') === before; s++) {
      c.clock.now += 1_000;
      await c.client.account.status().catch(() => undefined);
    }
    waits.push(c.clock.now - last);
    last = c.clock.now;
  }
  assert.deepEqual(
    waits.slice(0, 4),
    [1, 2, 4, 8].map((n) => n * ACCOUNT_RETRY.firstMs),
  );
  assert.ok(
    waits.every((w) => w <= ACCOUNT_RETRY.maxMs),
    `never longer than the maximum: ${waits.join(', ')}`,
  );
  assert.equal(waits.at(-1), ACCOUNT_RETRY.maxMs);
  real.clearFaults();
  c.clock.now += ACCOUNT_RETRY.maxMs;
  assert.equal((await c.client.account.status())?.units.quotaPerUnit, 500_000);
  real.fault({ path: '/api/status', kind: 'status', status: 502, body: 'html' });
  c.clock.now += ACCOUNT_TTL.status;
  assert.equal(
    (await c.client.account.status())?.units.display,
    'USD',
    'a failed refresh keeps the last answer, however old',
  );
});

test('an absent status route is an answer: kept, not asked again on every read', async () => {
  const c = clocked(strict);
  assert.equal(await c.client.account.status(), undefined);
  c.clock.now += ACCOUNT_RETRY.maxMs;
  assert.equal(await c.client.account.status(), undefined);
  assert.equal(await c.client.account.quota(), undefined);
  assert.equal(asked(strict, '/api/status'), 1);
});

test('a failed prices read is not kept either: the prices come back on the next read', async () => {
  const c = clocked(real);
  real.fault({ path: '/api/pricing', kind: 'reset', count: 1 });
  await thrown(() => c.client.account.pricing());
  c.clock.now += ACCOUNT_RETRY.firstMs;
  assert.ok((await c.client.account.pricing())?.get('gpt-4o-mini'), 'the prices on the next read');
  assert.equal(asked(real, '/api/pricing'), 2);
});

test("a shared read: the first caller's abort rejects that caller at once; the second gets the answer from the same request", async () => {
  const c = clocked(real);
  real.fault({ path: '/api/status', kind: 'latency', ms: 400 });
  const first = new AbortController();
  const one = c.client.account.status(first.signal);
  let twoSettled = false;
  const two = c.client.account.status().finally(() => (twoSettled = true));
  first.abort();
  const e = await thrown(() => one);
  assert.ok(isGatewayError(e) && e.kind === 'aborted', String(e));
  assert.equal(twoSettled, false, 'the first caller was rejected before the shared read ended');
  assert.equal((await two)?.units.display, 'USD');
  assert.equal(asked(real, '/api/status'), 1, 'one request for both');
  assert.ok(!c.records.some((r) => r.errorKind), 'the request itself was not stopped');
  // The answer was kept: the first caller's abort poisoned nothing.
  c.clock.now += 1_000;
  assert.equal(await balanceWords(c), '$7.50');
});

test('a caller that joins a shared read late gets its answer; the read stops only when every caller has aborted', async () => {
  const c = clocked(real);
  real.fault({ path: '/api/status', kind: 'latency', ms: 400 });
  const a = new AbortController();
  const b = new AbortController();
  const first = c.client.account.status(a.signal);
  await new Promise((r) => setTimeout(r, 50));
  const late = c.client.account.status(b.signal);
  a.abort();
  await thrown(() => first);
  assert.equal((await late)?.units.display, 'USD', 'the late caller still gets the answer');
  assert.equal(asked(real, '/api/status'), 1);

  // Every caller leaves: the request is stopped, nothing is kept, and no back-off follows.
  const d = clocked(real);
  const x = new AbortController();
  const y = new AbortController();
  const gone = [d.client.account.status(x.signal), d.client.account.status(y.signal)];
  // (both leave once the request is on its way: the gateway has it)
  for (let i = 0; i < 100 && asked(real, '/api/status') < 2; i++) await new Promise((r) => setTimeout(r, 10));
  x.abort();
  y.abort();
  for (const p of gone) assert.equal((await thrown(() => p)).kind, 'aborted');
  const stopped = () => d.records.some((r) => r.path === '/api/status' && r.errorKind === 'aborted');
  for (let i = 0; i < 100 && !stopped(); i++) await new Promise((r) => setTimeout(r, 20));
  assert.ok(stopped(), 'the shared request was stopped');
  real.clearFaults();
  assert.equal((await d.client.account.status())?.units.display, 'USD', 'the next caller asks at once');
});

test("the balance's shared read: a cancelled caller does not fail the status bar's read", async () => {
  const c = clocked(real);
  real.fault({ path: '/api/usage/token/', kind: 'latency', ms: 300 });
  const cancelled = new AbortController();
  const diagnose = c.client.account.quota({ maxAgeMs: 0, signal: cancelled.signal });
  const bar = c.client.account.quota({ maxAgeMs: 0 });
  await new Promise((r) => setTimeout(r, 50));
  cancelled.abort();
  assert.equal((await thrown(() => diagnose)).kind, 'aborted');
  const q = await bar;
  assert.equal(q && describeQuota(q, 0, c.clock.now).short, '$7.50');
  assert.equal(asked(real, '/api/usage/token/'), 1);
});

test("the usage log's shared read: a cancelled caller does not fail the other; a read every caller left is not kept", async () => {
  const c = clocked(real);
  real.fault({ path: '/api/log/token', kind: 'latency', ms: 300 });
  const a = new AbortController();
  const first = c.client.usage.read({ signal: a.signal });
  const second = c.client.usage.read();
  await new Promise((r) => setTimeout(r, 50));
  a.abort();
  assert.equal((await thrown(() => first)).kind, 'aborted');
  assert.equal((await second).state, 'ok', 'the other caller gets the log');

  c.clock.now += 2 * 60_000;
  const b = new AbortController();
  const alone = c.client.usage.read({ signal: b.signal });
  const before = asked(real, '/api/log/token');
  for (let i = 0; i < 100 && asked(real, '/api/log/token') === before; i++) await new Promise((r) => setTimeout(r, 10));
  b.abort();
  assert.equal((await thrown(() => alone)).kind, 'aborted');
  real.clearFaults();
  assert.equal(
    (await c.client.usage.read()).state,
    'ok',
    'asked again at once: the stopped read was not kept as failed',
  );
});
