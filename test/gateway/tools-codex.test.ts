/**
 * Codex CLI's config.toml: set up appends `[model_providers.<id>]` (with /v1, wire_api "responses",
 * env_key naming Model Relay's variable, never the token), and the only root edits are the
 * `model_provider` and `model` lines (no profile: Codex 0.169 refuses a root `profile` line); the
 * user's comments, order and other providers stay; two gateways stand side by side; Remove Setup
 * restores the original byte for byte (from its backup when the file is as Model Relay left it, else
 * by taking out exactly its own table and putting the user's lines back); the older layouts (marker
 * block, profile tables) are still recognised and taken back; Codex 0.169's own precedence is followed.
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
  /\n\n# Added by Model Relay \(Set Up Tools\) for "Example Relay"; Remove Setup takes it back\.\n\[model_providers\.model-relay\]\nname = "Example Relay"\nbase_url = "https:\/\/gw\.example\.com\/v1"\nenv_key = "MODEL_RELAY_API_KEY"\nwire_api = "responses"\n$/;

test('codex set-up: one table appended, model_provider and model the only root edits; removal restores byte for byte (with or without the backup)', async () => {
  for (const model of [undefined, 'gpt-5.5'])
    for (const backups of [true, false]) {
      const s = sandbox({ MODEL_RELAY_API_KEY: TOKEN });
      try {
        const path = s.put(join(s.home, '.codex/config.toml'), USER_TOML);
        const plan = await setUpAndApply(s, model);
        assert.deepEqual(plan.terminalEnv, { MODEL_RELAY_API_KEY: { token: true } });
        const text = s.get(path)!;
        const head = model
          ? '# my codex config\nmodel = "gpt-5.5" # set by Model Relay; before: "model = \\"o3\\" # the one I like"\napproval_policy = "on-request"\nmodel_provider = "model-relay" # set by Model Relay; before: none\n\n'
          : '# my codex config\nmodel = "o3" # the one I like\napproval_policy = "on-request"\n\n';
        assert.ok(text.startsWith(`${head}# a provider of my own\n[model_providers.other]`), text);
        assert.match(text, PROVIDER_BLOCK);
        assert.ok(
          !/^profile\b|\[profiles\.model-relay/m.test(text),
          'no profile line, no profile table: Codex 0.169 refuses them',
        );
        const toml = parse(text) as Toml;
        assert.equal(toml.model, model ?? 'o3');
        assert.equal(toml.model_provider, model ? 'model-relay' : undefined);
        assert.equal(toml.profile, undefined);
        assert.ok(toml.model_providers.other && toml.profiles.fast, "the user's tables stay");
        assert.ok(!text.includes(TOKEN));
        const st = await toolStatus('codex', s.env, gateway());
        assert.equal(st.state, model ? 'set-up' : 'not-set-up', st.why);
        assert.equal(st.removable, true);
        if (!model) assert.match(st.why ?? '', /model_provider selects another/);
        if (model) assert.equal(st.resolved?.baseUrl?.value, `${ROOT}/v1`);
        if (model) assert.deepEqual([st.resolved?.model?.value, st.resolved?.model?.from.key], ['gpt-5.5', 'model']);
        await removeAndApply(s, gateway(), backups);
        assert.equal(s.get(path), USER_TOML);
      } finally {
        s.done();
      }
    }
});

test('codex: set up → set up again → remove restores the original exactly; a created file is deleted again', async () => {
  const originals = [
    "model = 'o3'   # literal string, odd spacing\r\nmodel_provider = 'openai'\r\n[tui]\r\nx = 1",
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
      const toml = parse(once) as Toml;
      assert.deepEqual([toml.model_provider, toml.model], ['model-relay', 'gpt-5.5'], JSON.stringify(original));
      await setUpAndApply(s, 'gpt-5.5');
      assert.equal(s.get(path), once, 'a second setup replaces the first');
      await setUpAndApply(s, undefined);
      assert.equal(s.get(path), once, 'without a model, the root lines still pointing at it are kept');
      assert.equal((await toolStatus('codex', s.env, gateway())).state, 'set-up');
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
    assert.match(
      s.get(path)!,
      /^model_provider = "model-relay" # set by Model Relay; before: none\nmodel = "gpt-5.5" # set by Model Relay; before: none\n\n# Added by Model Relay/,
    );
    await setUpAndApply(s, 'gpt-5.5');
    const rm = await removeAndApply(s);
    assert.equal(rm.edits[0].deleteFile, true);
    assert.equal(s.get(path), undefined);
  } finally {
    s.done();
  }
});

test('codex: a file the user changed since is never put back: only our table goes, with a key they added inside it', async () => {
  const s = sandbox({ MODEL_RELAY_API_KEY: TOKEN });
  try {
    const original = 'model = "o3" # mine\n\n[tui]\nnotifications = true\n';
    const path = s.put(join(s.home, '.codex/config.toml'), original);
    await setUpAndApply(s, 'gpt-5.5');
    const text = s.get(path)!;
    assert.ok(
      text.startsWith(
        'model = "gpt-5.5" # set by Model Relay; before: "model = \\"o3\\" # mine"\nmodel_provider = "model-relay" # set by Model Relay; before: none\n\n[tui]\n',
      ),
      text,
    );
    // the user adds a key of their own below a comment inside our table, and one to their own table
    const changed = text
      .replace('wire_api = "responses"\n', 'wire_api = "responses"\n# mine\nrequest_max_retries = 2\n')
      .replace('notifications = true\n', 'notifications = true\nanimations = false\n');
    s.put(path, changed);
    const plan = await removeAndApply(s);
    assert.ok(
      plan.notes.some((n) => /changed since Model Relay last wrote it/.test(n)),
      plan.notes.join(' '),
    );
    assert.equal(
      s.get(path),
      'model = "o3" # mine\n\n[tui]\nnotifications = true\nanimations = false\n',
      'their change kept, the root lines put back, nothing of ours left or re-parented',
    );
  } finally {
    s.done();
  }
});

test("codex: two gateways side by side; the root lines follow the last set up, record the user's own lines, and come back on removal", async () => {
  const s = sandbox({ MODEL_RELAY_A_KEY: TOKEN });
  const a = gw('a');
  const b = gw('b');
  try {
    const original = '# mine\nmodel = "o3"\nmodel_provider = "openai"\n\n[tui]\nx = 1\n';
    const path = s.put(join(s.home, '.codex/config.toml'), original);
    await setUpAndApply(s, 'gpt-5.5', a);
    let toml = parse(s.get(path)!) as Toml;
    assert.equal(toml.model_provider, 'model-relay-a');
    assert.equal(toml.model_providers['model-relay-a'].env_key, 'MODEL_RELAY_A_KEY');
    const planB = await planSetUp('codex', s.env, b, { model: 'claude-sonnet-4-5' });
    assert.ok(planB.unavailable === undefined && planB.notes.some((n) => /not served on the Responses API/.test(n)));
    assert.equal(
      planB.edits[0].after.match(/^model_provider = .*$/m)?.[0],
      'model_provider = "model-relay-a" # set by Model Relay; before: "model_provider = \\"openai\\""',
      'a model not served there: the root lines stay',
    );
    await setUpAndApply(s, 'gpt-5.5', b);
    const both = s.get(path)!;
    toml = parse(both) as Toml;
    assert.equal(toml.model_provider, 'model-relay-b', 'model_provider names the gateway set up last');
    assert.deepEqual(Object.keys(toml.model_providers).sort(), ['model-relay-a', 'model-relay-b']);
    assert.equal(toml.model_providers['model-relay-b'].base_url, 'https://b.example/v1');
    assert.ok(
      both.startsWith(
        '# mine\nmodel = "gpt-5.5" # set by Model Relay; before: "model = \\"o3\\""\nmodel_provider = "model-relay-b" # set by Model Relay; before: "model_provider = \\"openai\\""\n',
      ),
      `their record is still the user's own lines, not A's: ${both}`,
    );
    assert.equal((await toolStatus('codex', s.env, a)).state, 'not-set-up');
    await removeAndApply(s, b);
    const left = s.get(path)!;
    assert.ok(left.startsWith('# mine\nmodel = "o3"\nmodel_provider = "openai"\n\n[tui]\n'), left);
    assert.deepEqual(Object.keys((parse(left) as Toml).model_providers), ['model-relay-a'], "A's table stays");
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
    assert.ok(
      s.get(path)!.startsWith('model = "gpt-5.5" # set by Model Relay; before: "model = \\"o3\\" # the one I like"\n'),
      "the older record is taken back first: the line recorded is the user's own",
    );
    assert.equal(toml.model_provider, 'model-relay-main');
    assert.equal(toml.profile, undefined);
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
    assert.equal(toml.model_provider, 'model-relay-2');
    assert.equal(toml.model_providers['model-relay-2'].env_key, 'MODEL_RELAY_API_KEY');
    assert.equal(toml.model_providers['model-relay'].name, 'Mine');
    await removeAndApply(s, gateway(), false);
    assert.equal(s.get(path), mine);
    const again = await planRemove('codex', s.env, gateway());
    assert.deepEqual(again.edits, [], 'nothing of ours left: nothing to remove');
  } finally {
    s.done();
  }
});

/** config.toml as the profile layout left it (Model Relay before Codex 0.169 refused it), over the user's own profile line. */
const PROFILE_LAYOUT = (base: string, userLine = 'none') =>
  `# mine
model = "o3"
profile = "model-relay-main" # set by Model Relay; before: ${userLine}

[tui]
x = 1

# Added by Model Relay (Set Up Tools) for "Relay MAIN"; Remove Setup takes it back.
[model_providers.model-relay-main]
name = "Relay MAIN"
base_url = "${base}/v1"
env_key = "MODEL_RELAY_MAIN_KEY"
wire_api = "responses"

[profiles.model-relay-main]
model_provider = "model-relay-main"
model = "gpt-5.5"
`;
const BEFORE_PROFILE_LAYOUT = '# mine\nmodel = "o3"\n\n[tui]\nx = 1\n';

