/**
 * The diagnose panel's run logic (src/host/diagnose/diagnoseRuns.ts), in Node: one run at a time,
 * a progress bar that ends at 100 % with the engine's last step (checks that do not apply
 * included), and the cancellation listener let go when the run ends.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { runDiagnosis } from '../../src/gateway';
import { SingleRun, abortOn, progressSteps, type Cancellable } from '../../src/host/diagnose/diagnoseRuns';
import { startSimulator, type Simulator } from '../sim/server';

let sim: Simulator;
before(async () => {
  sim = await startSimulator({ profile: 'strict' });
});
after(() => sim.close());

test('Diagnose again while one runs: the running one is answered, no second run starts', async () => {
  const runs = new SingleRun<string>();
  let started = 0;
  let finish!: (v: string) => void;
  const start = () => {
    started++;
    return new Promise<string>((r) => (finish = r));
  };
  const first = runs.run(start);
  const second = runs.run(start);
  assert.equal(started, 1);
  assert.equal(runs.running, true);
  finish('report');
  assert.deepEqual(await Promise.all([first, second]), ['report', 'report']);
  assert.equal(runs.running, false);
  await runs.run(() => Promise.resolve('again'));
  assert.equal(started, 1, 'a finished run does not block the next');
  await assert.rejects(
    runs.run(() => Promise.reject(new Error('boom'))),
    /boom/,
  );
  assert.equal(runs.running, false, 'a failed run does not block the next either');
});

test('the progress bar reaches 100 % with the engine’s steps, whatever number of checks applies', async () => {
  const step = progressSteps();
  let total = 0;
  const report = await runDiagnosis({
    baseUrl: sim.url,
    token: sim.tokens.production,
    models: { chat: 'gpt-4o-mini' },
    timeouts: { requestMs: 3_000, totalMs: 12_000 },
    onProgress: (_c, p) => (total += step(p)),
  });
  assert.ok(report.checks.length < 15, `fewer checks ran (${report.checks.length}) than the engine has`);
  assert.ok(Math.abs(total - 100) < 1e-9, `ends at 100 %: ${total}`);
});

test('the cancellation listener is disposed when the run ends, and cancelling aborts', () => {
  let listeners = 0;
  let fire: (() => unknown) | undefined;
  const token: Cancellable = {
    isCancellationRequested: false,
    onCancellationRequested(l) {
      listeners++;
      fire = l;
      return { dispose: () => listeners-- };
    },
  };
  const c = abortOn(token);
  assert.equal(listeners, 1);
  fire!();
  assert.equal(c.signal.aborted, true);
  c.dispose();
  assert.equal(listeners, 0);
  const already = abortOn({ ...token, isCancellationRequested: true });
  assert.equal(already.signal.aborted, true);
  already.dispose();
});
