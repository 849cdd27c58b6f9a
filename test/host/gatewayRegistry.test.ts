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