test('codex: the profile layout Codex 0.169 refuses is said so, taken back exactly, and turned into model_provider and model by a new setup', async () => {
  const s = sandbox({ MODEL_RELAY_MAIN_KEY: TOKEN });
  const main = gw('main', ROOT);
  try {
    const path = s.put(join(s.home, '.codex/config.toml'), PROFILE_LAYOUT(ROOT));
    const st = await toolStatus('codex', s.env, main);
    assert.equal(st.state, 'not-set-up');
    assert.equal(st.removable, true);
    assert.match(st.why ?? '', /root profile line, which Codex 0\.169 refuses/);
    assert.match(st.resolved?.conflicts[0].fix ?? '', /Set Up Tools/);
    assert.equal(st.resolved?.baseUrl?.value, 'https://api.openai.com/v1', 'a profile never selects the provider');
    await removeAndApply(s, main);
    assert.equal(s.get(path), BEFORE_PROFILE_LAYOUT);
    // set up again without a model: the profile's model is carried over, the profile goes
    s.put(path, PROFILE_LAYOUT(ROOT));
    await setUpAndApply(s, undefined, main);
    const text = s.get(path)!;
    assert.ok(
      text.startsWith(
        '# mine\nmodel = "gpt-5.5" # set by Model Relay; before: "model = \\"o3\\""\nmodel_provider = "model-relay-main" # set by Model Relay; before: none\n\n[tui]\n',
      ),
      text,
    );
    assert.ok(!/profile/.test(text.replace(/model_provider/g, '')), text);
    const now = await toolStatus('codex', s.env, main);
    assert.equal(now.state, 'set-up', now.why);
    assert.deepEqual(now.resolved?.conflicts, []);
    await removeAndApply(s, main);
    assert.equal(s.get(path), BEFORE_PROFILE_LAYOUT);
    // the user's own profile line, recorded by the profile layout, comes back as theirs: said, never changed
    const theirs = PROFILE_LAYOUT(ROOT, '"profile = \\"fast\\""').replace(
      '[tui]',
      '[profiles.fast]\nmodel = "o4-mini"\n\n[tui]',
    );
    s.put(path, theirs);
    await setUpAndApply(s, 'gpt-5.5', main);
    assert.match(s.get(path)!, /^profile = "fast"\n/m);
    assert.ok(!s.get(path)!.includes('[profiles.model-relay-main]'));
    const r = await resolveCodex(s.env, main);
    assert.equal(r.baseUrl?.value, `${ROOT}/v1`);
    assert.match(r.conflicts[0].what, /"fast" with a root profile line, which Codex 0\.169 refuses/);
    assert.ok(r.conflicts[0].fix.includes(join(s.home, '.codex', 'fast.config.toml')), r.conflicts[0].fix);
  } finally {
    s.done();
  }
});

