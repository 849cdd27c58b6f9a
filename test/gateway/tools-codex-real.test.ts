/**
 * What Set Up Tools writes into config.toml, read by Codex CLI itself (0.169, from the e2e cache that
 * test/e2e/setup-clis.sh fills; skipped when it is not there): plain `codex exec`, no flags, reaches
 * the gateway set up last — A, then B beside A — and, after B's setup is removed, the provider the
 * user had before; removing A then restores the user's file byte for byte. The profile layout Model
 * Relay wrote before is refused by Codex in the words the resolver repeats. Each simulator has its
 * own tokens, and each run must reach only the simulator it points at, with that simulator's token.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { maskToken } from '../../src/gateway/mask';
import { applyEdits, planRemove, planSetUp, resolveCodex, type ToolGateway } from '../../src/gateway/tools';
import { toolIdentity } from '../../src/gateway/tools/common';
import { credentialDigest, defaultConfig, startSimulator, type Simulator } from '../sim/server';
import { sandbox, type Sandbox } from './toolsFixture';

const CODEX = join(homedir(), '.cache/model-relay-vscode/clis/node_modules/.bin/codex');
const MODEL = 'o3-pro';

type Name = 'a' | 'b' | 'user';
const sims = {} as Record<Name, Simulator>;
const token = (n: Name) => sims[n].tokens.production;
before(async () => {
  if (!existsSync(CODEX)) return;
  for (const [n, prefix] of [
    ['a', ''],
    ['b', 'sk-2nd'],
    ['user', 'sk-usr'],
  ] as const)
    sims[n] = await startSimulator({
      profile: 'real',
      gateway: 'new-api',
      replies: 'echo',
      ...(prefix
        ? { tokens: defaultConfig().tokens.map((t) => ({ ...t, value: `${prefix}${t.value.slice(6)}` })) }
        : {}),
    });
});
after(async () => {
  await Promise.all(Object.values(sims).map((s) => s.close()));
});

function gw(id: 'a' | 'b'): ToolGateway {
  return {
    id,
    name: `Relay ${id.toUpperCase()}`,
    baseUrl: sims[id].url,
    maskedToken: maskToken(token(id)),
    ...toolIdentity(id),
    models: [{ id: MODEL, surfaces: ['responses'] }],
  };
}

/** Output with every simulator's token masked (never printed whole). */
const masked = (text: string) =>
  (Object.keys(sims) as Name[]).reduce((out, n) => out.split(token(n)).join(maskToken(token(n))), text);

/** `codex exec "say hi"` with no flags, in a terminal holding the three keys. */
function codexExec(s: Sandbox): Promise<{ code: number; out: string; err: string }> {
  const env = {
    PATH: process.env.PATH,
    HOME: s.home,
    CODEX_HOME: join(s.home, '.codex'),
    MODEL_RELAY_A_KEY: token('a'),
    MODEL_RELAY_B_KEY: token('b'),
    MY_KEY: token('user'),
  };
  return new Promise((resolve) => {
    execFile(
      CODEX,
      ['exec', '--skip-git-repo-check', '--ephemeral', '-s', 'read-only', 'say hi'],
      { cwd: s.ws, env, timeout: 120_000 },
      (e, out, err) => resolve({ code: e ? Number(e.code ?? 1) : 0, out: masked(out), err: masked(err) }),
    ).stdin?.end();
  });
}

/**
 * Runs codex and checks that it used the provider `provider` (its banner says so), that only
 * simulator `to` answered it, with its own token, and that its reply was printed.
 */
async function reaches(s: Sandbox, to: Name, provider: string): Promise<string> {
  const seen = Object.fromEntries((Object.keys(sims) as Name[]).map((n) => [n, sims[n].log.length]));
  const run = await codexExec(s);
  const responses = (n: Name) => sims[n].log.slice(seen[n]).filter((r) => r.path.startsWith('/v1/responses'));
  assert.equal(run.code, 0, `${run.err.slice(-1500)}\n${run.out}`);
  assert.equal(/^provider: (.*)$/m.exec(run.err)?.[1], provider, run.err.slice(0, 800));
  for (const n of Object.keys(sims) as Name[])
    assert.equal(responses(n).length > 0, n === to, `${n}: ${responses(n).length} requests; ${run.err.slice(-800)}`);
  assert.ok(sims[to].credentials.includes(credentialDigest(token(to))));
  assert.ok(run.out.includes('Tool exec_command returned') || run.out.includes('Echo: say hi'), run.out);
  return `provider ${provider}, model ${/^model: (.*)$/m.exec(run.err)?.[1]}: ${run.out.trim()}`;
}

const USER_TOML = (userUrl: string) => `# my Codex settings
check_for_update_on_startup = false
model = "${MODEL}"
model_provider = "mine" # my own

[analytics]
enabled = false

[model_providers.mine]
name = "Mine"
base_url = "${userUrl}/v1"
env_key = "MY_KEY"
wire_api = "responses"
`;

test('the real codex exec reaches the gateway set up last (A, then B beside A), the user’s own provider after B is removed, and the original comes back', async (t) => {
  if (!existsSync(CODEX)) return t.skip(`Codex CLI is not installed at ${CODEX} (test/e2e/setup-clis.sh installs it)`);
  const s = sandbox({});
  s.env.env.CODEX_HOME = join(s.home, '.codex');
  try {
    const original = USER_TOML(sims.user.url);
    const path = s.put(join(s.home, '.codex/config.toml'), original);
    const opts = {
      homeDir: s.home,
      backupDir: s.env.backupDir,
      secrets: Object.keys(sims).map((n) => token(n as Name)),
    };
    t.diagnostic(`before: ${await reaches(s, 'user', 'mine')}`);
    for (const id of ['a', 'b'] as const) {
      const plan = await planSetUp('codex', s.env, gw(id), { model: MODEL });
      assert.equal(plan.unavailable, undefined, plan.notes.join(' '));
      await applyEdits(plan.edits, opts);
      t.diagnostic(`after setting up ${id}: ${await reaches(s, id, `model-relay-${id}`)}`);
    }
    await applyEdits((await planRemove('codex', s.env, gw('b'))).edits, opts);
    t.diagnostic(`after removing b: ${await reaches(s, 'user', 'mine')}`);
    await applyEdits((await planRemove('codex', s.env, gw('a'))).edits, opts);
    assert.equal(s.get(path), original);
  } finally {
    s.done();
  }
});

test('the real codex refuses the profile layout, as the resolver says', async (t) => {
  if (!existsSync(CODEX)) return t.skip(`Codex CLI is not installed at ${CODEX} (test/e2e/setup-clis.sh installs it)`);
  const s = sandbox({});
  s.env.env.CODEX_HOME = join(s.home, '.codex');
  try {
    s.put(
      join(s.home, '.codex/config.toml'),
      `profile = "model-relay-a" # set by Model Relay; before: none\n\n[model_providers.model-relay-a]\nname = "A"\nbase_url = "${sims.a.url}/v1"\nenv_key = "MODEL_RELAY_A_KEY"\nwire_api = "responses"\n\n[profiles.model-relay-a]\nmodel_provider = "model-relay-a"\nmodel = "${MODEL}"\n`,
    );
    const run = await codexExec(s);
    assert.notEqual(run.code, 0);
    assert.match(run.err, /legacy `profile = "model-relay-a"` config is no longer supported/);
    const r = await resolveCodex(s.env, gw('a'));
    assert.match(
      r.conflicts[0]?.what ?? '',
      /Codex 0\.169 refuses: it stops with "legacy profile config is no longer supported"/,
    );
  } finally {
    s.done();
  }
});
