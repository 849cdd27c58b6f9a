/**
 * The gateway's usage log through the client (`client.usage`), over real HTTP against the simulator's
 * flavors: records in the gateway's units, arrival (arrived / pending / no record / unknown and why), one
 * read a minute shared by every caller, both auth styles with the key kept out of the request log and errors,
 * and the critical budget shared with the balance (a property test: no mix of reads exceeds it).
 */
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { RequestRecord } from '../../src/gateway';
import { CRITICAL_BUDGET } from '../../src/gateway/economy/criticalBudget';
import { startSimulator, type Simulator } from '../sim/server';
import { defaultUsageLog } from '../sim/usageLog';
import { makeClient } from './helpers';

const sims: Record<'newApi' | 'newApi2025' | 'oneApi', Simulator> = {} as never;
before(async () => {
  sims.newApi = await startSimulator({ profile: 'real' });
  sims.newApi2025 = await startSimulator({ profile: 'real', gateway: 'new-api-2025' });
  sims.oneApi = await startSimulator({ profile: 'real', gateway: 'one-api' });
});
after(async () => {
  for (const s of Object.values(sims)) await s.close();
});
beforeEach(() => {
  for (const s of Object.values(sims)) {
    s.reset();
    s.config.usageLog = { ...defaultUsageLog(), delayMs: 0 };
    s.config.criticalRateLimit = { max: 20, windowMs: 20 * 60_000 };
    s.config.displayType = 'USD';
  }
});

const MIN = 60_000;
function clocked(sim: Simulator, tokenName?: string) {
  const clock = { now: 1_800_000_000_000 };
  const made = makeClient(sim, { now: () => clock.now, ...(tokenName ? { tokenName } : {}) });
  return { ...made, clock };
}
const logReads = (records: RequestRecord[]) => records.filter((r) => r.path === '/api/log/token');
async function billedChat(c: ReturnType<typeof clocked>) {
  const sentAt = c.clock.now;
  await c.client.chat({
    surface: 'compatible',
    model: 'gpt-4o-mini',
    messages: [{ role: 'user', content: 'one two three' }],
  });
  const rec = c.records.filter((r) => r.path === '/v1/chat/completions').at(-1)!;
  return { rid: rec.requestId!, sentAt };
}

test('arrived: the record by request id, billed in the gateway units, with tokens and group; pending before it is due', async () => {
  const c = clocked(sims.newApi);
  const { rid, sentAt } = await billedChat(c);
  assert.deepEqual(await c.client.usage.arrival(rid, sentAt), { state: 'pending' });
  assert.equal(logReads(c.records).length, 0, 'too soon: nothing is asked');
  c.clock.now += 10_000;
  const a = await c.client.usage.arrival(rid, sentAt);
  assert.equal(a.state, 'arrived');
  if (a.state !== 'arrived') return;
  const entry = sims.newApi.gatewayLog.at(-1)!;
  assert.equal(a.record.requestId, rid);
  assert.equal(a.record.quota, entry.quota);
  assert.deepEqual(a.record.cost, { amount: entry.quota / 500_000, unit: 'USD' });
  assert.equal(a.record.kind, 'consume');
  assert.equal(a.record.model, 'gpt-4o-mini');
  assert.ok(a.record.promptTokens > 0 && a.record.completionTokens > 0);
  assert.equal(a.record.requestPath, '/v1/chat/completions');
  assert.equal(typeof a.record.firstResponseMs, 'number');
  assert.equal(a.record.other?.request_path, '/v1/chat/completions');
  assert.equal(c.client.usage.group, 'default', "the token's effective group");
});

