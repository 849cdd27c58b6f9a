/**
 * The terminal tools' Diagnose rows (issue 26 §2) against the simulator's new-api profile: one row
 * per tool from its resolved state (address, credential, model and the override that wins), the
 * tool's own request sent once, skipped with the reason when not installed; and what Claude Code's
 * row says of its settings files (read from $CLAUDE_CONFIG_DIR as Claude Code itself does).
 */
import { after, before, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runDiagnosis } from '../../src/gateway/diagnose/engine';
import type { DiagnosisReport } from '../../src/gateway/diagnose/types';
import { toolRow } from '../../src/gateway/diagnose/toolCheck';
import { toolStatus } from '../../src/gateway/tools';
import type { ToolStatus } from '../../src/gateway/tools/types';
import { startSimulator, type Simulator } from '../sim/server';
import { gateway, OTHER_TOKEN, ROOT, sandbox, TOKEN, type Sandbox } from '../gateway/toolsFixture';

let sim: Simulator;
let dir: string;
before(async () => {
  sim = await startSimulator({ profile: 'real', gateway: 'new-api' });
  dir = await mkdtemp(join(tmpdir(), 'tool-rows-'));
});
after(async () => {
  await sim.close();
  await rm(dir, { recursive: true, force: true });
});
beforeEach(() => sim.reset());

const T = { timeout: 20_000 };
const masked = 'sk-Pr0...Lk5d';

function statuses(): ToolStatus[] {
  const toml = join(dir, 'config.toml');
  const oc = join(dir, 'opencode.json');
  const project = join(dir, 'project-opencode.json');
  return [
    {
      tool: 'claude-code',
      label: 'Claude Code',
      state: 'set-up',
      installed: { path: '/usr/bin/claude', version: '2.1.240' },
      resolved: {
        baseUrl: {
          value: sim.url,
          from: { kind: 'terminal', where: 'terminal environment', key: 'ANTHROPIC_BASE_URL' },
        },
        auth: {
          header: 'authorization',
          masked,
          matches: 'production',
          from: { kind: 'terminal', where: 'terminal environment', key: 'ANTHROPIC_AUTH_TOKEN' },
        },
        model: {
          value: 'claude-sonnet-4-5',
          from: { kind: 'terminal', where: 'terminal environment', key: 'ANTHROPIC_MODEL' },
        },
        overrides: [],
        conflicts: [],
        problems: [],
      },
    },
    {
      tool: 'codex',
      label: 'Codex CLI',
      state: 'set-up',
      resolved: {
        baseUrl: { value: sim.url, from: { kind: 'file', where: toml, key: 'model_providers.relay.base_url' } },
        auth: {
          header: 'authorization',
          masked,
          from: { kind: 'terminal', where: 'terminal environment', key: 'MODEL_RELAY_API_KEY' },
        },
        model: { value: 'gpt-5.5-codex', from: { kind: 'file', where: toml, key: 'model' } },
        overrides: [],
        conflicts: [],
        problems: [],
      },
    },
    { tool: 'gemini-cli', label: 'Gemini CLI', state: 'not-installed' },
    {
      tool: 'opencode',
      label: 'opencode',
      state: 'overridden',
      why: 'The project opencode.json sets its own model, which wins over the global setup.',
      resolved: {
        baseUrl: { value: `${sim.url}/v1`, from: { kind: 'file', where: oc, key: 'provider.relay.options.baseURL' } },
        auth: {
          header: 'authorization',
          masked,
          from: { kind: 'file', where: oc, key: 'provider.relay.options.apiKey' },
        },
        model: { value: 'gpt-4o-mini', from: { kind: 'file', where: project, key: 'model' } },
        overrides: [{ from: { kind: 'file', where: project, key: 'model' }, keys: ['model'], fixable: true }],
        conflicts: [],
        problems: [],
      },
    },
    {
      tool: 'copilot-cli',
      label: 'GitHub Copilot CLI',
      state: 'set-up',
      aim: { at: 'this' },
      resolved: {
        baseUrl: {
          value: `${sim.url}/v1`,
          from: { kind: 'terminal', where: 'terminal environment', key: 'COPILOT_PROVIDER_BASE_URL' },
        },
        auth: {
          header: 'authorization',
          masked,
          from: { kind: 'terminal', where: 'terminal environment', key: 'COPILOT_PROVIDER_API_KEY' },
        },
        model: {
          value: 'deepseek-v4-pro',
          from: { kind: 'terminal', where: 'terminal environment', key: 'COPILOT_MODEL' },
        },
        overrides: [],
        conflicts: [],
        problems: [],
      },
    },
  ];
}

