/**
 * GitHub Copilot CLI: resolved as its 1.0.102 resolves it — the COPILOT_PROVIDER_* variables of the
 * terminal in its precedence (bearer token over key command over key, wire model over COPILOT_MODEL),
 * else a providers.json provider selected by the user's settings.json — and its state decided by the
 * address it will call: this gateway's (whatever token), another configured gateway's (named), or
 * elsewhere. Setting it up is terminal variables only, with the wire API the model is served on.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { planRemove, planSetUp, resolveCopilotCli, toolStatus } from '../../src/gateway/tools';
import { maskToken } from '../../src/gateway/mask';
import type { ToolPlan } from '../../src/gateway/tools/types';
import { gateway, OTHER_TOKEN, ROOT, sandbox, TOKEN } from './toolsFixture';

/** The variables a plan puts into new terminals, the token filled in (as the terminals do). */
function terminalOf(plan: ToolPlan, token = TOKEN): Record<string, string> {
  return Object.fromEntries(Object.entries(plan.terminalEnv).map(([k, v]) => [k, typeof v === 'string' ? v : token]));
}

const OTHER = {
  id: 'backup-gw',
  name: 'Other Relay',
  baseUrl: 'https://other.example.net',
  maskedTokens: [maskToken(OTHER_TOKEN)],
};

test('set up: five terminal variables, no file; the wire API is the one the model is served on', async () => {
  const s = sandbox({}, ['copilot']);
  try {
    const g = gateway({ models: [...gateway().models, { id: 'gpt-5.5-codex', surfaces: ['responses'] }] });
    const plan = await planSetUp('copilot-cli', s.env, g, { model: 'gpt-5.5' });
    assert.equal(plan.unavailable, undefined, plan.unavailable);
    assert.deepEqual(plan.edits, []);
    assert.deepEqual(plan.terminalEnv, {
      COPILOT_PROVIDER_BASE_URL: `${ROOT}/v1`,
      COPILOT_PROVIDER_TYPE: 'openai',
      COPILOT_PROVIDER_API_KEY: { token: true },
      COPILOT_MODEL: 'gpt-5.5',
      // served on both: Chat Completions (its Responses requests ask every model for encrypted reasoning)
      COPILOT_PROVIDER_WIRE_API: 'completions',
    });
    const codex = await planSetUp('copilot-cli', s.env, g, { model: 'gpt-5.5-codex' });
    assert.equal(codex.terminalEnv.COPILOT_PROVIDER_WIRE_API, 'responses');
    assert.ok(codex.notes.some((n) => n.includes('Responses API only')));
    // a model Copilot CLI cannot use there, and none at all
    assert.match(
      (await planSetUp('copilot-cli', s.env, g, { model: 'claude-haiku-4-5' })).unavailable ?? '',
      /not served/,
    );
    assert.match((await planSetUp('copilot-cli', s.env, g, {})).unavailable ?? '', /COPILOT_MODEL/);
    const remove = await planRemove('copilot-cli', s.env, g);
    assert.deepEqual(remove.removeEnv, [
      'COPILOT_PROVIDER_BASE_URL',
      'COPILOT_PROVIDER_TYPE',
      'COPILOT_PROVIDER_API_KEY',
      'COPILOT_MODEL',
      'COPILOT_PROVIDER_WIRE_API',
    ]);
    assert.deepEqual([remove.edits, remove.terminalEnv], [[], {}]);
  } finally {
    s.done();
  }
});

