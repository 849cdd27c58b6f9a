// E2E for the benchmark itself (issue 39 §4): every section of `npm run bench` runs once on small
// workloads (`node bench/run.mjs --smoke`) on the build test:e2e has just made (model-relay.vsix,
// dist/, out/ with bench/messages.ts compiled), so a row that no longer runs fails `npm test` rather
// than the next full bench. A section passes when it produced its rows without throwing; its figures
// are not judged here (`npm run bench` judges them, on a quiet machine). The real-host row launches the
// same cached code-server as the other scenarios. The run's JSON is kept in test-results/bench-smoke.json.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { resultsDir } from './harness.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
/** about 1.5 min on the 2-core CI machine; the bound leaves room for a loaded one */
const TIMEOUT_MS = 8 * 60_000;

/** Runs the smoke in a process group of its own, so a timeout also ends the browsers, code-server and simulators it started. */
function runSmoke(results) {
  const child = spawn(process.execPath, ['bench/run.mjs', '--smoke', `--results=${results}`], {
    cwd: root,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    process.kill(-child.pid, 'SIGKILL');
  }, TIMEOUT_MS);
  return new Promise((resolve) =>
    child.on('close', (code) => {
      clearTimeout(timer);
      // whatever a failed section left running in the group (a browser, code-server)
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // the group has ended
      }
      resolve({ code, output, timedOut });
    }),
  );
}

test('every row of npm run bench runs (bench/run.mjs --smoke)', async () => {
  mkdirSync(resultsDir, { recursive: true });
  const file = join(resultsDir, 'bench-smoke.json');
  rmSync(file, { force: true });
  const started = Date.now();
  const { code, output, timedOut } = await runSmoke(file);
  assert.ok(!timedOut, `the smoke did not end in ${TIMEOUT_MS / 60_000} min:\n${output}`);
  assert.ok(existsSync(file), `the smoke wrote no results (exit ${code}):\n${output}`);
  const r = JSON.parse(readFileSync(file, 'utf8'));
  assert.equal(r.mode, 'smoke');
  assert.ok(r.sectionNames.length > 0, 'no section listed');
  const notRun = r.sectionNames.filter((n) => !r.ran[n]);
  assert.deepEqual(notRun, [], `sections that did not run:\n${output}`);
  const failed = Object.entries(r.ran)
    .filter(([, x]) => x.error || x.rows === 0)
    .map(([n, x]) => `${n}: ${x.error ?? 'no row'}`);
  assert.deepEqual(failed, [], `sections that failed:\n${failed.join('\n\n')}`);
  assert.equal(code, 0, output);
  const times = Object.entries(r.ran).map(([n, x]) => `${n} ${(x.ms / 1000).toFixed(1)} s`);
  console.log(`bench smoke: ${Math.round((Date.now() - started) / 1000)} s (${times.join(', ')})`);
});
