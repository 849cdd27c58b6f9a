/**
 * The terminal tools' variables in new terminals, each tool bound to the gateway it was set up for
 * (issue 37 §2): the union of the set-up tools' variables, each with its own gateway's root address
 * and token; a switch of the active gateway, a second window or a setup on another gateway never
 * changes which token a tool gets; a token that cannot be found leaves that tool "needing attention"
 * (never a silent clear of every tool); Remove Setup takes back exactly one tool's; the remembered
 * state (tools, gateways, token names, models — never a token) puts them back in a new window, and
 * a state kept before the binding is read as bound to the active gateway.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { GatewayProfile } from '../../src/gateway/gateways/profile';
import { tokenKeys } from '../../src/host/gateways/activeToken';
import { GatewayRegistry } from '../../src/host/gateways/gatewayRegistry';
import { TokenStore } from '../../src/host/gateways/tokenStore';
import {
  TOOL_TERMINALS_KEY,
  ToolTerminals,
  readToolTerminalsState,
  templateOf,
} from '../../src/host/tools/toolTerminals';
import { InMemoryMemento, InMemorySecretStorage } from '../fakes/state';

const A = 'https://a.example.com';
const B = 'https://b.example.net';
const TOKENS = {
  a: {
    production: 'sk-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1111',
    'native-cli': 'sk-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa2222',
  },
  b: {
    production: 'sk-bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb3333',
    'native-cli': 'sk-bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb4444',
  },
};
/** The plans' terminalEnv as src/gateway/tools makes them (the root address, the token as a placeholder). */
const PLAN = {
  claude: (root: string) => ({ ANTHROPIC_BASE_URL: root, ANTHROPIC_AUTH_TOKEN: { token: true as const } }),
  codex: (id: string) => ({ [`MODEL_RELAY_${id.toUpperCase()}_KEY`]: { token: true as const } }),
  opencode: (id: string) => ({ [`MODEL_RELAY_${id.toUpperCase()}_KEY`]: { token: true as const } }),
};

/** VS Code's EnvironmentVariableCollection, as far as it is used. */
class FakeCollection {
  persistent = true;
  description: unknown;
  readonly vars = new Map<string, string>();
  clear() {
    this.vars.clear();
  }
  replace(k: string, v: string) {
    this.vars.set(k, v);
  }
}

/** Two gateways, each with its own token store (the same token names, other values), as the extension wires them. */
async function world() {
  const global = new InMemoryMemento();
  const secrets = new InMemorySecretStorage();
  const profiles: GatewayProfile[] = [
    { id: 'a', name: 'Alpha', baseUrl: A },
    { id: 'b', name: 'Beta', baseUrl: B },
  ];
  const roots: Record<string, string | undefined> = { a: A, b: B };
  const stores = (global2: InMemoryMemento) => (id: string) =>
    new TokenStore(global2, secrets, undefined, tokenKeys(id));
  const registry = new GatewayRegistry(new InMemoryMemento(), global, stores(global), profiles);
  for (const id of ['a', 'b'] as const)
    for (const [name, value] of Object.entries(TOKENS[id]))
      await registry.tokensOf(id).add(name, value, name === 'production');
  /** a window: its own active-gateway choice, the shared global state and secrets */
  const window = (active: 'a' | 'b') => {
    const reg = new GatewayRegistry(new InMemoryMemento(), global, stores(global), profiles);
    void reg.setActive(active);
    const coll = new FakeCollection();
    const terminals = new ToolTerminals(
      coll,
      {
        root: (id) => roots[id],
        value: (id, name) => reg.tokensOf(id).value(name),
        activeId: () => reg.activeId(),
        name: (id) => reg.get(id)?.name,
      },
      global,
    );
    return { reg, coll, terminals };
  };
  return { registry, roots, window, global };
}

