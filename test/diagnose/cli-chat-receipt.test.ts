/**
 * `relay-doctor chat … --receipt` as users run it (dist/cli.js spawned) against the simulator: the answer
 * alone on stdout, the call's receipt on stderr once the gateway's usage log has its record — by request id
 * (NA26) or by time, token and model (NA25) — with a dishonest gateway's finding, from a gateways file; and a
 * bounded wait (two reads of the log, about a minute apart) that says honestly when the record has not come.
 * Each test has its own simulator, so they run side by side (the bounded wait takes over a minute).
 */
import { describe, test, before } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startSimulator, type Simulator } from '../sim/server';
import type { Dishonesty } from '../sim/accounting';
import { defaultUsageLog, type LogVintage } from '../sim/usageLog';
import { spawnCli } from './spawnCli';

const CLI = resolve(__dirname, '../../../dist/cli.js');
/** the receipt's bound (70 s, help.ts) and a margin for the run */
const WAIT_BOUND_MS = 70_000;
const PROMPT = Array.from({ length: 200 }, (_, i) => `w${i}`).join(' ');
const ANSWER = `Echo: ${PROMPT}\n`;

before(() => assert.ok(existsSync(CLI), `${CLI} is missing: run "npm run build" first`));

interface SimSetup {
  gateway?: 'new-api' | 'new-api-2025' | 'one-api';
  vintage?: LogVintage;
  delayMs?: number;
  dishonest?: Dishonesty;
}

/** A simulator of its own for one test, its usage log set up, closed afterwards. */
async function withSim(o: SimSetup, fn: (sim: Simulator) => Promise<void>) {
  const sim = await startSimulator({ profile: 'real', ...(o.gateway ? { gateway: o.gateway } : {}) });
  try {
    sim.config.usageLog = {
      ...defaultUsageLog(),
      delayMs: o.delayMs ?? 0,
      ...(o.vintage ? { vintage: o.vintage } : {}),
    };
    sim.config.dishonest = o.dishonest;
    await fn(sim);
  } finally {
    await sim.close();
  }
}

async function run(sim: Simulator, args: string[], env: Record<string, string> = {}, timeoutMs = 30_000) {
  const r = await spawnCli(
    CLI,
    args,
    {
      PATH: process.env.PATH ?? '',
      MODEL_RELAY_BASE_URL: sim.url,
      MODEL_RELAY_TOKEN: sim.tokens.production,
      LANG: 'en_US.UTF-8',
      TZ: 'UTC',
      ...env,
    },
    tmpdir(),
    timeoutMs,
  );
  const bare = sim.tokens.production.replace(/^sk-/, '');
  assert.ok(!r.stdout.includes(bare) && !r.stderr.includes(bare), 'no token in the output');
  assert.doesNotMatch(r.stdout + r.stderr, /verified|genuine|authentic|fraud|overcharged/i);
  return r;
}

const logReads = (sim: Simulator) => sim.log.filter((l) => l.path.startsWith('/api/log/token')).length;

