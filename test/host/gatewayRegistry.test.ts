/**
 * The active gateway: remembered per window (workspace state), else the last choice (global state),
 * else the first; each gateway has its own tokens; the store every consumer holds follows the
 * active gateway and tells its listeners once per switch.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { GatewayProfile } from '../../src/gateway';
import { tokenKeys } from '../../src/host/gateways/activeToken';
import { ActiveTokens } from '../../src/host/gateways/activeTokens';
import { ACTIVE_GATEWAY_KEY, GatewayRegistry } from '../../src/host/gateways/gatewayRegistry';
import { TokenStore } from '../../src/host/gateways/tokenStore';
import { InMemoryMemento, InMemorySecretStorage } from '../fakes/state';

const A = 'sk-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1111';
const B = 'sk-bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb2222';
const gw = (id: string): GatewayProfile => ({ id, name: id.toUpperCase(), baseUrl: `https://${id}.example.com` });

function world(gateways = [gw('default'), gw('b')]) {
  const global = new InMemoryMemento();
  const secrets = new InMemorySecretStorage();
  const windowState = new InMemoryMemento();
  const made: string[] = [];
  const registry = new GatewayRegistry(
    windowState,
    global,
    (id) => {
      made.push(id);
      return new TokenStore(global, secrets, undefined, tokenKeys(id));
    },
    gateways,
  );
  return { global, secrets, windowState, registry, made };
}

test('the active gateway: this window’s choice, else the last choice, else the first', async () => {
  const w = world([gw('default'), gw('b'), gw('c')]);
  assert.equal(w.registry.activeId(), 'default');
  await w.global.update(ACTIVE_GATEWAY_KEY, 'c');
  assert.equal(w.registry.activeId(), 'c', "another window's last choice");
  await w.registry.setActive('b');
  assert.equal(w.windowState.get(ACTIVE_GATEWAY_KEY), 'b');
  assert.equal(w.global.get(ACTIVE_GATEWAY_KEY), 'b');
  await w.global.update(ACTIVE_GATEWAY_KEY, 'c');
  assert.equal(w.registry.activeId(), 'b', "this window's choice wins over a later choice elsewhere");
  w.registry.update([gw('default'), gw('c')]);
  assert.equal(w.registry.activeId(), 'c', 'the chosen gateway was removed from the settings');
  await assert.rejects(w.registry.setActive('nope'));
});

test('no gateway at all: the tokens are the default gateway’s (a token can be stored before the base URL)', () => {
  const w = world([]);
  assert.equal(w.registry.active(), undefined);
  assert.equal(w.registry.activeId(), 'default');
});

test('the consumers’ store follows the active gateway: one event per switch, never the other gateway’s token', async () => {
  const w = world();
  const tokens = new ActiveTokens(w.registry);
  await tokens.add('production', A);
  let events = 0;
  tokens.onDidChange(() => events++);
  await w.registry.setActive('b');
  assert.equal(await tokens.activeToken(), undefined, "gateway b has no token: never a's");
  assert.equal(events, 1, 'one event for the switch (b read for the first time)');
  assert.deepEqual(tokens.names(), []);
  await tokens.add('production', B);
  assert.equal(await tokens.activeToken(), B);
  assert.equal(events, 2, 'one for the token added');
  await w.registry.setActive('default');
  assert.equal(await tokens.activeToken(), A);
  assert.equal(events, 3, 'one event for the switch back (read before)');
  assert.equal(await tokens.value('production'), A);
  const { gateway, store } = tokens.current();
  assert.equal(gateway?.id, 'default');
  assert.equal(await store.activeToken(), A);
  await w.registry.setActive('default');
  const before = events;
  await w.registry.setActive('default');
  assert.equal(events, before, 'choosing the active gateway again changes nothing');
  tokens.dispose();
});

test('removing a gateway deletes its tokens and only its tokens, and forgets it as a choice', async () => {
  const w = world();
  const tokens = new ActiveTokens(w.registry);
  await tokens.add('production', A);
  await w.registry.setActive('b');
  await tokens.add('mine', B);
  w.registry.update([gw('default')]);
  await w.registry.forget('b');
  assert.equal(w.registry.activeId(), 'default');
  assert.equal(w.windowState.get(ACTIVE_GATEWAY_KEY), undefined);
  assert.deepEqual(await w.secrets.keys(), ['modelRelay.token.production']);
  assert.equal(await tokens.activeToken(), A);
  w.registry.update([gw('default'), gw('b')]);
  assert.equal(await w.registry.tokensOf('b').activeToken(), undefined, 'added again: none of the old tokens');
  tokens.dispose();
  w.registry.dispose();
});

/** A window of `scope` over shared global state and secret storage (another window, or the next session). */
function windowOf(w: ReturnType<typeof world>, gateways: GatewayProfile[], scope?: string) {
  return new GatewayRegistry(
    new InMemoryMemento(),
    w.global,
    (id) => new TokenStore(w.global, w.secrets, undefined, tokenKeys(id)),
    gateways,
    scope,
  );
}

