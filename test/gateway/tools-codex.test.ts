/**
 * Codex CLI's config.toml: set up appends `[model_providers.<id>]` (with /v1, wire_api "responses",
 * env_key naming Model Relay's variable, never the token) and `[profiles.<id>]`, and the only root
 * edit is one `profile` line; the user's comments, order and other providers stay; two gateways
 * stand side by side; Remove Setup restores the original byte for byte (from its backup when the file
 * is as Model Relay left it, else by taking out exactly its own tables and putting the profile line
 * back); the older layout is still recognised and taken back; Codex's own precedence is followed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { parse } from 'smol-toml';
import { applyEdits, planRemove, planSetUp, resolveCodex, toolStatus } from '../../src/gateway/tools';
import { toolIdentity } from '../../src/gateway/tools/common';
import type { ToolGateway } from '../../src/gateway/tools/types';
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

type Sb = ReturnType<typeof sandbox>;
type Toml = {
  profile?: string;
  model?: string;
  model_provider?: string;
  model_providers: Record<string, Record<string, string>>;
  profiles: Record<string, Record<string, string>>;
};

const opts = (s: Sb) => ({ homeDir: s.home, backupDir: s.env.backupDir, secrets: [TOKEN] });

async function setUpAndApply(s: Sb, model?: string, g: ToolGateway = gateway()) {
  const plan = await planSetUp('codex', s.env, g, model ? { model } : {});
  assert.equal(plan.unavailable, undefined, plan.notes.join(' '));
  const out = await applyEdits(plan.edits, opts(s));
  assert.equal(out[0].written, true, JSON.stringify(out));
  return plan;
}

/** Remove Setup, its plan made with the backups or (`restore` false) by the text-level removal alone. */
async function removeAndApply(s: Sb, g: ToolGateway = gateway(), restore = true) {
  const { backupDir: _, ...noBackups } = s.env;
  const plan = await planRemove('codex', restore ? s.env : noBackups, g);
  const out = await applyEdits(plan.edits, opts(s));
  assert.ok(
    out.every((o) => o.written),
    JSON.stringify(out),
  );
  return plan;
}

/** A gateway with its own identity (model-relay-<id>, MODEL_RELAY_<ID>_KEY) at `baseUrl`. */
function gw(id: string, baseUrl = `https://${id}.example`): ToolGateway {
  return gateway({ id, name: `Relay ${id.toUpperCase()}`, baseUrl, ...toolIdentity(id) });
}

const PROVIDER_BLOCK =
  /\n# Added by Model Relay \(Set Up Tools\) for "Example Relay"; Remove Setup takes it back\.\n\[model_providers\.model-relay\]\nname = "Example Relay"\nbase_url = "https:\/\/gw\.example\.com\/v1"\nenv_key = "MODEL_RELAY_API_KEY"\nwire_api = "responses"\n\n\[profiles\.model-relay\]\nmodel_provider = "model-relay"\n/;

test('codex set-up: two tables appended, one profile line the only root edit; removal restores byte for byte (with or without the backup)', async () => {
  for (const model of [undefined, 'gpt-5.5'])
    for (const backups of [true, false]) {
      const s = sandbox({ MODEL_RELAY_API_KEY: TOKEN });
      try {
        const path = s.put(join(s.home, '.codex/config.toml'), USER_TOML);
        const plan = await setUpAndApply(s, model);
        assert.deepEqual(plan.terminalEnv, { MODEL_RELAY_API_KEY: { token: true } });
        const text = s.get(path)!;
        const profileLine = model ? 'profile = "model-relay" # set by Model Relay; before: none\n' : '';
        const head = `# my codex config\nmodel = "o3" # the one I like\napproval_policy = "on-request"\n${profileLine}\n`;
        assert.ok(text.startsWith(`${head}# a provider of my own\n[model_providers.other]`), text);
        assert.match(text, PROVIDER_BLOCK);
        assert.ok(
          text.endsWith(
            model ? 'model_provider = "model-relay"\nmodel = "gpt-5.5"\n' : 'model_provider = "model-relay"\n',
          ),
        );
        const toml = parse(text) as Toml;
        assert.equal(toml.model, 'o3', 'the root model is never rewritten');
        assert.equal(toml.model_provider, undefined);
        assert.equal(toml.profile, model ? 'model-relay' : undefined);
        assert.ok(toml.model_providers.other && toml.profiles.fast);
        assert.ok(!text.includes(TOKEN));
        const st = await toolStatus('codex', s.env, gateway());
        assert.equal(st.state, model ? 'set-up' : 'not-set-up', st.why);
        assert.equal(st.removable, true);
        if (model) assert.equal(st.resolved?.baseUrl?.value, `${ROOT}/v1`);
        if (model) assert.equal(st.resolved?.model?.from.key, 'profiles.model-relay.model');
        await removeAndApply(s, gateway(), backups);
        assert.equal(s.get(path), USER_TOML);
      } finally {
        s.done();
      }
    }
});

