/** Direct wire checks of the simulator: framing, error shapes per profile, control API, masking. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import type { Simulator } from './server';
import { useBothProfiles } from './profiles';

const sims = useBothProfiles();

async function call(
  sim: Simulator,
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
) {
  const r = await request(`${sim.url}${path}`, {
    method: (init.method ?? 'GET') as 'GET',
    headers: init.headers,
    body: init.body,
  });
  return { status: r.statusCode, headers: r.headers, text: await r.body.text() };
}
const bearer = (sim: Simulator) => ({
  authorization: `Bearer ${sim.tokens.production}`,
  'content-type': 'application/json',
});

test('compatible SSE: chunks, finish, usage chunk on request, [DONE]', async () => {
  const r = await call(sims.strict, '/v1/chat/completions', {
    method: 'POST',
    headers: bearer(sims.strict),
    body: JSON.stringify({
      model: 'gpt-4o-mini',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'a b' }],
    }),
  });
  assert.match(String(r.headers['content-type']), /text\/event-stream/);
  const frames = r.text.split('\n\n').filter(Boolean);
  assert.equal(frames.at(-1), 'data: [DONE]');
  const usage = JSON.parse(frames.at(-2)!.slice(6));
  assert.deepEqual(usage.choices, []);
  assert.ok(usage.usage.total_tokens > 0);
  assert.equal(JSON.parse(frames[0].slice(6)).object, 'chat.completion.chunk');
  const noUsage = await call(sims.strict, '/v1/chat/completions', {
    method: 'POST',
    headers: bearer(sims.strict),
    body: JSON.stringify({ model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'a' }] }),
  });
  assert.ok(!noUsage.text.includes('"choices":[]'), 'strict: usage chunk only when asked');
  const realDefault = await call(sims.real, '/v1/chat/completions', {
    method: 'POST',
    headers: bearer(sims.real),
    body: JSON.stringify({ model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'a' }] }),
  });
  assert.ok(realDefault.text.includes('"choices":[]'), 'real: usage chunk by default');
});

test('native SSE: event names and order', async () => {
  const r = await call(sims.strict, '/v1/messages', {
    method: 'POST',
    headers: {
      'x-api-key': sims.strict.tokens.production,
      'native-version': '2023-06-01',
      'content-type': 'application/json',
    },
    body: JSON.stringify({
      model: 'claude-sonnet-4-5',
      max_tokens: 16,
      stream: true,
      messages: [{ role: 'user', content: 'hi there' }],
    }),
  });
  const events = [...r.text.matchAll(/^event: (\w+)$/gm)].map((m) => m[1]);
  assert.deepEqual(
    [...new Set(events)],
    [
      'message_start',
      'content_block_start',
      'ping',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ],
  );
  assert.equal(r.headers['request-id'], sims.strict.log.at(-1)!.requestId);
});

test('error shapes: sims.strict vs new-api (sims.real)', async () => {
  const s401 = await call(sims.strict, '/v1/messages', {
    method: 'POST',
    headers: { 'x-api-key': 'sk-nope', 'native-version': '2023-06-01' },
    body: '{}',
  });
  assert.equal(s401.status, 401);
  assert.equal(JSON.parse(s401.text).error.type, 'authentication_error');
  const r401 = await call(sims.real, '/v1/messages', {
    method: 'POST',
    headers: { 'x-api-key': 'sk-nope' },
    body: '{}',
  });
  const body = JSON.parse(r401.text);
  assert.equal(body.error.type, 'new_api_error', 'OpenAI-shaped even on /v1/messages');
  assert.match(body.error.message, /^Invalid token \(request id: \d{14}\d{9}[0-9a-f]{8}\S{8}\)$/);
  assert.ok(r401.headers['x-oneapi-request-id']);
  const r503 = await call(sims.real, '/v1/chat/completions', {
    method: 'POST',
    headers: bearer(sims.real),
    body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] }),
  });
  assert.equal(r503.status, 503);
  assert.equal(JSON.parse(r503.text).error.code, 'model_not_found');
  const s403 = await call(sims.strict, '/v1/chat/completions', {
    method: 'POST',
    headers: bearer(sims.strict),
    body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] }),
  });
  assert.equal(s403.status, 403);
});

test('paths: /v1/v1/messages is 404 before auth; a console page outside /v1', async () => {
  const r = await call(sims.strict, '/v1/v1/messages', { method: 'POST', body: '{}' });
  assert.equal(r.status, 404);
  assert.equal(JSON.parse(r.text).error.message, 'Invalid URL (POST /v1/v1/messages)');
  const page = await call(sims.strict, '/');
  assert.match(String(page.headers['content-type']), /text\/html/);
  assert.match(page.text, /<title>Model Relay Gateway Console<\/title>/);
});

test('400s: invalid JSON, native without max_tokens or native-version, chat model to images', async () => {
  assert.equal(
    (await call(sims.strict, '/v1/chat/completions', { method: 'POST', headers: bearer(sims.strict), body: '{nope' }))
      .status,
    400,
  );
  const h = { 'x-api-key': sims.strict.tokens.production, 'content-type': 'application/json' };
  assert.equal(
    (
      await call(sims.strict, '/v1/messages', {
        method: 'POST',
        headers: { ...h, 'native-version': '2023-06-01' },
        body: JSON.stringify({ model: 'claude-sonnet-4-5', messages: [{ role: 'user', content: 'x' }] }),
      })
    ).status,
    400,
  );
  const noVersion = await call(sims.strict, '/v1/messages', {
    method: 'POST',
    headers: h,
    body: JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] }),
  });
  assert.equal(noVersion.status, 400);
  assert.match(noVersion.text, /native-version/);
  assert.equal(
    (
      await call(sims.real, '/v1/messages', {
        method: 'POST',
        headers: { 'x-api-key': sims.real.tokens.production, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] }),
      })
    ).status,
    200,
    'real: version header optional',
  );
  const img = await call(sims.strict, '/v1/images/generations', {
    method: 'POST',
    headers: bearer(sims.strict),
    body: JSON.stringify({ model: 'gpt-4o-mini', prompt: 'x' }),
  });
  assert.equal(img.status, 400);
  assert.match(img.text, /does not support image generation/);
});

test('413 over the body limit; 429 from the per-token limit with Retry-After (sims.strict) or empty (sims.real)', async () => {
  const big = await call(sims.strict, '/v1/chat/completions', {
    method: 'POST',
    headers: bearer(sims.strict),
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x'.repeat(1_100_000) }] }),
  });
  assert.equal(big.status, 413);
  for (const sim of [sims.strict, sims.real]) {
    sim.config.rateLimit = { perToken: 1, windowMs: 30_000 };
    try {
      await call(sim, '/v1/models', { headers: bearer(sim) });
      const r = await call(sim, '/v1/models', { headers: bearer(sim) });
      assert.equal(r.status, 429);
      if (sim === sims.strict) assert.ok(Number(r.headers['retry-after']) > 0);
      else assert.equal(r.text, '');
    } finally {
      delete sim.config.rateLimit;
    }
  }
});

test('video: task lifecycle, content only after completion, sims.real progress strings', async () => {
  const form = new FormData();
  form.append('model', 'sora-2');
  form.append('prompt', 'waves');
  form.append('seconds', '4');
  const created = await fetch(`${sims.real.url}/v1/videos`, {
    method: 'POST',
    headers: { authorization: `Bearer ${sims.real.tokens.production}` },
    body: form,
  });
  const task = (await created.json()) as { id: string; task_id: string; status: string };
  assert.match(task.id, /^task_/);
  assert.equal(task.task_id, task.id);
  const early = await call(sims.real, `/v1/videos/${task.id}/content`, { headers: bearer(sims.real) });
  assert.equal(early.status, 400);
  assert.match(early.text, /not completed yet/);
  const statuses: string[] = [];
  for (let i = 0; i < 4; i++) {
    const r = JSON.parse((await call(sims.real, `/v1/videos/${task.id}`, { headers: bearer(sims.real) })).text);
    statuses.push(r.status);
    assert.equal(typeof r.progress, 'string');
  }
  assert.equal(statuses.at(-1), 'completed');
  const content = await call(sims.real, `/v1/videos/${task.id}/content`, { headers: bearer(sims.real) });
  assert.equal(content.status, 200);
  const unknown = await call(sims.real, '/v1/videos/task_nope', { headers: bearer(sims.real) });
  assert.equal(unknown.status, 400);
  assert.equal(JSON.parse(unknown.text).code, 'task_not_exist');
});

test('faults: count, host and path scoping; control API over HTTP', async () => {
  await request(`${sims.strict.url}/__sim/faults`, {
    method: 'POST',
    body: JSON.stringify({ kind: 'status', status: 502, count: 1, path: '/v1/models' }),
  });
  assert.equal((await call(sims.strict, '/v1/models', { headers: bearer(sims.strict) })).status, 502);
  assert.equal((await call(sims.strict, '/v1/models', { headers: bearer(sims.strict) })).status, 200);
  const log = JSON.parse(await (await request(`${sims.strict.url}/__sim/log`)).body.text());
  assert.deepEqual(
    log.map((r: { status: number }) => r.status),
    [502, 200],
  );
  await request(`${sims.strict.url}/__sim/reset`, { method: 'POST' });
  assert.equal(sims.strict.log.length, 0);
});

test('the usage log never holds a full token', async () => {
  await call(sims.strict, '/v1/models', { headers: bearer(sims.strict) });
  await call(sims.strict, '/v1/messages', {
    method: 'POST',
    headers: { 'x-api-key': sims.strict.tokens.production },
    body: '{}',
  });
  const text = JSON.stringify(sims.strict.log);
  assert.ok(!text.includes(sims.strict.tokens.production));
  assert.ok(text.includes(`${sims.strict.tokens.production.slice(0, 6)}...${sims.strict.tokens.production.slice(-4)}`));
});

test("strict profile: an existing model outside the token's group is 403 (spec 4 rule 2, 7); an unknown model 404", async () => {
  const chatOnly = sims.strict.tokens.test;
  const body = (model: string) => JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] });
  const outside = await call(sims.strict, '/v1/chat/completions', {
    method: 'POST',
    headers: { authorization: `Bearer ${chatOnly}`, 'content-type': 'application/json' },
    body: body('claude-sonnet-4-5'),
  });
  assert.equal(outside.status, 403);
  const unknown = await call(sims.strict, '/v1/chat/completions', {
    method: 'POST',
    headers: { authorization: `Bearer ${chatOnly}`, 'content-type': 'application/json' },
    body: body('no-such-model'),
  });
  assert.equal(unknown.status, 404);
});
