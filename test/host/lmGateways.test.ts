/**
 * The language-model provider across gateways, against three simulators with their own tokens: the
 * models of every gateway that has a token are listed (ids `<gateway id>/<model id>`), each
 * gateway's list read once and kept per gateway and token; a gateway that cannot be reached hides no
 * one and holds the list no longer than the bound; a gateway that answers late is kept and fires the
 * change event; a token replaced under the same name forgets that gateway's list only; a request for
 * a gateway's model reaches that gateway only, with its token; a failover is said in the reply.
 */
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { GatewaySet, chatStreamAcross, type ChatEvent, type GatewayProfile } from '../../src/gateway';
import { TokenStore } from '../../src/host/gateways/tokenStore';
import { tokenKeys } from '../../src/host/gateways/activeToken';
import { ToolCallOrigins, gatewayOfModel, lmModelId, lmRoutes, lmTarget } from '../../src/host/lm/lmGateways';
import { withNotices } from '../../src/host/lm/lmNotices';
import { LmModelLists, type LmGatewayModels, type LmListSource } from '../../src/host/lm/lmModels';
import { credentialDigest, defaultConfig, startSimulator, type Simulator } from '../sim/server';
import { InMemoryMemento, InMemorySecretStorage } from '../fakes/state';
import { collect, deadPort } from '../gateway/helpers';

/** A simulator whose tokens are its own (the default ones with a per-gateway mark). */
function simFor(mark: string) {
  const tokens = defaultConfig().tokens.map((t) => ({ ...t, value: `sk-${mark}${t.value.slice(3 + mark.length)}` }));
  return startSimulator({ tokens });
}

let a: Simulator;
let b: Simulator;
let c: Simulator;
before(async () => {
  [a, b, c] = await Promise.all([simFor('AAA'), simFor('BBB'), simFor('CCC')]);
});
after(() => Promise.all([a.close(), b.close(), c.close()]));
beforeEach(() => {
  for (const s of [a, b, c]) s.reset();
});

const modelReads = (s: Simulator) => s.log.filter((r) => r.path === '/v1/models').length;
const chats = (s: Simulator) => s.log.filter((r) => /^\/v1\/(chat\/completions|messages)$/.test(r.path));
const profile = (id: string, baseUrl: string, name: string): GatewayProfile => ({ id, name, baseUrl });
const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The provider's view: gateways and, per gateway id, the token (undefined: none, not listed). */
function provider(
  profiles: GatewayProfile[],
  tokens: Record<string, string | undefined>,
  boundMs = 2_000,
  keyOf: (id: string) => unknown = (id) => tokens[id],
) {
  const gateways = new GatewaySet(profiles, {
    token: (id) => tokens[id],
    sleep: async () => undefined,
  });
  let fired = 0;
  const source: LmListSource = {
    gateways,
    boundMs,
    listed: () => profiles.filter((p) => tokens[p.id]).map((p) => p.id),
    listKey: (id) => JSON.stringify([gateways.get(id)?.endpoints().base, keyOf(id)]),
    lookKey: (lists: readonly LmGatewayModels[]) => JSON.stringify(lists.map((l) => l.gateway.name)),
  };
  const lists = new LmModelLists(source, () => fired++);
  return { gateways, lists, tokens, fired: () => fired };
}

const threeGateways = (boundMs?: number, keyOf?: (id: string) => unknown) =>
  provider(
    [profile('a', a.url, 'Alpha'), profile('b', b.url, 'Beta'), profile('c', c.url, 'Gamma')],
    { a: a.tokens.production, b: b.tokens.production, c: c.tokens.production },
    boundMs,
    keyOf,
  );

const ids = (lists: LmGatewayModels[]) => lists.flatMap((l) => l.models.map((m) => lmModelId(l.gateway.id, m.id)));

