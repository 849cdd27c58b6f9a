/**
 * A terminal tool's probe through the editor's client (issue 26: Set Up Tools… and Diagnose send it
 * the way the client's own calls go): GatewayClient.probeTool uses the client's dispatcher (proxy,
 * CA trust) and writes the request log; Diagnose's tool rows send through the `send` they are given;
 * and a row with a removable override gets a Fix button in the panel.
 */
import { after, before, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, type Dispatcher } from 'undici';
import { GatewayClient } from '../../src/gateway/client';
import { runDiagnosis } from '../../src/gateway/diagnose/engine';
import type { DiagnosisCheck, DiagnosisReport } from '../../src/gateway/diagnose/types';
import type { RequestRecord } from '../../src/gateway/requestLog';
import type { ProbeTarget } from '../../src/gateway/tools/probes';
import type { ToolStatus } from '../../src/gateway/tools/types';
import { diagnoseBody } from '../../src/host/diagnose/diagnoseHtml';
import { oneGateway } from '../fakes/diagnosis';
import { startSimulator, type Simulator } from '../sim/server';

let sim: Simulator;
before(async () => {
  sim = await startSimulator({ profile: 'real', gateway: 'new-api' });
});
after(() => sim.close());
beforeEach(() => sim.reset());

const T = { timeout: 20_000 };
const SETTINGS = '/home/u/.claude/settings.json';

/** An agent that counts the requests it carries (the client's dispatcher, as a proxy agent would be). */
class CountingAgent extends Agent {
  carried = 0;
  override dispatch(opts: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    this.carried++;
    return super.dispatch(opts, handler);
  }
}

function client(records: RequestRecord[], dispatcher: Dispatcher): GatewayClient {
  return new GatewayClient({
    baseUrl: sim.url,
    token: () => sim.tokens.production,
    dispatcher,
    onRequest: (r) => records.push(r),
  });
}

function claudeTarget(): ProbeTarget {
  return {
    tool: 'claude-code',
    baseUrl: { value: sim.url, from: { kind: 'file', where: SETTINGS, key: 'env.ANTHROPIC_BASE_URL' } },
    credential: {
      value: sim.tokens.production,
      header: 'authorization',
      from: { kind: 'terminal', where: 'terminal environment', key: 'ANTHROPIC_AUTH_TOKEN' },
    },
    model: { value: 'claude-sonnet-4-5', from: { kind: 'file', where: SETTINGS, key: 'env.ANTHROPIC_MODEL' } },
  };
}

test("the client's probeTool goes through the client's dispatcher and into its request log", T, async () => {
  const records: RequestRecord[] = [];
  const agent = new CountingAgent();
  try {
    const p = await client(records, agent).probeTool(claudeTarget());
    assert.equal(p.ok, true, p.cause);
    assert.equal(p.status, 200);
    assert.equal(agent.carried, 1);
    assert.equal(records.length, 1);
    const [r] = records;
    assert.equal(r.method, 'POST');
    assert.equal(r.path, '/v1/messages');
    assert.equal(r.model, 'claude-sonnet-4-5');
    assert.equal(r.status, 200);
    assert.equal(r.surface, 'native');
    assert.ok(!JSON.stringify(records).includes(sim.tokens.production));
    assert.equal(sim.log.filter((l) => l.path.startsWith('/v1/messages')).length, 1);
  } finally {
    await agent.close();
  }
});

function overridden(): ToolStatus {
  return {
    tool: 'claude-code',
    label: 'Claude Code',
    state: 'overridden',
    why: `${SETTINGS} sets ANTHROPIC_MODEL, which wins over the setup.`,
    installed: { path: '/usr/bin/claude', version: '2.1.240' },
    resolved: {
      baseUrl: {
        value: sim.url,
        from: { kind: 'terminal', where: 'terminal environment', key: 'ANTHROPIC_BASE_URL' },
      },
      auth: {
        header: 'authorization',
        masked: 'sk-Pr0...Lk5d',
        from: { kind: 'terminal', where: 'terminal environment', key: 'ANTHROPIC_AUTH_TOKEN' },
      },
      model: { value: 'claude-sonnet-4-5', from: { kind: 'file', where: SETTINGS, key: 'env.ANTHROPIC_MODEL' } },
      overrides: [{ from: { kind: 'file', where: SETTINGS }, keys: ['env.ANTHROPIC_MODEL'], fixable: true }],
      conflicts: [],
      problems: [],
    },
  };
}

function diagnose(send: NonNullable<Parameters<typeof runDiagnosis>[0]['tools']>['send']): Promise<DiagnosisReport> {
  return runDiagnosis({
    baseUrl: sim.url,
    token: sim.tokens.production,
    models: { chat: 'gpt-4o-mini', native: 'claude-sonnet-4-5' },
    timeouts: { requestMs: 3_000, totalMs: 15_000 },
    tools: {
      statuses: async () => [overridden()],
      env: { ANTHROPIC_AUTH_TOKEN: sim.tokens.production },
      fixOverrides: true,
      send,
    },
  });
}

test("Diagnose's tool rows send their probes the way they are given (the editor's client)", T, async () => {
  const records: RequestRecord[] = [];
  const agent = new CountingAgent();
  try {
    const c = client(records, agent);
    const r = await diagnose((target, o) => c.probeTool(target, o));
    const row = r.checks.find((x) => x.id === 'tool-claude-code')!;
    assert.equal(row.result, 'warn');
    assert.equal(row.httpStatus, 200);
    assert.deepEqual(row.toolFix, {
      kind: 'fix-tool-override',
      tool: 'claude-code',
      path: SETTINGS,
      keys: ['env.ANTHROPIC_MODEL'],
    });
    // The probe is the only request the client carried: the diagnosis's own checks use their own dispatcher.
    assert.deepEqual(
      records.map((x) => [x.method, x.path, x.status]),
      [['POST', '/v1/messages', 200]],
    );
    assert.equal(agent.carried, 1);
  } finally {
    await agent.close();
  }
});

test('a row with a removable override shows a Fix button that names its row; a row without a fix has none', () => {
  const row: DiagnosisCheck = {
    id: 'tool-claude-code',
    title: 'Claude Code setup',
    result: 'warn',
    durationMs: 5,
    cause: 'overridden',
    fix: `Remove env.ANTHROPIC_MODEL from ${SETTINGS}.`,
    toolFix: { kind: 'fix-tool-override', tool: 'claude-code', path: SETTINGS, keys: ['env.ANTHROPIC_MODEL'] },
  };
  const pass: DiagnosisCheck = { id: 'token', title: 'Token', result: 'pass', durationMs: 1, cause: 'ok', fix: '' };
  const report: DiagnosisReport = {
    startedAt: new Date(0).toISOString(),
    durationMs: 6,
    baseUrl: sim.url,
    base: sim.url,
    backups: [],
    usedBase: sim.url,
    maskedToken: undefined,
    tokenName: undefined,
    proxy: 'none',
    checks: [pass, row],
    summary: { pass: 1, warn: 1, fail: 0, skipped: 0 },
    ok: true,
  };
  const html = diagnoseBody(oneGateway(report), { activeGateway: true });
  assert.match(
    html,
    /<button data-testid="fix-tool-claude-code" data-fix="1">[^]*?<span>Remove the override<\/span><\/button>/,
  );
  assert.equal((html.match(/data-fix=/g) ?? []).length, 1);
});