test('no record only from a read made after the record was due; many questions share one read a minute', async () => {
  const c = clocked(sims.newApi);
  const { rid, sentAt } = await billedChat(c);
  c.clock.now += 10_000;
  const answers = await Promise.all([
    c.client.usage.arrival(rid, sentAt),
    c.client.usage.arrival('20990101000000000000000abcdefgh', sentAt),
    c.client.usage.arrival('another-id', sentAt, 2_000),
  ]);
  assert.deepEqual(
    answers.map((x) => x.state),
    ['arrived', 'no-record', 'no-record'],
  );
  assert.equal(logReads(c.records).length, 1, 'one read for all');
  // A request whose record is due after the last read: pending until a newer read.
  const late = c.clock.now - 1_000;
  c.clock.now += 10_000;
  assert.deepEqual(await c.client.usage.arrival('late-id', late), { state: 'pending' });
  c.clock.now += MIN;
  assert.equal((await c.client.usage.arrival('late-id', late)).state, 'no-record');
  assert.equal(logReads(c.records).length, 2);
  assert.deepEqual(await c.client.usage.arrival(undefined, sentAt), { state: 'unknown', reason: 'no-request-id' });
});

test('units: the cost in CNY or raw tokens as the balance is shown', async () => {
  sims.newApi.config.displayType = 'CNY';
  const c = clocked(sims.newApi);
  await billedChat(c);
  const r = await c.client.usage.read();
  assert.equal(r.state, 'ok');
  if (r.state !== 'ok') return;
  assert.equal(r.records[0].cost.unit, 'CNY');
  assert.ok(Math.abs(r.records[0].cost.amount - (r.records[0].quota / 500_000) * 7.3) < 1e-9);
  assert.equal(r.units?.display, 'CNY');
});

test('one-api: unsupported, and not asked again for a while; no request id in the log: unknown', async () => {
  const c = clocked(sims.oneApi);
  assert.deepEqual(await c.client.usage.read(), { state: 'unsupported' });
  c.clock.now += 2 * MIN;
  assert.deepEqual(await c.client.usage.arrival('x', c.clock.now - MIN), { state: 'unknown', reason: 'unsupported' });
  assert.equal(logReads(c.records).length, 1);

  sims.newApi.config.usageLog.vintage = 'NA25';
  const d = clocked(sims.newApi);
  const { rid, sentAt } = await billedChat(d);
  d.clock.now += 10_000;
  assert.deepEqual(await d.client.usage.arrival(rid, sentAt), { state: 'unknown', reason: 'no-ids-in-log' });
});

test('an older server: Bearer reads an empty log, ?key= the records; the style is remembered; the key never reaches the request log or errors', async () => {
  const sim = sims.newApi2025;
  // A server of 2026-02-04/05: request ids in its records, the key still in the query (relay-receipts.md §1.1, §1.2).
  sim.config.usageLog.vintage = 'NA26';
  const c = clocked(sim);
  const { rid, sentAt } = await billedChat(c);
  c.clock.now += 10_000;
  assert.equal((await c.client.usage.arrival(rid, sentAt)).state, 'arrived');
  assert.equal(logReads(c.records).length, 2, 'Bearer first, then the query');
  c.clock.now += MIN;
  await c.client.usage.read();
  assert.equal(logReads(c.records).length, 3, 'the query style straight away');
  const token = sim.tokens.production;
  const bare = token.replace(/^sk-/, '');
  for (const r of c.records) assert.ok(!r.path.includes('?') && !JSON.stringify(r).includes(bare));
  sim.fault({ kind: 'status', status: 500, path: '/api/log/token' });
  c.clock.now += MIN;
  const failed = await c.client.usage.read();
  assert.equal(failed.state, 'failed');
  assert.ok(!JSON.stringify(failed).includes(bare), JSON.stringify(failed));
});

test('a newer server refuses ?key=: Bearer is right and the empty log is empty', async () => {
  const c = clocked(sims.newApi, 'test');
  const r = await c.client.usage.read();
  assert.deepEqual(r.state === 'ok' && r.records, []);
  assert.equal(logReads(c.records).length, 2);
  c.clock.now += MIN;
  await c.client.usage.read();
  assert.equal(logReads(c.records).length, 3, 'Bearer remembered');
});

