/**
 * Two gateways, every terminal tool (issue 37 §2 proof): two simulators that record every credential
 * they see, the real tools module planning and writing each tool's files in a temporary home, and the
 * terminals' variables from ToolTerminals bound per gateway. After every step of a sequence — set up
 * on A, switch to B, set up Codex and opencode on B beside A's, a second window with B active,
 * remove a token of A, remove a tool — each tool is "run": the request it would send is built from
 * its own resolution (address, credential, model) and sent wherever the tool points, without Model
 * Relay's gate (the tool has none). Each simulator must have seen only its own gateway's tokens.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { GatewayProfile } from '../../src/gateway/gateways/profile';
import { CredentialScope } from '../../src/gateway/http/egress';
import { maskToken } from '../../src/gateway/mask';
import { applyEdits, planSetUp, toolStatuses, type ToolGateway, type ToolId } from '../../src/gateway/tools';
import { toolIdentity } from '../../src/gateway/tools/common';
import { probeTool } from '../../src/gateway/tools/probes';
import { probeTargetOf } from '../../src/gateway/tools/probeTarget';
import { tokenKeys } from '../../src/host/gateways/activeToken';
import { GatewayRegistry } from '../../src/host/gateways/gatewayRegistry';
import { TokenStore } from '../../src/host/gateways/tokenStore';
import { ToolTerminals } from '../../src/host/tools/toolTerminals';
import { credentialDigest, defaultConfig, startSimulator, type Simulator } from '../sim/server';
import { InMemoryMemento, InMemorySecretStorage } from '../fakes/state';
import { sandbox, type Sandbox } from '../gateway/toolsFixture';

const sims: Record<'a' | 'b', Simulator> = {} as never;
before(async () => {
  sims.a = await startSimulator({ profile: 'real', gateway: 'new-api' });
  sims.b = await startSimulator({
    profile: 'real',
    gateway: 'new-api',
    tokens: defaultConfig().tokens.map((t) => ({ ...t, value: `sk-2nd${t.value.slice(6)}` })),
  });
});
after(async () => {
  await sims.a.close();
  await sims.b.close();
});

const MODELS: ToolGateway['models'] = [
  { id: 'claude-sonnet-4-5', surfaces: ['native', 'compatible'] },
  { id: 'gpt-4o-mini', surfaces: ['compatible', 'responses'] },
  { id: 'gemini-2.5-flash', surfaces: ['gemini', 'compatible'] },
];
const CHOICES: Record<ToolId, { model?: string }> = {
  'claude-code': { model: 'claude-sonnet-4-5' },
  codex: { model: 'gpt-4o-mini' },
  'gemini-cli': { model: 'gemini-2.5-flash' },
  opencode: { model: 'gpt-4o-mini' },
} as Record<ToolId, { model?: string }>;

function world() {
  const global = new InMemoryMemento();
  const secrets = new InMemorySecretStorage();
  const profiles: GatewayProfile[] = [
    { id: 'a', name: 'Alpha', baseUrl: sims.a.url },
    { id: 'b', name: 'Beta', baseUrl: sims.b.url },
  ];
  const window = async (active: 'a' | 'b') => {
    const reg = new GatewayRegistry(
      new InMemoryMemento(),
      global,
      (id) => new TokenStore(global, secrets, undefined, tokenKeys(id)),
      profiles,
    );
    await reg.setActive(active);
    const terminals = new ToolTerminals(
      { persistent: false, clear: () => undefined, replace: () => undefined },
      {
        root: (id) => reg.get(id)?.baseUrl,
        value: (id, name) => reg.tokensOf(id).value(name),
        activeId: () => reg.activeId(),
        name: (id) => reg.get(id)?.name,
      },
      global,
    );
    await terminals.restore();
    return { reg, terminals };
  };
  return { window };
}

/** The active gateway as Set Up Tools sees it, the other one beside it (as src/extension/tools/toolsSetup.ts builds it). */
async function toolGateway(reg: GatewayRegistry): Promise<ToolGateway> {
  const g = reg.active()!;
  const token = (await reg.tokensOf(g.id).activeToken())!;
  const others = await Promise.all(
    reg
      .gateways()
      .filter((o) => o.id !== g.id)
      .map(async (o) => ({ ...o, maskedTokens: (await reg.tokensOf(o.id).list()).map((x) => x.masked) })),
  );
  return { ...g, maskedToken: maskToken(token), ...toolIdentity(g.id), models: MODELS, others };
}