test('a gateway without a Chat Completions or Responses model: unavailable; a list that failed is said as that failure', async () => {
  const s = sandbox({}, ['copilot']);
  try {
    const native = gateway({ models: [{ id: 'claude-haiku-4-5', surfaces: ['native'] }] });
    const st = await toolStatus('copilot-cli', s.env, native);
    assert.equal(st.state, 'unavailable');
    assert.match(st.why ?? '', /serves no model on the Chat Completions or Responses API/);
    const failed = gateway({ models: [], modelsError: 'The model list could not be read: connection refused.' });
    const plan = await planSetUp('copilot-cli', s.env, failed, { model: 'gpt-5.5' });
    assert.match(plan.unavailable ?? '', /could not be listed.*connection refused/);
    // the state is the address's, not "serves no model"
    const unread = await toolStatus('copilot-cli', s.env, failed);
    assert.equal(unread.state, 'not-set-up');
    assert.doesNotMatch(unread.why ?? '', /serves no model/);
  } finally {
    s.done();
  }
});

test('after the setup: set up, aimed at this gateway, its token recognised, removable', async () => {
  const g = gateway();
  const plan = await planSetUp('copilot-cli', sandbox().env, g, { model: 'deepseek-v4' });
  const s = sandbox(terminalOf(plan), ['copilot']);
  try {
    const st = await toolStatus('copilot-cli', s.env, g);
    assert.equal(st.state, 'set-up', st.why);
    assert.deepEqual(st.aim, { at: 'this' });
    assert.equal(st.removable, true);
    assert.equal(st.label, 'GitHub Copilot CLI');
    assert.equal(st.installed?.path, '/usr/local/bin/copilot');
    const r = st.resolved!;
    assert.equal(r.baseUrl?.value, `${ROOT}/v1`);
    assert.deepEqual(r.auth, {
      header: 'authorization',
      masked: maskToken(TOKEN),
      from: { kind: 'terminal', where: 'terminal environment', key: 'COPILOT_PROVIDER_API_KEY' },
      matches: 'Example Relay',
    });
    assert.equal(r.model?.value, 'deepseek-v4');
    assert.ok(!JSON.stringify(st).includes(TOKEN));
  } finally {
    s.done();
  }
});

test("a dedicated tool token at this gateway's address (or a backup's) is set up there: the token does not decide", async () => {
  const g = gateway({ backupUrls: ['https://backup.example.org'] });
  for (const base of [`${ROOT}/v1`, 'https://backup.example.org/v1/']) {
    const s = sandbox(
      { COPILOT_PROVIDER_BASE_URL: base, COPILOT_PROVIDER_API_KEY: OTHER_TOKEN, COPILOT_MODEL: 'gpt-5.5' },
      ['copilot'],
    );
    try {
      const st = await toolStatus('copilot-cli', s.env, g);
      assert.equal(st.state, 'set-up', `${base}: ${st.why}`);
      assert.deepEqual(st.aim, { at: 'this' });
      assert.equal(st.resolved?.auth?.matches, undefined, 'not the token Model Relay uses');
    } finally {
      s.done();
    }
  }
});

