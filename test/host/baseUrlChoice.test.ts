/**
 * Configure Base URL's "Keep what I typed" keeps it: the kept address is what the transport calls
 * (a gateway served under /v1 behind a reverse proxy, where the endpoint rules' /v1 removal breaks
 * every call), it survives a reload (remembered in global state), and ends when the setting changes.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { GatewayClient } from '../../src/gateway';
import { KeptBaseUrl, planBaseUrl } from '../../src/host/gateways/baseUrlChoice';
import { startSimulator, type Simulator } from '../sim/server';
import { InMemoryMemento } from '../fakes/state';

let sim: Simulator;
before(async () => {
  sim = await startSimulator({ mount: '/v1' });
});
after(() => sim.close());

const client = (baseUrl: string, kept: KeptBaseUrl) =>
  new GatewayClient({
    baseUrl,
    baseUrlVerbatim: kept.isKept(baseUrl),
    token: () => sim.tokens.production,
    sleep: async () => undefined,
  });

test('what Configure Base URL offers: the normalised address, and what was typed when it can be called as is', () => {
  const v1 = planBaseUrl('  https://gw.example.com/relay/v1/ ');
  assert.equal(v1.normalized, 'https://gw.example.com/relay');
  assert.deepEqual(
    v1.warnings.map((f) => f.code),
    ['trailing-v1'],
  );
  assert.equal(v1.keepable, 'https://gw.example.com/relay/v1');
  assert.equal(planBaseUrl('gw.example.com/v1').keepable, undefined, 'no scheme: cannot be called as typed');
  assert.equal(planBaseUrl('https://gw.example.com/v1?x=1').keepable, undefined, 'a query cannot be kept');
  assert.equal(planBaseUrl('https://gw.example.com/').keepable, undefined, 'nothing to keep: same address');
  assert.equal(planBaseUrl('ftp://gw').normalized, undefined);
  assert.equal(planBaseUrl('ftp://gw').error?.code, 'bad-scheme');
});

test('a kept base URL is what the transport calls; the normalised one would miss the gateway', async () => {
  const typed = `${sim.url}/v1`;
  const state = new InMemoryMemento();
  const kept = new KeptBaseUrl(state);

  const normalised = client(typed, kept);
  assert.equal(normalised.endpoints().base, sim.url);
  // the endpoint rules drop /v1: /v1/models reaches the proxy's /models (not the API)
  await assert.rejects(() => normalised.listModels());

  await kept.remember(typed);
  const keep = client(typed, kept);
  assert.equal(keep.endpoints().base, typed);
  assert.equal(keep.endpoints().verbatim, true);
  assert.equal(keep.endpoints().compatibleBase, `${typed}/v1`);
  assert.equal(keep.transport.activeBase, typed);
  assert.ok((await keep.listModels()).length > 0, 'the gateway under /v1 answers');
  const calls = (await (await fetch(`${sim.url}/__sim/log`)).json()) as Array<{ path: string; status: number }>;
  assert.equal(calls.at(-1)?.status, 200);
});

test('the choice survives a reload and ends when the setting holds anything else', async () => {
  const state = new InMemoryMemento();
  await new KeptBaseUrl(state).remember('https://gw.example.com/v1');
  const reloaded = new KeptBaseUrl(state);
  assert.equal(reloaded.isKept('https://gw.example.com/v1'), true, 'after a reload');
  assert.equal(reloaded.isKept('https://gw.example.com'), false, 'another value: the endpoint rules apply');
  await reloaded.remember(undefined);
  assert.equal(reloaded.isKept('https://gw.example.com/v1'), false, 'Use the normalised address forgets it');
});

test('configure() switches an existing client to the kept address and back', async () => {
  const typed = `${sim.url}/v1`;
  const c = client(typed, new KeptBaseUrl(new InMemoryMemento()));
  assert.equal(c.transport.activeBase, sim.url);
  c.configure({ baseUrlVerbatim: true });
  assert.equal(c.transport.activeBase, typed);
  assert.ok((await c.listModels()).length > 0);
  c.configure({ baseUrlVerbatim: false });
  assert.equal(c.endpoints().base, sim.url);
});
