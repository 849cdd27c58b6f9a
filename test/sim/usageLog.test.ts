/**
 * The simulator's gateway usage log (GET /api/log/token): a record per relayed request with the response's
 * request id and the billed quota, visible after a delay, per vintage (Bearer / ?key= / without request ids /
 * one-api's 404), and the critical rate limit it shares with /api/usage/token/.
 */
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import { defaultConfig, startSimulator, type Simulator } from './server';
import { defaultEconomy, type GatewayFlavor } from './economy';
import { defaultUsageLog } from './usageLog';

const FLAVORS: GatewayFlavor[] = ['new-api', 'new-api-2025', 'one-api'];
const sims = {} as Record<GatewayFlavor, Simulator>;

before(async () => {
  for (const gateway of FLAVORS) sims[gateway] = await startSimulator({ profile: 'real', gateway });
});
after(async () => {
  for (const sim of Object.values(sims)) await sim.close();
});
beforeEach(() => {
  for (const [name, sim] of Object.entries(sims)) {
    sim.reset();
    Object.assign(sim.config, {
      ...defaultEconomy(),
      gateway: name,
      models: defaultConfig().models,
      usageLog: { ...defaultUsageLog(), delayMs: 0 },
    });
  }
});

type Headers = Record<string, string>;
async function call(sim: Simulator, path: string, init: { method?: string; headers?: Headers; body?: string } = {}) {
  const r = await request(`${sim.url}${path}`, {
    method: (init.method ?? 'GET') as 'GET',
    headers: init.headers,
    body: init.body,
  });
  const text = await r.body.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: r.statusCode, headers: r.headers, text, json };
}
const bearer = (sim: Simulator, name = 'production'): Headers => ({
  authorization: `Bearer ${sim.tokens[name]}`,
  'content-type': 'application/json',
});
const post = (sim: Simulator, path: string, body: unknown) =>
  call(sim, path, { method: 'POST', headers: bearer(sim), body: JSON.stringify(body) });
const readLog = (sim: Simulator) => call(sim, '/api/log/token', { headers: bearer(sim) });
const rid = (r: { headers: Record<string, unknown> }) => String(r.headers['x-oneapi-request-id']);

test('every relayed request leaves a record: request id, billed quota, tokens, stream, group, `other` as a string; newest first', async () => {
  const sim = sims['new-api'];
  const msgs = [{ role: 'user', content: 'one two three' }];
  const before = sim.tokenState('production').usedQuota;
  const chat = await post(sim, '/v1/chat/completions', { model: 'gpt-4o-mini', messages: msgs });
  const stream = await post(sim, '/v1/chat/completions', { model: 'gpt-4o-mini', messages: msgs, stream: true });
  const native = await post(sim, '/v1/messages', { model: 'claude-sonnet-4-5', max_tokens: 50, messages: msgs });
  const responses = await post(sim, '/v1/responses', { model: 'gpt-4o-mini', input: 'hello there' });
  const image = await post(sim, '/v1/images/generations', { model: 'gpt-image-1', prompt: 'a cat' });
  const video = await post(sim, '/v1/videos', { model: 'sora-2', prompt: 'a cat' });
  const sent = [chat, stream, native, responses, image, video];
  for (const r of sent) assert.equal(r.status, 200, r.text);
  const log = await readLog(sim);
  assert.equal(log.status, 200);
  assert.equal(log.json.success, true);
  const data = log.json.data as any[];
  assert.deepEqual(
    data.map((d) => d.request_id),
    sent.map(rid).reverse(),
    'newest first, with the X-Oneapi-Request-Id of each response',
  );
  assert.deepEqual(
    data.map((d) => d.id),
    [1, 2, 3, 4, 5, 6],
  );
  const spent = sim.tokenState('production').usedQuota - before;
  assert.equal(
    data.reduce((n, d) => n + d.quota, 0),
    spent,
    'the records add up to what was billed',
  );
  const [v, img, , , s, c] = data;
  assert.equal(v.model_name, 'sora-2');
  assert.equal(v.quota, 0.5 * 500_000);
  assert.equal(img.quota, 0.04 * 500_000);
  assert.equal(c.type, 2);
  assert.equal(c.is_stream, false);
  assert.equal(s.is_stream, true);
  assert.ok(c.prompt_tokens > 0 && c.completion_tokens > 0);
  assert.equal(c.quota, Math.round((c.prompt_tokens + c.completion_tokens * 4) * 0.075));
  assert.equal(c.token_name, 'production');
  assert.equal(c.group, 'default');
  assert.ok(Math.abs(c.created_at - Date.now() / 1000) < 5);
  assert.equal(typeof c.other, 'string');
  const other = JSON.parse(c.other);
  assert.equal(other.request_path, '/v1/chat/completions');
  assert.equal(typeof other.frt, 'number');
  assert.equal(other.model_ratio, 0.075);
  assert.equal(JSON.parse(data[3].other).request_path, '/v1/messages');
});