function diagnose(over: { fixOverrides?: boolean } = {}): Promise<DiagnosisReport> {
  return runDiagnosis({
    baseUrl: sim.url,
    token: sim.tokens.production,
    models: { chat: 'gpt-4o-mini', native: 'claude-sonnet-4-5' },
    timeouts: { requestMs: 3_000, totalMs: 15_000 },
    tools: {
      statuses: async () => statuses(),
      env: {
        MODEL_RELAY_API_KEY: sim.tokens.production,
        ANTHROPIC_AUTH_TOKEN: sim.tokens.production,
        COPILOT_PROVIDER_API_KEY: sim.tokens.production,
        COPILOT_PROVIDER_WIRE_API: 'completions',
      },
      ...over,
    },
  });
}

test(
  'one row per tool, in order: pass, the tool-worded failure, not installed, overridden with its Fix',
  T,
  async () => {
    await writeFile(
      join(dir, 'opencode.json'),
      '{ "provider": { "relay": { "options": { "apiKey": "{env:MODEL_RELAY_API_KEY}" } } } }',
    );
    const r = await diagnose({ fixOverrides: true });
    const rows = r.checks.filter((c) => c.id.startsWith('tool-'));
    assert.deepEqual(
      rows.map((c) => [c.id, c.result]),
      [
        ['tool-claude-code', 'pass'],
        ['tool-codex', 'fail'],
        ['tool-gemini-cli', 'skipped'],
        ['tool-opencode', 'warn'],
        ['tool-copilot-cli', 'pass'],
      ],
    );
    const [claude, codex, gemini, opencode, copilot] = rows;
    assert.equal(copilot.title, 'GitHub Copilot CLI setup');
    assert.match(
      copilot.cause,
      /GitHub Copilot CLI will call POST \/v1\/chat\/completions with the model deepseek-v4-pro; that request answered 200/,
    );
    assert.equal(claude.title, 'Claude Code setup');
    assert.match(claude.cause, /Claude Code will call POST \/v1\/messages\?beta=true with the model claude-sonnet-4-5/);
    assert.ok(
      claude.details!.includes(
        `Credential: ${masked}, sent as authorization (the terminal environment: ANTHROPIC_AUTH_TOKEN); it is the token Model Relay uses for "production".`,
      ),
    );
    assert.ok(claude.details!.some((d) => /^Probe: POST \/v1\/messages\?beta=true answered 200/.test(d)));
    assert.match(
      codex.cause,
      /^model_providers\.relay\.base_url is http:\/\/127\.0\.0\.1:\d+, without \/v1: Codex CLI appends \/responses/,
    );
    assert.match(codex.fix, /config\.toml/);
    assert.match(gemini.cause, /Gemini CLI is not installed: no gemini command was found on PATH\./);
    assert.equal(opencode.cause, 'The project opencode.json sets its own model, which wins over the global setup.');
    assert.deepEqual(opencode.toolFix, {
      kind: 'fix-tool-override',
      tool: 'opencode',
      path: join(dir, 'project-opencode.json'),
      keys: ['model'],
    });
    assert.ok(opencode.details!.some((d) => /project-opencode\.json overrides model/.test(d)));
    // One probe per set-up tool: Claude Code's, Codex's (to the console page) and opencode's.
    assert.deepEqual(
      sim.log.filter((l) => l.headers['x-app'] === 'cli' || /codex|opencode/.test(l.headers['user-agent'] ?? ''))
        .length,
      3,
    );
    assert.ok(!JSON.stringify(r).includes(sim.tokens.production));
    const noFix = await diagnose();
    assert.equal(noFix.checks.find((c) => c.id === 'tool-opencode')!.toolFix, undefined);
  },
);

/** Claude Code's row from its state, with no request (probes off): what the row says about its files. */
async function claudeRow(box: Sandbox, fixOverrides = false) {
  const status = await toolStatus('claude-code', box.env, gateway());
  const { outcome } = await toolRow(status, {
    env: box.env.env,
    probe: false,
    fixOverrides,
    send: () => assert.fail('no request while probes are off'),
  });
  return { status, ...outcome };
}

