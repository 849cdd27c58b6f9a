/**
 * The language-model provider's model list (one gateway here; several in lmGateways.test.ts) and
 * errors, against the simulator: /v1/models is read once and served from a cache until the
 * gateway or token changes (a read in flight then never fills
 * the cache); a change of how models are described fires one change without reading again; and a
 * gateway error becomes the LanguageModelError kind VS Code understands (no permission, no such
 * model, blocked for now), from real answers of a new-api gateway.
 */
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { GatewaySet, type ChatRequest } from '../../src/gateway';
import { lmErrorCode } from '../../src/host/lm/lmErrors';
import { LmModelLists, type LmGatewayModels, type LmListSource } from '../../src/host/lm/lmModels';
import { startSimulator, type Simulator } from '../sim/server';
import { makeClient, thrown } from '../gateway/helpers';

let sim: Simulator;
before(async () => {
  sim = await startSimulator({ profile: 'real' });
});
after(() => sim.close());
beforeEach(() => sim.reset());

const modelReads = () => sim.log.filter((r) => r.path === '/v1/models').length;

/** The provider's view of the service: one gateway, its active token, the settings that describe a model. */
function service() {
  const s = { base: sim.url, token: 'production', surface: 'compatible', prices: new Map<string, string>() };
  const gateways = new GatewaySet([{ id: 'g', name: 'Gateway', baseUrl: sim.url }], {
    token: () => sim.tokens[s.token],
  });
  const source: LmListSource = {
    gateways,
    boundMs: 2_000,
    listed: () => ['g'],
    listKey: () => JSON.stringify([s.base, s.token]),
    lookKey: (lists: readonly LmGatewayModels[]) =>
      JSON.stringify([s.surface, lists.map((l) => l.models.map((m) => s.prices.get(m.id)))]),
  };
  return { s, source };
}

/** The one gateway's models as listed (none when it is not listed). */
const only = async (lists: Promise<LmGatewayModels[]>) => (await lists)[0]?.models ?? [];

test('the model list is read once and served from the cache; questions at once share one read', async () => {
  const { source } = service();
  let fired = 0;
  const list = new LmModelLists(source, () => fired++);
  const [a, b] = await Promise.all([only(list.list()), only(list.list())]);
  assert.ok(a.length > 3);
  assert.deepEqual(b, a);
  for (let i = 0; i < 5; i++) assert.deepEqual(await only(list.list()), a);
  assert.equal(modelReads(), 1, 'one GET /v1/models for seven questions');
  list.serviceChanged(); // a request record, a balance read…: nothing the list hangs on
  assert.equal(fired, 0);
  assert.equal(modelReads(), 1);
});

test('another token or gateway: one change event, the list read again; a read in flight never fills the cache', async () => {
  const { s, source } = service();
  let fired = 0;
  const list = new LmModelLists(source, () => fired++);
  const production = await only(list.list());
  const inFlight = only(list.list()); // cached: the same list at once
  s.token = 'test'; // group chat-only: one model
  list.serviceChanged();
  assert.equal(fired, 1);
  assert.deepEqual(await inFlight, production);
  const slow = only(list.list());
  s.token = 'production';
  list.serviceChanged(); // changed again while that read runs
  assert.equal(fired, 2);
  assert.deepEqual(await slow, [], 'the old token read answers nothing');
  const now = await only(list.list());
  assert.deepEqual(
    now.map((m) => m.id),
    production.map((m) => m.id),
    "the new token's list, not the old one's",
  );
});

test('a change of how models are described (settings, prices) fires once and keeps the list', async () => {
  const { s, source } = service();
  let fired = 0;
  const list = new LmModelLists(source, () => fired++);
  const models = await only(list.list());
  s.prices.set(models[0].id, '$1 per call');
  list.serviceChanged();
  list.serviceChanged();
  assert.equal(fired, 1);
  s.surface = 'native';
  list.serviceChanged();
  assert.equal(fired, 2);
  await list.list();
  assert.equal(modelReads(), 1, 'not read again');
});

test('a failed read is not kept: the next question reads again; a cancelled question lets the read go on', async () => {
  const { source } = service();
  const list = new LmModelLists(source, () => undefined);
  sim.fault({ kind: 'status', status: 500, path: '/v1/models', count: 10 });
  assert.deepEqual(await only(list.list()), []);
  sim.clearFaults();
  const ac = new AbortController();
  const cancelled = only(list.list(ac.signal));
  ac.abort();
  assert.deepEqual(await cancelled, []);
  assert.ok((await only(list.list())).length > 3);
});

const hi: ChatRequest = { surface: 'compatible', model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] };

test("gateway errors become VS Code's LanguageModelError kinds", async () => {
  const chat = (req: ChatRequest, tokenName = 'production') =>
    thrown(() => makeClient(sim, { tokenName }).client.chat(req));
  const bad = await thrown(() =>
    makeClient(sim, { token: () => 'sk-NotAToken0000000000000000000000000' }).client.chat(hi),
  );
  assert.equal(bad.kind, 'unauthorized');
  assert.equal(lmErrorCode(bad), 'NoPermissions');
  const noGroup = await chat({ ...hi, model: 'claude-sonnet-4-5' }, 'test');
  assert.equal(noGroup.detail, 'model_not_found_503');
  assert.equal(lmErrorCode(noGroup), 'NotFound', "new-api's 503 model_not_found: no such model for this token");
  sim.setToken('production', { modelLimits: ['claude-sonnet-4-5'] });
  assert.equal(lmErrorCode(await chat(hi)), 'NoPermissions', "the token's model limits");
  sim.reset();
  sim.config.userQuota = 0;
  assert.equal(lmErrorCode(await chat(hi)), 'Blocked', "the account's wallet is empty");
  sim.reset();
  sim.setToken('production', { remainQuota: 10 });
  assert.equal(lmErrorCode(await chat(hi)), 'Blocked', "the token's quota");
  sim.reset();
  sim.fault({ kind: 'status', status: 429, retryAfter: '0', count: 10 });
  assert.equal(lmErrorCode(await chat(hi)), 'Blocked', 'rate limited');
  sim.clearFaults();
  sim.fault({ kind: 'status', status: 500, count: 10 });
  assert.equal(lmErrorCode(await chat(hi)), undefined, 'a server error keeps the plain Error');
  assert.equal(lmErrorCode(new Error('x')), undefined);
});
