/**
 * What a settings change or a token switch resets, over real HTTP against the simulator (real
 * profile, a primary and a backup host): the same settings again (streaming, temperature, max
 * tokens or an http.* setting changed) keep failover, capabilities, the balance and the usage
 * back-off; another base URL resets them; another token forgets its balance and its group's
 * capabilities but not failover; a balance read in flight across a token switch never lands in
 * the new token's cache.
 */
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import type { ClientConfiguration } from '../../src/gateway';
import { startSimulator, type Simulator } from '../sim/server';
import { TokenScope } from '../../src/gateway/economy/tokenScope';
import { makeClient } from './helpers';

let sim: Simulator;
before(async () => {
  sim = await startSimulator({ profile: 'real', hosts: 2 });
});
after(() => sim.close());
beforeEach(() => sim.reset());

const hi = [{ role: 'user' as const, content: 'hi' }];
const usageReads = () => sim.log.filter((r) => r.path === '/api/usage/token/').length;

/** What GatewayService.reload hands the client on every settings change (here: nothing of it changed). */
const settings = (baseUrl: string, backupUrls: string[]): ClientConfiguration => ({
  baseUrl,
  backupUrls: [...backupUrls],
  extraHeaders: {},
  timeouts: { chatMs: 60_000, streamIdleMs: 60_000, chatOverallMs: 600_000 },
  retry: { maxRetries: 2 },
  defaultNativeMaxTokens: 4096,
});

test('another setting changed (streaming toggled): failover, capabilities, the balance and the usage back-off stay', async () => {
  const { client } = makeClient(sim, { baseUrl: sim.urls[0], backupUrls: [sim.urls[1]] });
  sim.fault({ kind: 'down', host: 0 });
  await client.listModels();
  assert.equal(client.endpoints().activeIsBackup, true, 'failed over to the backup');
  assert.deepEqual(client.capabilitiesOf('gpt-image-1'), ['image', 'image-edit']);
  sim.config.criticalRateLimit = { max: 1, windowMs: 60_000 };
  const balance = await client.account.quota();
  await client.account.quota({ maxAgeMs: 0 }); // 429: reads pause
  assert.equal(usageReads(), 2);

  const change = client.configure(settings(sim.urls[0], [sim.urls[1]]));

  assert.equal(change.endpoints, false);
  // A billed chat: on the dead primary it could not be failed over (it may have arrived), so it must go to the backup.
  const r = await client.chat({ surface: 'compatible', model: 'gpt-4o-mini', messages: hi });
  assert.equal(r.host, new URL(sim.urls[1]).host, 'the next request still goes to the backup');
  assert.equal(sim.log.filter((l) => l.host === 0 && l.path === '/v1/chat/completions').length, 0);
  assert.deepEqual(client.capabilitiesOf('gpt-image-1'), ['image', 'image-edit'], 'capabilities kept');
  assert.deepEqual(await client.account.quota(), balance, 'the balance kept');
  await client.account.quota({ maxAgeMs: 0 });
  assert.equal(usageReads(), 2, 'the back-off on the usage endpoint holds');
});

test('another base URL resets failover, capabilities, the balance and the back-off', async () => {
  const { client } = makeClient(sim, { baseUrl: sim.urls[0], backupUrls: [sim.urls[1]] });
  sim.fault({ kind: 'down', host: 0 });
  await client.listModels();
  sim.config.criticalRateLimit = { max: 1, windowMs: 60_000 };
  await client.account.quota();
  await client.account.quota({ maxAgeMs: 0 });
  assert.equal(usageReads(), 2);
  sim.clearFaults();
  sim.config.criticalRateLimit = { max: 20, windowMs: 20 * 60_000 };

  const change = client.configure(settings(sim.urls[1], [sim.urls[0]]));

  assert.equal(change.endpoints, true);
  assert.equal(client.endpoints().activeBase, client.endpoints().base, 'back on the (new) primary');
  assert.equal(client.capabilitiesOf('gpt-image-1'), undefined, 'capabilities forgotten');
  await client.account.quota();
  assert.equal(usageReads(), 3, 'the balance is read again: the back-off was the old gateway’s');
});

test('another token: its balance and capabilities are its own, failover stays', async () => {
  let token = sim.tokens.production;
  const { client } = makeClient(sim, { baseUrl: sim.urls[0], backupUrls: [sim.urls[1]], token: () => token });
  sim.fault({ kind: 'down', host: 0 });
  await client.listModels();
  assert.equal((await client.account.quota())?.unlimited, false);
  assert.ok(client.capabilitiesOf('gpt-image-1'));

  token = sim.tokens.test; // another group (chat-only), unlimited

  assert.equal((await client.account.quota())?.unlimited, true, 'the new token’s balance, not the cached one');
  assert.equal(client.capabilitiesOf('gpt-image-1'), undefined, 'the previous group’s capabilities are gone');
  assert.equal(client.endpoints().activeIsBackup, true, 'failover is not the token’s');
});

test('a balance read in flight when the token switches does not land in the new token’s cache', async () => {
  let token = sim.tokens.production;
  const { client } = makeClient(sim, { token: () => token });
  sim.fault({ kind: 'latency', ms: 300, path: '/api/usage/token/', count: 1 });
  const slow = client.account.quota();
  // The slow read is on the wire with the production token.
  for (let i = 0; i < 100 && !sim.log.some((r) => r.path === '/api/status'); i++)
    await new Promise((r) => setTimeout(r, 5));
  await new Promise((r) => setTimeout(r, 50));
  token = sim.tokens.test;
  const meanwhile = await client.account.quota();
  assert.equal(meanwhile?.unlimited, true, 'the new token does not share the old token’s read');
  assert.equal((await slow)?.unlimited, false, 'the old read answers its own caller');
  assert.equal((await client.account.quota())?.unlimited, true, 'and does not overwrite the new token’s figure');
  assert.equal(client.account.lastQuota?.unlimited, true);
});

test('TokenScope: a look at the token that answers late does not undo a later one', async () => {
  const answers: Array<(t: string) => void> = [];
  const scope = new TokenScope(() => new Promise<string>((r) => answers.push(r)));
  let forgotten = 0;
  scope.onForget(() => forgotten++);
  const first = scope.current();
  answers[0]('sk-a');
  const gen = await first;
  const older = scope.current();
  const newer = scope.current();
  answers[2]('sk-b'); // the switch, seen by the later look
  assert.equal(await newer, gen + 1);
  answers[1]('sk-a'); // the earlier look answers last, with the old token
  assert.equal(await older, gen + 1);
  assert.equal(forgotten, 1, 'forgotten once, not back and forth');
  assert.ok(scope.holds(gen + 1));
});