test("Claude Code's settings come from $CLAUDE_CONFIG_DIR when it is set, whatever the home folder", async () => {
  const box = sandbox({
    CLAUDE_CONFIG_DIR: join(dir, 'claude-config'),
    ANTHROPIC_BASE_URL: ROOT,
    ANTHROPIC_AUTH_TOKEN: TOKEN,
  });
  try {
    const config = box.put(
      join(dir, 'claude-config', 'settings.json'),
      JSON.stringify({ env: { ANTHROPIC_BASE_URL: 'https://old.example.org' } }),
    );
    box.put('home/.claude/settings.json', JSON.stringify({ env: { ANTHROPIC_BASE_URL: 'https://home.example.org' } }));
    const row = await claudeRow(box);
    assert.equal(row.status.state, 'overridden');
    assert.equal(row.status.resolved?.baseUrl?.value, 'https://old.example.org');
    assert.equal(row.result, 'warn');
    assert.equal(row.cause, `${config} sets ANTHROPIC_BASE_URL in its env block, which beats the terminal variables.`);
    assert.ok(!JSON.stringify(row).includes('home.example.org'), "the home folder's settings are not read");
  } finally {
    box.done();
  }
});

test("Claude Code's row from its settings files: none, right, a project override, /v1 and two credentials, broken JSON", async () => {
  const box = sandbox();
  try {
    // nothing anywhere: it calls Anthropic with no credential
    const none = await claudeRow(box);
    assert.equal(none.result, 'skipped');
    assert.equal(
      none.cause,
      "Claude Code will call https://api.anthropic.com, which is not one of this gateway's addresses.",
    );
    assert.equal(none.fix, 'Run "Model Relay: Set Up Tools…" and pick Claude Code.');
    // right in the terminal
    box.env.env = { ANTHROPIC_BASE_URL: ROOT, ANTHROPIC_AUTH_TOKEN: TOKEN };
    const ok = await claudeRow(box);
    assert.equal(ok.status.state, 'set-up');
    assert.equal(ok.cause, 'Claude Code is set up; its request was not sent (probes are off).');
    // a project-local settings file overrides the address: named, and its Fix removes just that key
    const local = box.put(
      join(box.ws, '.claude', 'settings.local.json'),
      JSON.stringify({ env: { ANTHROPIC_BASE_URL: 'https://old-gateway.example.org' } }),
    );
    const over = await claudeRow(box, true);
    assert.equal(over.status.state, 'overridden');
    assert.equal(over.result, 'warn');
    assert.equal(over.cause, `${local} sets ANTHROPIC_BASE_URL in its env block, which beats the terminal variables.`);
    assert.deepEqual(over.toolFix, {
      kind: 'fix-tool-override',
      tool: 'claude-code',
      path: local,
      keys: ['ANTHROPIC_BASE_URL'],
    });
    assert.ok(over.details?.includes(`Address: https://old-gateway.example.org (${local}: ANTHROPIC_BASE_URL).`));
    rmSync(local);
    // the user's settings with /v1 and another token, and ANTHROPIC_API_KEY in the terminal
    box.put(
      'home/.claude/settings.json',
      JSON.stringify({ env: { ANTHROPIC_BASE_URL: `${ROOT}/v1`, ANTHROPIC_AUTH_TOKEN: OTHER_TOKEN } }),
    );
    box.env.env = { ANTHROPIC_API_KEY: TOKEN };
    const user = await claudeRow(box);
    const said = [user.cause, ...(user.details ?? [])].join('\n');
    assert.match(
      user.cause,
      /^ANTHROPIC_BASE_URL is https:\/\/gw\.example\.com\/v1 .*calls \/v1\/v1\/messages and gets 404\.$/,
    );
    assert.match(said, /Fix: Set ANTHROPIC_BASE_URL to the root address https:\/\/gw\.example\.com\./);
    assert.match(
      said,
      /Both ANTHROPIC_AUTH_TOKEN \(.*settings\.json\) and ANTHROPIC_API_KEY \(.*terminal environment\) are set/,
    );
    assert.ok(!said.includes(TOKEN) && !said.includes(OTHER_TOKEN), 'tokens only masked');
    // a settings file that is not JSON is named
    const broken = box.put(join(box.ws, '.claude', 'settings.json'), '{ "env": ');
    const bad = await claudeRow(box);
    assert.ok(
      bad.details?.some((d) => d.includes(broken)),
      JSON.stringify(bad.details),
    );
  } finally {
    box.done();
  }
});