test('lists the models of every gateway that has a token, each read once, ids <gateway id>/<model id>', async () => {
  const p = provider([profile('a', a.url, 'Alpha'), profile('b', b.url, 'Beta'), profile('c', c.url, 'Gamma')], {
    a: a.tokens.production,
    b: b.tokens.production,
    c: undefined,
  });
  const [first, again] = await Promise.all([p.lists.list(), p.lists.list()]);
  assert.deepEqual(
    first.map((l) => [l.gateway.id, l.gateway.name]),
    [
      ['a', 'Alpha'],
      ['b', 'Beta'],
    ],
    'gateways in their order, with their names; the gateway without a token is not listed',
  );
  assert.deepEqual(again, first);
  const all = ids(first);
  assert.ok(
    all.includes('a/gpt-4o-mini') && all.includes('b/gpt-4o-mini'),
    'the same model of two gateways told apart',
  );
  await p.lists.list();
  assert.deepEqual(
    [modelReads(a), modelReads(b), c.log.length],
    [1, 1, 0],
    'one read per gateway, none without a token',
  );
  assert.equal(p.fired(), 0);
});

test('an id names its gateway; a bare id (or an unknown prefix) is the active gateway’s model', () => {
  const known = (g: string) => ['a', 'b'].includes(g);
  assert.deepEqual(lmTarget('b/gpt-4o', known, 'a'), { gateway: 'b', model: 'gpt-4o' });
  assert.deepEqual(lmTarget('gpt-4o', known, 'a'), { gateway: 'a', model: 'gpt-4o' }, 'an id from before gateways');
  assert.deepEqual(
    lmTarget('b/openai/gpt-4o', known, 'a'),
    { gateway: 'b', model: 'openai/gpt-4o' },
    'a model id with a slash of its own',
  );
  assert.deepEqual(lmTarget('openai/gpt-4o', known, 'a'), { gateway: 'a', model: 'openai/gpt-4o' });
  const { gateways } = threeGateways();
  assert.deepEqual(gatewayOfModel('b/gpt-4o', gateways, 'a'), { gateway: 'b', model: 'gpt-4o' });
  assert.equal(gatewayOfModel('a/gpt-4o', gateways, 'a'), undefined, 'the active gateway’s model: as before');
  assert.equal(gatewayOfModel('gpt-4o', gateways, 'a'), undefined);
  assert.equal(gatewayOfModel(undefined, gateways, 'a'), undefined);
});

test('a gateway down and one not answering hide no one, and the list waits no longer than the bound', async () => {
  const port = await deadPort();
  c.fault({ kind: 'latency', ms: 5_000 });
  const p = provider(
    [profile('a', a.url, 'Alpha'), profile('down', `http://127.0.0.1:${port}`, 'Down'), profile('c', c.url, 'Gamma')],
    { a: a.tokens.production, down: 'sk-DownDownDownDownDownDownDownDownDownDown', c: c.tokens.production },
    400,
  );
  let t0 = Date.now();
  const first = await p.lists.list();
  assert.ok(Date.now() - t0 < 400 + 300, `within the bound (${Date.now() - t0} ms)`);
  assert.deepEqual(
    first.map((l) => l.gateway.id),
    ['a'],
  );
  assert.ok(first[0].models.length > 3);
  t0 = Date.now();
  const second = await p.lists.list();
  assert.ok(Date.now() - t0 < 200, `a silent gateway holds no one the next time (${Date.now() - t0} ms)`);
  assert.deepEqual(
    second.map((l) => l.gateway.id),
    ['a'],
  );
  assert.equal(modelReads(a), 1, 'the answering gateway is not read again');
});

test('a gateway answering late is kept, fires the change event, and is listed on the next question', async () => {
  c.fault({ kind: 'latency', ms: 60_000 });
  const p = threeGateways(500);
  const first = await p.lists.list();
  assert.deepEqual(
    first.map((l) => l.gateway.id),
    ['a', 'b'],
  );
  c.clearFaults();
  c.fault({ kind: 'latency', ms: 300 });
  p.tokens.a = a.tokens.test; // a's token changed: its list is read again, with c's
  p.lists.serviceChanged();
  assert.equal(p.fired(), 1);
  const t0 = Date.now();
  const second = await p.lists.list();
  assert.ok(Date.now() - t0 < 250, `back without waiting for the gateway that was silent (${Date.now() - t0} ms)`);
  assert.deepEqual(
    second.map((l) => l.gateway.id),
    ['a', 'b'],
  );
  await wait(500);
  assert.equal(p.fired(), 2, 'the late list fired the change event');
  const third = await p.lists.list();
  assert.deepEqual(
    third.map((l) => l.gateway.id),
    ['a', 'b', 'c'],
  );
  assert.equal(modelReads(c), 2, 'the late answer is used: not read a third time');
});

