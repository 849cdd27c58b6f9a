/**
 * The chat panel over several gateways, against two real simulators with tokens of their own: a
 * reply goes to the picked model's gateway with that gateway's token only; modelRelay.fallbacks move
 * it before the first byte (a line in the transcript, the footer naming the gateway that answered),
 * never after a reply began; the picker groups models by gateway and one that fails never hides the
 * others; a conversation saved before there were several gateways still loads.
 */
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { GatewaySet, listModelsAcross, type Fallbacks, type GatewayProfile } from '../../src/gateway';
import { chatGateways, ChatModels } from '../../src/host/chat/chatModels';
import { restoreEntries, restoreOptions } from '../../src/host/chat/chatStore';
import { gatewayBackend } from '../../src/host/chat/gatewayBackend';
import { ChatSession } from '../../src/host/chat/session';
import { chatStrings } from '../../src/host/chat/chatWords';
import type { ChatEntry, ModelList } from '../../src/shared/chatProtocol';
import { usageLine } from '../../src/webview/messageView';
import { credentialDigest, defaultConfig, startSimulator, type Simulator } from '../sim/server';
import { deadPort } from '../gateway/helpers';
import { imageFiles, opts, T } from './helpers';

/** A simulator whose tokens are its own (the default ones with a per-gateway mark). */
function simFor(mark: string) {
  const tokens = defaultConfig().tokens.map((t) => ({ ...t, value: `sk-${mark}${t.value.slice(3 + mark.length)}` }));
  return startSimulator({ tokens });
}

let a: Simulator;
let b: Simulator;
before(async () => {
  [a, b] = await Promise.all([simFor('AAA'), simFor('BBB')]);
});
after(() => Promise.all([a.close(), b.close()]));
beforeEach(() => {
  a.reset();
  b.reset();
});

const chats = (s: Simulator) => s.log.filter((l) => /^\/v1\/(chat\/completions|messages)$/.test(l.path));

/** Neither simulator ever received a token of the other. */
function assertTokensBound(): void {
  for (const [owner, other] of [
    [a, b],
    [b, a],
  ] as const)
    for (const tok of Object.values(other.tokens))
      assert.ok(!owner.credentials.includes(credentialDigest(tok)), 'a gateway saw the other gateway\u2019s token');
}

const profiles = (): GatewayProfile[] => [
  { id: 'a', name: 'Alpha', baseUrl: a.url },
  { id: 'b', name: 'Beta', baseUrl: b.url },
];

/** A chat session over gateways a (active) and b, each with its own production token. */
function rig(o: { fallbacks?: Fallbacks; streaming?: boolean } = {}) {
  const tokens: Record<string, string> = { a: a.tokens.production, b: b.tokens.production };
  const set = new GatewaySet(profiles(), {
    token: (id) => tokens[id],
    sleep: async (_ms, signal) => {
      if (signal?.aborted) throw new Error('aborted');
    },
    random: () => 0.5,
  });
  const updates: ChatEntry[] = [];
  const session = new ChatSession({
    backend: gatewayBackend({
      set,
      activeId: () => 'a',
      fallbacks: () => o.fallbacks ?? {},
      unconfigured: () => {
        throw new Error('every gateway here is configured');
      },
    }),
    images: imageFiles(),
    streaming: () => o.streaming ?? true,
    listener: (e) => {
      if (e.type === 'entryUpdated') updates.push(structuredClone(e.entry));
    },
  });
  return { session, updates };
}

const toB: Fallbacks = { 'gpt-4o-mini': [{ gateway: 'b', model: 'gpt-4o-mini' }] };