test('a record becomes visible after the configured delay', async () => {
  const sim = sims['new-api'];
  sim.config.usageLog.delayMs = 400;
  const r = await post(sim, '/v1/chat/completions', {
    model: 'gpt-4o-mini',
    messages: [{ role: 'user', content: 'x' }],
  });
  assert.deepEqual((await readLog(sim)).json.data, []);
  await new Promise((res) => setTimeout(res, 450));
  assert.equal((await readLog(sim)).json.data[0].request_id, rid(r));
});

test('a failed relay leaves a type-5 record when the gateway logs errors, none when it does not', async () => {
  const sim = sims['new-api'];
  const bad = await post(sim, '/v1/chat/completions', { model: 'gpt-4o-mini', messages: [] });
  assert.equal(bad.status, 500, 'new-api: field messages is required (provider-constraints.md §5f)');
  const [rec] = (await readLog(sim)).json.data;
  assert.equal(rec.type, 5);
  assert.equal(rec.quota, 0);
  assert.equal(rec.request_id, rid(bad));
  sim.reset();
  sim.config.usageLog.errorLog = false;
  await post(sim, '/v1/chat/completions', { model: 'gpt-4o-mini', messages: [] });
  assert.deepEqual((await readLog(sim)).json.data, []);
});

test('vintages: Bearer (2026) refuses ?key=; ?key= (older) reads an empty list for a Bearer header; without request ids; one-api 404', async () => {
  const now = sims['new-api'];
  const key = encodeURIComponent(now.tokens.production);
  const refused = await call(now, `/api/log/token?key=${key}`);
  assert.equal(refused.status, 401);
  assert.deepEqual(refused.json, { success: false, message: 'Token not provided' });

  const old = sims['new-api-2025'];
  const r = await post(old, '/v1/chat/completions', {
    model: 'gpt-4o-mini',
    messages: [{ role: 'user', content: 'x' }],
  });
  assert.deepEqual(
    (await readLog(old)).json,
    { success: true, message: '', data: [] },
    'the key is read from the query',
  );
  const byQuery = await call(old, `/api/log/token?key=${encodeURIComponent(old.tokens.production)}`);
  assert.equal(byQuery.json.data.length, 1);
  assert.ok(!('request_id' in byQuery.json.data[0]), 'records carry request ids only since 2026-02-04');
  assert.ok(!old.log.some((l) => l.path.includes(old.tokens.production)), 'the log keeps paths without the query');

  // A server of 2026-02-04/05: request ids in its records, the key still in the query.
  old.config.usageLog.vintage = 'NA26';
  const withId = await post(old, '/v1/chat/completions', {
    model: 'gpt-4o-mini',
    messages: [{ role: 'user', content: 'x' }],
  });
  const both = await call(old, `/api/log/token?key=${encodeURIComponent(old.tokens.production)}`);
  assert.equal(both.json.data[0].request_id, rid(withId));
  assert.ok(rid(r) !== rid(withId));

  const one = sims['one-api'];
  const missing = await readLog(one);
  assert.equal(missing.status, 404);
  assert.equal(missing.json.error.message, 'Invalid URL (GET /api/log/token)');
});

