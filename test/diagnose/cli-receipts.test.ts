/**
 * `relay-doctor receipts [--json] [--since 24h|7d|30d] [--gateways FILE --gateway NAME]` as users run it
 * (dist/cli.js spawned) against the simulator's new-api: honest (exit 0, a row per billed record, a summary
 * per model, the disclaimer), dishonest (exit 1, the inconsistent check's sentence under its row), on the
 * usage log's vintages, in Chinese, from a gateways file, and with bad flags (exit 2).
 */
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { request } from 'undici';
import { startSimulator, type Simulator } from '../sim/server';
import { defaultUsageLog, type LogVintage } from '../sim/usageLog';
import { spawnCli } from './spawnCli';

const CLI = resolve(__dirname, '../../../dist/cli.js');
const T = { timeout: 60_000 };
const sims = {} as Record<LogVintage, Simulator>;
let dir: string;
before(async () => {
  assert.ok(existsSync(CLI), `${CLI} is missing: run "npm run build" first`);
  sims.NA26 = await startSimulator({ profile: 'real' });
  sims.NA25 = await startSimulator({ profile: 'real', gateway: 'new-api-2025' });
  sims.NA24 = await startSimulator({ profile: 'real', gateway: 'new-api-2025' });
  dir = await mkdtemp(join(tmpdir(), 'relay-doctor-receipts-'));
});
after(async () => {
  for (const s of Object.values(sims)) await s.close();
  await rm(dir, { recursive: true, force: true });
});
beforeEach(() => {
  for (const [vintage, s] of Object.entries(sims) as Array<[LogVintage, Simulator]>) {
    s.reset();
    s.config.usageLog = { ...defaultUsageLog(), delayMs: 0, vintage };
    s.config.dishonest = undefined;
  }
});

/** words that would overclaim: receipts name a witness and three states, never a verdict */
const VERDICT = /verified|genuine|authentic|fraud|overcharged|cheat|验证|真实/i;

