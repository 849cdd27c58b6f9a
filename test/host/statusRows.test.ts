/**
 * The Status view as one tree of gateways, over real HTTP: two simulators as two gateways, each with
 * its own token store; a chat on each reaches the view's rows through the records (LastRequests),
 * so each gateway node shows the last request that gateway served. The active gateway is expanded,
 * the other collapsed with "Switch to This Gateway"; tokens are masked everywhere and a click on
 * another token switches to it. A tree of one shows its gateway's rows directly: the same rows its
 * node holds in a tree of two.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { GatewaySet, maskToken, type GatewayProfile, type RequestRecord } from '../../src/gateway';
import { tokenKeys } from '../../src/host/gateways/activeToken';
import { TokenStore } from '../../src/host/gateways/tokenStore';
import { CommandId } from '../../src/host/commandIds';
import {
  ACTIVE_GATEWAY_NODE,
  GATEWAY_NODE,
  statusRows,
  toolsRow,
  type GatewayFacts,
  type StatusFacts,
  type StatusRow,
} from '../../src/host/status/statusRows';
import { LastRequests, MAX_LAST_REQUESTS } from '../../src/host/status/lastRequests';
import { credentialDigest, defaultConfig, startSimulator, type Simulator } from '../sim/server';
import { InMemoryMemento, InMemorySecretStorage } from '../fakes/state';

/** A simulator whose tokens are its own (the default ones with a per-gateway mark), with the gateway's economy (balances). */
function simFor(mark: string) {
  const tokens = defaultConfig().tokens.map((t) => ({ ...t, value: `sk-${mark}${t.value.slice(3 + mark.length)}` }));
  return startSimulator({ tokens, profile: 'real' });
}

let a: Simulator;
let b: Simulator;
before(async () => {
  [a, b] = await Promise.all([simFor('AAA'), simFor('BBB')]);
});
after(() => Promise.all([a.close(), b.close()]));

const hi = [{ role: 'user' as const, content: 'hi' }];

/** Every row, depth first. */
const flat = (rows: readonly StatusRow[]): StatusRow[] => rows.flatMap((r) => [r, ...flat(r.children ?? [])]);
const child = (row: StatusRow, id: string) => row.children?.find((c) => c.id === `${row.id}/${id}`);

async function world() {
  const state = new InMemoryMemento();
  const secrets = new InMemorySecretStorage();
  const stores = {
    a: new TokenStore(state, secrets, undefined, tokenKeys('a')),
    b: new TokenStore(state, secrets, undefined, tokenKeys('b')),
  };
  await stores.a.add('production', a.tokens.production);
  await stores.a.add('test', a.tokens.test, false);
  await stores.b.add('test', b.tokens.test);
  const profiles: GatewayProfile[] = [
    { id: 'a', name: 'Gateway A', baseUrl: a.url },
    { id: 'b', name: 'Gateway B', baseUrl: b.url },
  ];
  const last = new LastRequests();
  const records: RequestRecord[] = [];
  const set = new GatewaySet(profiles, {
    token: (id) => stores[id as 'a' | 'b'].activeToken(),
    onRequest: (r) => {
      records.push(r);
      last.note(r);
    },
  });
  return { stores, profiles, set, last, records };
}

const base: Omit<StatusFacts, 'gateways' | 'activeId'> = {
  warnBelow: 1,
  now: Date.now(),
  modelCount: undefined,
  proxy: { source: 'none', display: undefined, noProxy: undefined, strictSSL: true },
};