test('a token replaced under the same name forgets that gateway’s list only (the key holds a digest, not the name)', async () => {
  const secrets = new InMemorySecretStorage();
  const store = new TokenStore(new InMemoryMemento(), secrets, undefined, tokenKeys('b'));
  await store.add('main', b.tokens.production);
  // The provider's key of gateway b: its token store's active name and digest (as the extension's).
  const p = threeGateways(undefined, (id) => (id === 'b' ? [store.activeName(), store.activeFingerprint()] : id));
  const before = await p.lists.list();
  const fingerprint = store.activeFingerprint();
  assert.ok(fingerprint && !b.tokens.production.includes(fingerprint), 'a digest, never the token');
  await store.add('main', b.tokens.test); // the same name, another value (group chat-only: one model)
  p.tokens.b = b.tokens.test;
  assert.notEqual(store.activeFingerprint(), fingerprint);
  p.lists.serviceChanged();
  assert.equal(p.fired(), 1);
  const after = await p.lists.list();
  assert.equal(after[1].models.length, 1, "the new token's list");
  assert.ok(before[1].models.length > 1);
  assert.deepEqual([modelReads(a), modelReads(b), modelReads(c)], [1, 2, 1], 'only that gateway read again');
  store.dispose();
});

test("a request for gateway B's model reaches B only, with B's token; a bare id goes to the active gateway", async () => {
  const p = threeGateways();
  const req = { surface: 'compatible' as const, messages: [{ role: 'user' as const, content: 'hi' }] };
  const routes = lmRoutes({ id: 'b/gpt-4o-mini' }, p.gateways, 'a', {});
  assert.deepEqual(routes, [{ gateway: 'b', model: 'gpt-4o-mini' }]);
  const events = await collect(withNotices(chatStreamAcross(p.gateways, routes, req)));
  const done = events.find((e) => e.type === 'done');
  assert.deepEqual(done?.type === 'done' && done.result.gateway, { id: 'b', name: 'Beta' });
  assert.deepEqual([chats(a).length, chats(b).length, chats(c).length], [0, 1, 0]);
  assert.ok(b.credentials.includes(credentialDigest(b.tokens.production)));
  for (const other of [a, c]) assert.ok(!other.credentials.includes(credentialDigest(b.tokens.production)));
  const listed = lmRoutes({ id: 'x', route: { gateway: 'c', model: 'gpt-4o-mini' } }, p.gateways, 'a', {});
  assert.deepEqual(listed, [{ gateway: 'c', model: 'gpt-4o-mini' }], 'the route the model was listed with wins');
  await collect(chatStreamAcross(p.gateways, lmRoutes({ id: 'gpt-4o-mini' }, p.gateways, 'a', {}), req));
  assert.deepEqual([chats(a).length, chats(b).length], [1, 1], 'a bare id: the active gateway');
  assert.ok(!a.credentials.includes(credentialDigest(b.tokens.production)));
});

