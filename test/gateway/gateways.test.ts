/**
 * Several gateways over real HTTP: two or three simulators with their own tokens, a GatewaySet of
 * clients, failover across gateways (chat only, before anything of a reply arrived), and the model
 * lists of all gateways within a bound. Every simulator keeps digests of the credentials it received,
 * so a test proves a token never reached another gateway.
 */
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import {
  GatewaySet,
  LIST_ACROSS_BOUND_MS,
  chatAcross,
  chatStreamAcross,
  failoverWorthy,
  formatRecord,
  listModelsAcross,
  routesFor,
  type ChatEvent,
  type FailoverEvent,
  type GatewayModelList,
  type GatewayProfile,
  type RequestRecord,
} from '../../src/gateway';
import { credentialDigest, defaultConfig, startSimulator, type Simulator } from '../sim/server';
import { collect, deadPort, thrown } from './helpers';

/** A simulator whose tokens are its own (the default ones with a per-gateway mark). */
function simFor(mark: string, extra: Parameters<typeof startSimulator>[0] = {}) {
  const tokens = defaultConfig().tokens.map((t) => ({ ...t, value: `sk-${mark}${t.value.slice(3 + mark.length)}` }));
  return startSimulator({ tokens, ...extra });
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

const hi = [{ role: 'user' as const, content: 'hi' }];
const chatPaths = /^\/v1\/(chat\/completions|messages)$/;
const chats = (s: Simulator) => s.log.filter((l) => chatPaths.test(l.path));
const billed = (s: Simulator) => chats(s).filter((l) => l.status >= 200 && l.status < 300).length;

interface Fixture {
  set: GatewaySet;
  records: RequestRecord[];
  asked: string[];
}

/** A set over gateways named after their simulator; `tokens` per gateway id (default: its sim's production token). */
function makeSet(profiles: GatewayProfile[], tokens: Record<string, string | undefined>): Fixture {
  const records: RequestRecord[] = [];
  const asked: string[] = [];
  const set = new GatewaySet(profiles, {
    token: (id) => {
      asked.push(id);
      return tokens[id];
    },
    onRequest: (r) => records.push(r),
    sleep: async (_ms, signal) => {
      if (signal?.aborted) throw new Error('aborted');
    },
    random: () => 0.5,
  });
  return { set, records, asked };
}

const profile = (id: string, baseUrl: string, name = id.toUpperCase()): GatewayProfile => ({ id, name, baseUrl });

/** Gateways a, b (and c) on the three simulators, each with its own production token. */
function threeGateways(aUrl = a.url): Fixture {
  return makeSet([profile('a', aUrl, 'Alpha'), profile('b', b.url, 'Beta'), profile('c', c.url, 'Gamma')], {
    a: a.tokens.production,
    b: b.tokens.production,
    c: c.tokens.production,
  });
}

/** No simulator saw another gateway's token (any of them). */
function assertTokensBound(): void {
  const sims = { a, b, c };
  for (const [owner, sim] of Object.entries(sims))
    for (const [other, foreign] of Object.entries(sims)) {
      if (other === owner) continue;
      for (const tok of Object.values(foreign.tokens))
        assert.ok(!sim.credentials.includes(credentialDigest(tok)), `gateway ${owner} saw a token of gateway ${other}`);
    }
}

const primary = { gateway: 'a', model: 'gpt-4o-mini' };
const toB = { 'gpt-4o-mini': [{ gateway: 'b', model: 'gpt-4o-mini' }] };

async function streamOver(f: Fixture, routes = routesFor(primary, toB, f.set), signal?: AbortSignal) {
  return collect<ChatEvent | FailoverEvent>(
    chatStreamAcross(f.set, routes, { surface: 'compatible', messages: hi, ...(signal ? { signal } : {}) }),
  );
}

const doneOf = (events: Array<ChatEvent | FailoverEvent>) => {
  const d = events.find((e) => e.type === 'done');
  assert.ok(d && d.type === 'done', 'a done event');
  return d.result;
};

test('GatewaySet: one client per gateway, each asking only for its own token; records name the gateway', async () => {
  const f = threeGateways();
  assert.deepEqual(
    f.set.entries().map((e) => e.profile.id),
    ['a', 'b', 'c'],
  );
  assert.equal(f.set.byName('beta')?.profile.id, 'b', 'names are matched without case');
  assert.equal(f.set.byName('c')?.profile.name, 'Gamma', 'an id is accepted too');
  assert.equal(f.set.byName('nope'), undefined);
  await f.set.get('b')!.chat({ surface: 'compatible', model: 'gpt-4o-mini', messages: hi });
  assert.deepEqual([...new Set(f.asked)], ['b'], 'only gateway b was asked for a token');
  assert.equal(f.records.length, 1);
  assert.equal(f.records[0].gateway, 'Beta');
  assert.match(formatRecord(f.records[0]), / gateway=Beta$/);
  assert.equal(chats(a).length + chats(c).length, 0);
  assertTokensBound();
});

test('GatewaySet.configure keeps an unchanged client, reconfigures a changed one, drops a removed one', async () => {
  const f = threeGateways();
  const [ca, cb] = [f.set.get('a'), f.set.get('b')];
  f.set.configure([
    { id: 'a', name: 'Alpha renamed', baseUrl: a.url },
    { id: 'b', name: 'Beta', baseUrl: c.url },
  ]);
  assert.equal(f.set.get('a'), ca, 'unchanged endpoints: the same client');
  assert.equal(f.set.get('b'), cb, 'a changed gateway keeps its client, reconfigured');
  assert.equal(f.set.get('b')!.endpoints().base, c.url);
  assert.equal(f.set.get('c'), undefined);
  assert.equal(f.set.byName('gamma'), undefined);
  await f.set.get('a')!.chat({ surface: 'compatible', model: 'gpt-4o-mini', messages: hi });
  assert.equal(f.records.at(-1)!.gateway, 'Alpha renamed', 'records carry the current name');
});

test('GatewaySet.configureAll applies shared settings to every client and to those added later', async () => {
  const f = makeSet([profile('a', a.url)], { a: a.tokens.production, d: c.tokens.production });
  f.set.configureAll({ timeouts: { chatMs: 100 }, retry: { maxRetries: 0 } });
  f.set.configureAll({ timeouts: { streamIdleMs: 5_000 } }); // adds to the settings before, replaces nothing
  f.set.configure([...f.set.entries().map((e) => e.profile), profile('d', c.url, 'Delta')]);
  for (const s of [a, c]) s.fault({ kind: 'latency', ms: 400 });
  for (const id of ['a', 'd']) {
    const e = await thrown(() => f.set.get(id)!.chat({ surface: 'compatible', model: 'gpt-4o-mini', messages: hi }));
    assert.equal(e.kind, 'timeout', `gateway ${id}`);
  }
  assert.equal(chats(a).length + chats(c).length, 2, 'no retry');
});

test('GatewaySet: "Keep what I typed" is asked per base URL, at creation and when it changes', () => {
  let typed = new Set<string>();
  const set = new GatewaySet([{ id: 'v', name: 'V', baseUrl: `${a.url}/v1` }], {
    token: () => undefined,
    verbatim: (u) => typed.has(u),
  });
  assert.equal(set.get('v')!.endpoints().verbatim, false, 'normalised: /v1 removed');
  typed = new Set([`${a.url}/v1`]);
  set.configure([{ id: 'v', name: 'V', baseUrl: `${a.url}/v1` }]);
  assert.equal(set.get('v')!.endpoints().verbatim, true, 'the same address, now kept as typed');
  assert.equal(set.get('v')!.endpoints().base, `${a.url}/v1`);
});

test('routesFor: primary first, then the fallbacks of its model, without duplicates or unknown gateways', () => {
  const f = threeGateways();
  const routes = routesFor(
    primary,
    {
      'gpt-4o-mini': [
        { gateway: 'b', model: 'gpt-4o-mini' },
        { gateway: 'a', model: 'gpt-4o-mini' },
        { gateway: 'nowhere', model: 'x' },
        { gateway: 'Gamma', model: 'claude-sonnet-4-5' },
        { gateway: 'b', model: 'gpt-4o-mini' },
      ],
      other: [{ gateway: 'c', model: 'y' }],
    },
    f.set,
  );
  assert.deepEqual(routes, [
    { gateway: 'a', model: 'gpt-4o-mini' },
    { gateway: 'b', model: 'gpt-4o-mini' },
    { gateway: 'c', model: 'claude-sonnet-4-5' },
  ]);
  assert.deepEqual(routesFor(primary, {}), [primary]);
});

test('failover on connection refused: the next gateway answers, the done result names it', async () => {
  const port = await deadPort();
  const f = threeGateways(`http://127.0.0.1:${port}`);
  const events = await streamOver(f);
  const fo = events.filter((e) => e.type === 'failover');
  assert.equal(fo.length, 1);
  assert.equal(fo[0].type === 'failover' && fo[0].from.gatewayName, 'Alpha');
  assert.equal(fo[0].type === 'failover' && fo[0].to.gatewayName, 'Beta');
  assert.equal(fo[0].type === 'failover' && fo[0].error.kind, 'network');
  assert.ok(events.indexOf(fo[0]) === 0, 'the failover is told before any reply event');
  const r = doneOf(events);
  assert.deepEqual(r.gateway, { id: 'b', name: 'Beta' });
  assert.match(r.text, /hi/);
  assert.equal(billed(b), 1);
  assert.deepEqual(
    f.records.map((x) => x.gateway),
    ['Alpha', 'Alpha', 'Alpha', 'Beta'],
    'one record per attempt, each naming its gateway',
  );
  assertTokensBound();
});

test('failover on 503 model_not_found, 401 of the primary token, 429 after its retries', async () => {
  const cases: Array<{ name: string; arrange: () => void; token?: string }> = [
    { name: '503 model_not_found', arrange: () => a.fault({ kind: 'status', status: 503, code: 'model_not_found' }) },
    { name: '401', arrange: () => undefined, token: 'sk-NotAnyGatewaysTokenAtAllXXXXXXXXXXXXXXXXXXXX' },
    { name: '429 after retries', arrange: () => a.fault({ kind: 'status', status: 429 }) },
  ];
  for (const k of cases) {
    for (const s of [a, b, c]) s.reset();
    k.arrange();
    const f = makeSet([profile('a', a.url, 'Alpha'), profile('b', b.url, 'Beta')], {
      a: k.token ?? a.tokens.production,
      b: b.tokens.production,
    });
    const events = await streamOver(f);
    assert.equal(events.filter((e) => e.type === 'failover').length, 1, k.name);
    assert.deepEqual(doneOf(events).gateway, { id: 'b', name: 'Beta' }, k.name);
    assert.equal(billed(a), 0, `${k.name}: nothing billed at the primary`);
    assert.equal(billed(b), 1, `${k.name}: one billed request in all`);
    assertTokensBound();
  }
  assert.equal(chats(a).length, 3, 'the 429 was retried twice at its own gateway before moving on');
});

test('non-streamed chatAcross follows the same rule and returns the failovers', async () => {
  a.fault({ kind: 'status', status: 503, code: 'model_not_found' });
  const f = threeGateways();
  const routes = routesFor(
    primary,
    {
      'gpt-4o-mini': [
        { gateway: 'b', model: 'gpt-4o-mini' },
        { gateway: 'c', model: 'gpt-4o-mini' },
      ],
    },
    f.set,
  );
  b.fault({ kind: 'status', status: 401 });
  const { result, failovers } = await chatAcross(f.set, routes, { surface: 'compatible', messages: hi });
  assert.deepEqual(result.gateway, { id: 'c', name: 'Gamma' });
  assert.deepEqual(
    failovers.map((x) => [x.from.gateway, x.to.gateway, x.error.kind]),
    [
      ['a', 'b', 'forbidden'],
      ['b', 'c', 'unauthorized'],
    ],
  );
  assert.equal(billed(a) + billed(b) + billed(c), 1);
  assertTokensBound();
});

test('no failover once a reply began: a mid-stream error or a reset after the first event is thrown', async () => {
  for (const fault of [
    { kind: 'midStreamError', afterEvents: 1, code: 'rate_limit_exceeded', errorType: 'rate_limit_error' },
    { kind: 'reset', afterEvents: 1 },
    { kind: 'midStreamError', afterEvents: 0, errorType: 'server_error', message: 'upstream error' },
  ] as const) {
    for (const s of [a, b, c]) s.reset();
    a.fault(fault);
    const f = threeGateways();
    const got: Array<ChatEvent | FailoverEvent> = [];
    const e = await thrown(async () => {
      for await (const ev of chatStreamAcross(f.set, routesFor(primary, toB, f.set), {
        surface: 'compatible',
        messages: hi,
      }))
        got.push(ev);
    });
    assert.notEqual(e.kind, 'aborted', JSON.stringify(fault));
    assert.equal(
      got.some((x) => x.type === 'failover'),
      false,
    );
    assert.equal(chats(b).length, 0, `${JSON.stringify(fault)}: the second gateway got no chat request`);
    assert.equal(chats(a).length, 1, 'never re-sent');
  }
});

test('no failover once a non-streamed answer began: a connection lost in its body is thrown, never re-sent', async () => {
  a.fault({ kind: 'reset', afterEvents: 0 });
  const f = threeGateways();
  const e = await thrown(() =>
    chatAcross(f.set, routesFor(primary, toB, f.set), { surface: 'compatible', messages: hi }),
  );
  assert.equal(e.status, undefined, 'a failure of the connection, not an answer said by the gateway');
  assert.equal(
    failoverWorthy(e),
    false,
    'the rule refuses it by the error alone (a connection lost after the request was written); the request log says the answer began too',
  );
  assert.deepEqual(
    chats(a).map((l) => l.status),
    [200],
  );
  assert.equal(chats(b).length, 0, 'the second gateway got no chat request');
});

test('no failover on 400, on a redirect, nor after an abort; a redirect never carries a token elsewhere', async () => {
  a.fault({ kind: 'status', status: 400 });
  const f = threeGateways();
  const e400 = await thrown(() => streamOver(f));
  assert.equal(e400.status, 400);
  assert.equal(failoverWorthy(e400), false);
  assert.equal(chats(b).length, 0);

  a.reset();
  a.fault({ kind: 'redirect', location: `${b.url}/v1/chat/completions` });
  const eRedirect = await thrown(() => streamOver(f));
  assert.equal(eRedirect.detail, 'redirect');
  assert.equal(b.log.length, 0, 'the redirect was not followed');
  assertTokensBound();

  a.reset();
  const ctl = new AbortController();
  ctl.abort();
  const eAbort = await thrown(() => streamOver(f, undefined, ctl.signal));
  assert.equal(eAbort.kind, 'aborted');
  assert.equal(b.log.length, 0, 'an abort stops everything');
});

test('an abort while the primary backs off stops the call: no further route', async () => {
  a.fault({ kind: 'status', status: 429 });
  const ctl = new AbortController();
  const f = threeGateways();
  const e = await thrown(() =>
    collect(
      chatStreamAcross(f.set, routesFor(primary, toB, f.set), {
        surface: 'compatible',
        messages: hi,
        signal: ctl.signal,
        onRetry: () => ctl.abort(),
      }),
    ),
  );
  assert.equal(e.kind, 'aborted');
  assert.equal(b.log.length, 0);
});

test('every route down: the last error is thrown after one failover per gateway, each billed nowhere', async () => {
  for (const s of [a, b, c]) s.fault({ kind: 'status', status: 503, code: 'model_not_found' });
  const f = threeGateways();
  const routes = routesFor(
    primary,
    {
      'gpt-4o-mini': [
        { gateway: 'b', model: 'gpt-4o-mini' },
        { gateway: 'c', model: 'gpt-4o-mini' },
      ],
    },
    f.set,
  );
  const seen: string[] = [];
  const e = await thrown(async () => {
    for await (const ev of chatStreamAcross(f.set, routes, { surface: 'compatible', messages: hi })) seen.push(ev.type);
  });
  assert.equal(e.detail, 'model_not_found_503');
  assert.equal(e.host, new URL(c.url).host, 'the last gateway’s error');
  assert.deepEqual(seen, ['failover', 'failover']);
  assert.equal(billed(a) + billed(b) + billed(c), 0);
  assertTokensBound();
});

test('a route whose gateway is not in the set is skipped; none known is an input error', async () => {
  const f = threeGateways();
  const events = await streamOver(f, [
    { gateway: 'gone', model: 'x' },
    { gateway: 'b', model: 'gpt-4o-mini' },
  ]);
  assert.deepEqual(doneOf(events).gateway?.id, 'b');
  const e = await thrown(() => streamOver(f, [{ gateway: 'gone', model: 'x' }]));
  assert.equal(e.kind, 'bad_request');
  assert.match(e.message, /gone/);
});

test('listModelsAcross: one gateway down, one not answering: the others within the bound, each told apart', async () => {
  const port = await deadPort();
  b.fault({ kind: 'latency', ms: 5_000 });
  const f = makeSet(
    [profile('a', a.url, 'Alpha'), profile('b', b.url, 'Beta'), profile('down', `http://127.0.0.1:${port}`, 'Down')],
    { a: a.tokens.production, b: b.tokens.production, down: 'sk-DownDownDownDownDownDownDownDownDownDown' },
  );
  const bound = 400;
  const t0 = Date.now();
  const lists = await listModelsAcross(f.set, { boundMs: bound });
  const took = Date.now() - t0;
  assert.ok(took >= bound - 20 && took < bound + 300, `returned at the bound (${took} ms)`);
  const [la, lb, ld] = lists;
  assert.equal(la.gateway.id, 'a');
  assert.ok(la.models?.some((m) => m.id === 'gpt-4o-mini'));
  assert.equal(lb.timedOut, true);
  assert.equal(lb.models, undefined);
  assert.equal(ld.error?.kind, 'network');
  assert.ok(LIST_ACROSS_BOUND_MS >= 1_000 && LIST_ACROSS_BOUND_MS <= 5_000, 'the default bound is short');
  assertTokensBound();
});

test('listModelsAcross: an error in one never hides another; ids limit the gateways read', async () => {
  a.fault({ kind: 'status', status: 401 });
  const f = threeGateways();
  const lists = await listModelsAcross(f.set, { boundMs: 2_000, ids: ['a', 'c'] });
  assert.deepEqual(
    lists.map((l) => [l.gateway.id, l.error?.kind, !!l.models?.length]),
    [
      ['a', 'unauthorized', false],
      ['c', undefined, true],
    ],
  );
  assert.equal(b.log.length, 0);
});

test('listModelsAcross with onLate: a silent gateway holds no one, not even the first time; late outcomes come to onLate', async () => {
  b.fault({ kind: 'latency', ms: 300 });
  c.fault({ kind: 'latency', ms: 60_000 });
  const f = threeGateways();
  const late: GatewayModelList[] = [];
  const onLate = (l: GatewayModelList) => late.push(l);
  let t0 = Date.now();
  const first = await listModelsAcross(f.set, { boundMs: 1_000, onLate });
  const firstTook = Date.now() - t0;
  // Never read before: waited for FIRST_READ_FACTOR × the latest answer (at least LATE_FLOOR_MS), not the bound.
  assert.ok(firstTook < 290, `the first read is back without the silent gateway (${firstTook} ms)`);
  assert.ok(first[0].models?.length, 'the fast gateway is in');
  assert.deepEqual([first[1].pending, first[2].pending], [true, true]);
  await new Promise((r) => setTimeout(r, 1_100 - firstTook));
  assert.deepEqual(
    late.map((l) => [l.gateway.id, !!l.models?.length, l.timedOut ?? false]),
    [
      ['b', true, false],
      ['c', false, true],
    ],
    'the slower gateway’s list and the silent one’s time-out came late',
  );
  late.length = 0;

  t0 = Date.now();
  const second = await listModelsAcross(f.set, { boundMs: 1_000, onLate });
  const took = Date.now() - t0;
  assert.ok(took >= 290 && took < 600, `back once the slowest answering gateway answered (${took} ms)`);
  assert.ok(second[0].models?.length && second[1].models?.length);
  assert.equal(second[2].pending, true);
  assert.equal(late.length, 0);
  await new Promise((r) => setTimeout(r, 1_000 - took + 100));
  assert.deepEqual(
    late.map((l) => [l.gateway.id, l.timedOut]),
    [['c', true]],
    'the silent gateway’s time-out came late, at the bound',
  );

  c.clearFaults();
  late.length = 0;
  const third = await listModelsAcross(f.set, { boundMs: 1_000, onLate });
  await new Promise((r) => setTimeout(r, 100));
  const recovered = third[2].models ?? late.find((l) => l.gateway.id === 'c')?.models;
  assert.ok(recovered?.length, 'a gateway that answers again is back (in the result or late)');
});

test('listModelsAcross: the caller’s abort stops every read', async () => {
  for (const s of [a, b, c]) s.fault({ kind: 'latency', ms: 2_000 });
  const f = threeGateways();
  const ctl = new AbortController();
  setTimeout(() => ctl.abort(), 50);
  const t0 = Date.now();
  const lists = await listModelsAcross(f.set, { boundMs: 5_000, signal: ctl.signal });
  assert.ok(Date.now() - t0 < 1_000);
  assert.deepEqual(
    lists.map((l) => l.error?.kind),
    ['aborted', 'aborted', 'aborted'],
  );
});