test('a 429 on either route pauses both: the log answers limited, the balance keeps its last figure', async () => {
  const c = clocked(sims.newApi);
  const q = await c.client.account.quota();
  sims.newApi.config.criticalRateLimit = { max: 1, windowMs: 60 * MIN };
  const r = await c.client.usage.read();
  assert.equal(r.state, 'limited');
  c.clock.now += 2 * MIN;
  assert.equal((await c.client.account.quota({ maxAgeMs: 0 }))?.remaining, q?.remaining);
  assert.equal((await c.client.usage.read()).state, 'limited');
  assert.equal(sims.newApi.criticalRequests(), 2, 'one read each, then paused');
});

test('another base URL forgets the records and the auth style', async () => {
  const c = clocked(sims.newApi);
  await billedChat(c);
  await c.client.usage.read();
  assert.equal(c.client.usage.group, 'default');
  c.client.configure({ baseUrl: sims.newApi2025.url });
  assert.equal(c.client.usage.last, undefined);
  assert.equal(c.client.usage.group, undefined);
});

type Step = { kind: 'status' } | { kind: 'billed' } | { kind: 'view' } | { kind: 'wait'; minutes: number };
const step: fc.Arbitrary<Step> = fc.oneof(
  { arbitrary: fc.constant<Step>({ kind: 'status' }), weight: 3 },
  { arbitrary: fc.constant<Step>({ kind: 'billed' }), weight: 2 },
  { arbitrary: fc.constant<Step>({ kind: 'view' }), weight: 3 },
  { arbitrary: fc.integer({ min: 0, max: 5 }).map<Step>((minutes) => ({ kind: 'wait', minutes })), weight: 1 },
);

test('the critical rate limit is never exceeded by any mix of Status refreshes, billed calls with arrival checks and Usage views', async () => {
  const sim = sims.newApi;
  await fc.assert(
    fc.asyncProperty(fc.array(step, { minLength: 20, maxLength: 60 }), async (steps) => {
      sim.reset();
      sim.config.criticalRateLimit = { max: 1000, windowMs: 20 * 60_000 };
      const c = clocked(sim);
      for (const s of steps) {
        if (s.kind === 'wait') c.clock.now += s.minutes * MIN + 1_000;
        else if (s.kind === 'status') await c.client.account.quota({ maxAgeMs: 0 });
        else if (s.kind === 'view') await c.client.usage.read({ maxAgeMs: 0 });
        else {
          const { rid, sentAt } = await billedChat(c);
          c.clock.now += 6_000;
          await c.client.usage.arrival(rid, sentAt);
        }
      }
      const critical = c.records.filter((r) => r.path === '/api/log/token' || r.path === '/api/usage/token/');
      assert.equal(critical.length, sim.criticalRequests(), 'every critical request is one the gateway counted');
      const times = critical.map((r) => Date.parse(r.time));
      for (const t of times) {
        const inWindow = times.filter((u) => u >= t && u - t < 20 * MIN).length;
        assert.ok(inWindow <= CRITICAL_BUDGET.max, `${inWindow} requests in 20 minutes`);
      }
      assert.ok(CRITICAL_BUDGET.max < 20, "under the gateway's 20, with room for the dashboard");
    }),
    { numRuns: 25 },
  );
});

test("prices are quoted for the token's effective group once the usage log tells it", async () => {
  const c = clocked(sims.newApi);
  const before = (await c.client.account.pricing())?.get('gpt-4o-mini')?.input;
  assert.ok(Math.abs((before ?? 0) - (0.075 * 1e6) / 500_000) < 1e-9, 'the default group before the group is known');
  sims.newApi.setToken('production', { group: 'vip' });
  await billedChat(c).catch(() => undefined);
  await c.client.usage.read();
  assert.equal(c.client.usage.group, 'vip');
  const after = (await c.client.account.pricing())?.get('gpt-4o-mini')?.input;
  assert.ok(Math.abs((after ?? 0) - (0.075 * 0.8 * 1e6) / 500_000) < 1e-9, `vip's ratio 0.8: ${after}`);
});