test('a gateway removed from the settings loses its tokens (told once); its id added again starts with none', async () => {
  const w = world();
  assert.deepEqual(await w.registry.settle(), [], 'the listed gateways are remembered');
  await w.registry.tokensOf('b').add('mine', B);
  await w.registry.tokensOf('default').add('production', A);
  w.registry.update([gw('default')]);
  const [removal, ...more] = await w.registry.settle();
  assert.deepEqual(more, []);
  assert.deepEqual(
    { ...removal, profile: removal?.profile?.baseUrl },
    {
      id: 'b',
      name: 'B',
      tokens: 1,
      profile: 'https://b.example.com',
    },
  );
  assert.deepEqual(await w.secrets.keys(), ['modelRelay.token.production'], 'only b’s tokens went');
  assert.deepEqual(await w.registry.settle(), [], 'told once');
  w.registry.update([gw('default'), { ...gw('b'), baseUrl: 'https://new.example.org' }]);
  await w.registry.settle();
  assert.equal(await w.registry.tokensOf('b').activeToken(), undefined, 'a new gateway b: none of the old tokens');
  assert.deepEqual(w.registry.tokensOf('b').names(), []);
  w.registry.dispose();
});

test('removed between two sessions: the next start deletes the tokens, and the id reused starts with none', async () => {
  const w = world();
  await w.registry.settle();
  await w.registry.tokensOf('b').add('mine', B);
  w.registry.dispose();
  const next = windowOf(w, [gw('default')]);
  const removals = await next.settle();
  assert.deepEqual(
    removals.map((r) => [r.id, r.tokens, r.profile]),
    [['b', 1, undefined]],
    'no Undo: the gateway was not seen in this session',
  );
  next.update([gw('default'), gw('b')]);
  await next.settle();
  assert.equal(await next.tokensOf('b').activeToken(), undefined);
  assert.deepEqual(await w.secrets.keys(), []);
  next.dispose();
});

test('Undo within the session: listed again with the same address, the gateway gets its tokens back', async () => {
  const w = world();
  await w.registry.settle();
  const b = w.registry.tokensOf('b');
  await b.add('first', A);
  await b.add('second', B, false);
  w.registry.update([gw('default')]);
  await w.registry.settle();
  w.registry.update([gw('default'), gw('b')]);
  assert.deepEqual(await w.registry.settle(), []);
  const back = w.registry.tokensOf('b');
  assert.deepEqual(back.names(), ['first', 'second']);
  assert.equal(back.activeName(), 'first');
  assert.equal(await back.activeToken(), A);
  w.registry.dispose();
});

test('the default gateway keeps its tokens whatever the gateways list does', async () => {
  const w = world([gw('default')]);
  await w.registry.settle();
  await w.registry.tokensOf('default').add('production', A);
  for (const list of [[gw('default'), gw('c')], [gw('c')], [], [gw('default')]]) {
    w.registry.update(list);
    assert.deepEqual(await w.registry.settle(), []);
  }
  assert.equal(await w.registry.tokensOf('default').activeToken(), A);
  w.registry.dispose();
});

test('another machine’s settings (a remote window) list their own gateways: tokens go when no scope lists the id', async () => {
  const w = world([gw('default'), gw('b'), gw('c')]);
  await w.registry.settle();
  await w.registry.tokensOf('b').add('mine', B);
  await w.registry.tokensOf('c').add('lab', A);
  const remote = windowOf(w, [], 'ssh-remote:lab');
  assert.deepEqual(await remote.settle(), [], 'a remote window without gateways deletes nothing');
  remote.update([gw('c')]);
  await remote.settle();
  w.registry.update([gw('default'), gw('b')]);
  assert.deepEqual(await w.registry.settle(), [], 'c is still listed by the remote settings');
  assert.equal(await w.registry.tokensOf('c').activeToken(), A);
  remote.update([]);
  assert.deepEqual(
    (await remote.settle()).map((r) => r.id),
    ['c'],
    'listed nowhere now',
  );
  assert.equal(await w.registry.tokensOf('b').activeToken(), B);
  remote.dispose();
  w.registry.dispose();
});

test('an entry being edited (unreadable for now) or a gateways value that is not a list removes nothing', async () => {
  const w = world();
  await w.registry.settle();
  await w.registry.tokensOf('b').add('mine', B);
  w.registry.update([gw('default')], ['b']); // `b` is still in the settings, its base URL half typed
  assert.deepEqual(await w.registry.settle(), []);
  w.registry.update([gw('default')], null);
  assert.deepEqual(await w.registry.settle(), []);
  w.registry.update([gw('default'), { ...gw('b'), baseUrl: 'https://b2.example.com' }]);
  await w.registry.settle();
  assert.equal(await w.registry.tokensOf('b').activeToken(), B, 'the edited gateway keeps its tokens');
  w.registry.dispose();
});

test('Remove Gateway deletes the tokens itself: a settle during its settings write tells nothing', async () => {
  const w = world();
  await w.registry.settle();
  await w.registry.tokensOf('b').add('mine', B);
  let told: unknown[] = [];
  await w.registry.remove('b', async () => {
    w.registry.update([gw('default')]);
    told = await w.registry.settle(); // the settings change event, in the focused window
  });
  assert.deepEqual(told, []);
  assert.deepEqual(await w.secrets.keys(), []);
  w.registry.update([gw('default'), gw('b')]);
  await w.registry.settle();
  assert.equal(await w.registry.tokensOf('b').activeToken(), undefined);
  w.registry.dispose();
});