test("another gateway's address is that gateway's setup (named); anything else, or no variable, is not this gateway", async () => {
  const g = gateway({ others: [OTHER] });
  const local = { COPILOT_PROVIDER_BASE_URL: 'http://localhost:11434/v1', COPILOT_MODEL: 'm' };
  const cases: Array<[Record<string, string>, string, string, RegExp]> = [
    [
      {
        COPILOT_PROVIDER_BASE_URL: 'https://other.example.net/v1',
        COPILOT_PROVIDER_API_KEY: OTHER_TOKEN,
        COPILOT_MODEL: 'm',
      },
      'not-set-up',
      'other',
      /set up for the gateway "Other Relay" \(https:\/\/other\.example\.net\/v1\), not for this one/,
    ],
    [
      { ...local, COPILOT_PROVIDER_API_KEY: 'sk-localkey0000000000000000000000' },
      'not-set-up',
      'elsewhere',
      /will call http:\/\/localhost:11434\/v1, which is not one of this gateway's addresses/,
    ],
    // this gateway's token aimed elsewhere: it would leak there
    [
      { ...local, COPILOT_PROVIDER_API_KEY: TOKEN },
      'overridden',
      'elsewhere',
      /would send this gateway's token to http:\/\/localhost:11434\/v1/,
    ],
    [{}, 'not-set-up', 'elsewhere', /GitHub Copilot's own models .*COPILOT_PROVIDER_BASE_URL is not set/],
  ];
  for (const [env, state, at, why] of cases) {
    const s = sandbox(env, ['copilot']);
    try {
      const st = await toolStatus('copilot-cli', s.env, g);
      assert.equal(st.state, state, JSON.stringify(env));
      assert.equal(st.aim?.at, at);
      assert.match(st.why ?? '', why);
    } finally {
      s.done();
    }
  }
});

test('what wins over the setup in the terminal: a bearer token, a key command, a wire model — overridden', async () => {
  const g = gateway();
  const ours = terminalOf(await planSetUp('copilot-cli', sandbox().env, g, { model: 'gpt-5.5' }));
  const cases: Array<[Record<string, string>, string, string | undefined]> = [
    [{ COPILOT_PROVIDER_BEARER_TOKEN: OTHER_TOKEN }, 'COPILOT_PROVIDER_BEARER_TOKEN', maskToken(OTHER_TOKEN)],
    [{ COPILOT_PROVIDER_API_KEY_COMMAND: 'vault read key' }, 'COPILOT_PROVIDER_API_KEY_COMMAND', undefined],
    [{ COPILOT_PROVIDER_WIRE_MODEL: 'deepseek-v4' }, 'COPILOT_PROVIDER_WIRE_MODEL', maskToken(TOKEN)],
  ];
  for (const [extra, key, masked] of cases) {
    const s = sandbox({ ...ours, ...extra }, ['copilot']);
    try {
      const st = await toolStatus('copilot-cli', s.env, g);
      assert.equal(st.state, 'overridden', key);
      assert.deepEqual(st.resolved?.overrides[0].keys, [key]);
      assert.match(st.why ?? '', new RegExp(key));
      assert.equal(st.resolved?.auth?.masked, masked, `${key}: the credential Copilot CLI sends`);
    } finally {
      s.done();
    }
  }
  const s = sandbox({ ...ours, COPILOT_PROVIDER_WIRE_MODEL: 'deepseek-v4' }, ['copilot']);
  assert.equal((await toolStatus('copilot-cli', s.env, g)).resolved?.model?.value, 'deepseek-v4');
  s.done();
});

test('the address Copilot CLI needs for its type: /v1 for openai, the root for anthropic (x-api-key); a wrong path at its origin is said, not set up', async () => {
  const g = gateway();
  const cases: Array<[Record<string, string>, string | undefined, 'authorization' | 'x-api-key']> = [
    [{ COPILOT_PROVIDER_BASE_URL: ROOT }, 'appends /chat/completions or /responses', 'authorization'],
    [{ COPILOT_PROVIDER_BASE_URL: ROOT, COPILOT_PROVIDER_TYPE: 'anthropic' }, undefined, 'x-api-key'],
    [
      { COPILOT_PROVIDER_BASE_URL: `${ROOT}/v1`, COPILOT_PROVIDER_TYPE: 'anthropic' },
      'appends /v1/messages',
      'x-api-key',
    ],
  ];
  for (const [env, conflict, header] of cases) {
    const s = sandbox({ ...env, COPILOT_PROVIDER_API_KEY: TOKEN, COPILOT_MODEL: 'claude-sonnet-4-5' }, ['copilot']);
    try {
      const st = await toolStatus('copilot-cli', s.env, g);
      assert.deepEqual(st.aim, { at: conflict ? 'elsewhere' : 'this' }, JSON.stringify(env));
      assert.equal(st.state, conflict ? 'not-set-up' : 'set-up');
      assert.equal(st.resolved?.auth?.header, header);
      const said = st.resolved?.conflicts.map((c) => `${c.what} ${c.fix}`).join(' ') ?? '';
      if (conflict) assert.ok(said.includes(conflict), said);
      else assert.equal(said, '');
    } finally {
      s.done();
    }
  }
  const root = sandbox({ COPILOT_PROVIDER_BASE_URL: ROOT, COPILOT_PROVIDER_API_KEY: TOKEN, COPILOT_MODEL: 'm' });
  assert.match(
    (await toolStatus('copilot-cli', root.env, g)).resolved!.conflicts[0].fix,
    /https:\/\/gw\.example\.com\/v1/,
  );
  root.done();
});

test('values Copilot CLI refuses, and a missing model, are said as the stop they cause', async () => {
  const g = gateway();
  const base = { COPILOT_PROVIDER_BASE_URL: `${ROOT}/v1`, COPILOT_PROVIDER_API_KEY: TOKEN };
  const cases: Array<[Record<string, string>, RegExp]> = [
    [{ COPILOT_PROVIDER_TYPE: 'openrouter', COPILOT_MODEL: 'm' }, /Invalid provider type/],
    [{ COPILOT_PROVIDER_WIRE_API: 'chat', COPILOT_MODEL: 'm' }, /Invalid wire API format/],
    [{}, /BYOK providers require an explicit model/],
    [{ COPILOT_PROVIDER_TYPE: 'azure', COPILOT_MODEL: 'm' }, /Azure OpenAI's deployment paths/],
  ];
  for (const [env, said] of cases) {
    const s = sandbox({ ...base, ...env }, ['copilot']);
    try {
      const st = await toolStatus('copilot-cli', s.env, g);
      assert.match(st.resolved?.conflicts.map((c) => c.what).join(' ') ?? '', said);
    } finally {
      s.done();
    }
  }
  // COPILOT_PROVIDER_MODEL_ID alone is the model sent
  const s = sandbox({ ...base, COPILOT_PROVIDER_MODEL_ID: 'gpt-5.5' });
  assert.equal((await resolveCopilotCli(s.env, g)).resolved.model?.value, 'gpt-5.5');
  s.done();
});

test("without the variable: a providers.json provider selected by the user's settings.json; with it, no file counts", async () => {
  const g = gateway();
  const s = sandbox({}, ['copilot']);
  try {
    const settings = s.put(join(s.home, '.copilot/settings.json'), '{\n  // mine\n  "model": "relay/gpt-5.5"\n}\n');
    const providers = s.put(
      join(s.home, '.copilot/providers.json'),
      JSON.stringify({
        providers: [
          { name: 'local', type: 'openai', baseUrl: 'http://localhost:11434/v1' },
          { name: 'relay', type: 'openai', baseUrl: `${ROOT}/v1`, apiKey: TOKEN, wireApi: 'completions' },
        ],
        models: [{ provider: 'relay', id: 'gpt-5.5' }],
      }),
    );
    const st = await toolStatus('copilot-cli', s.env, g);
    assert.equal(st.state, 'set-up', st.why);
    assert.equal(st.removable, false, 'nothing of Model Relay’s in new terminals');
    const r = st.resolved!;
    assert.deepEqual(r.baseUrl?.from, { kind: 'file', where: providers, key: 'providers.1.baseUrl' });
    assert.deepEqual([r.auth?.matches, r.auth?.from.key], ['Example Relay', 'providers.1.apiKey']);
    assert.deepEqual(r.model, { value: 'gpt-5.5', from: { kind: 'file', where: settings, key: 'model' } });
    // the terminal's variable wins over both files
    const env = { ...s.env, env: { COPILOT_PROVIDER_BASE_URL: 'http://localhost:11434/v1', COPILOT_MODEL: 'x' } };
    const over = await toolStatus('copilot-cli', env, g);
    assert.equal(over.state, 'not-set-up');
    assert.equal(over.resolved?.baseUrl?.value, 'http://localhost:11434/v1');
    // $COPILOT_HOME moves both files
    const moved = { ...s.env, env: { COPILOT_HOME: join(s.root, 'elsewhere') } };
    assert.equal((await toolStatus('copilot-cli', moved, g)).resolved?.baseUrl, undefined);
  } finally {
    s.done();
  }
});
