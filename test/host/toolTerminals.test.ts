/**
 * The terminal tools' variables in new terminals: the union of the set-up tools' variables, following
 * the token they were set up with (removed → cleared at once, its value or the base URL changed →
 * updated, other tokens' changes → untouched); Remove Setup takes back exactly one tool's; the
 * remembered state (tools and models, never the token) puts them back in a new window.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  NATIVE_CLI_TEMPLATE,
  TOOL_TERMINALS_KEY,
  ToolTerminals,
  readToolTerminalsState,
  templateOf,
} from '../../src/host/tools/toolTerminals';

const GW = 'https://gw.example.com';
/** The plans' terminalEnv as src/gateway/tools makes them (the root address, the token as a placeholder). */
const PLAN = {
  claude: (models: Record<string, string> = {}) => ({
    ANTHROPIC_BASE_URL: GW,
    ANTHROPIC_AUTH_TOKEN: { token: true as const },
    ...models,
  }),
  codex: { RELAY_KEY: { token: true as const } },
  opencode: { RELAY_KEY: { token: true as const } },
  gemini: (model?: string) => ({
    GOOGLE_GEMINI_BASE_URL: GW,
    GEMINI_API_KEY: { token: true as const },
    ...(model ? { GEMINI_MODEL: model } : {}),
  }),
};
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

async function setUp(memento = new InMemoryMemento()) {
  const tokens = new TokenStore(new InMemoryMemento(), new InMemorySecretStorage());
  await tokens.add('production', PROD);
  await tokens.add('native-cli', CLI, false);
  const settings = {
    base: GW as string | undefined,
    verbatim: false,
    names: { baseUrl: 'ANTHROPIC_BASE_URL', token: 'ANTHROPIC_AUTH_TOKEN' },
  };
  const coll = new FakeCollection();
  const make = () =>
    new ToolTerminals(
      coll,
      {
        base: () => settings.base,
        verbatim: () => settings.verbatim,
        names: () => settings.names,
        value: (n) => tokens.value(n),
      },
      memento,
    );
  const terminals = make();
  // wired as src/extension/tools/toolsSetup.ts wires it
  tokens.onDidChange(() => void terminals.follow());
  assert.ok(await terminals.setUp('claude-code', 'native-cli', NATIVE_CLI_TEMPLATE));
  const settle = () => new Promise((r) => setTimeout(r, 10));
  return { tokens, settings, coll, terminals, settle, memento, make };
}

test('set up: new terminals get the base URL and the chosen token, not persisted', async () => {
  const { coll, terminals } = await setUp();
  assert.equal(coll.persistent, false);
  assert.deepEqual(Object.fromEntries(coll.vars), {
    ANTHROPIC_BASE_URL: 'https://gw.example.com',
    ANTHROPIC_AUTH_TOKEN: CLI,
  });
  assert.ok(!String(coll.description).includes(CLI), 'the description shows the token masked');
  assert.match(String(coll.description), /Claude Code/);
  assert.equal(terminals.following, 'native-cli');
});

test('removing the token the terminals were set up with clears their variables at once', async () => {
  const { tokens, coll, terminals, settle, memento } = await setUp();
  await tokens.remove('native-cli');
  await settle();
  assert.deepEqual([...coll.vars], [], 'new terminals no longer get the removed token');
  assert.equal(terminals.following, undefined);
  assert.equal(memento.get(TOOL_TERMINALS_KEY), undefined, 'nothing remembered any more');
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
  await terminals.setUp('gemini-cli', 'native-cli', PLAN.gemini());
  settings.base = 'https://other.example.com';
  await terminals.followSettings();
  assert.equal(coll.vars.get('ANTHROPIC_BASE_URL'), 'https://other.example.com');
  assert.equal(coll.vars.get('GOOGLE_GEMINI_BASE_URL'), 'https://other.example.com');
  settings.base = 'https://other.example.com/relay/v1';
  settings.verbatim = true;
  await terminals.followSettings();
  assert.equal(coll.vars.get('ANTHROPIC_BASE_URL'), 'https://other.example.com/relay/v1', 'kept as typed');
  settings.base = undefined;
  await terminals.followSettings();
  assert.deepEqual([...coll.vars], []);
});

test('clear() (Remove Native CLI Setup of old) empties and stops following', async () => {
  const { tokens, coll, terminals, settle } = await setUp();
  await terminals.clear();
  await tokens.add('native-cli', CLI2);
  await settle();
  assert.deepEqual([...coll.vars], [], 'a later token change does not bring the variables back');
});

