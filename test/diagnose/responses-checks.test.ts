/**
 * Diagnose on the responses surface (issue 23): a generation and a streaming check on /v1/responses
 * when the token sees a responses model — listed with new-api's `openai-response` (real profile), or
 * learnt from the refusal of a chat model that answers only there — and none when it sees none.
 * Each generation probe is the least its surface accepts (issue 38): 16 output tokens on
 * /v1/responses, one on chat completions in the field the model takes.
 */
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { runDiagnosis, type CheckId, type DiagnosisInput, type DiagnosisReport } from '../../src/gateway';
import { startSimulator, type Simulator } from '../sim/server';
import { openAiError, startRefusingUpstream } from '../gateway/refusingUpstream';

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
      ['/v1/chat/completions 404', '/v1/responses 200', '/v1/responses 200', '/v1/responses 200'],
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

test(
  'issue 38: the responses generation probe asks 16 output tokens, the least real upstreams take (they refuse 1)',
  T,
  async (t) => {
    const up = await startRefusingUpstream(() => real);
    t.after(() => up.close());
    // §1b: every model on /v1/responses refuses max_output_tokens below 16, in OpenAI's words.
    up.refuse({
      path: '/v1/responses',
      when: (b) => typeof b.max_output_tokens === 'number' && b.max_output_tokens < 16,
      status: 400,
      body: openAiError(
        "Invalid 'max_output_tokens': integer below minimum value. Expected a value >= 16, but got 1 instead.",
        'max_output_tokens',
        'integer_below_min_value',
      ),
    });
    const r = await runDiagnosis({
      baseUrl: up.url,
      token: real.tokens.production,
      models: { chat: 'gpt-4o-mini' },
      timeouts: { requestMs: 3_000, totalMs: 12_000 },
    });
    const g = check(r, 'generate-responses');
    assert.equal(g?.result, 'pass', g?.cause);
    assert.match(g?.cause ?? '', /with o3-pro \(max_output_tokens: 16\) answered 200/);
    const probes = up.received.filter((x) => x.path === '/v1/responses');
    assert.ok(probes.length > 0 && probes.every((x) => !x.refused && x.body.max_output_tokens >= 16));
  },
);

test('the chat completions probe of an OpenAI reasoning model says max_completion_tokens, as it went', T, async (t) => {
  const o3 = strict.config.models.find((m) => m.id === 'o3-pro')!;
  const caps = o3.capabilities;
  o3.capabilities = ['chat', 'responses'];
  t.after(() => void (o3.capabilities = caps));
  const up = await startRefusingUpstream(() => strict);
  t.after(() => up.close());
  const r = await diagnose({ ...strict, url: up.url }, { chat: 'o3-pro' });
  const g = check(r, 'generate-chat');
  assert.equal(g?.result, 'pass', g?.cause);
  assert.match(g?.cause ?? '', /with o3-pro \(max_completion_tokens: 1\) answered 200/);
  const probe = up.received.find((x) => x.path === '/v1/chat/completions' && !x.body.stream);
  assert.equal(probe?.body.max_completion_tokens, 1);
  assert.ok(!('max_tokens' in (probe?.body ?? {})));
});
