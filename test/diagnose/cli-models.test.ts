/**
 * `relay-doctor models [--json]` with prices and groups, as users run it (dist/cli.js spawned,
 * configured through the environment) against the simulator's new-api (public prices, per token, per
 * call and dynamic), new-api with pricing disabled, one-api (no /api/pricing) and a CNY gateway.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { startSimulator, type Simulator } from '../sim/server';
import { spawnCli } from './spawnCli';

const CLI = resolve(__dirname, '../../../dist/cli.js');
const sims = {} as Record<'newApi' | 'oneApi' | 'cny' | 'closed', Simulator>;
before(async () => {
  assert.ok(existsSync(CLI), `${CLI} is missing: run "npm run build" first`);
  sims.newApi = await startSimulator({ profile: 'real' });
  sims.oneApi = await startSimulator({ profile: 'real', gateway: 'one-api' });
  sims.cny = await startSimulator({ profile: 'real', displayType: 'CNY' });
  sims.closed = await startSimulator({ profile: 'real', pricingAccess: 'disabled' });
});
after(async () => {
  for (const s of Object.values(sims)) await s.close();
});

async function run(sim: Simulator, args: string[], extra: Record<string, string> = {}) {
  const r = await spawnCli(
    CLI,
    args,
    { PATH: process.env.PATH ?? '', MODEL_RELAY_BASE_URL: sim.url, MODEL_RELAY_TOKEN: sim.tokens.production, ...extra },
    process.cwd(),
    20_000,
  );
  assert.ok(!`${r.stdout}${r.stderr}`.includes(sim.tokens.production), 'no full token in the output');
  return r;
}

interface ModelJson {
  id: string;
  price: { unit: string; dynamic: boolean; input?: number; output?: number; perCall?: number } | null;
  groups: string[] | null;
}

const byId = (stdout: string) => {
  const j = JSON.parse(stdout) as { pricing: string; models: ModelJson[]; unlisted: ModelJson[] };
  return {
    pricing: j.pricing,
    models: new Map(j.models.map((m) => [m.id, m])),
    unlisted: new Map(j.unlisted.map((m) => [m.id, m])),
  };
};

test('new-api: --json has each model price per 1M tokens, per call or dynamic, and its groups', async () => {
  const r = await run(sims.newApi, ['models', '--json']);
  assert.equal(r.code, 0, r.stderr);
  const { pricing, models, unlisted } = byId(r.stdout);
  assert.equal(pricing, 'published');
  // ratio 0.075 × group default 1 → $0.15 per 1M in, × completion 4 → $0.60 out
  assert.deepEqual(models.get('gpt-4o-mini'), {
    id: 'gpt-4o-mini',
    capabilities: ['chat'],
    ownedBy: 'openai',
    price: { unit: 'USD', dynamic: false, input: 0.15, output: 0.6 },
    groups: ['default', 'vip'],
  });
  assert.deepEqual(models.get('dall-e-3')?.price, { unit: 'USD', dynamic: false, perCall: 0.04 });
  // A model in no channel of the token's group: not in its list, but priced, with the groups that have it.
  assert.equal(models.get('qwen3-max'), undefined);
  assert.deepEqual(unlisted.get('qwen3-max'), {
    id: 'qwen3-max',
    capabilities: null,
    ownedBy: null,
    price: { unit: 'USD', dynamic: true },
    groups: ['default'],
  });
});

test('new-api: the table shows prices, "priced by usage tier" and groups; a header names the columns', async () => {
  const r = await run(sims.newApi, ['models']);
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stdout.trimEnd().split('\n');
  assert.match(lines[0], /^Model\s+Capabilities\s+Price\s+Groups$/);
  const line = (id: string) => lines.find((l) => l.startsWith(`${id} `)) ?? '';
  assert.match(line('gpt-4o-mini'), /chat\s+\$0\.15 in \/ \$0\.60 out per 1M tokens\s+default, vip$/);
  assert.match(line('dall-e-3'), /\$0\.04 per call\s+default, vip$/);
  const section = lines.findIndex((l) => /^Priced by the gateway, but not in this token's list/.test(l));
  assert.ok(section > lines.indexOf(line('gpt-4o-mini')), r.stdout);
  assert.ok(lines.indexOf(line('qwen3-max')) > section);
  assert.match(line('qwen3-max'), /priced by usage tier\s+default$/);
  // the columns line up: every row's price starts where the header's does
  const at = lines[0].indexOf('Price');
  assert.equal(line('gpt-4o-mini').indexOf('$0.15'), at);
  assert.equal(line('qwen3-max').indexOf('priced by usage tier'), at);
  const zh = await run(sims.newApi, ['models'], { LANG: 'zh_CN.UTF-8' });
  assert.match(zh.stdout, /^模型\s+能力\s+价格\s+分组$/m);
  assert.match(zh.stdout, /qwen3-max .*按用量阶梯计价\s+default$/m);
});

test('a CNY gateway: prices in its own unit', async () => {
  const r = await run(sims.cny, ['models', '--json']);
  assert.equal(r.code, 0, r.stderr);
  const p = byId(r.stdout).models.get('gpt-4o-mini')?.price;
  assert.equal(p?.unit, 'CNY');
  assert.ok(Math.abs((p?.input ?? 0) - 0.15 * 7.3) < 1e-9, JSON.stringify(p));
  const table = await run(sims.cny, ['models']);
  assert.match(table.stdout, /gpt-4o-mini .*¥1\.09 in \/ ¥4\.38 out per 1M tokens/);
});

test('no published prices (one-api, pricing disabled): the models with "—", null in --json, and a note', async () => {
  for (const sim of [sims.oneApi, sims.closed]) {
    const j = await run(sim, ['models', '--json']);
    assert.equal(j.code, 0, j.stderr);
    const { pricing, models, unlisted } = byId(j.stdout);
    assert.equal(pricing, 'unavailable');
    assert.equal(unlisted.size, 0);
    assert.deepEqual([models.get('gpt-4o-mini')?.price, models.get('gpt-4o-mini')?.groups], [null, null]);
    const r = await run(sim, ['models']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^gpt-4o-mini\s+chat\s+—\s+—$/m);
    assert.match(r.stderr, /publishes no prices/);
  }
});