async function setUp(s: Sandbox, w: { reg: GatewayRegistry; terminals: ToolTerminals }, tool: ToolId) {
  const gw = await toolGateway(w.reg);
  const plan = await planSetUp(tool, { ...s.env, env: w.terminals.current() }, gw, CHOICES[tool]);
  assert.equal(plan.unavailable, undefined, plan.unavailable);
  const out = await applyEdits(plan.edits, { homeDir: s.home, secrets: [], backupDir: s.env.backupDir });
  assert.ok(
    out.every((o) => o.written),
    JSON.stringify(out),
  );
  assert.ok(await w.terminals.setUp(tool, gw.id, 'production', plan.terminalEnv, CHOICES[tool]));
}

/** Every tool "run" in a new terminal of this window: its request sent wherever it points (no gate: a tool has none). */
async function runAll(s: Sandbox, w: { reg: GatewayRegistry; terminals: ToolTerminals }): Promise<string[]> {
  const env = { ...s.env, env: w.terminals.current() };
  const anywhere = new CredentialScope('the tool itself', [sims.a.url, sims.b.url]);
  const sent: string[] = [];
  for (const st of await toolStatuses(env, await toolGateway(w.reg))) {
    const target = await probeTargetOf(st, env.env);
    if (!target.credential) continue;
    const p = await probeTool(
      { ...target, credential: { ...target.credential, foreign: undefined } },
      {
        scope: anywhere,
        models: MODELS,
        timeoutMs: 5000,
      },
    );
    sent.push(`${st.tool}→${p.url ?? '-'} ${p.status ?? ''} ${p.model ?? ''} ${p.ok ? '' : (p.cause ?? '')}`.trim());
  }
  return sent;
}

function assertOwnTokensOnly(step: string): void {
  const own = {
    a: defaultConfig().tokens.map((t) => t.value),
    b: defaultConfig().tokens.map((t) => `sk-2nd${t.value.slice(6)}`),
  };
  for (const [id, other] of [
    ['a', 'b'],
    ['b', 'a'],
  ] as const) {
    const stray = own[other].filter((v) => sims[id].credentials.includes(credentialDigest(v)));
    assert.deepEqual(stray.map(maskToken), [], `${step}: gateway ${id} saw ${other}'s tokens`);
  }
}

test(
  'set up / switch / side by side / second window / token removed / tool removed: each simulator sees only its own tokens',
  { timeout: 120_000 },
  async () => {
    const s = sandbox({});
    const { window } = world();
    try {
      const one = await window('a');
      for (const [id, sim] of Object.entries(sims)) {
        const store = one.reg.tokensOf(id);
        for (const t of sim.config.tokens) await store.add(t.name, t.value, t.name === 'production');
      }
      for (const tool of ['claude-code', 'codex', 'gemini-cli', 'opencode'] as const) await setUp(s, one, tool);
      const first = await runAll(s, one);
      assert.equal(first.filter((l) => / 200 /.test(l)).length, 4, first.join('\n'));
      assertOwnTokensOnly('set up on A');

      await one.reg.setActive('b');
      await one.terminals.follow();
      await runAll(s, one);
      assertOwnTokensOnly('switched to B');

      await setUp(s, one, 'codex');
      await setUp(s, one, 'opencode');
      const beside = await runAll(s, one);
      assert.ok(
        beside.some((l) => l.startsWith(`codex→${sims.b.url}`)),
        beside.join('\n'),
      );
      assertOwnTokensOnly('Codex and opencode set up on B beside A');

      const two = await window('b');
      await runAll(s, two);
      assertOwnTokensOnly('a second window with B active');

      await two.reg.tokensOf('a').remove('production');
      await two.terminals.follow();
      assert.ok(
        two.terminals.attention().some((x) => x.gatewayId === 'a'),
        'A’s tools need attention',
      );
      await runAll(s, two);
      assertOwnTokensOnly("A's token removed");

      await two.terminals.remove('claude-code');
      await runAll(s, two);
      assertOwnTokensOnly('Claude Code removed');
      assert.ok(sims.a.credentials.length > 0 && sims.b.credentials.length > 0, 'both gateways were called');
    } finally {
      s.done();
    }
  },
);
