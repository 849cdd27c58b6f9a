/**
 * One tool state, one row (issue 37 §1): for every state a terminal tool can be in, `relay-doctor
 * tools` and Diagnose — as the editor runs it (its client, with a Fix button) and as `relay-doctor
 * diagnose` does (the diagnosis's own dispatcher) — say the same result, cause and fix. Each state is
 * made for real: Claude Code's variables and settings files in a sandbox, the states read by the tools
 * module, the probe sent to the simulator's new-api profile (answering 401 or 404 where asked), a
 * project file naming another server ("elsewhere", which records every credential it sees).
 */
import { after, before, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { toolsReport } from '../../src/cli/toolsCommand';
import { GatewayClient } from '../../src/gateway/client';
import { runDiagnosis } from '../../src/gateway/diagnose/engine';
import { modelSurfaces } from '../../src/gateway/diagnose/toolCheck';
import type { CheckResult, ToolsDiagnosisInput } from '../../src/gateway/diagnose/types';
import { maskToken } from '../../src/gateway/mask';
import { toolStatuses } from '../../src/gateway/tools';
import type { ToolGateway, ToolStatus } from '../../src/gateway/tools/types';
import { startElsewhere, type Elsewhere } from '../sim/elsewhere';
import { startSimulator, type Fault, type Simulator } from '../sim/server';
import { sandbox, type Sandbox } from '../gateway/toolsFixture';

let sim: Simulator;
let away: Elsewhere;
let client: GatewayClient;
let listed: ToolGateway['models'];
before(async () => {
  sim = await startSimulator({ profile: 'real', gateway: 'new-api' });
  away = await startElsewhere();
  client = new GatewayClient({ gatewayName: 'production', baseUrl: sim.url, token: () => sim.tokens.production });
  // the token's models with their surfaces, as relay-doctor and Diagnose read them
  listed = modelSurfaces(await client.listModels());
});
after(async () => {
  await sim.close();
  await away.close();
});
beforeEach(() => {
  sim.reset();
  away.seen.length = 0;
});

function toolGateway(models = listed): ToolGateway {
  return {
    id: 'production',
    baseUrl: sim.url,
    name: 'production',
    maskedToken: maskToken(sim.tokens.production),
    providerId: 'model-relay-production',
    tokenVariable: 'MODEL_RELAY_PRODUCTION_KEY',
    models,
  };
}

interface Case {
  /** the state the tools module reads */
  state: ToolStatus['state'];
  /** the result every front end shows */
  result: CheckResult;
  /** Claude Code's terminal variables (default: set up for the gateway) */
  env?: (s: Simulator) => Record<string, string>;
  /** whether `claude` is on the PATH (default: yes) */
  installed?: boolean;
  /** the gateway's models (default: the token's list) */
  models?: ToolGateway['models'];
  /** a project .claude/settings.json */
  project?: (s: Simulator, away: Elsewhere) => Record<string, string>;
  fault?: Fault;
  /** what the cause says */
  says: RegExp;
  /** what the fix says */
  fix?: RegExp;
}

const setUp = (s: Simulator) => ({ ANTHROPIC_BASE_URL: s.url, ANTHROPIC_AUTH_TOKEN: s.tokens.production });

const CASES: Record<string, Case> = {
  'not installed': { state: 'not-installed', result: 'skipped', installed: false, says: /is not installed/ },
  'not set up': { state: 'not-set-up', result: 'skipped', env: () => ({}), says: /api\.anthropic\.com/ },
  unavailable: {
    state: 'unavailable',
    result: 'skipped',
    models: [{ id: 'gpt-4o-mini', surfaces: ['compatible'] }],
    says: /serves no model on the Anthropic Messages API/,
  },
  'set up, its request answered': { state: 'set-up', result: 'pass', says: /that request answered 200/ },
  'set up, the gateway answers 401': {
    state: 'set-up',
    result: 'fail',
    fault: { kind: 'status', status: 401, path: '/v1/messages' },
    says: /401/,
  },
  'set up, the gateway answers 404': {
    state: 'set-up',
    result: 'fail',
    fault: { kind: 'status', status: 404, path: '/v1/messages' },
    says: /404/,
  },
  'not sent: a project file names another address': {
    state: 'overridden',
    result: 'fail',
    project: (_s, a) => ({ ANTHROPIC_BASE_URL: a.url }),
    says: /would send your token to .*\(named in \.\/\.claude\/settings\.json, a project file\)/,
    fix: /^Remove ANTHROPIC_BASE_URL from .*settings\.json \(or point it at/,
  },
  'overridden: a project file picks another model': {
    state: 'overridden',
    result: 'warn',
    env: (s) => ({ ...setUp(s), ANTHROPIC_MODEL: 'claude-haiku-4-5' }),
    project: () => ({ ANTHROPIC_MODEL: 'claude-sonnet-4-5' }),
    says: /settings\.json sets ANTHROPIC_MODEL in its env block/,
  },
  'misaimed: /v1 in the address': {
    state: 'not-set-up',
    result: 'fail',
    env: (s) => ({ ...setUp(s), ANTHROPIC_BASE_URL: `${s.url}/v1` }),
    says: /calls \/v1\/v1\/messages and gets 404/,
    fix: /^Set ANTHROPIC_BASE_URL to the root address http:\/\/127\.0\.0\.1:\d+\.$/,
  },
};

function sandboxFor(c: Case): Sandbox {
  const s = sandbox((c.env ?? setUp)(sim), c.installed === false ? [] : ['claude']);
  if (c.project) s.put(join(s.ws, '.claude/settings.json'), JSON.stringify({ env: c.project(sim, away) }));
  return s;
}

type Row = Pick<ToolStatus, 'state'> & { result: CheckResult; cause: string; fix: string };

/** Claude Code's row in the diagnosis, its tools' states given the editor's way or relay-doctor's. */
async function diagnoseRow(statuses: ToolStatus[], env: Record<string, string | undefined>, editor: boolean) {
  const tools: ToolsDiagnosisInput = {
    statuses: () => Promise.resolve(statuses),
    env,
    ...(editor ? { models: listed, fixOverrides: true, send: (target, o) => client.probeTool(target, o) } : {}),
  };
  const r = await runDiagnosis({
    baseUrl: sim.url,
    gatewayName: 'production',
    token: sim.tokens.production,
    models: { chat: 'gpt-4o-mini' },
    timeouts: { requestMs: 3_000, totalMs: 20_000, arrivalMs: 0 },
    tools,
  });
  const row = r.checks.find((c) => c.id === 'tool-claude-code')!;
  return { state: statuses[0].state, result: row.result, cause: row.cause, fix: row.fix, toolFix: row.toolFix };
}

for (const [name, c] of Object.entries(CASES))
  test(
    `${name}: relay-doctor tools and Diagnose (editor, relay-doctor) say the same`,
    { timeout: 30_000 },
    async () => {
      const s = sandboxFor(c);
      try {
        if (c.fault) sim.fault(c.fault);
        const statuses = (await toolStatuses(s.env, toolGateway(c.models ?? listed))).filter(
          (x) => x.tool === 'claude-code',
        );
        assert.equal(statuses[0].state, c.state, JSON.stringify(statuses[0]));
        const doctor = (
          await toolsReport({ statuses, env: s.env.env, scope: client.credentialScope, models: c.models ?? listed })
        ).tools[0];
        const editor = await diagnoseRow(statuses, s.env.env, true);
        const diagnose = await diagnoseRow(statuses, s.env.env, false);
        const row = (x: Row): Row => ({ state: x.state, result: x.result, cause: x.cause, fix: x.fix });
        assert.deepEqual(row(editor), row(doctor), 'the editor and relay-doctor tools');
        assert.deepEqual(row(diagnose), row(doctor), 'relay-doctor diagnose and relay-doctor tools');
        assert.equal(doctor.result, c.result, doctor.cause);
        assert.match(doctor.cause, c.says);
        if (c.fix) assert.match(doctor.fix, c.fix);
        // Only the editor has a Fix button: where the row names a removable override.
        assert.equal(diagnose.toolFix, undefined);
        assert.equal(!!editor.toolFix, !!c.project, JSON.stringify(editor.toolFix));
        assert.equal(away.seen.length, 0, 'nothing was sent elsewhere');
        if (c.state === 'set-up' || c.state === 'overridden')
          assert.equal(doctor.probe?.sent !== false, !name.startsWith('not sent'), JSON.stringify(doctor.probe));
        else assert.equal(doctor.probe, null, 'a tool that is not set up is not probed');
      } finally {
        s.done();
      }
    },
  );

test('the table covers every state the tools module has', () => {
  const states: Array<ToolStatus['state']> = ['not-installed', 'not-set-up', 'unavailable', 'set-up', 'overridden'];
  assert.deepEqual([...new Set(Object.values(CASES).map((c) => c.state))].sort(), [...states].sort());
});
