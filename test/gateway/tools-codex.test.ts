/**
 * Codex CLI's config.toml: the provider table is added with /v1, wire_api "responses" and env_key
 * naming Model Relay's variable (never the token); the user's comments, order and other providers
 * stay; Remove Setup restores the file byte for byte; the active profile beats the top level;
 * wire_api "chat" is reported as the hard error it is.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { parse } from '@decimalturn/toml-patch';
import { applyEdits, planRemove, planSetUp, resolveCodex, toolStatus } from '../../src/gateway/tools';
import { gateway, ROOT, sandbox, TOKEN } from './toolsFixture';

const USER_TOML = `# my codex config
model = "o3" # the one I like
approval_policy = "on-request"

# a provider of my own
[model_providers.other]
name = "Other"
base_url = "https://other.example/v1"
env_key = "OTHER_KEY"

[profiles.fast]
model = "o4-mini"
`;

async function setUpAndApply(s: ReturnType<typeof sandbox>, model?: string) {
  const plan = await planSetUp('codex', s.env, gateway(), model ? { model } : {});
  assert.equal(plan.unavailable, undefined, plan.notes.join(' '));
  const out = await applyEdits(plan.edits, { homeDir: s.home, secrets: [TOKEN] });
  assert.equal(out[0].written, true, JSON.stringify(out));
  return plan;
}

async function removeAndApply(s: ReturnType<typeof sandbox>) {
  const plan = await planRemove('codex', s.env, gateway());
  const out = await applyEdits(plan.edits, { homeDir: s.home, secrets: [TOKEN] });
  assert.ok(
    out.every((o) => o.written),
    JSON.stringify(out),
  );
  return plan;
}

test('codex set-up keeps comments, order and other providers; removal restores byte for byte', async () => {
  for (const model of [undefined, 'gpt-5.5']) {
    const s = sandbox({ MODEL_RELAY_API_KEY: TOKEN });
    try {
      const path = s.put(join(s.home, '.codex/config.toml'), USER_TOML);
      const plan = await setUpAndApply(s, model);
      assert.deepEqual(plan.terminalEnv, { MODEL_RELAY_API_KEY: { token: true } });
      const text = s.get(path)!;
      const head = `# my codex config\nmodel = "${model ?? 'o3'}" # the one I like\napproval_policy = "on-request"\n`;
      assert.ok(text.startsWith(head + (model ? 'model_provider = "model-relay"\n\n' : '\n')), text);
      assert.ok(text.includes('# a provider of my own\n[model_providers.other]'));
      assert.match(
        text,
        /\n\[model_providers\.model-relay\]\nname = "Example Relay"\nbase_url = "https:\/\/gw\.example\.com\/v1"\nenv_key = "MODEL_RELAY_API_KEY"\nwire_api = "responses"\n$/,
      );
      const toml = parse(text) as {
        model: string;
        model_provider?: string;
        model_providers: Record<string, unknown>;
        profiles: unknown;
      };
      assert.equal(toml.model, model ?? 'o3');
      assert.equal(toml.model_provider, model ? 'model-relay' : undefined);
      assert.ok(toml.model_providers.other && toml.profiles);
      assert.ok(!text.includes(TOKEN));
      const st = await toolStatus('codex', s.env, gateway());
      assert.equal(st.state, model ? 'set-up' : 'not-set-up', st.why);
      assert.equal(st.removable, true);
      if (model) assert.equal(st.resolved?.baseUrl?.value, `${ROOT}/v1`);
      await removeAndApply(s);
      assert.equal(s.get(path), USER_TOML);
    } finally {
      s.done();
    }
  }
});

test('codex: a missing config.toml is created and removal deletes it again; setting up twice keeps one block', async () => {
  const s = sandbox({ MODEL_RELAY_API_KEY: TOKEN, CODEX_HOME: '' });
  try {
    s.env.env.CODEX_HOME = join(s.root, 'codexhome');
    const path = join(s.root, 'codexhome/config.toml');
    await setUpAndApply(s, 'gpt-5.5');
    const once = s.get(path)!;
    assert.match(once, /^model = "gpt-5.5"\nmodel_provider = "model-relay"\n\n# Added by Model Relay/);
    await setUpAndApply(s, 'gpt-5.5');
    assert.equal(s.get(path), once, 'a second setup replaces the first');
    assert.equal((await toolStatus('codex', s.env, gateway())).state, 'set-up');
    await removeAndApply(s);
    assert.equal(s.get(path), undefined);
  } finally {
    s.done();
  }
});

test('codex: files without a final newline, with only tables, or only comments round-trip exactly', async () => {
  const samples = ['model = "o3"', '# only a comment\n\n[tui]\nnotifications = true\n', '# c1\n# c2\n', '[tui]\nx = 1'];
  for (const sample of samples) {
    const s = sandbox({ MODEL_RELAY_API_KEY: TOKEN });
    try {
      const path = s.put(join(s.home, '.codex/config.toml'), sample);
      await setUpAndApply(s, 'gpt-5.5');
      const toml = parse(s.get(path)!) as { model_provider: string };
      assert.equal(toml.model_provider, 'model-relay', JSON.stringify(sample));
      await removeAndApply(s);
      assert.equal(s.get(path), sample);
    } finally {
      s.done();
    }
  }
});

test("codex: a user's own [model_providers.model-relay] is never taken: another id is used and removal leaves it", async () => {
  const s = sandbox({ MODEL_RELAY_API_KEY: TOKEN });
  try {
    const mine = '[model_providers.model-relay]\nname = "Mine"\nbase_url = "https://mine.example/v1"\n';
    const path = s.put(join(s.home, '.codex/config.toml'), mine);
    await setUpAndApply(s, 'gpt-5.5');
    const toml = parse(s.get(path)!) as { model_provider: string; model_providers: Record<string, { name: string }> };
    assert.equal(toml.model_provider, 'model-relay-2');
    assert.equal(toml.model_providers['model-relay'].name, 'Mine');
    await removeAndApply(s);
    assert.equal(s.get(path), mine);
    const again = await planRemove('codex', s.env, gateway());
    assert.deepEqual(again.edits, [], 'nothing of ours left: nothing to remove');
  } finally {
    s.done();
  }
});

test('codex precedence: the active profile beats the top-level model_provider; built-in openai otherwise', async () => {
  const s = sandbox({ MODEL_RELAY_API_KEY: TOKEN, OPENAI_API_KEY: 'sk-openai-000000000000000' });
  try {
    const path = s.put(join(s.home, '.codex/config.toml'), 'model = "o3"\n');
    let r = await resolveCodex(s.env, gateway());
    assert.equal(r.baseUrl?.value, 'https://api.openai.com/v1');
    assert.equal(r.auth?.from.key, 'OPENAI_API_KEY');
    await setUpAndApply(s, 'gpt-5.5');
    r = await resolveCodex(s.env, gateway());
    assert.equal(r.baseUrl?.value, `${ROOT}/v1`);
    assert.equal(r.model?.value, 'gpt-5.5');
    s.put(path, `profile = "fast"\n${s.get(path)!}\n[profiles.fast]\nmodel = "o4-mini"\nmodel_provider = "openai"\n`);
    r = await resolveCodex(s.env, gateway());
    assert.equal(r.model?.value, 'o4-mini');
    assert.equal(r.baseUrl?.value, 'https://api.openai.com/v1');
    const st = await toolStatus('codex', s.env, gateway());
    assert.equal(st.state, 'overridden', JSON.stringify(st));
    assert.equal(st.resolved?.overrides[0].from.key, 'profiles.fast.model_provider');
  } finally {
    s.done();
  }
});

test('codex: wire_api "chat", a base URL without /v1 and a missing variable are each named', async () => {
  const s = sandbox({});
  try {
    s.put(
      join(s.home, '.codex/config.toml'),
      `model_provider = "x"\n[model_providers.x]\nbase_url = "${ROOT}"\nenv_key = "X_KEY"\nwire_api = "chat"\n`,
    );
    const r = await resolveCodex(s.env, gateway());
    assert.ok(r.conflicts.some((c) => /"chat"/.test(c.what) && /responses/.test(c.fix)));
    assert.ok(r.conflicts.some((c) => /without \/v1/.test(c.what)));
    assert.ok(r.problems.some((p) => p.includes('X_KEY')));
  } finally {
    s.done();
  }
});

test('codex is offered only with a model on the Responses API; a file that does not parse is left untouched', async () => {
  const s = sandbox({});
  try {
    const noResponses = gateway({ models: [{ id: 'deepseek-v4', surfaces: ['compatible'] }] });
    const plan = await planSetUp('codex', s.env, noResponses, {});
    assert.match(plan.unavailable ?? '', /Responses API/);
    assert.equal((await toolStatus('codex', s.env, noResponses)).state, 'unavailable');
    s.put(join(s.home, '.codex/config.toml'), 'model = = 1\n');
    const bad = await planSetUp('codex', s.env, gateway(), {});
    assert.match(bad.unavailable ?? '', /does not parse/);
    const r = await resolveCodex(s.env, gateway());
    assert.equal(r.problems.length, 1);
  } finally {
    s.done();
  }
});

test('codex: a gateway name with quotes, backslashes and control characters stays one valid TOML string', async () => {
  const s = sandbox({ MODEL_RELAY_API_KEY: TOKEN });
  try {
    const name = 'My "relay" \\ test\u007f\ttab';
    const plan = await planSetUp('codex', s.env, gateway({ name }), {});
    const toml = parse(plan.edits[0].after) as { model_providers: Record<string, { name: string }> };
    assert.equal(toml.model_providers['model-relay'].name, name);
  } finally {
    s.done();
  }
});