test('two gateways: one node each, the active one expanded, each with the last request it served; tokens masked only', async () => {
  const w = await world();
  await w.set.get('a')!.chat({ surface: 'compatible', model: 'gpt-4o-mini', messages: hi });
  await w.set.get('b')!.chat({ surface: 'compatible', model: 'gpt-4o-mini', messages: hi });
  // A's balance is read (a bookkeeping record: not "the last request" of A).
  const quotaA = await w.set.get('a')!.account.quota({ maxAgeMs: 0 });
  assert.ok(quotaA, "A's simulator tells the balance");
  assert.equal(w.last.of('Gateway A')?.model, 'gpt-4o-mini', "A's last request is A's chat, not its balance read");
  assert.equal(w.last.of('Gateway B')?.host, new URL(b.url).host);

  const gateways: GatewayFacts[] = await Promise.all(
    w.profiles.map(async (profile) => ({
      profile,
      endpoints: w.set.get(profile.id)!.endpoints(),
      tokens: await w.stores[profile.id as 'a' | 'b'].list(),
      quota: profile.id === 'a' ? quotaA : undefined,
      last: w.last.of(profile.name),
    })),
  );
  const rows = statusRows({ ...base, gateways, activeId: 'b' });
  const [nodeA, nodeB] = rows;
  assert.deepEqual(
    [nodeA.label, nodeA.collapsed, nodeA.contextValue, nodeA.gatewayId],
    ['Gateway A', true, GATEWAY_NODE, 'a'],
    'the other gateway: collapsed, with Switch to This Gateway',
  );
  assert.deepEqual(
    [nodeB.label, nodeB.collapsed, nodeB.contextValue, nodeB.gatewayId],
    ['Gateway B', false, ACTIVE_GATEWAY_NODE, 'b'],
    'the active gateway: expanded',
  );
  assert.notEqual(nodeA.id, 'gateway:a:active', 'the node id names the state, so a switch shows the new one expanded');
  assert.equal(nodeB.id, 'gateway:b:active');
  assert.deepEqual(
    rows.slice(2).map((r) => r.id),
    ['models', 'tools', 'proxy', 'diagnose', 'diagnose-all'],
  );
  assert.equal(rows.at(-1)?.command?.command, CommandId.DiagnoseAllGateways);

  // The node: its active token (masked) and balance; B's balance was not read.
  assert.match(
    nodeA.description ?? '',
    new RegExp(`^production ${maskToken(a.tokens.production).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} · \\$`),
  );
  assert.equal(child(nodeA, 'balance')?.description, nodeA.description?.split(' · ')[1]);
  assert.equal(child(nodeB, 'balance'), undefined, 'a balance not known has no row');

  // The last request per gateway: each node's row is its own gateway's request (host and model).
  assert.match(
    child(nodeA, 'last')?.description ?? '',
    new RegExp(`^Compatible surface, gpt-4o-mini → 200 .*\\(${new URL(a.url).host}\\)`),
  );
  assert.match(
    child(nodeB, 'last')?.description ?? '',
    new RegExp(`^Compatible surface, gpt-4o-mini → 200 .*\\(${new URL(b.url).host}\\)`),
  );

  // Endpoint, surfaces, tokens: another gateway's endpoint is copied (Configure Base URL edits the active one).
  assert.equal(child(nodeA, 'endpoint')?.command?.command, CommandId.CopyValue);
  assert.equal(child(nodeB, 'endpoint')?.command?.command, CommandId.ConfigureBaseUrl);
  assert.deepEqual(
    child(nodeA, 'surfaces')?.children?.map((r) => r.id),
    ['gateway:a/compatible', 'gateway:a/native', 'gateway:a/responses'],
  );
  assert.deepEqual(
    [child(nodeA, 'surfaces')?.collapsed, child(nodeB, 'surfaces')?.collapsed],
    [true, false],
    "the active gateway's surfaces are open, another's closed",
  );
  const tokensA = child(nodeA, 'tokens')!.children!;
  assert.deepEqual(
    tokensA.map((r) => [r.label, r.command?.command, r.command?.arguments]),
    [
      ['production', CommandId.UseGatewayToken, ['a', 'production']],
      ['test', CommandId.UseGatewayToken, ['a', 'test']],
    ],
    "a click on a token of another gateway switches to it (that gateway's active one too)",
  );
  const tokensB = child(nodeB, 'tokens')!.children!;
  assert.equal(tokensB[0].command, undefined, 'the token in use has nothing to switch to');
  assert.match(tokensB[0].description ?? '', / · active$/);

  // Ids are unique across the tree (each gateway has its own "endpoint", "balance" …).
  const ids = flat(rows).map((r) => r.id);
  assert.equal(new Set(ids).size, ids.length, `unique ids: ${ids.join(', ')}`);
  // No token in any row, only masked ones; and no simulator saw the other gateway's token.
  const text = JSON.stringify(rows);
  for (const tok of [...Object.values(a.tokens), ...Object.values(b.tokens)]) assert.ok(!text.includes(tok));
  assert.ok(text.includes(maskToken(b.tokens.test)));
  for (const tok of Object.values(b.tokens)) assert.ok(!a.credentials.includes(credentialDigest(tok)));
  for (const tok of Object.values(a.tokens)) assert.ok(!b.credentials.includes(credentialDigest(tok)));
});