test("picking gateway B's model: the reply comes from B with B's token only, and its footer says so", T, async () => {
  const { session } = rig();
  const entry = (await session.send('hello beta', opts('compatible', { gateway: 'b' })))!;
  assert.equal(entry.status, 'done');
  assert.equal(entry.text, 'Echo: hello beta');
  assert.equal(chats(a).length, 0, 'gateway A was not asked');
  assert.equal(chats(b).length, 1);
  assert.ok(b.credentials.includes(credentialDigest(b.tokens.production)), "B saw B's token");
  assertTokensBound();
  assert.deepEqual(entry.gateway, { id: 'b', name: 'Beta' });
  assert.match(usageLine(entry, chatStrings()) ?? '', /^answered by Beta · /);
  // Without a gateway (a conversation from before), the active gateway answers.
  const plain = (await session.send('hello alpha', opts('compatible')))!;
  assert.deepEqual(plain.gateway, { id: 'a', name: 'Alpha' });
  assert.equal(chats(a).length, 1);
  assertTokensBound();
});

for (const streaming of [true, false])
  test(
    `${streaming ? 'streamed' : 'not streamed'}: a failover before the first byte is answered by B, with a line naming both gateways and why`,
    T,
    async () => {
      const { session, updates } = rig({ fallbacks: toB, streaming });
      a.fault({ kind: 'status', status: 502 });
      const entry = (await session.send('hello there', opts('compatible')))!;
      assert.equal(entry.status, 'done');
      assert.equal(entry.text, 'Echo: hello there');
      assert.ok(
        chats(a).every((l) => l.status === 502),
        'nothing billed at A',
      );
      assert.equal(chats(b).length, 1);
      const lines = (entry.notices ?? []).filter((n) => n.kind === 'failover');
      assert.equal(lines.length, 1);
      assert.match(lines[0].text, /^Gateway "Alpha" \(gpt-4o-mini\) could not serve this request \(HTTP 502: (?!HTTP)/);
      assert.match(lines[0].text, /gateway "Beta" \(gpt-4o-mini\) was asked instead\.$/);
      assert.deepEqual(entry.gateway, { id: 'b', name: 'Beta' });
      assert.match(usageLine(entry, chatStrings()) ?? '', /^answered by Beta · /);
      if (streaming)
        assert.ok(
          updates.some((u) => u.status === 'streaming' && u.notices?.some((n) => n.kind === 'failover')),
          'the line shows while the reply is under way',
        );
      assertTokensBound();
    },
  );

test("a failover on A's refused token moves to B; the line never carries A's token", T, async () => {
  const { session } = rig({ fallbacks: toB });
  a.fault({ kind: 'echoKey' });
  const entry = (await session.send('hello there', opts('compatible')))!;
  assert.equal(entry.status, 'done');
  assert.deepEqual(entry.gateway, { id: 'b', name: 'Beta' });
  const saved = JSON.stringify(session.entries);
  assert.match(saved, /HTTP 401/);
  for (const tok of Object.values(a.tokens)) {
    assert.ok(!saved.includes(tok), 'no token in the transcript');
    assert.ok(!saved.includes(tok.slice(3)), 'not even without its sk- prefix');
  }
  assertTokensBound();
});

test('no failover once a reply began: a stream broken mid-way is not sent to B', T, async () => {
  const { session } = rig({ fallbacks: toB });
  a.fault({ kind: 'midStreamError', afterEvents: 2, message: 'upstream went away' });
  const entry = (await session.send('one two three four five', opts('compatible')))!;
  assert.equal(entry.status, 'error');
  assert.ok(entry.text.length > 0, 'the part that arrived is kept');
  assert.equal(chats(b).length, 0, 'B was never asked');
  assert.equal(entry.notices?.some((n) => n.kind === 'failover') ?? false, false);
  assert.equal(entry.gateway, undefined);
  assert.ok(entry.error, 'the error card shows, as for one gateway');
  assert.equal(chats(a).length, 1, 'and A is not asked again either');
});

test(
  'the picker groups models by gateway; a gateway that cannot be reached shows so without hiding the others',
  T,
  async () => {
    const dead = `http://127.0.0.1:${await deadPort()}`;
    const list: GatewayProfile[] = [
      { id: 'a', name: 'Alpha', baseUrl: a.url, models: { chat: 'gpt-4o-mini' } },
      { id: 'dead', name: 'Gone', baseUrl: dead },
      { id: 'none', name: 'No token', baseUrl: b.url },
      { id: 'b', name: 'Beta', baseUrl: b.url, models: { native: 'claude-sonnet-4-5' } },
    ];
    const tokens: Record<string, string | undefined> = {
      a: a.tokens.production,
      dead: 'sk-dead',
      b: b.tokens.production,
    };
    const set = new GatewaySet(list, { token: (id) => tokens[id], retry: { maxRetries: 0 } });
    const registry = {
      gateways: () => list,
      activeId: () => 'b',
      tokensOf: (id: string) => ({ activeName: () => (tokens[id] ? 'main' : undefined) }),
    };
    let posted: ModelList | undefined;
    const models = new ChatModels(
      { gateways: () => chatGateways(registry), listModels: (ids, boundMs) => listModelsAcross(set, { ids, boundMs }) },
      (m) => (posted = m),
      () => true,
    );
    await models.load();
    const groups = posted!.groups;
    assert.deepEqual(
      groups.map((g) => g.gateway.name),
      ['Alpha', 'Gone', 'Beta'],
      'every gateway with a token, in the settings order (one without a token is left out)',
    );
    assert.deepEqual(
      groups.map((g) => g.active),
      [false, false, true],
    );
    assert.ok(groups[0].items.some((m) => m.id === 'gpt-4o-mini'));
    assert.deepEqual(groups[0].defaults, { compatible: 'gpt-4o-mini', native: '', responses: 'gpt-4o-mini' });
    assert.deepEqual(groups[2].defaults, { compatible: '', native: 'claude-sonnet-4-5', responses: '' });
    assert.ok(groups[2].items.length > 0);
    assert.equal(groups[1].items.length, 0);
    assert.ok(groups[1].error, 'the unreachable gateway says why');
    assert.equal(groups[0].error, undefined);
    assert.equal(posted!.loading, false);
    assert.equal(chats(a).length + chats(b).length, 0);
    assertTokensBound();
  },
);

test('a conversation saved before there were several gateways loads; a saved gateway is kept, bounded, or dropped when malformed', () => {
  const files = imageFiles();
  const old = [
    { id: 'u1', role: 'user', text: 'hi', createdAt: 1 },
    { id: 'r1', role: 'assistant', text: 'hello', createdAt: 2, status: 'done', model: 'gpt-4o-mini' },
    {
      id: 'r2',
      role: 'assistant',
      text: 'x',
      createdAt: 3,
      status: 'done',
      gateway: { id: 'b', name: 'B'.repeat(5000) },
    },
    { id: 'r3', role: 'assistant', text: 'y', createdAt: 4, status: 'done', gateway: 'Beta' },
  ];
  const entries = restoreEntries(old, files);
  assert.equal(entries.length, 4);
  assert.equal(entries[1].gateway, undefined);
  assert.equal(entries[2].gateway?.id, 'b');
  assert.equal(entries[2].gateway?.name.length, 200);
  assert.equal(entries[3].gateway, undefined, 'a malformed gateway is dropped, the entry kept');
  const defaults = {
    defaultSurface: 'compatible' as const,
    models: { chat: 'm', native: 'n' },
    temperature: 1,
    maxTokens: 9,
  };
  assert.equal(
    restoreOptions({ model: 'gpt-4o-mini' }, defaults).gateway,
    undefined,
    'old options: the active gateway',
  );
  assert.equal(restoreOptions({ model: 'gpt-4o-mini', gateway: 'b' }, defaults).gateway, 'b');
  assert.equal(restoreOptions({ model: 'x', gateway: 'b'.repeat(201) }, defaults).gateway, undefined);
});

test(
  'a restored conversation goes on at the active gateway when its saved gateway is no longer configured',
  T,
  async () => {
    const { session } = rig();
    const entry = (await session.send('still here', opts('compatible', { gateway: 'removed' })))!;
    assert.equal(entry.status, 'done');
    assert.deepEqual(entry.gateway, { id: 'a', name: 'Alpha' });
    assert.equal(chats(b).length, 0);
  },
);