test("vintage query-refusing: a Bearer header alone or an unknown key is success:false; ?key= reads the records; only the query's names are recorded", async () => {
  const old = sims['new-api-2025'];
  old.config.usageLog.auth = 'query-refusing';
  const r = await post(old, '/v1/chat/completions', {
    model: 'gpt-4o-mini',
    messages: [{ role: 'user', content: 'x' }],
  });
  const refusal = { success: false, message: '无效的令牌' };
  const bare = await readLog(old);
  assert.deepEqual([bare.status, bare.json], [200, refusal], 'no key in the query: refused in a 200');
  assert.deepEqual((await call(old, '/api/log/token?key=sk-nobody')).json, refusal);
  const byQuery = await call(old, `/api/log/token?key=${encodeURIComponent(old.tokens.production)}`);
  assert.equal(r.status, 200);
  assert.deepEqual(
    byQuery.json.data.map((d: any) => [d.type, d.model_name, d.token_name]),
    [[2, 'gpt-4o-mini', 'production']],
  );
  const logged = old.log.filter((l) => l.path === '/api/log/token');
  assert.deepEqual(
    logged.map((l) => l.queryNames),
    [undefined, ['key'], ['key']],
  );
  assert.ok(!JSON.stringify(old.log).includes(old.tokens.production.slice(3)), 'never the key itself');
});

test('the log shares the critical rate limit with /api/usage/token/: an empty 429 without Retry-After; both are counted', async () => {
  const sim = sims['new-api'];
  sim.config.criticalRateLimit = { max: 3, windowMs: 60_000 };
  assert.equal((await call(sim, '/api/usage/token/', { headers: bearer(sim) })).status, 200);
  assert.equal((await readLog(sim)).status, 200);
  assert.equal((await call(sim, '/api/usage/token/', { headers: bearer(sim) })).status, 200);
  const limited = await readLog(sim);
  assert.equal(limited.status, 429);
  assert.equal(limited.text, '');
  assert.equal(limited.headers['retry-after'], undefined);
  assert.equal((await call(sim, '/api/usage/token/', { headers: bearer(sim) })).status, 429);
  assert.equal(sim.criticalRequests(), 5);
});

test('the record per vintage (relay-receipts.md §1): NA26 ids and later fields; NA25 group and cache fields, every row oldest first, id % 1024; NA24 no group, admin_info shown', async () => {
  const sim = sims['new-api-2025'];
  const chat = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'one two three' }] };
  const read = () => call(sim, `/api/log/token?key=${encodeURIComponent(sim.tokens.production)}`);
  const shapes: Record<string, { keys: string[]; other: string[] }> = {};
  for (const vintage of ['NA26', 'NA25', 'NA24'] as const) {
    sim.reset();
    sim.config.usageLog.vintage = vintage;
    await post(sim, '/v1/chat/completions', chat);
    await post(sim, '/v1/chat/completions', chat);
    const data = (await read()).json.data as any[];
    assert.equal(data.length, 2);
    shapes[vintage] = { keys: Object.keys(data[0]).sort(), other: Object.keys(JSON.parse(data[0].other)).sort() };
    if (vintage === 'NA26')
      assert.deepEqual(
        data.map((d) => d.id),
        [1, 2],
      );
    else
      assert.ok(data[0].created_at <= data[1].created_at && data[0].id < data[1].id, 'the table order, oldest first');
  }
  assert.ok(shapes.NA26.keys.includes('request_id') && shapes.NA26.keys.includes('group'));
  assert.ok(!shapes.NA25.keys.includes('request_id') && shapes.NA25.keys.includes('group'));
  assert.ok(!shapes.NA24.keys.includes('request_id') && !shapes.NA24.keys.includes('group'));
  assert.deepEqual(shapes.NA26.other, [
    'cache_ratio',
    'cache_tokens',
    'completion_ratio',
    'frt',
    'group_ratio',
    'model_price',
    'model_ratio',
    'request_path',
    'user_group_ratio',
  ]);
  assert.deepEqual(shapes.NA25.other, [
    'cache_ratio',
    'cache_tokens',
    'completion_ratio',
    'frt',
    'group_ratio',
    'model_price',
    'model_ratio',
  ]);
  assert.deepEqual(shapes.NA24.other, [
    'admin_info',
    'completion_ratio',
    'frt',
    'group_ratio',
    'model_price',
    'model_ratio',
  ]);
  // NA24 rounds K × completion ratio first; a per-token model records model_price -1
  const [r] = (await read()).json.data as any[];
  const o = JSON.parse(r.other);
  assert.equal(o.model_price, -1);
  assert.equal(r.quota, Math.round((r.prompt_tokens + Math.round(r.completion_tokens * 4)) * 0.075));
});

