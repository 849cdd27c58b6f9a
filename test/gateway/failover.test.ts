import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, type Dispatcher } from 'undici';
import { startSimulator, type Simulator } from '../sim/server';
import { deadPort, makeClient, thrown } from './helpers';

let sim: Simulator;
before(async () => {
  sim = await startSimulator({ hosts: 2 });
});
after(() => sim.close());
beforeEach(() => sim.reset());

const hi = [{ role: 'user' as const, content: 'hi' }];
const hostOf = (u: string) => new URL(u).host;

test('a host that is down: the backup serves with the same path, and is remembered', async () => {
  const port = await deadPort();
  const { client, records } = makeClient(sim, { baseUrl: `http://127.0.0.1:${port}`, backupUrls: [sim.urls[1]] });
  const r = await client.chat({ surface: 'native', model: 'claude-sonnet-4-5', messages: hi });
  assert.equal(r.host, hostOf(sim.urls[1]));
  assert.equal(records[0].errorKind, 'network');
  assert.equal(records[1].host, hostOf(sim.urls[1]));
  assert.equal(records[1].path, '/v1/messages', 'the native surface keeps its path on the backup');
  assert.equal(client.endpoints().activeIsBackup, true);
  const before = records.length;
  await client.chat({ surface: 'compatible', model: 'gpt-4o-mini', messages: hi });
  assert.equal(records.length, before + 1, 'the healthy backup is used first next time');
  assert.equal(records.at(-1)!.path, '/v1/chat/completions');
});

test('502/503/504 from the primary fail over to the backup at once', async () => {
  for (const status of [502, 503, 504]) {
    sim.reset();
    const { client, sleeps } = makeClient(sim, { baseUrl: sim.urls[0], backupUrls: [sim.urls[1]] });
    sim.fault({ kind: 'status', status, host: 0 });
    const r = await client.chat({ surface: 'compatible', model: 'gpt-4o-mini', messages: hi });
    assert.equal(r.host, hostOf(sim.urls[1]), `status ${status}`);
    assert.equal(sleeps.length, 0, 'failover needs no backoff');
    assert.deepEqual(
      sim.log.map((l) => [l.host, l.status]),
      [
        [0, status],
        [1, 200],
      ],
    );
  }
});

test('new-api 503 model_not_found does not fail over (it is the token group, not the host)', async () => {
  const real = await startSimulator({ profile: 'real', hosts: 2 });
  try {
    const { client } = makeClient(real, { baseUrl: real.urls[0], backupUrls: [real.urls[1]] });
    const e = await thrown(() => client.chat({ surface: 'compatible', model: 'gpt-4o', messages: hi }));
    assert.equal(e.detail, 'model_not_found_503');
    assert.equal(real.log.length, 1);
  } finally {
    await real.close();
  }
});

test('a 500 on the primary is retried on the primary, not failed over', async () => {
  const { client } = makeClient(sim, { baseUrl: sim.urls[0], backupUrls: [sim.urls[1]] });
  sim.fault({ kind: 'status', status: 500, host: 0, count: 1 });
  const r = await client.chat({ surface: 'compatible', model: 'gpt-4o-mini', messages: hi });
  assert.equal(r.host, hostOf(sim.urls[0]));
});

test('all hosts down: a network error naming the cause, after bounded retries', async () => {
  const p1 = await deadPort();
  const p2 = await deadPort();
  const { client, records, sleeps } = makeClient(sim, {
    baseUrl: `http://127.0.0.1:${p1}`,
    backupUrls: [`http://127.0.0.1:${p2}/v1`],
  });
  const e = await thrown(() => client.chat({ surface: 'compatible', model: 'gpt-4o-mini', messages: hi }));
  assert.equal(e.kind, 'network');
  assert.match(e.reason, /ECONNREFUSED|connections/);
  assert.equal(records.length, 6, '3 rounds over 2 hosts');
  assert.equal(sleeps.length, 2);
  assert.ok(
    records.every((r) => r.path === '/v1/chat/completions'),
    'the backup given with /v1 is normalised to its root',
  );
});

test('the injected dispatcher carries every request, backups included', async () => {
  let dispatched = 0;
  class CountingAgent extends Agent {
    override dispatch(opts: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
      dispatched++;
      return super.dispatch(opts, handler);
    }
  }
  const agent = new CountingAgent();
  try {
    const port = await deadPort();
    const { client } = makeClient(sim, {
      baseUrl: `http://127.0.0.1:${port}`,
      backupUrls: [sim.urls[1]],
      dispatcher: agent,
    });
    await client.chat({ surface: 'compatible', model: 'gpt-4o-mini', messages: hi });
    await client.listModels();
    assert.equal(dispatched, 3);
  } finally {
    await agent.close();
  }
});

test('changing the token or base URL applies to the next request', async () => {
  let token = sim.tokens.production;
  const { client } = makeClient(sim, { token: () => token });
  await client.listModels();
  token = 'sk-' + 'z'.repeat(48);
  assert.equal((await thrown(() => client.listModels())).kind, 'unauthorized');
  token = sim.tokens.production;
  client.configure({ baseUrl: sim.urls[1] });
  await client.listModels();
  assert.equal(sim.log.at(-1)!.host, 1);
});

test('maxRetries and the native max_tokens apply at once when the settings change (no reload)', async () => {
  const { client, records } = makeClient(sim);
  client.configure({ retry: { maxRetries: 0 } });
  sim.fault({ kind: 'status', status: 500, count: 1 });
  await assert.rejects(
    client.chat({ surface: 'compatible', model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x' }] }),
  );
  assert.equal(records.length, 1, 'maxRetries 0: not retried');
  const ask = () =>
    client.chat({
      surface: 'native',
      model: 'claude-sonnet-4-5',
      messages: [{ role: 'user', content: 'tell me more than one word' }],
    });
  assert.equal((await ask()).finishReason, 'end_turn');
  client.configure({ defaultNativeMaxTokens: 1 });
  assert.equal((await ask()).finishReason, 'max_tokens', 'the new max_tokens is sent at once');
});
