/**
 * Claude Code as the tool resolves it: settings files' env blocks beat the shell, in the order
 * managed > settings.local.json > settings.json (project) > user settings.json (in CLAUDE_CONFIG_DIR);
 * AUTH_TOKEN beats API_KEY beats apiKeyHelper; a claude.ai login beside the gateway token is a
 * conflict; setting up changes no file; a Fix removes just the conflicting keys.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  applyEdits,
  planFixOverride,
  planRemove,
  planSetUp,
  toolStatus,
  resolveClaudeCode,
} from '../../src/gateway/tools';
import { gateway, OTHER_TOKEN, ROOT, sandbox, TOKEN } from './toolsFixture';

const ours = { ANTHROPIC_BASE_URL: ROOT, ANTHROPIC_AUTH_TOKEN: TOKEN };

test('claude code: the terminal variables alone make it set up', async () => {
  const s = sandbox(ours);
  try {
    const st = await toolStatus('claude-code', s.env, gateway());
    assert.equal(st.state, 'set-up');
    assert.equal(st.installed?.path, '/usr/local/bin/claude');
    assert.equal(st.resolved?.auth?.header, 'authorization');
    assert.equal(st.resolved?.auth?.matches, 'Example Relay');
    assert.equal(st.removable, true);
    assert.ok(!JSON.stringify(st).includes(TOKEN), 'the token never appears in a status');
  } finally {
    s.done();
  }
});

test('claude code precedence: which source wins for the base URL', async () => {
  const rows: Array<{ files: Record<string, string>; env?: Record<string, string>; wins: string }> = [
    { files: {}, wins: 'terminal' },
    { files: { user: 'https://user.example' }, wins: 'https://user.example' },
    { files: { user: 'https://user.example', project: 'https://proj.example' }, wins: 'https://proj.example' },
    { files: { project: 'https://proj.example', local: 'https://local.example' }, wins: 'https://local.example' },
    { files: { local: 'https://local.example', managed: 'https://managed.example' }, wins: 'https://managed.example' },
    { files: { configDir: 'https://cfg.example' }, env: { CLAUDE_CONFIG_DIR: 'CFG' }, wins: 'https://cfg.example' },
  ];
  for (const row of rows) {
    const s = sandbox({ ...ours });
    try {
      const settings = (url: string) => JSON.stringify({ env: { ANTHROPIC_BASE_URL: url } });
      if (row.files.user) s.put(join(s.home, '.claude/settings.json'), settings(row.files.user));
      if (row.files.project) s.put(join(s.ws, '.claude/settings.json'), settings(row.files.project));
      if (row.files.local) s.put(join(s.ws, '.claude/settings.local.json'), settings(row.files.local));
      if (row.files.managed) {
        const p = s.put('etc/managed-settings.json', settings(row.files.managed));
        s.env.systemFiles = { claudeManagedSettings: p };
      }
      if (row.env?.CLAUDE_CONFIG_DIR) {
        const dir = join(s.root, 'cfg');
        s.env.env.CLAUDE_CONFIG_DIR = dir;
        s.put(join(dir, 'settings.json'), settings(row.files.configDir!));
        // ~/.claude is not read when CLAUDE_CONFIG_DIR is set
        s.put(join(s.home, '.claude/settings.json'), settings('https://ignored.example'));
      }
      const r = await resolveClaudeCode(s.env, gateway());
      if (row.wins === 'terminal') assert.equal(r.baseUrl?.from.kind, 'terminal');
      else assert.equal(r.baseUrl?.value, row.wins, JSON.stringify(row));
      const st = await toolStatus('claude-code', s.env, gateway());
      assert.equal(st.state, row.wins === 'terminal' ? 'set-up' : 'overridden', JSON.stringify(row));
    } finally {
      s.done();
    }
  }
});

test('claude code credentials: AUTH_TOKEN (Bearer) beats API_KEY (x-api-key) beats apiKeyHelper', async () => {
  const s = sandbox({ ANTHROPIC_BASE_URL: ROOT, ANTHROPIC_API_KEY: OTHER_TOKEN });
  try {
    let r = await resolveClaudeCode(s.env, gateway());
    assert.equal(r.auth?.header, 'x-api-key');
    assert.equal(r.auth?.matches, undefined);
    s.env.env.ANTHROPIC_AUTH_TOKEN = TOKEN;
    r = await resolveClaudeCode(s.env, gateway());
    assert.equal(r.auth?.header, 'authorization');
    assert.equal(r.auth?.matches, 'Example Relay');
    const t = sandbox({ ANTHROPIC_BASE_URL: ROOT });
    t.put(join(t.home, '.claude/settings.json'), JSON.stringify({ apiKeyHelper: '~/bin/key.sh' }));
    r = await resolveClaudeCode(t.env, gateway());
    assert.equal(r.auth?.from.key, 'apiKeyHelper');
    t.done();
  } finally {
    s.done();
  }
});

test('claude code model: ANTHROPIC_MODEL beats the settings model', async () => {
  const s = sandbox({ ...ours });
  try {
    s.put(join(s.home, '.claude/settings.json'), JSON.stringify({ model: 'opus' }));
    assert.equal((await resolveClaudeCode(s.env, gateway())).model?.value, 'opus');
    s.env.env.ANTHROPIC_MODEL = 'claude-sonnet-4-5';
    assert.equal((await resolveClaudeCode(s.env, gateway())).model?.value, 'claude-sonnet-4-5');
  } finally {
    s.done();
  }
});

test('claude code: a claude.ai login beside the gateway token is a conflict fixed with /logout', async () => {
  for (const where of ['state', 'credentials', 'configdir'] as const) {
    const s = sandbox({ ...ours });
    try {
      if (where === 'state')
        s.put(join(s.home, '.claude.json'), JSON.stringify({ oauthAccount: { emailAddress: 'a@b' } }));
      if (where === 'credentials') s.put(join(s.home, '.claude/.credentials.json'), '{"claudeAiOauth":{}}');
      if (where === 'configdir') {
        s.env.env.CLAUDE_CONFIG_DIR = join(s.root, 'cfg');
        s.put(join(s.root, 'cfg/.claude.json'), JSON.stringify({ oauthAccount: {} }));
      }
      const st = await toolStatus('claude-code', s.env, gateway());
      assert.equal(st.resolved?.conflicts.length, 1, where);
      assert.match(st.resolved!.conflicts[0].fix, /\/logout.*\/status/);
    } finally {
      s.done();
    }
  }
});

test('claude code set-up plan: terminal variables only, root address, token as a placeholder, models checked', async () => {
  const s = sandbox({});
  try {
    const plan = await planSetUp('claude-code', s.env, gateway({ baseUrl: `${ROOT}/` }), {
      model: 'claude-sonnet-4-5',
      claudeModels: { haiku: 'claude-haiku-4-5', opus: 'gpt-5.5' },
    });
    assert.deepEqual(plan.edits, []);
    assert.equal(plan.terminalEnv.ANTHROPIC_BASE_URL, ROOT);
    assert.deepEqual(plan.terminalEnv.ANTHROPIC_AUTH_TOKEN, { token: true });
    assert.equal(plan.terminalEnv.ANTHROPIC_MODEL, 'claude-sonnet-4-5');
    assert.equal(plan.terminalEnv.ANTHROPIC_DEFAULT_HAIKU_MODEL, 'claude-haiku-4-5');
    assert.equal(plan.terminalEnv.ANTHROPIC_DEFAULT_OPUS_MODEL, undefined, 'a model not on /v1/messages is left out');
    assert.equal(plan.terminalEnv.CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC, '1');
    assert.ok(plan.notes.some((n) => n.includes('gpt-5.5')));
    const rm = await planRemove('claude-code', s.env, gateway());
    assert.ok(rm.removeEnv?.includes('ANTHROPIC_AUTH_TOKEN') && rm.removeEnv.includes('ANTHROPIC_MODEL'));
    const none = await planSetUp('claude-code', s.env, gateway({ models: [{ id: 'x', surfaces: ['compatible'] }] }));
    assert.ok(none.unavailable);
  } finally {
    s.done();
  }
});

test('claude code fix: removes just the conflicting keys, keeps comments and the rest, backup kept', async () => {
  const s = sandbox({ ...ours });
  try {
    const text = `{
  // my settings
  "env": {
    "ANTHROPIC_BASE_URL": "https://old.example/v1",
    "DISABLE_TELEMETRY": "1",
    "ANTHROPIC_API_KEY": "${OTHER_TOKEN}"
  },
  "permissions": { "allow": ["Bash(ls)"] }
}
`;
    const path = s.put(join(s.ws, '.claude/settings.json'), text);
    const st = await toolStatus('claude-code', s.env, gateway());
    assert.equal(st.state, 'overridden');
    const o = st.resolved!.overrides[0];
    assert.deepEqual(o.keys.sort(), ['ANTHROPIC_API_KEY', 'ANTHROPIC_BASE_URL']);
    assert.equal(o.fixable, true);
    const plan = await planFixOverride('claude-code', s.env, o);
    assert.ok(typeof plan !== 'string');
    const after = plan.edits[0].after;
    assert.ok(
      after.includes('// my settings') && after.includes('"DISABLE_TELEMETRY": "1"') && after.includes('Bash(ls)'),
    );
    assert.ok(!after.includes('ANTHROPIC_BASE_URL') && !after.includes('ANTHROPIC_API_KEY'));
    const out = await applyEdits(plan.edits, { homeDir: s.home, backupDir: s.env.backupDir, secrets: [TOKEN] });
    const backup = out[0].written ? out[0].backup : undefined;
    assert.ok(backup?.startsWith(s.env.backupDir), 'the backup is kept in the global storage, not in the repository');
    assert.equal(s.get(backup!), text);
    assert.deepEqual(readdirSync(join(s.ws, '.claude')), ['settings.json']);
    assert.equal(s.get(path), after);
    assert.equal((await toolStatus('claude-code', s.env, gateway())).state, 'set-up');
  } finally {
    s.done();
  }
});

test('claude code: managed settings are reported but not fixable; a file that is not JSON is a problem', async () => {
  const s = sandbox({ ...ours });
  try {
    const p = s.put(
      'etc/managed-settings.json',
      JSON.stringify({ env: { ANTHROPIC_BASE_URL: 'https://corp.example' } }),
    );
    s.env.systemFiles = { claudeManagedSettings: p };
    s.put(join(s.home, '.claude/settings.json'), '{ "env": ');
    const st = await toolStatus('claude-code', s.env, gateway());
    assert.equal(st.state, 'overridden');
    assert.equal(st.resolved!.overrides[0].fixable, false);
    assert.equal(typeof (await planFixOverride('claude-code', s.env, st.resolved!.overrides[0])), 'string');
    assert.equal(st.resolved!.problems.length, 1);
  } finally {
    s.done();
  }
});

test('claude code: not installed, unavailable, not set up', async () => {
  const s = sandbox({}, []);
  try {
    const st = await toolStatus('claude-code', s.env, gateway());
    assert.equal(st.state, 'not-installed');
    assert.match(st.why!, /claude/);
    s.env.which = () => Promise.resolve('/bin/claude');
    assert.equal((await toolStatus('claude-code', s.env, gateway())).state, 'not-set-up');
    const un = await toolStatus('claude-code', s.env, gateway({ models: [{ id: 'x', surfaces: ['compatible'] }] }));
    assert.equal(un.state, 'unavailable');
    s.env.version = (p) => Promise.resolve(p === '/bin/claude' ? '2.1.240' : undefined);
    assert.equal((await toolStatus('claude-code', s.env, gateway())).installed?.version, '2.1.240');
  } finally {
    s.done();
  }
});

test('claude code: an empty value in a settings file blanks the terminal variable, and its Fix removes it', async () => {
  const s = sandbox({ ...ours });
  try {
    s.put(
      join(s.ws, '.claude/settings.local.json'),
      JSON.stringify({ env: { ANTHROPIC_AUTH_TOKEN: '', ANTHROPIC_API_KEY: '' } }),
    );
    const st = await toolStatus('claude-code', s.env, gateway());
    assert.equal(st.state, 'overridden');
    assert.equal(st.resolved?.auth, undefined);
    assert.deepEqual(st.resolved?.overrides[0].keys, ['ANTHROPIC_AUTH_TOKEN'], 'an empty API key is harmless');
    const plan = await planFixOverride('claude-code', s.env, st.resolved!.overrides[0]);
    assert.ok(typeof plan !== 'string');
    await applyEdits(plan.edits, { homeDir: s.home, backupDir: s.env.backupDir, secrets: [TOKEN] });
    assert.equal((await toolStatus('claude-code', s.env, gateway())).state, 'set-up');
  } finally {
    s.done();
  }
});

test('claude code: /v1 in the base URL and a stale API key beside the auth token are named with their fix', async () => {
  const s = sandbox({ ANTHROPIC_BASE_URL: `${ROOT}/v1`, ANTHROPIC_AUTH_TOKEN: TOKEN, ANTHROPIC_API_KEY: OTHER_TOKEN });
  try {
    const st = await toolStatus('claude-code', s.env, gateway());
    assert.equal(st.state, 'not-set-up');
    const c = st.resolved!.conflicts;
    assert.ok(
      c.some((x) => /\/v1\/v1\/messages/.test(x.what) && x.fix.includes(`root address ${ROOT}.`)),
      JSON.stringify(c),
    );
    assert.ok(c.some((x) => /auth conflict/.test(x.what) && x.fix.includes('ANTHROPIC_API_KEY')));
    assert.ok(!JSON.stringify(st).includes(OTHER_TOKEN));
  } finally {
    s.done();
  }
});