describe('chat --receipt', { concurrency: true }, () => {
  test('NA26: the answer alone on stdout; the receipt on stderr, matched by request id, every check named', async () => {
    await withSim({}, async (sim) => {
      const r = await run(sim, ['chat', '--model', 'gpt-4o-mini', '--receipt', PROMPT]);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, ANSWER);
      const id = sim.log.find((l) => l.path === '/v1/chat/completions')?.requestId;
      assert.ok(id);
      const err = r.stderr;
      assert.match(err, /^relay-doctor: waiting up to 70 s for the gateway's record of this call…$/m);
      assert.ok(
        err.includes(
          `relay-doctor: receipt, according to the gateway's log: Gateway receipt ${id}, matched by request id.`,
        ),
        err,
      );
      assert.match(err, /^ {2}model: requested gpt-4o-mini, billed gpt-4o-mini$/m);
      assert.match(err, /^ {2}tokens: 407 in, 201 out, 0 cache read, 0 cache write$/m);
      assert.match(err, /^ {2}ratios recorded: model_ratio ×0\.075, completion_ratio ×4, group_ratio ×1/m);
      assert.match(
        err,
        /^ {4}formula — ✓ consistent: According to the gateway's log, the charge of \d+ quota matches/m,
      );
      assert.match(err, /^ {4}price list — ✓ consistent: According to the gateway's log, the ratios applied match/m);
      assert.match(
        err,
        /^ {4}tokens — ✓ consistent: According to the gateway's log, the billed tokens equal the tokens/m,
      );
      // the prompt counted here (o200k_base, OpenAI's framing), as the simulated OpenAI upstream billed it
      assert.match(
        err,
        /^ {4}input — ✓ consistent: According to the gateway's log, the 407 input tokens billed are consistent with a local count of 407 \(tokenizer o200k_base, ±21 tokens\)\.$/m,
      );
      assert.match(
        err,
        /^ {4}redirect — ✓ consistent: According to the gateway's log, no model redirect was recorded; this does not show/m,
      );
      assert.match(err, /^ {2}No relay can currently prove which model served a request/m);
      assert.equal(logReads(sim), 1, 'one read of the log');
    });
  });

  test('NA25 (no request id in the log): the record is matched by time, token and model', async () => {
    await withSim({ gateway: 'new-api-2025', vintage: 'NA25' }, async (sim) => {
      const r = await run(sim, ['chat', '--model', 'gpt-4o-mini', '--no-stream', '--receipt', PROMPT]);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, ANSWER);
      assert.match(
        r.stderr,
        /^relay-doctor: receipt, according to the gateway's log: Matched by time, token and model\.$/m,
      );
      assert.match(r.stderr, /^ {4}tokens — ✓ consistent: /m);
      assert.match(r.stderr, /^ {4}forward — – not checkable: Forwards to other relays could not be checked/m);
    });
  });

  test('a dishonest gateway: the inconsistent check says so on stderr; the exit code stays the chat’s', async () => {
    await withSim({ dishonest: { overcharge: { factor: 1.5, recorded: 'charged' } } }, async (sim) => {
      const r = await run(sim, ['chat', '--model', 'gpt-4o-mini', '--receipt', PROMPT]);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, ANSWER);
      assert.match(
        r.stderr,
        /^ {4}price list — ! inconsistent: According to the gateway's log, the ratios applied differ from the price list as of .+: model_ratio ×0\.1125 \(listed ×0\.075\)\.$/m,
      );
    });
  });

  test('from a gateways file: the receipt comes from the named gateway, with its own token variable', async () => {
    await withSim({}, async (sim) => {
      const dir = await mkdtemp(join(tmpdir(), 'relay-doctor-receipt-'));
      const file = join(dir, 'gateways.json');
      await writeFile(
        file,
        JSON.stringify({
          gateways: [{ id: 'main', name: 'Main Relay', baseUrl: sim.url, tokenEnv: 'RELAY_MAIN_TOKEN' }],
        }),
      );
      const r = await run(
        sim,
        ['chat', '--gateways', file, '--gateway', 'main', '--model', 'gpt-4o-mini', '--receipt', PROMPT],
        {
          MODEL_RELAY_BASE_URL: '',
          MODEL_RELAY_TOKEN: '',
          RELAY_MAIN_TOKEN: sim.tokens.production,
        },
      );
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, ANSWER);
      assert.match(r.stderr, /^relay-doctor: answered by gateway "Main Relay" with gpt-4o-mini\.$/m);
      assert.match(r.stderr, /matched by request id\.$/m);
    });
  });

  test('a gateway without a usage log (one-api): no receipt, said at once after the answer', async () => {
    await withSim({ gateway: 'one-api' }, async (sim) => {
      const r = await run(sim, ['chat', '--model', 'gpt-4o-mini', '--receipt', 'hello there']);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, 'Echo: hello there\n');
      assert.match(
        r.stderr,
        /^relay-doctor: This gateway does not show a token its usage log: the call has no receipt here\.$/m,
      );
    });
  });

  test('the record never shows: the wait is bounded (two reads of the log) and says the record is not there yet', async () => {
    // The record becomes visible only after ten minutes: as good as a log that does not record the call.
    await withSim({ delayMs: 600_000 }, async (sim) => {
      const started = Date.now();
      const r = await run(
        sim,
        ['chat', '--model', 'gpt-4o-mini', '--receipt', 'hello there'],
        {},
        WAIT_BOUND_MS + 20_000,
      );
      const took = Date.now() - started;
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, 'Echo: hello there\n');
      assert.match(
        r.stderr,
        /^relay-doctor: No record of this call in the gateway's log yet \(2 reads in 6\d s\): its receipt is not available now; relay-doctor receipts shows it once the gateway has written it\.$/m,
      );
      assert.doesNotMatch(r.stderr, /receipt, according to/);
      assert.ok(took < WAIT_BOUND_MS + 10_000, `bounded: ${took} ms`);
      // Two reads of the log; a read of an empty log may ask both ways (Bearer, then ?key=, usageLog.ts).
      const asked = logReads(sim);
      assert.ok(asked >= 2 && asked <= 4, `two reads of the log, no more (${asked} requests)`);
    });
  });
});
