/**
 * The token store: one event per change (add, remove, switch — and a change made in another window),
 * never a second one for the echo of its own SecretStorage write; the active-token rule.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TokenStore } from '../../src/host/gateways/tokenStore';
import {
  ACTIVE_TOKEN_KEY,
  DEFAULT_GATEWAY_ID,
  TOKEN_NAMES_KEY,
  activeTokenName,
  tokenKeys,
} from '../../src/host/gateways/activeToken';
import { InMemoryMemento, InMemorySecretStorage } from '../fakes/state';

const A = 'sk-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1111';
const B = 'sk-bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb2222';

/** A store over fresh in-memory state, counting its change events. */
async function store() {
  const state = new InMemoryMemento();
  const secrets = new InMemorySecretStorage();
  const errors: unknown[] = [];
  const tokens = new TokenStore(state, secrets, (e) => errors.push(e));
  await tokens.refresh();
  const events = { n: 0 };
  tokens.onDidChange(() => events.n++);
  /** lets the echo of SecretStorage's onDidChange run out */
  const settle = () => new Promise((r) => setTimeout(r, 10));
  return { state, secrets, tokens, events, errors, settle };
}

test('adding a token fires one change, not two (the secret storage echo fires nothing more)', async () => {
  const s = await store();
  await s.tokens.add('production', A);
  await s.settle();
  assert.equal(s.events.n, 1);
  assert.equal(await s.tokens.activeToken(), A);
  await s.tokens.add('test', B);
  await s.settle();
  assert.equal(s.events.n, 2, 'one more for the second token');
  assert.equal(s.tokens.activeName(), 'test');
  assert.deepEqual(s.errors, []);
});

test('removing a token fires one change; the active token moves to the first left', async () => {
  const s = await store();
  await s.tokens.add('production', A);
  await s.tokens.add('test', B);
  await s.settle();
  s.events.n = 0;
  await s.tokens.remove('test');
  await s.settle();
  assert.equal(s.events.n, 1);
  assert.equal(s.tokens.activeName(), 'production');
  assert.equal(await s.tokens.activeToken(), A);
  assert.equal(await s.tokens.value('test'), undefined, 'the value is gone from the secret storage');
});

test('switching fires one change; switching to the active token fires none', async () => {
  const s = await store();
  await s.tokens.add('production', A);
  await s.tokens.add('test', B, false);
  await s.settle();
  s.events.n = 0;
  await s.tokens.setActive('test');
  assert.equal(s.events.n, 1);
  assert.equal(await s.tokens.activeToken(), B);
  await s.tokens.setActive('test');
  assert.equal(s.events.n, 1);
  await assert.rejects(() => s.tokens.setActive('nope'), /No token named "nope"/);
});

test('a change made in another window (the shared secret storage) fires one change and is read', async () => {
  const s = await store();
  await s.tokens.add('production', A);
  await s.settle();
  s.events.n = 0;
  await s.secrets.store('modelRelay.token.production', B);
  await s.settle();
  assert.equal(s.events.n, 1);
  assert.equal(await s.tokens.activeToken(), B);
  await s.secrets.store('other.extension.key', 'x');
  await s.settle();
  assert.equal(s.events.n, 1, 'keys of others are not ours');
});

test('a failing secret storage is told to onError, not thrown into the event loop', async () => {
  const s = await store();
  await s.tokens.add('production', A);
  await s.settle();
  s.secrets.get = () => Promise.reject(new Error('keyring locked'));
  await s.secrets.store('modelRelay.token.production', B);
  await s.settle();
  assert.equal(s.errors.length, 1);
  assert.match(String(s.errors[0]), /keyring locked/);
});

test('the active-token rule: the chosen name while it exists, else the first', async () => {
  const state = new InMemoryMemento();
  assert.equal(activeTokenName(state), undefined);
  await state.update(TOKEN_NAMES_KEY, ['a', 'b']);
  assert.equal(activeTokenName(state), 'a');
  await state.update(ACTIVE_TOKEN_KEY, 'b');
  assert.equal(activeTokenName(state), 'b');
  await state.update(ACTIVE_TOKEN_KEY, 'gone');
  assert.equal(activeTokenName(state), 'a', 'a stale choice falls back to the first');
  await state.update(TOKEN_NAMES_KEY, 'not a list');
  assert.equal(activeTokenName(state), undefined, 'bad state reads as no tokens');
});

test('list() shows every token masked, never in full', async () => {
  const s = await store();
  await s.tokens.add('production', A);
  await s.tokens.add('test', B, false);
  const list = await s.tokens.list();
  assert.deepEqual(
    list.map((x) => [x.name, x.active]),
    [
      ['production', true],
      ['test', false],
    ],
  );
  assert.ok(list.every((x) => !x.masked.includes(A) && !x.masked.includes(B) && x.masked.includes('...')));
});

test("after the update a token stored before gateways existed is the `default` gateway's, under today's keys", async () => {
  const state = new InMemoryMemento();
  const secrets = new InMemorySecretStorage();
  // what the extension stored before there were several gateways
  await secrets.store('modelRelay.token.production', A);
  await state.update(TOKEN_NAMES_KEY, ['production']);
  await state.update(ACTIVE_TOKEN_KEY, 'production');
  const writes = state.writes;
  const tokens = new TokenStore(state, secrets, undefined, tokenKeys(DEFAULT_GATEWAY_ID));
  assert.equal(await tokens.activeToken(), A);
  assert.deepEqual(tokens.names(), ['production']);
  assert.equal(state.writes, writes, 'nothing is rewritten');
  tokens.dispose();
});

test("gateway B's store never returns gateway A's token, even for the same name; removing B's tokens leaves A's", async () => {
  const state = new InMemoryMemento();
  const secrets = new InMemorySecretStorage();
  const a = new TokenStore(state, secrets, undefined, tokenKeys('default'));
  const b = new TokenStore(state, secrets, undefined, tokenKeys('b'));
  const dotted = new TokenStore(state, secrets, undefined, tokenKeys('b.token'));
  await a.add('production', A);
  assert.equal(await b.activeToken(), undefined);
  assert.equal(await b.value('production'), undefined);
  assert.deepEqual(b.names(), []);
  await b.add('token.x', B);
  assert.equal(await dotted.value('x'), undefined, 'ids with dots do not share keys');
  assert.equal(await a.activeToken(), A);
  assert.equal(await b.activeToken(), B);
  await b.removeAll();
  assert.deepEqual(b.names(), []);
  assert.equal(await b.activeToken(), undefined);
  assert.deepEqual(await secrets.keys(), ['modelRelay.token.production']);
  assert.equal(await a.activeToken(), A);
  for (const s of [a, b, dotted]) s.dispose();
});