test('codex: set up → set up again → remove restores the original exactly; a created file is deleted again', async () => {
  const originals = [
    "model = 'o3'   # literal string, odd spacing\r\nprofile = 'fast'\r\n[profiles.fast]\r\nmodel = \"o4-mini\"",
    'model = "o3"',
    '# only a comment\n\n[tui]\nnotifications = true\n',
    '# c1\n# c2\n',
    '[tui]\nx = 1',
    '',
  ];
  for (const original of originals) {
    const s = sandbox({ MODEL_RELAY_API_KEY: TOKEN });
    try {
      const path = s.put(join(s.home, '.codex/config.toml'), original);
      await setUpAndApply(s, 'gpt-5.5');
      const once = s.get(path)!;
      assert.equal((parse(once) as Toml).profile, 'model-relay', JSON.stringify(original));
      await setUpAndApply(s, 'gpt-5.5');
      assert.equal(s.get(path), once, 'a second setup replaces the first');
      await setUpAndApply(s, undefined);
      assert.equal((await toolStatus('codex', s.env, gateway())).state, 'set-up', 'the profile still points at it');
      await removeAndApply(s);
      assert.equal(s.get(path), original, JSON.stringify(original));
    } finally {
      s.done();
    }
  }
  const s = sandbox({ MODEL_RELAY_API_KEY: TOKEN, CODEX_HOME: '' });
  try {
    s.env.env.CODEX_HOME = join(s.root, 'codexhome');
    const path = join(s.root, 'codexhome/config.toml');
    await setUpAndApply(s, 'gpt-5.5');
    assert.match(s.get(path)!, /^profile = "model-relay" # set by Model Relay; before: none\n\n# Added by Model Relay/);
    await setUpAndApply(s, 'gpt-5.5');
    const rm = await removeAndApply(s);
    assert.equal(rm.edits[0].deleteFile, true);
    assert.equal(s.get(path), undefined);
  } finally {
    s.done();
  }
});

test('codex: a file the user changed since is never put back: only our tables go, with a key they added inside one', async () => {
  const s = sandbox({ MODEL_RELAY_API_KEY: TOKEN });
  try {
    const original = 'model = "o3"\nprofile = "fast" # mine\n\n[profiles.fast]\nmodel = "o4-mini"\n';
    const path = s.put(join(s.home, '.codex/config.toml'), original);
    await setUpAndApply(s, 'gpt-5.5');
    const text = s.get(path)!;
    assert.match(
      text,
      /^model = "o3"\nprofile = "model-relay" # set by Model Relay; before: "profile = \\"fast\\" # mine"\n/,
    );
    // the user adds a key of their own below a comment inside our table, and one to their own table
    const changed = text
      .replace('wire_api = "responses"\n', 'wire_api = "responses"\n# mine\nrequest_max_retries = 2\n')
      .replace('model = "o4-mini"\n', 'model = "o4-mini"\nmodel_reasoning_effort = "high"\n');
    s.put(path, changed);
    const plan = await removeAndApply(s);
    assert.ok(
      plan.notes.some((n) => /changed since Model Relay last wrote it/.test(n)),
      plan.notes.join(' '),
    );
    assert.equal(
      s.get(path),
      'model = "o3"\nprofile = "fast" # mine\n\n[profiles.fast]\nmodel = "o4-mini"\nmodel_reasoning_effort = "high"\n',
      'their change kept, the profile line put back, nothing of ours left or re-parented',
    );
  } finally {
    s.done();
  }
});

test('codex: two gateways side by side; removing one keeps the other and puts the profile line back', async () => {
  const s = sandbox({ MODEL_RELAY_A_KEY: TOKEN });
  const a = gw('a');
  const b = gw('b');
  try {
    const original = '# mine\nprofile = "fast"\n\n[profiles.fast]\nmodel = "o4-mini"\n';
    const path = s.put(join(s.home, '.codex/config.toml'), original);
    await setUpAndApply(s, 'gpt-5.5', a);
    let toml = parse(s.get(path)!) as Toml;
    assert.equal(toml.profile, 'model-relay-a');
    assert.equal(toml.model_providers['model-relay-a'].env_key, 'MODEL_RELAY_A_KEY');
    const planB = await planSetUp('codex', s.env, b, { model: 'gpt-5.5' });
    assert.deepEqual(planB.terminalEnv, { MODEL_RELAY_B_KEY: { token: true } });
    await applyEdits(planB.edits, opts(s));
    const both = s.get(path)!;
    toml = parse(both) as Toml;
    assert.equal(toml.profile, 'model-relay-b', 'the profile points at the gateway set up last');
    assert.deepEqual(Object.keys(toml.model_providers).sort(), ['model-relay-a', 'model-relay-b']);
    assert.equal(toml.model_providers['model-relay-b'].base_url, 'https://b.example/v1');
    assert.deepEqual({ ...toml.profiles['model-relay-b'] }, { model_provider: 'model-relay-b', model: 'gpt-5.5' });
    assert.ok(both.includes('profile = "model-relay-b" # set by Model Relay; before: "profile = \\"fast\\""'));
    await removeAndApply(s, b);
    const left = s.get(path)!;
    toml = parse(left) as Toml;
    assert.equal(toml.profile, 'fast', "the user's profile line is back");
    assert.deepEqual(Object.keys(toml.model_providers), ['model-relay-a'], "A's tables stay");
    assert.ok(left.startsWith('# mine\nprofile = "fast"\n'));
    assert.equal((await planRemove('codex', s.env, b)).edits.length, 0, "nothing of B's left");
    await removeAndApply(s, a);
    assert.equal(s.get(path), original);
  } finally {
    s.done();
  }
});

/** config.toml as the older layout left it: a root key rewritten, one inserted, one shared table after a marker. */
const LEGACY = (base: string) =>
  `model = "gpt-5.5" # the one I like
model_provider = "model-relay"

[tui]
x = 1

# Added by Model Relay (Set Up Tools); Remove Setup takes it back. model-relay-setup={"id":"model-relay","set":{"model":"gpt-5.5","model_provider":"model-relay"},"was":{"model":"o3"},"ins":"model_provider = \\"model-relay\\"\\n"}
[model_providers.model-relay]
name = "Example Relay"
base_url = "${base}/v1"
env_key = "MODEL_RELAY_API_KEY"
wire_api = "responses"
`;
const BEFORE_LEGACY = 'model = "o3" # the one I like\n\n[tui]\nx = 1\n';

test('codex: the older layout is still taken back exactly, and replaced by the per-gateway one at its address', async () => {
  const s = sandbox({ MODEL_RELAY_MAIN_KEY: TOKEN });
  const main = gw('main', ROOT);
  try {
    const path = s.put(join(s.home, '.codex/config.toml'), LEGACY(ROOT));
    const st = await toolStatus('codex', s.env, main);
    assert.equal(st.removable, true);
    await removeAndApply(s, main);
    assert.equal(s.get(path), BEFORE_LEGACY);
    s.put(path, LEGACY(ROOT));
    await setUpAndApply(s, 'gpt-5.5', main);
    const toml = parse(s.get(path)!) as Toml;
    assert.deepEqual(Object.keys(toml.model_providers), ['model-relay-main']);
    assert.equal(toml.model, 'o3');
    assert.equal(toml.model_provider, undefined);
    assert.equal(toml.profile, 'model-relay-main');
    // a later Remove cannot restore the backup (the file held the older setup): it takes out what is ours
    await removeAndApply(s, main);
    assert.equal(s.get(path), BEFORE_LEGACY);
    // the older layout pointing at another configured gateway is that gateway's: left alone
    const elsewhere = gateway({
      ...gw('far', 'https://far.example'),
      others: [{ id: 'main', name: 'Main', baseUrl: ROOT }],
    });
    s.put(path, LEGACY(ROOT));
    assert.equal((await planRemove('codex', s.env, elsewhere)).edits.length, 0);
    assert.equal(s.get(path), LEGACY(ROOT));
  } finally {
    s.done();
  }
});

test("codex: a user's own [model_providers.model-relay] is never taken: another id is used and removal leaves it", async () => {
  const s = sandbox({ MODEL_RELAY_API_KEY: TOKEN });
  try {
    const mine = '[model_providers.model-relay]\nname = "Mine"\nbase_url = "https://mine.example/v1"\n';
    const path = s.put(join(s.home, '.codex/config.toml'), mine);
    await setUpAndApply(s, 'gpt-5.5');
    const toml = parse(s.get(path)!) as Toml;
    assert.equal(toml.profile, 'model-relay-2');
    assert.equal(toml.profiles['model-relay-2'].model_provider, 'model-relay-2');
    assert.equal(toml.model_providers['model-relay'].name, 'Mine');
    await removeAndApply(s, gateway(), false);
    assert.equal(s.get(path), mine);
    const again = await planRemove('codex', s.env, gateway());
    assert.deepEqual(again.edits, [], 'nothing of ours left: nothing to remove');
  } finally {
    s.done();
  }
});

test('codex precedence: the profile selects provider and model; built-in openai otherwise; an undefined profile is named', async () => {
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
    assert.equal(r.model?.from.key, 'profiles.model-relay.model');
    s.put(
      path,
      `${s.get(path)!.replace(/^profile = .*$/m, 'profile = "fast"')}\n[profiles.fast]\nmodel = "o4-mini"\nmodel_provider = "openai"\n`,
    );
    r = await resolveCodex(s.env, gateway());
    assert.equal(r.model?.value, 'o4-mini');
    assert.equal(r.baseUrl?.value, 'https://api.openai.com/v1');
    const st = await toolStatus('codex', s.env, gateway());
    assert.equal(st.state, 'not-set-up', JSON.stringify(st));
    assert.equal(st.removable, true);
    s.put(path, 'profile = "gone"\n');
    r = await resolveCodex(s.env, gateway());
    assert.ok(
      r.problems.some((p) => p.includes('"gone"')),
      r.problems.join(' '),
    );
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

test('codex is offered only with a model on the Responses API; a file that does not parse, or cannot take the tables, is left untouched', async () => {
  const s = sandbox({});
  try {
    const noResponses = gateway({ models: [{ id: 'deepseek-v4', surfaces: ['compatible'] }] });
    const plan = await planSetUp('codex', s.env, noResponses, {});
    assert.match(plan.unavailable ?? '', /Responses API/);
    assert.equal((await toolStatus('codex', s.env, noResponses)).state, 'unavailable');
    const path = s.put(join(s.home, '.codex/config.toml'), 'model = = 1\n');
    const bad = await planSetUp('codex', s.env, gateway(), {});
    assert.match(bad.unavailable ?? '', /does not parse/);
    const r = await resolveCodex(s.env, gateway());
    assert.equal(r.problems.length, 1);
    s.put(path, 'profiles = { fast = { model = "o3" } }\n');
    const inline = await planSetUp('codex', s.env, gateway(), { model: 'gpt-5.5' });
    assert.match(inline.unavailable ?? '', /cannot be added/);
  } finally {
    s.done();
  }
});

test('codex: a gateway name with quotes, backslashes, line breaks and control characters stays one valid TOML string and one comment', async () => {
  const s = sandbox({ MODEL_RELAY_API_KEY: TOKEN });
  try {
    const name = 'My "relay" \\ test\u007f\ttab\nprofile = "evil"';
    const plan = await planSetUp('codex', s.env, gateway({ name }), { model: 'gpt-5.5' });
    const toml = parse(plan.edits[0].after) as Toml;
    assert.equal(toml.model_providers['model-relay'].name, name);
    assert.equal(toml.profile, 'model-relay');
  } finally {
    s.done();
  }
});