test("the upstream's prompt cache: OpenAI reads a repeated prefix of 1024+ tokens in steps of 128; Anthropic writes, then reads, up to its cache_control; both billed at their ratios", async () => {
  const sim = sims['new-api'];
  const context = Array.from({ length: 1100 }, (_, i) => `c${i}`).join(' ');
  const turn = (q: string) => ({
    model: 'gpt-4o-mini',
    messages: [
      { role: 'user', content: context },
      { role: 'assistant', content: 'ok' },
      { role: 'user', content: q },
    ],
  });
  const first = await post(sim, '/v1/chat/completions', turn('first'));
  assert.equal(first.json.usage.prompt_tokens_details, undefined, 'nothing cached yet');
  const second = await post(sim, '/v1/chat/completions', turn('second question'));
  // The repeated prefix in o200k with the cookbook's framing (3 + the role's 1 token per message): the
  // context's 2,300 tokens, then "ok"'s 1; read in steps of 128 above 1024.
  const prefix = 3 + 1 + 2300 + (3 + 1 + 1);
  const cached = 1024 + 128 * Math.floor((prefix - 1024) / 128);
  assert.equal(cached, 2304);
  assert.deepEqual(second.json.usage.prompt_tokens_details, { cached_tokens: cached });
  assert.equal(
    second.json.usage.prompt_tokens,
    prefix + (3 + 1 + 2) + 3,
    '"second question" is 2 tokens, then the priming',
  );
  const [rec] = (await readLog(sim)).json.data;
  const o = JSON.parse(rec.other);
  assert.deepEqual([o.cache_tokens, o.cache_ratio], [cached, 0.5]);
  assert.equal(rec.prompt_tokens, second.json.usage.prompt_tokens, 'the OpenAI semantic: P includes the cached tokens');
  const P = rec.prompt_tokens;
  assert.equal(rec.quota, Math.round((P - cached + cached * 0.5 + rec.completion_tokens * 4) * 0.075));

  const native = (q: string) =>
    call(sim, '/v1/messages', {
      method: 'POST',
      headers: { 'x-api-key': sim.tokens.production, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'claude-sonnet-4-5',
        max_tokens: 20,
        system: [{ type: 'text', text: context, cache_control: { type: 'ephemeral' } }],
        messages: [{ role: 'user', content: q }],
      }),
    });
  const write = (await native('hello there')).json.usage;
  const read = (await native('hello again')).json.usage;
  assert.equal(write.cache_creation_input_tokens, 1100);
  assert.equal(read.cache_read_input_tokens, 1100);
  assert.equal(read.input_tokens, 2 + 3, 'the Anthropic semantic: input excludes the cache');
  const [last] = (await readLog(sim)).json.data;
  const lo = JSON.parse(last.other);
  assert.deepEqual(
    [lo.usage_semantic, lo.cache_tokens, lo.cache_creation_tokens, lo.cache_ratio],
    ['anthropic', 1100, 0, 0.1],
  );
  assert.equal(last.quota, Math.round((5 + 1100 * 0.1 + last.completion_tokens * 5) * 1.5));
});

test('a dishonest gateway is switched on through PUT /__sim/config, each behaviour alone, and reset() makes it honest again', async () => {
  const sim = sims['new-api'];
  const chat = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'one two three' }] };
  await call(sim, '/__sim/config', {
    method: 'PUT',
    body: JSON.stringify({ dishonest: { mapModels: { 'gpt-4o-mini': 'cheap-mini' }, forward: true } }),
  });
  const mapped = await post(sim, '/v1/chat/completions', chat);
  assert.equal(mapped.json.model, 'cheap-mini', 'the response names the upstream model (passthrough)');
  const [rec] = (await readLog(sim)).json.data;
  assert.deepEqual(
    [JSON.parse(rec.other).is_model_mapped, JSON.parse(rec.other).upstream_model_name, rec.model_name],
    [true, 'cheap-mini', 'gpt-4o-mini'],
  );
  assert.match(rec.upstream_request_id, /^\d{14}/);
  sim.reset();
  const honest = await post(sim, '/v1/chat/completions', chat);
  assert.equal(honest.json.model, 'gpt-4o-mini');
  const [clean] = (await readLog(sim)).json.data;
  assert.equal(clean.upstream_request_id, undefined);
  assert.equal(JSON.parse(clean.other).is_model_mapped, undefined);
});
