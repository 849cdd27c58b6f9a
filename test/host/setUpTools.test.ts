/**
 * Set Up Tools… as logic: the picker's rows (state, what changes, Fix and Remove Setup), and one
 * setup carried out in order — models, the diff before any write (cancel: nothing written, nothing in
 * terminals), each write's outcome (a refused one named, the setup stopped), the variables, the probe.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  setUpTools,
  toolGatewayModels,
  toolRows,
  type PickRow,
  type SetUpDeps,
  type ToolAction,
} from '../../src/host/tools/setUpTools';
import type { EditOutcome, ToolPlan, ToolStatus } from '../../src/gateway/tools/types';

const gateway = {
  baseUrl: 'https://gw.example.com',
  name: 'gw',
  maskedToken: 'sk-abc...wxyz',
  id: 'example',
  providerId: 'model-relay',
  tokenVariable: 'MODEL_RELAY_API_KEY',
  models: [
    { id: 'claude-sonnet-4-5', surfaces: ['native' as const] },
    { id: 'gpt-5.5-codex', surfaces: ['responses' as const] },
  ],
};

const override = {
  from: { kind: 'file' as const, where: '/h/.claude/settings.json', key: 'env' },
  keys: ['ANTHROPIC_BASE_URL'],
  fixable: true,
};
const statuses: Array<ToolStatus & { removable?: boolean }> = [
  {
    tool: 'claude-code',
    label: 'Claude Code',
    state: 'overridden',
    why: 'settings win',
    resolved: { overrides: [override], conflicts: [], problems: [] },
  },
  { tool: 'codex', label: 'Codex CLI', state: 'not-set-up' },
  { tool: 'gemini-cli', label: 'Gemini CLI', state: 'unavailable', why: 'no gemini models' },
  { tool: 'opencode', label: 'opencode', state: 'not-installed', removable: true },
  { tool: 'copilot-cli', label: 'GitHub Copilot CLI', state: 'not-set-up' },
];

const codexPlan: ToolPlan = {
  tool: 'codex',
  action: 'set-up',
  edits: [
    { path: '/h/.codex/config.toml', before: 'x = 1\n', after: 'x = 1\n[model_providers.model-relay]\n', summary: 's' },
  ],
  terminalEnv: { MODEL_RELAY_API_KEY: { token: true } },
  notes: [],
};

function deps(picks: unknown[], o: { agree?: boolean; outcomes?: EditOutcome[] } = {}) {
  const log: string[] = [];
  const d: SetUpDeps = {
    gateway,
    tokenName: 'cli',
    backend: {
      statuses: () => Promise.resolve(statuses),
      planSetUp: (tool, choices) => {
        log.push(`plan ${tool} ${JSON.stringify(choices)}`);
        return Promise.resolve(codexPlan);
      },
      planRemove: (tool) => Promise.resolve({ ...codexPlan, tool, action: 'remove', terminalEnv: {} }),
      planFix: () => Promise.resolve({ ...codexPlan, action: 'fix-override', terminalEnv: {} }),
      apply: (plan) => {
        log.push(`apply ${plan.action} ${plan.edits.map((e) => e.path).join()}`);
        return Promise.resolve(
          o.outcomes ?? plan.edits.map((e) => ({ path: e.path, written: true as const, backup: `${e.path}.bak` })),
        );
      },
      probe: (tool) => {
        log.push(`probe ${tool}`);
        return Promise.resolve({ tool, ok: true, request: 'POST /v1/responses', status: 200, durationMs: 5 });
      },
    },
    terminals: {
      tools: () => ['claude-code'],
      setUp: (tool, gatewayId, name, env) => {
        log.push(`terminals ${tool} ${gatewayId} ${name} ${Object.keys(env).join()}`);
        return Promise.resolve({ MODEL_RELAY_API_KEY: 'sk-secret' });
      },
      remove: (tool) => {
        log.push(`terminals-remove ${tool}`);
        return Promise.resolve();
      },
    },
    ui: {
      pick: <T>(rows: Array<PickRow<T>>) => {
        const want = picks.shift();
        const row = rows.find((r) => JSON.stringify(r.value) === JSON.stringify(want) || r.label === want);
        return Promise.resolve(row?.value);
      },
      confirm: (plan) => {
        log.push(`diff ${plan.edits.map((e) => e.path).join()}`);
        return Promise.resolve(o.agree ?? true);
      },
      info: (m) => {
        log.push(`info ${m}`);
        return Promise.resolve(undefined);
      },
      error: (m) => log.push(`error ${m}`),
      openTerminal: () => log.push('terminal'),
    },
  };
  return { d, log };
}

test('the rows: each tool with its state and what changes, the Fix of an override, Remove Setup where there is something to take back', () => {
  const rows = toolRows(statuses, ['claude-code'], 'MODEL_RELAY_API_KEY');
  assert.deepEqual(
    rows.map((r) => [r.label, r.description ?? '', r.value.kind]),
    [
      ['Claude Code', 'set up, but overridden', 'set-up'],
      ['Codex CLI', 'not set up', 'set-up'],
      ['Gemini CLI', 'unavailable', 'set-up'],
      ['opencode', 'not installed', 'set-up'],
      ['GitHub Copilot CLI', 'not set up', 'set-up'],
      ['Fix Claude Code: remove ANTHROPIC_BASE_URL from /h/.claude/settings.json', '', 'fix'],
      ['Remove Setup: Claude Code', '', 'remove'],
      ['Remove Setup: opencode', '', 'remove'],
    ],
  );
  assert.match(rows[1].detail!, /env_key MODEL_RELAY_API_KEY/);
  assert.equal(rows[2].detail, 'no gemini models', 'an unavailable tool says why, not what would change');
  assert.match(rows[4].detail!, /COPILOT_PROVIDER_BASE_URL \(the address with \/v1\).*COPILOT_PROVIDER_WIRE_API/);
});

test('Codex: a Responses model picked, the diff shown, then written, the variable put into terminals, the probe run', async () => {
  const { d, log } = deps([{ kind: 'set-up', tool: 'codex' }, 'gpt-5.5-codex']);
  assert.equal(await setUpTools(d, 'MODEL_RELAY_API_KEY'), true);
  assert.deepEqual(log.slice(0, 4), [
    'plan codex {"model":"gpt-5.5-codex"}',
    'diff /h/.codex/config.toml',
    'apply set-up /h/.codex/config.toml',
    'info /h/.codex/config.toml written (backup: /h/.codex/config.toml.bak).',
  ]);
  assert.equal(log[4], 'terminals codex example cli MODEL_RELAY_API_KEY');
  assert.ok(log.includes('probe codex'));
  assert.ok(log.some((l) => l.startsWith('info Codex CLI probe passed')));
  assert.ok(!log.some((l) => l.includes('sk-secret')), 'the token is never in a message');
});

test('GitHub Copilot CLI: only Chat Completions and Responses models offered; no file, so no diff; its variables into terminals', async () => {
  const offered: string[][] = [];
  const { d, log } = deps([{ kind: 'set-up', tool: 'copilot-cli' }, 'gpt-5.5-codex']);
  const pick = d.ui.pick.bind(d.ui);
  d.ui.pick = (rows, title, placeholder) => {
    offered.push(rows.map((r) => r.label));
    return pick(rows, title, placeholder);
  };
  const copilotPlan: ToolPlan = {
    tool: 'copilot-cli',
    action: 'set-up',
    edits: [],
    terminalEnv: { COPILOT_PROVIDER_BASE_URL: 'https://gw.example.com/v1', COPILOT_PROVIDER_API_KEY: { token: true } },
    notes: [],
  };
  d.backend.planSetUp = (tool, choices) => {
    log.push(`plan ${tool} ${JSON.stringify(choices)}`);
    return Promise.resolve(copilotPlan);
  };
  assert.equal(await setUpTools(d, 'V'), true);
  assert.deepEqual(offered[1], ['gpt-5.5-codex'], 'the native-only model is not offered');
  assert.deepEqual(log.slice(0, 2), [
    'plan copilot-cli {"model":"gpt-5.5-codex"}',
    'terminals copilot-cli example cli COPILOT_PROVIDER_BASE_URL,COPILOT_PROVIDER_API_KEY',
  ]);
  assert.ok(log.some((l) => l.startsWith('info GitHub Copilot CLI is set up')));
  assert.ok(log.includes('probe copilot-cli'));
});

test('cancelled at the diff: nothing written, nothing put into terminals', async () => {
  const { d, log } = deps([{ kind: 'set-up', tool: 'codex' }, 'gpt-5.5-codex'], { agree: false });
  assert.equal(await setUpTools(d, 'V'), false);
  assert.ok(!log.some((l) => l.startsWith('apply') || l.startsWith('terminals')));
});

test('a refused write is named with its reason and the setup stops there', async () => {
  const refused: EditOutcome = {
    path: '/h/.codex/config.toml',
    written: false,
    reason: 'changed-on-disk',
    message: 'it changed on disk after the diff was shown',
  };
  const { d, log } = deps([{ kind: 'set-up', tool: 'codex' }, 'gpt-5.5-codex'], { outcomes: [refused] });
  assert.equal(await setUpTools(d, 'V'), false);
  assert.ok(log.includes('error /h/.codex/config.toml left untouched: it changed on disk after the diff was shown'));
  assert.ok(!log.some((l) => l.startsWith('terminals')));
});

test('Claude Code: the model mapping picked (main, then background); an unavailable tool says why; Fix and Remove', async () => {
  let r = deps([{ kind: 'set-up', tool: 'claude-code' }, 'claude-sonnet-4-5', 'The same model']);
  await setUpTools(r.d, 'V');
  assert.equal(
    r.log[0],
    'plan claude-code {"model":"claude-sonnet-4-5","claudeModels":{"opus":"claude-sonnet-4-5","sonnet":"claude-sonnet-4-5","haiku":"claude-sonnet-4-5"}}',
  );
  r = deps([{ kind: 'set-up', tool: 'gemini-cli' }]);
  assert.equal(await setUpTools(r.d, 'V'), false);
  assert.deepEqual(r.log, ['error no gemini models']);
  r = deps([{ kind: 'fix', tool: 'claude-code', override }]);
  assert.equal(await setUpTools(r.d, 'V'), true);
  assert.deepEqual(r.log.slice(0, 2), ['diff /h/.codex/config.toml', 'apply fix-override /h/.codex/config.toml']);
  r = deps([{ kind: 'remove', tool: 'opencode' } satisfies ToolAction]);
  assert.equal(await setUpTools(r.d, 'V'), true);
  assert.ok(r.log.includes('terminals-remove opencode'));
});

test("the models' surfaces: endpoint types when listed, else what refusals taught, else the model's name", () => {
  assert.deepEqual(
    toolGatewayModels(
      [
        { id: 'a', capabilities: ['chat', 'responses'], endpointTypes: ['openai', 'openai-response'] },
        { id: 'g', capabilities: ['chat'], endpointTypes: ['gemini', 'openai'] },
        { id: 'x' },
        { id: 'claude-sonnet-4-5' },
        { id: 'gpt-5.5-codex' },
      ],
      [{ model: 'x', surface: 'native' }],
    ),
    [
      { id: 'a', surfaces: ['compatible', 'responses'] },
      { id: 'g', surfaces: ['compatible', 'gemini'] },
      { id: 'x', surfaces: ['native'] },
      { id: 'claude-sonnet-4-5', surfaces: ['native', 'compatible'] },
      { id: 'gpt-5.5-codex', surfaces: ['responses'] },
    ],
  );
});
