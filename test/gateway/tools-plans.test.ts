/**
 * Across every tool: a token never reaches a plan, a status or a file, whatever the terminal and
 * the files already hold; the token variable shared by Codex and opencode leaves new terminals only
 * when neither is set up any more; statuses are read without a gateway too.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { applyEdits, planRemove, planSetUp, toolStatuses, TOOL_IDS } from '../../src/gateway/tools';
import { gateway, OTHER_TOKEN, ROOT, sandbox, TOKEN } from './toolsFixture';

test('a token never lands in a plan, a status or a file, for every tool and every choice', async () => {
  const s = sandbox({
    MODEL_RELAY_API_KEY: TOKEN,
    ANTHROPIC_AUTH_TOKEN: TOKEN,
    ANTHROPIC_BASE_URL: ROOT,
    GEMINI_API_KEY: TOKEN,
    OPENAI_API_KEY: TOKEN,
  });
  try {
    s.put(join(s.home, '.claude/settings.json'), JSON.stringify({ env: { ANTHROPIC_API_KEY: OTHER_TOKEN } }));
    s.put(join(s.home, '.codex/config.toml'), `model = "o3"\n`);
    s.put(join(s.home, '.config/opencode/opencode.json'), `{}\n`);
    const choices = [{}, { model: 'gpt-5.5' }, { model: 'deepseek-v4' }, { model: 'claude-sonnet-4-5' }];
    for (const tool of TOOL_IDS) {
      for (const c of choices) {
        const plan = await planSetUp(tool, s.env, gateway(), c);
        const text = JSON.stringify(plan);
        assert.ok(!text.includes(TOKEN) && !text.includes(TOKEN.slice(3)), `${tool} ${JSON.stringify(c)}`);
        const out = await applyEdits(plan.edits, { homeDir: s.home, backupDir: s.env.backupDir, secrets: [TOKEN] });
        assert.ok(
          out.every((o) => o.written),
          JSON.stringify(out),
        );
      }
      const rm = await planRemove(tool, s.env, gateway());
      assert.ok(!JSON.stringify(rm).includes(TOKEN));
    }
    const statuses = JSON.stringify(await toolStatuses(s.env, gateway()));
    assert.ok(!statuses.includes(TOKEN) && !statuses.includes(OTHER_TOKEN));
    for (const f of ['.claude/settings.json', '.codex/config.toml', '.config/opencode/opencode.json'])
      assert.ok(!s.get(join(s.home, f))!.includes(TOKEN), f);
  } finally {
    s.done();
  }
});

test("the shared token variable leaves new terminals only when neither Codex nor opencode keeps Model Relay's setup", async () => {
  const s = sandbox({ MODEL_RELAY_API_KEY: TOKEN });
  try {
    const opts = { homeDir: s.home, backupDir: s.env.backupDir, secrets: [TOKEN] };
    await applyEdits((await planSetUp('codex', s.env, gateway(), { model: 'gpt-5.5' })).edits, opts);
    await applyEdits((await planSetUp('opencode', s.env, gateway(), {})).edits, opts);
    const rmCodex = await planRemove('codex', s.env, gateway());
    assert.deepEqual(rmCodex.removeEnv, [], 'opencode still reads MODEL_RELAY_API_KEY');
    await applyEdits(rmCodex.edits, opts);
    const rmOpencode = await planRemove('opencode', s.env, gateway());
    assert.deepEqual(rmOpencode.removeEnv, ['MODEL_RELAY_API_KEY']);
  } finally {
    s.done();
  }
});

test('codex removal leaves a model the user changed after the setup (only its own part is taken out)', async () => {
  const s = sandbox({ MODEL_RELAY_API_KEY: TOKEN });
  try {
    const path = s.put(join(s.home, '.codex/config.toml'), 'model = "o3"\n');
    const opts = { homeDir: s.home, backupDir: s.env.backupDir, secrets: [TOKEN] };
    await applyEdits((await planSetUp('codex', s.env, gateway(), { model: 'gpt-5.5' })).edits, opts);
    // the user writes a model line of their own over the one Model Relay set
    s.put(path, s.get(path)!.replace(/^model = "gpt-5\.5" # set by Model Relay.*$/m, 'model = "o4-mini"'));
    await applyEdits((await planRemove('codex', s.env, gateway())).edits, opts);
    assert.equal(s.get(path), 'model = "o4-mini"\n');
  } finally {
    s.done();
  }
});

test('statuses are read without a gateway: nothing is set up, nothing unavailable', async () => {
  const s = sandbox({ ANTHROPIC_BASE_URL: ROOT, ANTHROPIC_AUTH_TOKEN: TOKEN }, ['claude']);
  try {
    const all = await toolStatuses(s.env, undefined);
    assert.deepEqual(
      all.map((x) => [x.tool, x.state]),
      [
        ['claude-code', 'not-set-up'],
        ['codex', 'not-installed'],
        ['gemini-cli', 'not-installed'],
        ['opencode', 'not-installed'],
        ['copilot-cli', 'not-installed'],
      ],
    );
    assert.equal(all[0].resolved?.baseUrl?.value, ROOT);
  } finally {
    s.done();
  }
});
