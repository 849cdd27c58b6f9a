/**
 * The native CLI's variables in new terminals follow the token they were set up with: removed →
 * cleared at once, its value or the base URL changed → updated, other tokens' changes → untouched.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CliTerminals } from '../../src/host/tools/cliTerminals';
import { TokenStore } from '../../src/host/gateways/tokenStore';
import { InMemoryMemento, InMemorySecretStorage } from '../fakes/state';

const CLI = 'sk-cccccccccccccccccccccccccccccccccccccccc3333';
const CLI2 = 'sk-dddddddddddddddddddddddddddddddddddddddd4444';
const PROD = 'sk-pppppppppppppppppppppppppppppppppppppppp5555';

/** VS Code's EnvironmentVariableCollection, as far as it is used. */
class FakeCollection {
  persistent = true;
  description: unknown;
  readonly vars = new Map<string, string>();
  writes = 0;
  clear() {
    this.vars.clear();
  }
  replace(k: string, v: string) {
    this.writes++;
    this.vars.set(k, v);
  }
}

async function setUp() {
  const tokens = new TokenStore(new InMemoryMemento(), new InMemorySecretStorage());
  await tokens.add('production', PROD);
  await tokens.add('native-cli', CLI, false);
  const settings = { base: 'https://gw.example.com' as string | undefined, verbatim: false };
  const coll = new FakeCollection();
  const terminals = new CliTerminals(coll, {
    base: () => settings.base,
    verbatim: () => settings.verbatim,
    names: () => ({ baseUrl: 'ANTHROPIC_BASE_URL', token: 'ANTHROPIC_AUTH_TOKEN' }),
    value: (n) => tokens.value(n),
  });
  // wired as src/extension/tools/nativeCli.ts wires it
  tokens.onDidChange(() => void terminals.follow());
  assert.ok(await terminals.setUp('native-cli'));
  const settle = () => new Promise((r) => setTimeout(r, 10));
  return { tokens, settings, coll, terminals, settle };
}

test('set up: new terminals get the base URL and the chosen token, not persisted', async () => {
  const { coll, terminals } = await setUp();
  assert.equal(coll.persistent, false);
  assert.deepEqual(Object.fromEntries(coll.vars), {
    ANTHROPIC_BASE_URL: 'https://gw.example.com',
    ANTHROPIC_AUTH_TOKEN: CLI,
  });
  assert.ok(!String(coll.description).includes(CLI), 'the description shows the token masked');
  assert.equal(terminals.following, 'native-cli');
});

test('removing the token the terminals were set up with clears their variables at once', async () => {
  const { tokens, coll, terminals, settle } = await setUp();
  await tokens.remove('native-cli');
  await settle();
  assert.deepEqual([...coll.vars], [], 'new terminals no longer get the removed token');
  assert.equal(terminals.following, undefined);
});

test("another token's change leaves the variables alone; a new value of the followed token replaces them", async () => {
  const { tokens, coll, settle } = await setUp();
  const writes = coll.writes;
  await tokens.setActive('native-cli');
  await tokens.remove('production');
  await settle();
  assert.equal(coll.writes, writes, 'untouched');
  assert.equal(coll.vars.get('ANTHROPIC_AUTH_TOKEN'), CLI);
  await tokens.add('native-cli', CLI2);
  await settle();
  assert.equal(coll.vars.get('ANTHROPIC_AUTH_TOKEN'), CLI2);
});

test('a new base URL (or one kept as typed) reaches new terminals; no base URL clears them', async () => {
  const { settings, coll, terminals } = await setUp();
  settings.base = 'https://other.example.com';
  await terminals.followSettings();
  assert.equal(coll.vars.get('ANTHROPIC_BASE_URL'), 'https://other.example.com');
  settings.base = 'https://other.example.com/relay/v1';
  settings.verbatim = true;
  await terminals.followSettings();
  assert.equal(coll.vars.get('ANTHROPIC_BASE_URL'), 'https://other.example.com/relay/v1', 'kept as typed');
  settings.base = undefined;
  await terminals.followSettings();
  assert.deepEqual([...coll.vars], []);
});

test('Remove Native CLI Setup clears and stops following', async () => {
  const { tokens, coll, terminals, settle } = await setUp();
  terminals.clear();
  await tokens.add('native-cli', CLI2);
  await settle();
  assert.deepEqual([...coll.vars], [], 'a later token change does not bring the variables back');
});