test('set up: new terminals get the root address and the chosen token of that gateway, not persisted', async () => {
  const w = await world();
  const { coll, terminals } = w.window('a');
  assert.ok(await terminals.setUp('claude-code', 'a', 'native-cli', PLAN.claude(A)));
  assert.equal(coll.persistent, false);
  assert.deepEqual(Object.fromEntries(coll.vars), {
    ANTHROPIC_BASE_URL: A,
    ANTHROPIC_AUTH_TOKEN: TOKENS.a['native-cli'],
  });
  assert.ok(!String(coll.description).includes(TOKENS.a['native-cli']), 'the description shows the token masked');
  assert.match(String(coll.description), /Claude Code/);
  assert.deepEqual(terminals.entry('claude-code'), {
    gatewayId: 'a',
    tokenName: 'native-cli',
    env: { ANTHROPIC_BASE_URL: { base: true }, ANTHROPIC_AUTH_TOKEN: { token: true } },
    choices: {},
  });
  assert.ok(!JSON.stringify(w.global.get(TOOL_TERMINALS_KEY)).includes('sk-'), 'no token in the remembered state');
});

test("two gateways side by side: a switch, a second window and a setup on the other gateway never move a tool's token", async () => {
  const w = await world();
  const one = w.window('a');
  await one.terminals.setUp('codex', 'a', 'production', PLAN.codex('a'));
  await one.reg.setActive('b');
  await one.terminals.follow();
  assert.equal(one.coll.vars.get('MODEL_RELAY_A_KEY'), TOKENS.a.production, "after a switch Codex keeps A's token");
  await one.terminals.setUp('opencode', 'b', 'production', PLAN.opencode('b'));
  assert.deepEqual(Object.fromEntries(one.coll.vars), {
    MODEL_RELAY_A_KEY: TOKENS.a.production,
    MODEL_RELAY_B_KEY: TOKENS.b.production,
  });
  const two = w.window('b');
  await two.terminals.restore();
  assert.deepEqual(Object.fromEntries(two.coll.vars), Object.fromEntries(one.coll.vars), 'a second window, B active');
});

test('a token that cannot be found: that tool needs attention with its fix; the others are untouched, nothing is forgotten', async () => {
  const w = await world();
  const { coll, terminals, reg } = w.window('a');
  await terminals.setUp('codex', 'a', 'production', PLAN.codex('a'));
  await terminals.setUp('opencode', 'b', 'native-cli', PLAN.opencode('b'));
  let fired = 0;
  terminals.onDidChange(() => fired++);
  await reg.tokensOf('b').remove('native-cli');
  await terminals.follow();
  assert.deepEqual(Object.fromEntries(coll.vars), { MODEL_RELAY_A_KEY: TOKENS.a.production });
  assert.equal(terminals.attention().length, 1);
  const a = terminals.attention()[0];
  assert.equal(a.tool, 'opencode');
  assert.match(a.why, /token "native-cli" of the gateway "Beta", which cannot be found/);
  assert.match(a.fix, /Add the token "native-cli" to "Beta" again/);
  assert.ok(fired > 0, 'the Status view hears it');
  assert.deepEqual(terminals.tools(), ['codex', 'opencode'], 'still remembered');
  await reg.tokensOf('b').add('native-cli', TOKENS.b['native-cli'], false);
  await terminals.follow();
  assert.equal(coll.vars.get('MODEL_RELAY_B_KEY'), TOKENS.b['native-cli'], 'back once the token is there again');
  assert.equal(terminals.attention().length, 0);
});

test("a replaced token value and a new base URL of the tool's own gateway reach new terminals", async () => {
  const w = await world();
  const { coll, terminals, reg } = w.window('a');
  await terminals.setUp('claude-code', 'a', 'production', PLAN.claude(A));
  await terminals.setUp('copilot-cli', 'a', 'production', { COPILOT_PROVIDER_BASE_URL: `${A}/v1` });
  await reg.tokensOf('a').add('production', 'sk-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa9999', true);
  await terminals.follow();
  assert.equal(coll.vars.get('ANTHROPIC_AUTH_TOKEN'), 'sk-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa9999');
  w.roots.a = 'https://a2.example.com';
  await terminals.followSettings();
  assert.equal(coll.vars.get('ANTHROPIC_BASE_URL'), 'https://a2.example.com');
  assert.equal(coll.vars.get('COPILOT_PROVIDER_BASE_URL'), 'https://a2.example.com/v1', 'the /v1 address follows too');
  w.roots.a = undefined;
  await terminals.followSettings();
  assert.equal(coll.vars.size, 0, 'a gateway no longer configured: its tools leave new terminals');
  assert.match(terminals.attention()[0].why, /no longer configured/);
});

