/**
 * Diagnose on the responses surface (issue 23): a generation and a streaming check on /v1/responses
 * when the token sees a responses model — listed with new-api's `openai-response` (real profile), or
 * learnt from the refusal of a chat model that answers only there — and none when it sees none.
 */
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { runDiagnosis, type CheckId, type DiagnosisInput, type DiagnosisReport } from '../../src/gateway';
import { startSimulator, type Simulator } from '../sim/server';

let strict: Simulator;
let real: Simulator;
before(async () => {
  strict = await startSimulator({ profile: 'strict' });
  real = await startSimulator({ profile: 'real' });
});
after(async () => {
  await strict.close();
  await real.close();
});
beforeEach(() => {
  strict.reset();
  real.reset();
});

const T = { timeout: 15_000 };

function diagnose(sim: Simulator, models: DiagnosisInput['models']): Promise<DiagnosisReport> {
  return runDiagnosis({
    baseUrl: sim.url,
    token: sim.tokens.production,
    models,
    timeouts: { requestMs: 3_000, totalMs: 12_000 },
  });
}

const check = (r: DiagnosisReport, id: CheckId) => r.checks.find((c) => c.id === id);

test(
  'a model listed as openai-response (real profile): generation and streaming on /v1/responses pass',
  T,
  async () => {
    const r = await diagnose(real, { chat: 'gpt-4o-mini' });
    const g = check(r, 'generate-responses');
    assert.equal(g?.result, 'pass', g?.cause);
    assert.equal(g?.url, `${real.url}/v1/responses`);
    assert.match(g?.cause ?? '', /with o3-pro .*generation works on the responses surface/);
    assert.equal(check(r, 'stream-responses')?.result, 'pass', check(r, 'stream-responses')?.cause);
    assert.equal(check(r, 'generate-responses')?.title, 'Generation (responses)');
    assert.ok(real.log.some((x) => x.path === '/v1/responses' && x.stream));
  },
);

test('no responses model in sight (strict profile, no endpoint types): no responses checks at all', T, async () => {
  const r = await diagnose(strict, { chat: 'gpt-4o-mini' });
  assert.equal(check(r, 'generate-responses'), undefined);
  assert.equal(check(r, 'stream-responses'), undefined);
  assert.ok(!strict.log.some((x) => x.path === '/v1/responses'));
});

test(
  'a chat model that answers only on /v1/responses: the compatible check warns why, the responses checks run with it',
  T,
  async () => {
    const r = await diagnose(strict, { chat: 'gpt-5.5-codex' });
    const g = check(r, 'generate-chat');
    assert.equal(g?.result, 'warn');
    assert.match(g?.cause ?? '', /was refused: the model answers only on the Responses API/);
    assert.match(g?.fix ?? '', /use the responses surface for gpt-5\.5-codex/);
    assert.equal(check(r, 'generate-responses')?.result, 'pass', check(r, 'generate-responses')?.cause);
    assert.equal(check(r, 'stream-responses')?.result, 'pass', check(r, 'stream-responses')?.cause);
    assert.deepEqual(
      strict.log
        .filter((x) => x.path !== '/v1/models' && !x.path.startsWith('/api/'))
        .map((x) => `${x.path} ${x.status}`),
      ['/v1/chat/completions 400', '/v1/responses 200', '/v1/responses 200', '/v1/responses 200'],
      'refused once, moved once; then the responses checks go straight there',
    );
  },
);

test('a model the editor learnt (learntSurfaces) is checked on /v1/responses', T, async () => {
  const r = await runDiagnosis({
    baseUrl: strict.url,
    token: strict.tokens.production,
    models: { chat: 'gpt-4o-mini' },
    learntSurfaces: [{ model: 'gpt-5.5-codex', surface: 'responses' }],
    timeouts: { requestMs: 3_000, totalMs: 12_000 },
  });
  const g = check(r, 'generate-responses');
  assert.equal(g?.result, 'pass', g?.cause);
  assert.match(g?.cause ?? '', /with gpt-5\.5-codex/);
});

test('a chat model listed only for /v1/responses (o3-pro, real profile) is visible as a chat model', T, async () => {
  const r = await diagnose(real, { chat: 'o3-pro' });
  const v = check(r, 'visibility');
  assert.equal(v?.result, 'pass', v?.cause);
  assert.equal(check(r, 'generate-chat')?.result, 'warn', 'refused on chat completions, answered on /v1/responses');
});