test("a tree of one: its gateway's rows directly — the rows its node holds in a tree of two — then the shared rows", async () => {
  const w = await world();
  const facts = async (profile: GatewayProfile): Promise<GatewayFacts> => ({
    profile,
    endpoints: w.set.get(profile.id)!.endpoints(),
    tokens: await w.stores[profile.id as 'a' | 'b'].list(),
    quota: undefined,
    last: undefined,
  });
  const [a1, b1] = await Promise.all(w.profiles.map(facts));
  const rows = statusRows({ ...base, gateways: [a1], activeId: 'a' });
  const two = statusRows({ ...base, gateways: [a1, b1], activeId: 'a' });
  const shared = ['models', 'tools', 'proxy', 'diagnose'];
  assert.deepEqual(
    rows.slice(0, -shared.length),
    two[0].children,
    "one gateway's rows are its node's children in a tree of two",
  );
  assert.deepEqual(
    rows.slice(-shared.length).map((r) => r.id),
    shared,
    'the shared rows; no Diagnose All Gateways with one gateway',
  );
  assert.deepEqual(
    rows.map((r) => r.label),
    ['Endpoint', 'Surfaces', 'Tokens', 'Last request', 'Models', 'Terminal tools', 'Proxy', 'Diagnose'],
  );
  // What a one-gateway user reads at once: the surfaces' URLs, the tokens masked, the active one marked.
  const surfaces = rows.find((r) => r.label === 'Surfaces')!;
  assert.equal(surfaces.collapsed, false, 'the surfaces are open');
  assert.deepEqual(
    surfaces.children?.map((r) => [r.label, r.description?.split('  ')[0]]),
    [
      ['Compatible surface', `${a.url}/v1`],
      ['Native surface', a.url],
      ['Responses surface', `${a.url}/v1`],
    ],
  );
  const tokens = rows.find((r) => r.label === 'Tokens')!;
  assert.equal(tokens.collapsed, undefined, 'the tokens are open');
  assert.deepEqual(
    tokens.children?.map((r) => [r.label, r.description, r.command?.command]),
    [
      ['production', `${maskToken(a.tokens.production)} · active`, undefined],
      ['test', maskToken(a.tokens.test), CommandId.UseGatewayToken],
    ],
  );
  // Nothing configured at all: no rows (the view's welcome shows).
  assert.deepEqual(statusRows({ ...base, gateways: [], activeId: undefined }), []);
});

test('LastRequests: the last request per gateway name; balance reads and records without a gateway are not kept; bounded', () => {
  const last = new LastRequests();
  const rec = (gateway: string | undefined, model: string, capability: RequestRecord['capability'] = 'chat') =>
    ({ gateway, model, capability }) as RequestRecord;
  last.note(rec('A', 'one'));
  last.note(rec('A', 'quota', 'account'));
  last.note(rec(undefined, 'lonely'));
  last.note(undefined);
  last.note(rec('B', 'two'));
  assert.equal(last.of('A')?.model, 'one');
  assert.equal(last.of('B')?.model, 'two');
  last.note(rec('A', 'three'));
  assert.equal(last.of('A')?.model, 'three');
  for (let i = 0; i < MAX_LAST_REQUESTS + 5; i++) last.note(rec(`G${i}`, 'x'));
  assert.equal(last.of('A'), undefined, 'the oldest gateway went first');
  assert.equal(last.of(`G${MAX_LAST_REQUESTS + 4}`)?.model, 'x');
  assert.equal(last.of('G0'), undefined);
});

test('the "Terminal tools" row names the set-up tools and opens Set Up Tools…', () => {
  const row = toolsRow(['Claude Code', 'Codex CLI']);
  assert.equal(row.description, 'Claude Code, Codex CLI');
  assert.equal(row.command?.command, CommandId.SetUpTools);
  assert.match(String(toolsRow([]).description), /none set up/);
});
