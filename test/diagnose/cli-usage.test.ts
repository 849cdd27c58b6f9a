/**
 * `relay-doctor usage [--json] [--since 24h|7d|30d]` as users run it (dist/cli.js spawned, configured
 * through the environment) against the simulator's new-api (a few billed calls) and one-api.
 */
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { request } from 'undici';
import { startSimulator, type Simulator } from '../sim/server';
import { defaultUsageLog } from '../sim/usageLog';
import { spawnCli } from './spawnCli';

const CLI = resolve(__dirname, '../../../dist/cli.js');
const sims = {} as Record<'newApi' | 'oneApi', Simulator>;
before(async () => {
  assert.ok(existsSync(CLI), `${CLI} is missing: run "npm run build" first`);
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

async function run(sim: Simulator, args: string[], lang = 'en') {
  const env = {
    PATH: process.env.PATH ?? '',
    MODEL_RELAY_BASE_URL: sim.url,
    MODEL_RELAY_TOKEN: sim.tokens.production,
    LANG: lang === 'zh' ? 'zh_CN.UTF-8' : 'en_US.UTF-8',
    TZ: 'UTC',
  };
  const r = await spawnCli(CLI, args, env, process.cwd(), 15_000);
  const bare = sim.tokens.production.replace(/^sk-/, '');
  assert.ok(!r.stdout.includes(bare) && !r.stderr.includes(bare), 'no token in the output');
  return r;
}

async function billed(sim: Simulator, path: string, body: unknown) {
  const r = await request(`${sim.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${sim.tokens.production}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  await r.body.text();
  assert.equal(r.statusCode, 200);
  return String(r.headers['x-oneapi-request-id']);
}

test('usage: totals, per day, per model and the records in the gateway unit; --json has the records with `other` parsed', async () => {
  const sim = sims.newApi;
  const chat = await billed(sim, '/v1/chat/completions', {
    model: 'gpt-4o-mini',
    messages: [{ role: 'user', content: 'one two three' }],
  });
  const image = await billed(sim, '/v1/images/generations', { model: 'gpt-image-1', prompt: 'a cat' });
  const r = await run(sim, ['usage']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^Today: \$0\.\d+ in 2 requests/m);
  assert.match(r.stdout, /^Per model$/m);
  assert.match(r.stdout, /^gpt-image-1\s+1\s+0\/0\s+\$0\.04$/m);
  assert.ok(r.stdout.includes(chat) && r.stdout.includes(image), r.stdout);

  const j = await run(sim, ['usage', '--json', '--since', '24h']);
  assert.equal(j.code, 0, j.stderr);
  const doc = JSON.parse(j.stdout);
  assert.equal(doc.unit, 'USD');
  assert.equal(doc.since, '24h');
  assert.deepEqual(
    doc.records.map((x: { requestId: string }) => x.requestId),
    [image, chat],
  );
  assert.equal(doc.records[1].other.request_path, '/v1/chat/completions');
  assert.equal(doc.records[0].cost.amount, 0.04);
  assert.equal(doc.summary.today.requests, 2);
  assert.equal(doc.summary.perModel[0].model, 'gpt-image-1');
});

test('usage in Chinese; an unknown --since is a usage error; one-api has no usage log (exit 1 with cause and fix)', async () => {
  await billed(sims.newApi, '/v1/chat/completions', {
    model: 'gpt-4o-mini',
    messages: [{ role: 'user', content: 'hi' }],
  });
  const zh = await run(sims.newApi, ['usage'], 'zh');
  assert.equal(zh.code, 0, zh.stderr);
  assert.match(zh.stdout, /^今天：/m);

  const bad = await run(sims.newApi, ['usage', '--since', '1y']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--since takes 24h, 7d or 30d \(got "1y"\)/);

  const one = await run(sims.oneApi, ['usage']);
  assert.equal(one.code, 1);
  assert.match(one.stderr, /does not show a token its usage log/);
  assert.match(one.stderr, /cause: .*GET \/api\/log\/token/);
});

test('help names the usage command', async () => {
  const r = await run(sims.newApi, ['--help']);
  assert.match(r.stdout, /relay-doctor usage \[--json\] \[--since 24h\|7d\|30d\]/);
});