test('a failover is said in the reply, before the answer, naming both gateways and why', async () => {
  a.fault({ kind: 'status', status: 503, path: '/v1/chat/completions', count: 10 });
  b.fault({ kind: 'status', status: 502, path: '/v1/chat/completions', count: 10 });
  const p = threeGateways();
  const fallbacks = {
    'gpt-4o-mini': [
      { gateway: 'b', model: 'gpt-4o-mini' },
      { gateway: 'Gamma', model: 'gpt-4o-mini' },
    ],
  };
  const routes = lmRoutes({ id: 'a/gpt-4o-mini' }, p.gateways, 'a', fallbacks);
  const req = { surface: 'compatible' as const, messages: [{ role: 'user' as const, content: 'hi' }] };
  const events: ChatEvent[] = await collect(withNotices(chatStreamAcross(p.gateways, routes, req)));
  const first = events[0];
  assert.equal(first.type, 'text');
  const lines = first.type === 'text' ? first.text.trim().split('\n') : [];
  assert.equal(lines.length, 2, 'one line per gateway that could not serve it');
  assert.match(
    lines[0],
    /^> ↪ Model Relay: gateway "Alpha" could not serve gpt-4o-mini \(HTTP 503: (?!HTTP)[^)]*\); answered by gateway "Gamma"/,
  );
  assert.match(
    lines[1],
    /^> ↪ Model Relay: gateway "Beta" could not serve gpt-4o-mini \(HTTP 502: (?!HTTP)[^)]*\); answered by gateway "Gamma"/,
  );
  assert.ok(
    events.some((e) => e.type === 'text' && e !== first),
    'then the answer',
  );
  assert.equal(events.at(-1)?.type, 'done');
  assert.equal(chats(c).filter((r) => r.status === 200).length, 1, 'answered once, by the last gateway');
  for (const [owner, sim] of Object.entries({ a, b, c }))
    for (const other of [a, b, c].filter((s) => s !== sim))
      assert.ok(!sim.credentials.includes(credentialDigest(other.tokens.production)), `${owner} saw a foreign token`);
});

test('without a failover the reply is the gateway’s alone', async () => {
  const p = threeGateways();
  const req = { surface: 'compatible' as const, messages: [{ role: 'user' as const, content: 'hi' }] };
  const events = await collect(
    withNotices(chatStreamAcross(p.gateways, lmRoutes({ id: 'a/gpt-4o-mini' }, p.gateways, 'a', {}), req)),
  );
  assert.ok(!events.some((e) => e.type === 'text' && e.text.includes('Model Relay')));
});

test("a gateway tool called by gateway B's model runs on B: the provider remembers its replies' calls", async () => {
  const p = threeGateways();
  const origins = new ToolCallOrigins();
  const tools = [
    {
      name: 'modelRelay_listModels',
      description: 'Lists the models',
      inputSchema: { type: 'object', properties: { capability: { type: 'string' } } },
    },
  ];
  const req = {
    surface: 'compatible' as const,
    messages: [{ role: 'user' as const, content: 'which models? call modelRelay_listModels' }],
    tools,
    toolMode: 'required' as const,
  };
  const events = await collect(
    chatStreamAcross(p.gateways, lmRoutes({ id: 'b/gpt-4o-mini' }, p.gateways, 'a', {}), req),
  );
  const done = events.find((e) => e.type === 'done');
  assert.ok(done?.type === 'done');
  const call = done.result.toolCalls[0];
  assert.equal(call?.name, 'modelRelay_listModels');
  origins.remember(done.result.gateway?.id, done.result.toolCalls);
  // VS Code hands the tool the input of the call part the provider reported (a copy of it).
  assert.equal(origins.gatewayOf(call.name, JSON.parse(JSON.stringify(call.input))), 'b');
  assert.equal(origins.gatewayOf(call.name, { capability: 'something else' }), undefined, 'a call no reply made');
  assert.equal(origins.gatewayOf('modelRelay_diagnose', call.input), undefined);
});

test('tool call origins are bounded in age and count; a call without a gateway is not kept', () => {
  let now = 0;
  const origins = new ToolCallOrigins(() => now);
  origins.remember(undefined, [{ name: 't', input: {} }]);
  assert.equal(origins.gatewayOf('t', {}), undefined);
  origins.remember('b', [{ name: 't', input: { n: 0 } }]);
  origins.remember('c', [{ name: 't', input: { n: 0 } }]);
  assert.equal(origins.gatewayOf('t', { n: 0 }), 'c', 'the latest call wins');
  now = 10 * 60_000;
  assert.equal(origins.gatewayOf('t', { n: 0 }), undefined, 'forgotten after ten minutes');
  origins.remember(
    'b',
    Array.from({ length: 100 }, (_, n) => ({ name: 't', input: { n } })),
  );
  assert.equal(origins.gatewayOf('t', { n: 35 }), undefined, 'the oldest go first');
  assert.equal(origins.gatewayOf('t', { n: 36 }), 'b');
  assert.equal(origins.gatewayOf('t', { n: 99 }), 'b');
});
