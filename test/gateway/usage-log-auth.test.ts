/**
 * The usage log's auth style over real HTTP against the simulator's vintages, counted at the gateway: the
 * token goes in a URL (`?key=`, so into access logs) only when Bearer gave no usable answer, at most once per
 * gateway while the answer stays the same, and the style learnt is used afterwards (one request per read).
 */
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { USAGE_LOG_TIMING } from '../../src/gateway/economy/usageLog';
import { startSimulator, type Simulator } from '../sim/server';
import { defaultUsageLog } from '../sim/usageLog';
import { makeClient } from './helpers';

const sims: Record<'newApi' | 'older', Simulator> = {} as never;
before(async () => {
  sims.newApi = await startSimulator({ profile: 'real' });
  sims.older = await startSimulator({ profile: 'real', gateway: 'new-api-2025' });
});
after(async () => {
  for (const s of Object.values(sims)) await s.close();
});
beforeEach(() => {
  for (const s of Object.values(sims)) {
    s.reset();
    s.config.usageLog = { ...defaultUsageLog(), delayMs: 0 };
    s.config.criticalRateLimit = { max: 20, windowMs: 20 * 60_000 };
  }
});

const MIN = 60_000;
function clocked(sim: Simulator, o: { tokenName?: string; token?: string } = {}) {
  const clock = { now: 1_800_000_000_000 };
  const made = makeClient(sim, {
    now: () => clock.now,
    ...(o.tokenName ? { tokenName: o.tokenName } : {}),
    ...(o.token ? { token: () => o.token } : {}),
  });
  return { ...made, clock };
}
const logRequests = (sim: Simulator) => sim.log.filter((r) => r.path === '/api/log/token');
/** requests that carried the token in the URL */
const withKey = (sim: Simulator) => logRequests(sim).filter((r) => r.queryNames?.includes('key')).length;
const withBearer = (sim: Simulator) => logRequests(sim).filter((r) => r.headers.authorization).length;

/** `n` reads, a minute and a second apart (each one asks the gateway). */
async function reads(c: ReturnType<typeof clocked>, n: number) {
  const states: string[] = [];
  for (let i = 0; i < n; i++) {
    states.push((await c.client.usage.read()).state);
    c.clock.now += MIN + 1_000;
  }
  return states;
}

async function billedChat(c: ReturnType<typeof clocked>) {
  await c.client.chat({ surface: 'compatible', model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
}

test('a current server, an empty log: ?key= once (refused), then Bearer only', async () => {
  const sim = sims.newApi;
  const c = clocked(sim, { tokenName: 'test' });
  assert.deepEqual(await reads(c, 6), Array(6).fill('ok'));
  assert.equal(withKey(sim), 1, 'the query form was tried once');
  assert.equal(withBearer(sim), 6, 'one Bearer request per read');
});

test('an older server and a token with an empty log: ?key= once, not on every read; again only after recheckMs while still empty', async () => {
  const sim = sims.older;
  const c = clocked(sim, { tokenName: 'test' });
  assert.deepEqual(await reads(c, 6), Array(6).fill('ok'));
  assert.equal(withKey(sim), 1, 'the empty log was asked both ways once, not on every read');
  assert.equal(logRequests(sim).length, 7, 'then one request per read');

  // The token is used: its records exist, and an older server shows them only to the query form.
  await billedChat(c);
  c.clock.now += USAGE_LOG_TIMING.recheckMs;
  const r = await c.client.usage.read();
  assert.equal(r.state === 'ok' && r.records.length, 1, 'found by the query form after recheckMs');
  assert.equal(withKey(sim), 2);
  const before = { key: withKey(sim), bearer: withBearer(sim) };
  c.clock.now += MIN + 1_000;
  await reads(c, 3);
  assert.equal(withKey(sim) - before.key, 3, 'the query style straight away');
  assert.equal(withBearer(sim) - before.bearer, 0, 'no Bearer request once the query style is known');
});

test('success:false to Bearer (an older new-api without a key): the query form once, and the style learnt is used afterwards', async () => {
  const sim = sims.older;
  sim.config.usageLog.auth = 'query-refusing';
  const c = clocked(sim);
  await billedChat(c);
  const first = await c.client.usage.read();
  assert.equal(first.state === 'ok' && first.records.length, 1);
  assert.deepEqual([withBearer(sim), withKey(sim)], [1, 1], 'Bearer refused, then ?key=');
  c.clock.now += MIN + 1_000;
  assert.deepEqual(await reads(c, 4), Array(4).fill('ok'));
  assert.deepEqual([withBearer(sim), withKey(sim)], [1, 5], 'the query style for every later read');

  // The same with an empty log: the query form answered where Bearer was refused.
  sim.reset();
  sim.config.usageLog.auth = 'query-refusing';
  const d = clocked(sim, { tokenName: 'test' });
  assert.deepEqual(await reads(d, 3), Array(3).fill('ok'));
  assert.deepEqual([withBearer(sim), withKey(sim)], [1, 3]);
});

test('refused both ways (a token the gateway does not know): ?key= once for the token, and the refusal is the answer', async () => {
  const sim = sims.older;
  sim.config.usageLog.auth = 'query-refusing';
  const c = clocked(sim, { token: 'sk-Unkn0wnT0kenUnkn0wnT0kenUnkn0wnT0kenUnkn0wnT0ke' });
  assert.deepEqual(await reads(c, 5), Array(5).fill('failed'));
  assert.equal(withKey(sim), 1, 'the query form was tried once');
  assert.equal(withBearer(sim), 5);
  const failed = await c.client.usage.read({ maxAgeMs: 0 });
  assert.ok(!JSON.stringify(failed).includes('Unkn0wnT0ken'), 'the token is in no answer');
  assert.ok(!JSON.stringify(c.records).includes('Unkn0wnT0ken'), 'nor in the request log');
});
