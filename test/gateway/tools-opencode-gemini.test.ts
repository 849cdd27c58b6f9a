/**
 * opencode: a provider block with baseURL (with /v1) and apiKey "{env:VAR}" added to the global
 * config (JSONC comments and order kept), recognised by that apiKey so Remove Setup takes back only
 * it; project config beats global. Gemini CLI: terminal variables only, the terminal beats .env
 * files (first found), a settings file selecting another sign-in method is an override with a Fix.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import {
  applyEdits,
  planFixOverride,
  planRemove,
  planSetUp,
  resolveGeminiCli,
  resolveOpencode,
  toolStatus,
} from '../../src/gateway/tools';
import { toolIdentity } from '../../src/gateway/tools/common';
import { parseDotenv } from '../../src/gateway/tools/geminiCli';
import { gateway, OTHER_TOKEN, ROOT, sandbox, TOKEN } from './toolsFixture';

const USER_JSONC = `{
  // my opencode config
  "$schema": "https://opencode.ai/config.json",
  "theme": "tokyonight",
  "provider": {
    "mine": { "npm": "@ai-sdk/openai-compatible", "options": { "baseURL": "https://mine.example/v1" } },
  },
}
`;

test('opencode set-up keeps comments, order and other providers; removal restores byte for byte', async () => {
  for (const name of ['opencode.jsonc', 'opencode.json']) {
    const s = sandbox({ MODEL_RELAY_API_KEY: TOKEN });
    try {
      const path = s.put(join(s.home, '.config/opencode', name), USER_JSONC);
      const plan = await planSetUp('opencode', s.env, gateway(), { model: 'deepseek-v4' });
      assert.equal(plan.edits[0].path, path);
      assert.deepEqual(plan.terminalEnv, { MODEL_RELAY_API_KEY: { token: true } });
      const out = await applyEdits(plan.edits, { homeDir: s.home, backupDir: s.env.backupDir, secrets: [TOKEN] });
      assert.equal(out[0].written, true, JSON.stringify(out));
      const text = s.get(path)!;
      assert.ok(text.startsWith('{\n  // my opencode config\n  "$schema"'), text);
      assert.ok(text.includes('"mine"') && text.includes('"theme": "tokyonight"'));
      assert.ok(text.includes('"apiKey": "{env:MODEL_RELAY_API_KEY}"') && text.includes(`"baseURL": "${ROOT}/v1"`));
      assert.ok(text.includes('"model": "model-relay/deepseek-v4"'));
      assert.ok(!text.includes(TOKEN));
      const st = await toolStatus('opencode', s.env, gateway());
      assert.equal(st.state, 'set-up', st.why);
      assert.equal(st.resolved?.auth?.matches, 'Example Relay');
      const rm = await planRemove('opencode', s.env, gateway());
      await applyEdits(rm.edits, { homeDir: s.home, backupDir: s.env.backupDir, secrets: [TOKEN] });
      assert.equal(s.get(path), USER_JSONC);
    } finally {
      s.done();
    }
  }
});

test("opencode: a user's default model is kept; a new file is created and removed again", async () => {
  const s = sandbox({ MODEL_RELAY_API_KEY: TOKEN });
  try {
    const path = s.put(join(s.home, '.config/opencode/opencode.json'), '{ "model": "anthropic/claude" }\n');
    const plan = await planSetUp('opencode', s.env, gateway(), { model: 'deepseek-v4' });
    assert.ok(plan.notes.some((n) => n.includes('anthropic/claude')));
    await applyEdits(plan.edits, { homeDir: s.home, backupDir: s.env.backupDir, secrets: [TOKEN] });
    assert.ok(s.get(path)!.includes('"model": "anthropic/claude"'));
    await applyEdits((await planRemove('opencode', s.env, gateway())).edits, {
      homeDir: s.home,
      backupDir: s.env.backupDir,
      secrets: [],
    });
    assert.equal(s.get(path), '{ "model": "anthropic/claude" }\n');

    const t = sandbox({ MODEL_RELAY_API_KEY: TOKEN });
    const fresh = join(t.home, '.config/opencode/opencode.json');
    await applyEdits((await planSetUp('opencode', t.env, gateway(), {})).edits, {
      homeDir: t.home,
      backupDir: t.env.backupDir,
      secrets: [TOKEN],
    });
    assert.ok(t.get(fresh)!.includes('"$schema"'));
    const rm = await planRemove('opencode', t.env, gateway());
    assert.equal(rm.edits[0].deleteFile, true);
    await applyEdits(rm.edits, { homeDir: t.home, backupDir: t.env.backupDir, secrets: [] });
    assert.equal(t.get(fresh), undefined);
    t.done();
  } finally {
    s.done();
  }
});

test('opencode precedence: a project config redefining the provider beats the global one', async () => {
  const s = sandbox({ MODEL_RELAY_API_KEY: TOKEN });
  try {
    await applyEdits((await planSetUp('opencode', s.env, gateway(), { model: 'deepseek-v4' })).edits, {
      homeDir: s.home,
      backupDir: s.env.backupDir,
      secrets: [TOKEN],
    });
    s.put(
      join(s.ws, 'opencode.json'),
      JSON.stringify({ provider: { 'model-relay': { options: { baseURL: 'https://x.example/v1' } } } }),
    );
    const r = await resolveOpencode(s.env, gateway());
    assert.equal(r.baseUrl?.value, 'https://x.example/v1');
    const st = await toolStatus('opencode', s.env, gateway());
    assert.equal(st.state, 'overridden');
    assert.match(st.resolved!.overrides[0].from.where, /project[/\\]opencode\.json$/);
  } finally {
    s.done();
  }
});

test('gemini cli: its variables, and the API key selected in the user settings (Gemini CLI 0.61 refuses its "gateway" sign-in headless); offered only with gemini models; Remove restores the file', async () => {
  const s = sandbox({});
  try {
    const settings = s.put(join(s.home, '.gemini/settings.json'), '{\n  // mine\n  "theme": "dark"\n}\n');
    const plan = await planSetUp('gemini-cli', s.env, gateway(), { model: 'gemini-2.5-pro' });
    assert.equal(plan.edits.length, 1);
    assert.equal(plan.edits[0].path, settings);
    assert.match(plan.edits[0].after, /"selectedType": "gemini-api-key"/);
    assert.match(plan.edits[0].after, /\/\/ mine/, 'comments kept');
    assert.ok(
      (await applyEdits(plan.edits, { homeDir: s.home, secrets: [TOKEN], backupDir: s.env.backupDir })).every(
        (o) => o.written,
      ),
    );
    assert.deepEqual((await planSetUp('gemini-cli', s.env, gateway(), {})).edits, [], 'selected already: nothing more');
    const remove = await planRemove('gemini-cli', s.env, gateway());
    await applyEdits(remove.edits, { homeDir: s.home, secrets: [TOKEN], backupDir: s.env.backupDir });
    assert.equal(s.get(settings), '{\n  // mine\n  "theme": "dark"\n}\n', 'the original, byte for byte');
    assert.deepEqual(plan.terminalEnv, {
      GOOGLE_GEMINI_BASE_URL: ROOT,
      GEMINI_API_KEY: { token: true },
      GEMINI_MODEL: 'gemini-2.5-pro',
    });
    const none = gateway({ models: [{ id: 'x', surfaces: ['compatible'] }] });
    assert.ok((await planSetUp('gemini-cli', s.env, none, {})).unavailable);
    assert.equal((await toolStatus('gemini-cli', s.env, none)).state, 'unavailable');
    s.env.env = { GOOGLE_GEMINI_BASE_URL: ROOT, GEMINI_API_KEY: TOKEN };
    const st = await toolStatus('gemini-cli', s.env, gateway());
    assert.equal(st.state, 'set-up');
    assert.match(st.why ?? '', /No sign-in method is selected/, 'without it, gemini -p fails: said');
  } finally {
    s.done();
  }
});

test('gemini cli precedence: the terminal beats .env files; the first .env found wins', async () => {
  const s = sandbox({ GEMINI_API_KEY: TOKEN });
  try {
    s.put(join(s.home, '.gemini/.env'), `GOOGLE_GEMINI_BASE_URL=https://home.example\nGEMINI_API_KEY=${OTHER_TOKEN}\n`);
    let r = await resolveGeminiCli(s.env, gateway());
    assert.equal(r.baseUrl?.value, 'https://home.example');
    assert.equal(r.auth?.matches, 'Example Relay', 'the terminal key wins over the .env one');
    s.put(join(s.ws, '.env'), `GOOGLE_GEMINI_BASE_URL="${ROOT}"\n`);
    r = await resolveGeminiCli(s.env, gateway());
    assert.equal(r.baseUrl?.value, ROOT, 'the project .env is found first; only one file is loaded');
    s.put(join(s.ws, '.gemini/.env'), 'GEMINI_MODEL=gemini-2.5-pro\n');
    r = await resolveGeminiCli(s.env, gateway());
    assert.equal(r.baseUrl?.from.kind, 'default', '.gemini/.env is preferred over .env in the same folder');
    assert.equal(r.model?.value, 'gemini-2.5-pro');
  } finally {
    s.done();
  }
});

test('gemini cli: another sign-in method in settings overrides the key; its Fix sets gemini-api-key', async () => {
  const s = sandbox({ GOOGLE_GEMINI_BASE_URL: ROOT, GEMINI_API_KEY: TOKEN });
  try {
    const text =
      '{\n  // mine\n  "security": { "auth": { "selectedType": "oauth-personal" } },\n  "ui": { "theme": "x" }\n}\n';
    const path = s.put(join(s.home, '.gemini/settings.json'), text);
    const st = await toolStatus('gemini-cli', s.env, gateway());
    assert.equal(st.state, 'overridden');
    const plan = await planFixOverride('gemini-cli', s.env, st.resolved!.overrides[0]);
    assert.ok(typeof plan !== 'string');
    await applyEdits(plan.edits, { homeDir: s.home, backupDir: s.env.backupDir, secrets: [TOKEN] });
    assert.equal(s.get(path), text.replace('oauth-personal', 'gemini-api-key'));
    assert.equal((await toolStatus('gemini-cli', s.env, gateway())).state, 'set-up');
  } finally {
    s.done();
  }
});

test('opencode: a provider pointing at the root address without /v1 is named with its fix', async () => {
  const s = sandbox({ MY_KEY: TOKEN });
  try {
    s.put(
      join(s.home, '.config/opencode/opencode.json'),
      JSON.stringify({ model: 'gw/x', provider: { gw: { options: { baseURL: ROOT, apiKey: '{env:MY_KEY}' } } } }),
    );
    const r = await resolveOpencode(s.env, gateway());
    assert.equal(r.auth?.matches, 'Example Relay');
    assert.ok(r.conflicts.some((c) => /without \/v1/.test(c.what) && c.fix.includes(`${ROOT}/v1`)));
    assert.equal((await toolStatus('opencode', s.env, gateway())).state, 'not-set-up');
  } finally {
    s.done();
  }
});

test('opencode: set up → set up again → remove restores the original exactly (an empty provider object, odd spacing)', async () => {
  for (const original of ['{\n  "provider": {}\n}\n', '{"theme":"x",  "provider":{ }}', '']) {
    const s = sandbox({ MODEL_RELAY_API_KEY: TOKEN });
    try {
      const path = join(s.home, '.config/opencode/opencode.json');
      if (original) s.put(path, original);
      const opts = { homeDir: s.home, backupDir: s.env.backupDir, secrets: [TOKEN] };
      await applyEdits((await planSetUp('opencode', s.env, gateway(), { model: 'deepseek-v4' })).edits, opts);
      await applyEdits((await planSetUp('opencode', s.env, gateway(), { model: 'gpt-5.5' })).edits, opts);
      assert.ok(s.get(path)!.includes('"model": "model-relay/gpt-5.5"'));
      const rm = await planRemove('opencode', s.env, gateway());
      await applyEdits(rm.edits, opts);
      assert.equal(s.get(path), original || undefined, JSON.stringify(original));
    } finally {
      s.done();
    }
  }
});

test('opencode: two gateways side by side, each its own provider and variable; the older shared entry gives way', async () => {
  const s = sandbox({ MODEL_RELAY_A_KEY: TOKEN, MODEL_RELAY_B_KEY: OTHER_TOKEN });
  const a = gateway({ id: 'a', name: 'A', baseUrl: ROOT, ...toolIdentity('a') });
  const b = gateway({ id: 'b', name: 'B', baseUrl: 'https://b.example', ...toolIdentity('b') });
  try {
    const opts = { homeDir: s.home, backupDir: s.env.backupDir, secrets: [TOKEN, OTHER_TOKEN] };
    const legacy = {
      provider: {
        'model-relay': {
          npm: '@ai-sdk/openai-compatible',
          options: { baseURL: `${ROOT}/v1`, apiKey: '{env:MODEL_RELAY_API_KEY}' },
        },
      },
      model: 'model-relay/deepseek-v4',
    };
    const path = s.put(join(s.home, '.config/opencode/opencode.json'), `${JSON.stringify(legacy, null, 2)}\n`);
    const planA = await planSetUp('opencode', s.env, a, {});
    assert.deepEqual(planA.terminalEnv, { MODEL_RELAY_A_KEY: { token: true } });
    await applyEdits(planA.edits, opts);
    let json = JSON.parse(s.get(path)!) as {
      model?: string;
      provider: Record<string, { options: { apiKey: string } }>;
    };
    assert.deepEqual(Object.keys(json.provider), ['model-relay-a'], "the older entry at A's address is replaced");
    assert.equal(json.model, 'model-relay-a/deepseek-v4', 'the default model follows it');
    await applyEdits((await planSetUp('opencode', s.env, b, { model: 'gpt-5.5' })).edits, opts);
    json = JSON.parse(s.get(path)!) as typeof json;
    assert.deepEqual(Object.keys(json.provider), ['model-relay-a', 'model-relay-b']);
    assert.equal(json.provider['model-relay-b'].options.apiKey, '{env:MODEL_RELAY_B_KEY}');
    assert.equal(json.model, 'model-relay-b/gpt-5.5', "A's model was Model Relay's own: it follows the last setup");
    assert.equal((await toolStatus('opencode', s.env, a)).removable, true);
    await applyEdits((await planRemove('opencode', s.env, b)).edits, opts);
    json = JSON.parse(s.get(path)!) as typeof json;
    assert.deepEqual(Object.keys(json.provider), ['model-relay-a'], "A's provider stays");
    assert.equal(json.model, undefined);
  } finally {
    s.done();
  }
});

test("gemini cli's .env is read as Gemini CLI reads it (dotenv): quotes and a comment after them, # inside a bare value", async () => {
  const env =
    '# mine\nGOOGLE_GEMINI_BASE_URL="https://gw.example.com" # the relay\nGEMINI_MODEL=gemini-2.5#pro\nexport X=1\n';
  assert.deepEqual(parseDotenv(env), {
    GOOGLE_GEMINI_BASE_URL: 'https://gw.example.com',
    GEMINI_MODEL: 'gemini-2.5',
    X: '1',
  });
  const s = sandbox({ GEMINI_API_KEY: TOKEN });
  try {
    s.put(join(s.home, '.gemini/.env'), env);
    const r = await resolveGeminiCli(s.env, gateway());
    assert.equal(r.baseUrl?.value, ROOT);
    assert.equal(r.model?.value, 'gemini-2.5');
  } finally {
    s.done();
  }
});
