/**
 * relay-doctor's streamed output and start-up (issue 15): text reaches stdout in 16 KB batches
 * (not one write per delta) yet a slow stream still appears within a moment; `--max-tokens`;
 * `--version` and `--help` answered by dist/cli.js without loading the core (dist/cli-core.js).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startSimulator, type Simulator } from '../sim/server';
import { main } from '../../src/cli/main';
import { BATCH_CHARS, BATCH_DELAY_MS, BatchedWriter } from '../../src/cli/batch';

const CLI = resolve(__dirname, '../../../dist/cli.js');
const ROOT = resolve(__dirname, '../../..');
const T = { skip: existsSync(CLI) ? false : 'run `npm run build` first' };

let sim: Simulator;
before(async () => {
  sim = await startSimulator();
});
after(() => sim.close());

function io(args: string[]) {
  const writes: string[] = [];
  let err = '';
  return {
    writes,
    err: () => err,
    run: () =>
      main({
        argv: args,
        env: { MODEL_RELAY_BASE_URL: sim.url, MODEL_RELAY_TOKEN: sim.tokens.production },
        cwd: ROOT,
        stdout: { write: (s: string) => writes.push(s), isTTY: false },
        stderr: { write: (s: string) => (err += s), isTTY: false },
      }),
  };
}

test('BatchedWriter: 16 KB writes, the rest after a short pause, the tail in the last write', async () => {
  const writes: string[] = [];
  const w = new BatchedWriter({ write: (s: string) => writes.push(s) }, (s) => s.toUpperCase());
  const delta = 'abcdefgh';
  for (let i = 0; i < (3 * BATCH_CHARS) / delta.length; i++) w.write(delta);
  assert.equal(writes.length, 3, 'three full batches');
  assert.ok(
    writes.every((s) => s.length === BATCH_CHARS && s === s.toUpperCase()),
    'each batch transformed whole',
  );
  w.write('slow');
  assert.equal(writes.length, 3, 'a small delta waits');
  await sleep(BATCH_DELAY_MS * 5);
  assert.deepEqual(writes.slice(3), ['SLOW'], 'then appears on its own');
  w.write('');
  w.write('end');
  w.flush('\n');
  assert.deepEqual(writes.slice(4), ['END\n']);
  assert.equal(w.wrote, true);
  const quiet = new BatchedWriter({ write: (s: string) => writes.push(s) });
  quiet.flush('');
  assert.equal(writes.length, 5, 'nothing written for nothing');
});

for (const surface of ['compatible', 'native'] as const) {
  test(`chat --surface ${surface}: a long reply in a few 16 KB writes, whole and in order`, async () => {
    const words = Array.from({ length: 20_000 }, (_, i) => `w${i}`).join(' ');
    sim.config.replyText = words;
    try {
      const model = surface === 'native' ? 'claude-sonnet-4-5' : 'gpt-4o-mini';
      const r = io(['chat', '--surface', surface, '--model', model, '--max-tokens', '40000', 'go']);
      assert.equal(await r.run(), 0, r.err());
      assert.equal(r.writes.join(''), `${words}\n`);
      // 16 KB batches, plus whatever a pause between socket chunks flushed early: nothing like one write per delta
      assert.ok(
        r.writes.length >= Math.ceil(words.length / BATCH_CHARS) && r.writes.length < 60,
        `${r.writes.length} writes for ${words.length} characters in 20,000 deltas`,
      );
    } finally {
      sim.config.replyText = undefined;
    }
  });
}

test('chat --max-tokens is sent (the reply stops there, exit 4) and must be a positive whole number', async () => {
  sim.config.replyText = 'one two three four five six';
  try {
    const r = io(['chat', '--model', 'gpt-4o-mini', '--max-tokens', '2', 'go']);
    assert.equal(await r.run(), 4, `cut by the output budget: exit 4\n${r.err()}`);
    assert.equal(r.writes.join(''), 'one two\n');
    assert.match(r.err(), /the answer was cut by the output budget \(max tokens 2\)/);
    for (const bad of ['0', '1.5', 'many', '-3']) {
      const b = io(['chat', '--model', 'gpt-4o-mini', '--max-tokens', bad, 'go']);
      assert.equal(await b.run(), 2, bad);
      if (bad !== '-3') assert.match(b.err(), /--max-tokens must be a positive whole number/); // "-3" is refused by the option parser itself
    }
    const q = io(['quota', '--max-tokens', '5']);
    assert.equal(await q.run(), 2);
  } finally {
    sim.config.replyText = undefined;
  }
});

test('--version says the package version (main and dist/cli.js alike)', T, async () => {
  const { version } = JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8')) as { version: string };
  const r = io(['--version']);
  assert.equal(await r.run(), 0);
  assert.deepEqual(r.writes, [`relay-doctor ${version}\n`]);
  const p = spawnSync(process.execPath, [CLI, '--version'], { encoding: 'utf8' });
  assert.equal(p.status, 0, p.stderr);
  assert.equal(p.stdout, `relay-doctor ${version}\n`);
  const viaBin = spawnSync(process.execPath, [resolve(ROOT, 'scripts/relay-doctor.cjs'), '-V'], { encoding: 'utf8' });
  assert.equal(viaBin.stdout, `relay-doctor ${version}\n`);
});

test('--version and --help do not load the core (undici, zod, the client)', T, () => {
  const probe = `
    const Module = require('node:module');
    const seen = [];
    const load = Module._load;
    Module._load = function (request, ...rest) { seen.push(request); return load.call(this, request, ...rest); };
    process.on('exit', () => process.stderr.write('LOADED ' + JSON.stringify(seen)));
    require(${JSON.stringify(CLI)}).run([process.env.FLAG]).then((c) => { process.exitCode = c; });`;
  for (const flag of ['--version', '--help']) {
    const p = spawnSync(process.execPath, ['-e', probe], { encoding: 'utf8', env: { ...process.env, FLAG: flag } });
    assert.equal(p.status, 0, p.stderr);
    const loaded = JSON.parse(p.stderr.slice(p.stderr.indexOf('LOADED ') + 7)) as string[];
    assert.ok(!loaded.some((m) => /cli-core|undici|zod/.test(m)), `${flag} loaded ${loaded.join(', ')}`);
  }
  const usage = spawnSync(process.execPath, [CLI, 'chat'], { encoding: 'utf8', env: {} });
  assert.equal(usage.status, 2, 'anything else goes to the core');
  assert.match(usage.stderr, /MODEL_RELAY_BASE_URL is not set/);
});