test('several tools: the union of their variables; Remove Setup takes back exactly one tool’s', async () => {
  const { coll, terminals } = await setUp();
  await terminals.setUp('codex', 'native-cli', PLAN.codex, { model: 'gpt-5.5-codex' });
  await terminals.setUp('opencode', 'native-cli', PLAN.opencode);
  const claude = {
    ANTHROPIC_MODEL: 'claude-sonnet-4-5',
    ANTHROPIC_DEFAULT_OPUS_MODEL: 'claude-opus-4-5',
    ANTHROPIC_DEFAULT_HAIKU_MODEL: 'claude-haiku-4-5',
  };
  const own = await terminals.setUp('claude-code', 'native-cli', PLAN.claude(claude), {
    model: 'claude-sonnet-4-5',
    claudeModels: { haiku: 'claude-haiku-4-5', opus: 'claude-opus-4-5' },
  });
  assert.equal(own?.ANTHROPIC_AUTH_TOKEN, CLI, "the tool's own variables, the token filled in");
  assert.equal(own?.RELAY_KEY, undefined);
  assert.deepEqual(Object.fromEntries(coll.vars), {
    ANTHROPIC_BASE_URL: 'https://gw.example.com',
    ANTHROPIC_AUTH_TOKEN: CLI,
    ANTHROPIC_MODEL: 'claude-sonnet-4-5',
    ANTHROPIC_DEFAULT_OPUS_MODEL: 'claude-opus-4-5',
    ANTHROPIC_DEFAULT_HAIKU_MODEL: 'claude-haiku-4-5',
    RELAY_KEY: CLI,
  });
  assert.deepEqual(terminals.tools(), ['claude-code', 'codex', 'opencode']);
  await terminals.remove('codex');
  assert.equal(coll.vars.get('RELAY_KEY'), CLI, 'opencode still reads the shared token variable');
  await terminals.remove('opencode');
  assert.equal(coll.vars.has('RELAY_KEY'), false, 'taken back with the last tool that needed it');
  await terminals.remove('claude-code');
  assert.deepEqual([...coll.vars], []);
  assert.equal(terminals.following, undefined);
});

test('remembered without the token: a new window puts the variables back; a token never reaches the state', async () => {
  const { memento, make, coll, terminals } = await setUp();
  await terminals.setUp('gemini-cli', 'native-cli', PLAN.gemini('gemini-2.5-pro'), { model: 'gemini-2.5-pro' });
  assert.ok(!JSON.stringify(memento.get(TOOL_TERMINALS_KEY)).includes(CLI.slice(3, 20)));
  coll.clear(); // VS Code does not persist the collection
  const again = make();
  assert.deepEqual(again.tools(), ['claude-code', 'gemini-cli']);
  assert.deepEqual(again.choices('gemini-cli'), { model: 'gemini-2.5-pro' });
  await again.restore();
  assert.equal(coll.vars.get('GEMINI_API_KEY'), CLI);
  assert.equal(coll.vars.get('GEMINI_MODEL'), 'gemini-2.5-pro');
  assert.equal(coll.vars.get('ANTHROPIC_AUTH_TOKEN'), CLI);
});

test('setting up with another token moves every tool to it', async () => {
  const { coll, terminals } = await setUp();
  await terminals.setUp('codex', 'production', PLAN.codex);
  assert.deepEqual(terminals.tools(), ['claude-code', 'codex']);
  assert.equal(terminals.following, 'production');
  assert.equal(coll.vars.get('RELAY_KEY'), PROD);
  assert.equal(coll.vars.get('ANTHROPIC_AUTH_TOKEN'), PROD, 'one token for every tool in new terminals');
});

test('the stored state is checked: unknown tools and oversized ids dropped, garbage ignored', () => {
  assert.equal(readToolTerminalsState(undefined), undefined);
  assert.equal(readToolTerminalsState({ tokenName: 5, tools: {} }), undefined);
  assert.equal(readToolTerminalsState({ tokenName: 'a', tools: { vim: { env: {}, choices: {} } } }), undefined);
  assert.deepEqual(
    readToolTerminalsState({
      tokenName: 'a',
      tools: {
        codex: {
          env: { K: { token: true }, 'bad name': 'x', L: 'y'.repeat(5000), B: { base: true } },
          choices: { model: 'x'.repeat(500) },
        },
        'claude-code': { env: {}, choices: { claudeModels: { haiku: 'h', opus: 3 } } },
        opencode: 'garbage',
      },
    }),
    {
      tokenName: 'a',
      tools: {
        codex: { env: { K: { token: true }, B: { base: true } }, choices: {} },
        'claude-code': { env: {}, choices: { claudeModels: { haiku: 'h' } } },
      },
    },
  );
});

test('a plan’s root address is remembered as a marker that follows the base URL; bad names refused', () => {
  assert.deepEqual(templateOf(PLAN.gemini('m'), GW), {
    GOOGLE_GEMINI_BASE_URL: { base: true },
    GEMINI_API_KEY: { token: true },
    GEMINI_MODEL: 'm',
  });
  assert.throws(() => templateOf({ 'A B': 'x' }, GW), /letters, digits/);
});

test("Claude Code's two variables take the configured names (modelRelay.nativeCli.*), also after a change", async () => {
  const { coll, settings, terminals } = await setUp();
  settings.names = { baseUrl: 'MY_BASE', token: 'MY_TOKEN' };
  await terminals.followSettings();
  assert.deepEqual(Object.fromEntries(coll.vars), { MY_BASE: GW, MY_TOKEN: CLI });
  assert.deepEqual(terminals.variables('claude-code'), ['MY_BASE', 'MY_TOKEN']);
});
