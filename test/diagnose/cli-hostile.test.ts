/**
 * relay-doctor against a hostile gateway, as a whole process under a small heap (issue 21): one
 * stream event of 300 MB without a newline is stopped at the event cap and named (it used to grow
 * the process to 3.4 GB and abort out of memory); a model list of 500,000 entries is printed (it
 * used to crash with "Maximum call stack size exceeded"). The simulator streams the bytes; nothing
 * here holds them.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { startSimulator, type Simulator } from '../sim/server';
import { spawnCli } from './spawnCli';
import { MAX_STREAM_EVENT_BYTES } from '../../src/gateway';

const CLI = resolve(__dirname, '../../../dist/cli.js');
const ROOT = resolve(__dirname, '../../..');
const T = { skip: existsSync(CLI) ? false : 'run `npm run build` first', timeout: 60_000 };
const MB = 1024 * 1024;

let sim: Simulator;
before(async () => {
  sim = await startSimulator();
});
after(() => sim.close());

const env = () => ({
  PATH: process.env.PATH ?? '',
  MODEL_RELAY_BASE_URL: sim.url,
  MODEL_RELAY_TOKEN: sim.tokens.production,
  // A heap far below what the old unbounded read needed: it would abort out of memory.
  NODE_OPTIONS: '--max-old-space-size=96',
});

for (const surface of ['compatible', 'native'] as const) {
  test(
    `relay-doctor chat (${surface}): a 300 MB event without a newline is stopped and named, in a 96 MB heap`,
    T,
    async () => {
      sim.reset();
      sim.fault({ kind: 'hugeEvent', bytes: 300 * MB });
      const model = surface === 'native' ? 'claude-sonnet-4-5' : 'gpt-4o-mini';
      const run = await spawnCli(CLI, ['chat', '--surface', surface, '--model', model, 'hi'], env(), ROOT, 45_000);
      assert.equal(run.code, 1, `exit 1 with a classified error, not a crash:\n${run.stderr.slice(0, 2000)}`);
      assert.match(run.stderr, new RegExp(`one stream event larger than ${MAX_STREAM_EVENT_BYTES / MB} MB`));
      assert.match(run.stderr, /error \(protocol, HTTP 200\)/);
      assert.match(run.stderr, /cause: /);
      assert.match(run.stderr, /fix: /);
      assert.doesNotMatch(run.stderr, /heap out of memory|Maximum call stack/);
      const rec = sim.log.find((l) => l.path.startsWith('/v1/'))!;
      assert.ok((rec.bytesSent ?? 0) < 64 * MB, `the rest was never read (${rec.bytesSent} bytes sent)`);
    },
  );
}

test('relay-doctor models: a list of 500,000 models is printed, not a stack overflow', T, async () => {
  sim.reset();
  sim.fault({ kind: 'manyModels', models: 500_000 });
  const run = await spawnCli(CLI, ['models'], { ...env(), NODE_OPTIONS: '' }, ROOT, 45_000);
  assert.equal(run.code, 0, run.stderr.slice(0, 2000));
  assert.doesNotMatch(run.stderr, /Maximum call stack/);
  const lines = run.stdout.split('\n').filter(Boolean);
  assert.equal(lines.length, 1 + 500_000, 'a header row, then one row per model');
  assert.match(lines[0], /^Model\s+Capabilities\s+Price\s+Groups$/);
  assert.equal(lines[1].split(/\s+/)[0], 'model-0000000');
});