async function run(sim: Simulator, args: string[], o: { lang?: 'zh'; env?: Record<string, string> } = {}) {
  const env = {
    PATH: process.env.PATH ?? '',
    MODEL_RELAY_BASE_URL: sim.url,
    MODEL_RELAY_TOKEN: sim.tokens.production,
    LANG: o.lang === 'zh' ? 'zh_CN.UTF-8' : 'en_US.UTF-8',
    TZ: 'UTC',
    COLUMNS: '200',
    ...o.env,
  };
  const r = await spawnCli(CLI, args, env, dir, 30_000);
  const bare = sim.tokens.production.replace(/^sk-/, '');
  assert.ok(!r.stdout.includes(bare) && !r.stderr.includes(bare), 'no token in the output');
  assert.doesNotMatch(r.stdout + r.stderr, VERDICT);
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

/** 200 words: a charge large enough that a 1.5× ratio is beyond the ±1 quota of rounding */
const PROMPT = Array.from({ length: 200 }, (_, i) => `w${i}`).join(' ');
const chat = (sim: Simulator, model = 'gpt-4o-mini') =>
  billed(sim, '/v1/chat/completions', { model, messages: [{ role: 'user', content: PROMPT }] });

interface JsonCheck {
  id: string;
  state: string;
  reason: string | null;
  text: string;
  inputs: Record<string, unknown>;
}
interface JsonReceipt {
  requestId: string | null;
  match: string;
  billedModel: string;
  upstreamModel: string | null;
  billingState: string;
  routeState: string;
  billing: JsonCheck[];
  route: JsonCheck[];
  charge: { quota: number; amount: number; unit: string; text: string };
}
interface JsonDoc {
  readAt: string;
  since: string | null;
  priceListReadAt: string | null;
  inconsistent: number;
  receipts: JsonReceipt[];
  perModel: Array<{ model: string; records: number; billing: Record<string, number>; redirects: number }>;
  disclaimer: string;
}

test(
  'an honest gateway: exit 0, a row per billed record with its marks, a summary per model, the disclaimer',
  T,
  async () => {
    const sim = sims.NA26;
    const first = await chat(sim);
    const image = await billed(sim, '/v1/images/generations', { model: 'gpt-image-1', prompt: 'a cat' });
    await chat(sim);
    const r = await run(sim, ['receipts']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(
      r.stdout,
      /^According to the gateway's log \(read \d{4}-\d\d-\d\d \d\d:\d\d UTC\), billed records: 3\.$/m,
    );
    assert.match(r.stdout, /^Price list as of \d{4}-\d\d-\d\d \d\d:\d\d UTC\.$/m);
    assert.match(
      r.stdout,
      /^time \(UTC\)\s+model\s+tokens in\/out\s+cost\s+formula\s+price list\s+tokens\s+input\s+redirect\s+forward$/m,
    );
    // formula and price list consistent, tokens and input not checkable (no call made here), no redirect, no forward
    const rows = r.stdout.split('\n').filter((l) => /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d/.test(l));
    assert.equal(rows.length, 3, r.stdout);
    for (const row of rows) assert.match(row, /\s✓\s+✓\s+–\s+–\s+✓\s+✓$/, row);
    assert.match(rows.join('\n'), /gpt-image-1\s+0\/0\s+\$0\.04/);
    assert.doesNotMatch(r.stdout, /^\s+! /m);
    assert.match(r.stdout, /^Per model$/m);
    assert.match(r.stdout, /^gpt-4o-mini\s+2\s+\$0\.\d+\s+2\/0\/0\s+0\s+0$/m);
    assert.match(r.stdout, /^gpt-image-1\s+1\s+\$0\.04\s+1\/0\/0\s+0\s+0$/m);
    assert.match(r.stdout, /No relay can currently prove which model served a request/);

    const j = await run(sim, ['receipts', '--json', '--since', '24h']);
    assert.equal(j.code, 0, j.stderr);
    const doc = JSON.parse(j.stdout) as JsonDoc;
    assert.equal(doc.since, '24h');
    assert.equal(doc.inconsistent, 0);
    assert.ok(doc.priceListReadAt);
    assert.equal(doc.receipts.length, 3);
    assert.deepEqual(doc.receipts.map((x) => x.requestId).slice(1), [image, first]);
    const one = doc.receipts[2];
    assert.equal(one.match, 'none');
    assert.equal(one.billingState, 'consistent');
    assert.deepEqual(
      one.billing.map((c) => [c.id, c.state, c.reason]),
      [
        ['arithmetic', 'consistent', null],
        ['price-list', 'consistent', null],
        ['tokens', 'not-checkable', 'no-call'],
        ['input', 'not-checkable', 'no-call'],
      ],
    );
    assert.match(one.billing[0].text, /^According to the gateway's log, the charge of \d+ quota matches its formula/);
    assert.equal(one.billing[1].inputs.price_list_read_at !== undefined, true);
    assert.deepEqual(
      one.route.map((c) => c.state),
      ['consistent', 'consistent'],
    );
    assert.equal(doc.perModel.find((m) => m.model === 'gpt-4o-mini')?.records, 2);
    assert.match(doc.disclaimer, /^No relay can currently prove/);
  },
);

test('a dishonest gateway: an overcharge is inconsistent with its sentence under the row, exit 1', T, async () => {
  const sim = sims.NA26;
  sim.config.dishonest = { overcharge: { factor: 1.5, recorded: 'charged' } };
  await chat(sim);
  const r = await run(sim, ['receipts']);
  assert.equal(r.code, 1, r.stdout + r.stderr);
  const row = r.stdout.split('\n').findIndex((l) => /^\d{4}-\d\d-\d\d /.test(l));
  assert.match(r.stdout.split('\n')[row], /\s✓\s+!\s+–\s+–\s+✓\s+✓$/);
  assert.match(
    r.stdout.split('\n')[row + 1],
    /^ {4}! inconsistent: According to the gateway's log, the ratios applied differ from the price list as of .+: model_ratio ×0\.1125 \(listed ×0\.075\)\.$/,
  );
  assert.match(r.stdout, /^gpt-4o-mini\s+1\s+\S+\s+0\/1\/0\s+0\s+0$/m);
});

test(
  'a charge computed with other ratios than the record says: the formula check is inconsistent; --json, exit 1',
  T,
  async () => {
    const sim = sims.NA26;
    sim.config.dishonest = { overcharge: { factor: 1.5, recorded: 'published' } };
    await chat(sim);
    const j = await run(sim, ['receipts', '--json']);
    assert.equal(j.code, 1, j.stderr);
    const doc = JSON.parse(j.stdout) as JsonDoc;
    assert.equal(doc.inconsistent, 1);
    const arithmetic = doc.receipts[0].billing[0];
    assert.equal(arithmetic.state, 'inconsistent');
    assert.match(arithmetic.text, /the receipt's quota \(\d+\) does not match its own ratios \(expected \d+/);
    assert.equal(typeof arithmetic.inputs.expected, 'number');
  },
);

test(
  'a recorded model redirect and a forward to another relay: the route marks, apart from billing; exit 1',
  T,
  async () => {
    const sim = sims.NA26;
    sim.config.dishonest = { mapModels: { 'gpt-4o-mini': 'gpt-4o-mini-lite' }, forward: true };
    await chat(sim);
    const r = await run(sim, ['receipts']);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stdout, /gpt-4o-mini → gpt-4o-mini-lite\s.*\s✓\s+✓\s+–\s+–\s+!\s+!$/m);
    assert.match(
      r.stdout,
      /^ {4}! inconsistent: According to the gateway's log, this call went to gpt-4o-mini-lite \(billed as gpt-4o-mini\)\.$/m,
    );
    assert.match(
      r.stdout,
      /^ {4}! inconsistent: According to the gateway's log, it forwarded this call to another one-api\/new-api relay/m,
    );
    assert.match(r.stdout, /^gpt-4o-mini\s+1\s+\S+\s+1\/0\/0\s+1\s+1$/m);
  },
);

test(
  'older logs (NA25, NA24: no request ids, read with ?key=): rows and checks as far as the vintage records them',
  T,
  async () => {
    for (const v of ['NA25', 'NA24'] as const) {
      const sim = sims[v];
      await chat(sim);
      const j = await run(sim, ['receipts', '--json']);
      assert.equal(j.code, 0, `${v}: ${j.stderr}`);
      const doc = JSON.parse(j.stdout) as JsonDoc;
      assert.equal(doc.receipts.length, 1, v);
      const [x] = doc.receipts;
      assert.equal(x.requestId, null);
      assert.equal(x.billing[0].state, 'consistent', `${v}: ${x.billing[0].text}`);
      // forwards are recorded since May 2026, redirects since February 2025
      assert.equal(x.route[1].reason, 'predates');
      assert.equal(x.route[0].state, v === 'NA24' ? 'not-checkable' : 'consistent');
    }
  },
);

test('in Chinese: the three states and the witness in the reference words', T, async () => {
  const sim = sims.NA26;
  sim.config.dishonest = { overcharge: { factor: 1.5, recorded: 'charged' } };
  await chat(sim);
  const r = await run(sim, ['receipts'], { lang: 'zh' });
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stdout, /^据中转站自身日志（读取于 .+），计费记录：1 条。$/m);
  assert.match(r.stdout, /✓ 一致 {3}! 不一致 {3}– 无法核对/);
  assert.match(r.stdout, /^ {4}! 不一致：据中转站自身日志，所用倍率与截至 .+ 的价格表不一致/m);
  assert.match(r.stdout, /目前没有任何中转能证明是哪个模型处理了请求/);
});

test(
  'an empty log says so (exit 0); --gateways FILE --gateway NAME reads the named gateway with its token variable',
  T,
  async () => {
    const sim = sims.NA26;
    const empty = await run(sim, ['receipts', '--since', '7d']);
    assert.equal(empty.code, 0, empty.stderr);
    assert.equal(empty.stdout, 'The gateway has no billed records for this token in the last 7d.\n');

    await chat(sim);
    const file = join(dir, 'gateways.json');
    await writeFile(
      file,
      JSON.stringify({
        gateways: [{ id: 'main', name: 'Main Relay', baseUrl: sim.url, tokenEnv: 'RELAY_MAIN_TOKEN' }],
      }),
    );
    const r = await run(sim, ['receipts', '--gateways', file, '--gateway', 'Main Relay'], {
      env: { MODEL_RELAY_BASE_URL: '', MODEL_RELAY_TOKEN: '', RELAY_MAIN_TOKEN: sim.tokens.production },
    });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /billed records: 1\./);
  },
);

test('bad flags are usage errors (exit 2); one-api has no usage log (exit 1 with cause)', T, async () => {
  const sim = sims.NA26;
  for (const [args, message] of [
    [['receipts', '--since', '1y'], /--since takes 24h, 7d or 30d \(got "1y"\)/],
    [['receipts', '--model', 'gpt-4o-mini'], /The option --model does not apply to "receipts"/],
    [['receipts', '--receipt'], /The option --receipt does not apply to "receipts"/],
    [['receipts', 'now'], /"receipts" takes no arguments \(got "now"\)/],
    [['receipts', '--all'], /The option --all does not apply to "receipts"/],
    [['usage', '--receipt'], /The option --receipt does not apply to "usage"/],
    [['chat', '--model', 'gpt-4o-mini', '--receipt=yes', 'hi'], /--receipt/],
  ] as Array<[string[], RegExp]>) {
    const r = await run(sim, args);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, message, args.join(' '));
    assert.equal(r.stdout, '');
  }
  const one = await startSimulator({ profile: 'real', gateway: 'one-api' });
  try {
    const r = await run(one, ['receipts']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /does not show a token its usage log/);
  } finally {
    await one.close();
  }
});

test('help names receipts, --receipt with its bound, the JSON shape and the exit codes', T, async () => {
  const r = await run(sims.NA26, ['--help']);
  assert.match(r.stdout, /relay-doctor receipts \[--json\] \[--since 24h\|7d\|30d\]/);
  assert.match(r.stdout, /\[--no-stream\] \[--receipt\] "prompt"/);
  assert.match(r.stdout, /--receipt {2}chat: after the answer, wait up to 70 s \(2 reads of the usage log at most/);
  assert.match(r.stdout, /receipts: \[\{time, requestId, match, matchText, requestedModel, billedModel/);
  assert.match(
    r.stdout,
    /receipts: 1 when a check of a record is inconsistent; 0 when every check is consistent or not checkable\./,
  );
  assert.match(r.stdout, /diagnose\|models\|quota\|usage\|receipts\|chat\|tools --gateways FILE --gateway NAME/);
});
