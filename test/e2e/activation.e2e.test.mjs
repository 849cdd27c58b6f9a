// E2E for activation in the real host: the extension host's own timing of Model Relay's activation
// (dist/extension.js, the light entry that registers a stand-in per contribution) beside a no-op
// extension activating in the same launch, and that everything arrives once the rest (dist/main.js)
// has loaded: the status bar's token and a command reaching its implementation. That a stand-in
// loads the rest on first use is proved in Node (test/host/activation.test.ts), where the background
// load cannot get there first; every contributed command and view: contributions.e2e.test.mjs.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { resultsDir, startScenario } from './harness.mjs';

const NOOP = join(dirname(fileURLToPath(import.meta.url)), 'fixtures/noop-ext');
const NOOP_NAME = 'Noop Activation Baseline (bench fixture)';

let scenario;
let vs;

before(async () => {
  // Tall enough that the Running Extensions list (virtualised) shows every row.
  scenario = await startScenario({ extraExtensions: [NOOP], viewport: { width: 1400, height: 2400 } });
  ({ vs } = scenario);
});

after(() => scenario?.stop());

test('once the rest has loaded, the status bar shows the token and a command reaches its implementation', async () => {
  await vs.waitForText('Relay: production', 60_000);
  await vs.runCommand('Model Relay: List Models');
  await vs.page
    .locator('.quick-input-widget', { hasText: 'models visible to this token' })
    .waitFor({ timeout: 30_000 });
  await vs.page.keyboard.press('Escape');
});

test('the extension host times the activation; the light entry keeps it near the no-op extension', async () => {
  await vs.waitForText('Relay: production', 60_000);
  const t = await vs.activationTimes(['Model Relay', NOOP_NAME], { timeout: 60_000 });
  mkdirSync(resultsDir, { recursive: true });
  writeFileSync(join(resultsDir, 'activation.json'), `${JSON.stringify(t)}\n`);
  // The goal (+50 ms over the no-op extension) is judged by `npm run bench` over several launches.
  // One launch on a busy machine varies with its load (both figures grow together), so this guards
  // against the regression it is for — the main part loaded at activation measured 4–10× the no-op.
  const [own, floor] = [t['Model Relay'].ms, t[NOOP_NAME].ms];
  assert.ok(own < 1.5 * floor + 50, `activation took ${own} ms, the no-op extension ${floor} ms`);
  await vs.screenshot('activation-01-running-extensions');
});
