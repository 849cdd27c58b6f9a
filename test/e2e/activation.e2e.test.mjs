// E2E for activation in the real host: the extension host's own timing of Model Relay's activation
// (dist/extension.js, the light entry), and that everything still arrives once the rest has loaded:
// the status bar's balance-free text, the Status view's rows, and a command run through its stand-in.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { resultsDir, startScenario } from './harness.mjs';

let scenario;
let vs;

before(async () => {
  // Tall enough that the Running Extensions list (virtualised) shows every row.
  scenario = await startScenario({ viewport: { width: 1400, height: 2400 } });
  ({ vs } = scenario);
});

after(() => scenario?.stop());

test('a command run through its stand-in reaches the real implementation (the rest loads on first use)', async () => {
  await vs.waitForText('Relay: production', 60_000);
  await vs.runCommand('Model Relay: List Models');
  await vs.page
    .locator('.quick-input-widget', { hasText: 'models visible to this token' })
    .waitFor({ timeout: 30_000 });
  await vs.page.keyboard.press('Escape');
});

test('the extension host times the activation; the light entry keeps it small', async () => {
  await vs.waitForText('Relay: production', 60_000);
  const t = await vs.activationTime('Model Relay');
  mkdirSync(resultsDir, { recursive: true });
  writeFileSync(join(resultsDir, 'activation.json'), `${JSON.stringify(t)}\n`);
  // The goal (< 30 ms) is judged by `npm run bench` over several launches; this guards against a regression.
  assert.ok(t.ms < 100, `activation took ${t.ms} ms in the extension host`);
  await vs.screenshot('activation-01-running-extensions');
});