test('Remove Setup takes back exactly one tool’s variables', async () => {
  const w = await world();
  const { coll, terminals } = w.window('a');
  await terminals.setUp('claude-code', 'a', 'production', PLAN.claude(A));
  await terminals.setUp('codex', 'a', 'production', PLAN.codex('a'));
  await terminals.remove('claude-code');
  assert.deepEqual(Object.fromEntries(coll.vars), { MODEL_RELAY_A_KEY: TOKENS.a.production });
  await terminals.remove('codex');
  assert.equal(coll.vars.size, 0);
  assert.equal(w.global.get(TOOL_TERMINALS_KEY), undefined, 'nothing remembered once nothing is set up');
});

test('a state kept before tools were bound to a gateway: bound to the active one, Claude Code under its old names', async () => {
  const w = await world();
  await w.global.update(TOOL_TERMINALS_KEY, {
    tokenName: 'native-cli',
    tools: {
      'claude-code': {
        env: { ANTHROPIC_BASE_URL: { base: true }, ANTHROPIC_AUTH_TOKEN: { token: true } },
        choices: {},
      },
      codex: { env: { MODEL_RELAY_API_KEY: { token: true } }, choices: { model: 'gpt-5.5' } },
    },
  });
  const state = readToolTerminalsState(w.global.get(TOOL_TERMINALS_KEY), () => 'b', {
    baseUrl: 'MY_BASE',
    token: 'MY_TOKEN',
  });
  assert.deepEqual(state?.tools['claude-code'], {
    gatewayId: 'b',
    tokenName: 'native-cli',
    env: { MY_BASE: { base: true }, MY_TOKEN: { token: true } },
    choices: { variableNames: { baseUrl: 'MY_BASE', token: 'MY_TOKEN' } },
  });
  const { coll, terminals } = w.window('b');
  await terminals.restore();
  assert.equal(coll.vars.get('MODEL_RELAY_API_KEY'), TOKENS.b['native-cli'], 'the old variable name is kept');
  assert.equal(terminals.entry('codex')?.gatewayId, 'b');
  assert.equal(
    (w.global.get(TOOL_TERMINALS_KEY) as { tools: { codex: { gatewayId: string } } }).tools.codex.gatewayId,
    'b',
    'written back bound',
  );
});

test('the stored state is checked: unknown tools, bad names and oversized ids dropped, garbage ignored', () => {
  const active = () => 'a';
  for (const junk of [undefined, null, 3, 'x', [], {}, { tools: 5 }])
    assert.equal(readToolTerminalsState(junk, active), undefined);
  const s = readToolTerminalsState(
    {
      tools: {
        codex: { gatewayId: 'a', tokenName: 'x'.repeat(201), env: { K: { token: true } } },
        opencode: { gatewayId: 'b', tokenName: 'ok', env: { 'BAD NAME': 'v', GOOD: 'v', BIG: 'v'.repeat(3000) } },
        'no-such-tool': { gatewayId: 'a', tokenName: 'ok', env: { K: 'v' } },
      },
    },
    active,
  );
  assert.deepEqual(s, { tools: { opencode: { gatewayId: 'b', tokenName: 'ok', env: { GOOD: 'v' }, choices: {} } } });
});

test('a plan’s root address is remembered as a marker that follows the base URL; bad names refused', () => {
  assert.deepEqual(templateOf(PLAN.claude(A), A), {
    ANTHROPIC_BASE_URL: { base: true },
    ANTHROPIC_AUTH_TOKEN: { token: true },
  });
  assert.deepEqual(templateOf({ COPILOT_PROVIDER_BASE_URL: `${A}/v1` }, A), {
    COPILOT_PROVIDER_BASE_URL: { base: true, suffix: '/v1' },
  });
  assert.throws(() => templateOf({ 'NOT OK': 'v' }, A), /letters, digits and underscores/);
});