test('codex precedence: the root model_provider and model, built-in openai (openai_base_url) otherwise; profiles only with --profile, their legacy forms named', async () => {
  const s = sandbox({ MODEL_RELAY_API_KEY: TOKEN, OPENAI_API_KEY: 'sk-openai-000000000000000' });
  try {
    const path = s.put(join(s.home, '.codex/config.toml'), 'model = "o3"\n');
    let r = await resolveCodex(s.env, gateway());
    assert.equal(r.baseUrl?.value, 'https://api.openai.com/v1');
    assert.equal(r.auth?.from.key, 'OPENAI_API_KEY');
    s.put(path, `model = "o3"\nopenai_base_url = "${ROOT}/v1"\n`);
    r = await resolveCodex(s.env, gateway());
    assert.deepEqual([r.baseUrl?.value, r.baseUrl?.from.key], [`${ROOT}/v1`, 'openai_base_url']);
    s.put(path, 'model = "o3"\n');
    await setUpAndApply(s, 'gpt-5.5');
    r = await resolveCodex(s.env, gateway());
    assert.equal(r.baseUrl?.value, `${ROOT}/v1`);
    assert.deepEqual([r.model?.value, r.model?.from.key], ['gpt-5.5', 'model']);
    assert.deepEqual(r.conflicts, []);
    // a profile table does not apply without --profile; Codex 0.169 refuses --profile fast while it is there
    const ours = s.get(path)!;
    s.put(path, `${ours}\n[profiles.fast]\nmodel = "o4-mini"\nmodel_provider = "openai"\n`);
    r = await resolveCodex(s.env, gateway());
    assert.deepEqual([r.model?.value, r.baseUrl?.value], ['gpt-5.5', `${ROOT}/v1`]);
    assert.equal(r.conflicts.length, 1);
    assert.match(r.conflicts[0].what, /\[profiles\.fast\].*Codex 0\.169.*codex --profile fast refuses to start/);
    assert.equal((await toolStatus('codex', s.env, gateway())).state, 'set-up');
    // a root profile line stops Codex whatever it names: said first
    s.put(path, `profile = "gone"\n${ours}`);
    r = await resolveCodex(s.env, gateway());
    assert.match(r.conflicts[0]?.what ?? '', /"gone" with a root profile line, which Codex 0\.169 refuses/);
    assert.equal(r.baseUrl?.value, `${ROOT}/v1`);
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
    s.put(path, 'model_providers = { other = { name = "Other" } }\n');
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
    assert.equal(toml.model_provider, 'model-relay');
    assert.equal(toml.profile, undefined);
  } finally {
    s.done();
  }
});
