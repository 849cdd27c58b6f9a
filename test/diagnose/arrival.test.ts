/**
 * Diagnose's Arrival check against the simulator's flavors: the gateway logged the generation call (request
 * id, time, billed amount, group), no record yet, or skipped with the reason (one-api, a log without
 * request ids, the rate limit). And the token's effective group from the log in the group diagnosis.
 */
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { formatAmount, runDiagnosis, type DiagnosisInput, type DiagnosisReport } from '../../src/gateway';
import { startSimulator, type Simulator } from '../sim/server';
import { defaultUsageLog } from '../sim/usageLog';

const sims: Record<'newApi' | 'oneApi', Simulator> = {} as never;
before(async () => {
  sims.newApi = await startSimulator({ profile: 'real' });
  sims.oneApi = await startSimulator({ profile: 'real', gateway: 'one-api' });
});
after(async () => {
  for (const s of Object.values(sims)) await s.close();
});
beforeEach(() => {
  for (const s of Object.values(sims)) {
    s.reset();
    s.config.usageLog = { ...defaultUsageLog(), delayMs: 0 };
  }
});

function diagnose(sim: Simulator, over: Partial<DiagnosisInput> = {}): Promise<DiagnosisReport> {
  return runDiagnosis({
    baseUrl: sim.url,
    token: sim.tokens.production,
    models: { chat: 'gpt-4o-mini' },
    timeouts: { requestMs: 3_000, totalMs: 12_000, arrivalMs: 100 },
    ...over,
  });
}
const arrival = (r: DiagnosisReport) => r.checks.find((c) => c.id === 'arrival');

test('the gateway logged the generation call: request id, time, billed amount, group', async () => {
  const r = await diagnose(sims.newApi);
  const gen = r.checks.find((c) => c.id === 'generate-chat')!;
  const a = arrival(r)!;
  assert.equal(a.result, 'pass', a.cause);
  assert.ok(gen.requestId);
  assert.equal(a.requestId, gen.requestId);
  const quota = sims.newApi.gatewayLog.find((e) => e.request_id === gen.requestId)!.quota;
  assert.match(
    a.cause,
    new RegExp(
      `request ${gen.requestId} at .*, billed \\$${formatAmount(quota / 500_000, 'USD')
        .slice(1)
        .replace('.', '\\.')}, group default\\.`,
    ),
  );
  assert.ok(a.details?.some((d) => d === 'request path: /v1/chat/completions'));
  assert.equal(sims.newApi.log.filter((l) => l.path === '/api/log/token').length, 1, 'one read');
});

test('no record within the wait: a warning that says what it means', async () => {
  sims.newApi.config.usageLog.delayMs = 5_000;
  const a = arrival(await diagnose(sims.newApi))!;
  assert.equal(a.result, 'warn');
  assert.match(a.cause, /has no record of request \S+ 0 s later/);
});

test('skipped with the reason: one-api has no log; a log without request ids', async () => {
  const one = arrival(await diagnose(sims.oneApi))!;
  assert.equal(one.result, 'skipped');
  assert.match(one.cause, /no usage log a token can read/);

  sims.newApi.config.usageLog.vintage = 'NA25';
  const noIds = arrival(await diagnose(sims.newApi))!;
  assert.equal(noIds.result, 'skipped');
  assert.match(noIds.cause, /carries no request ids/);
});
