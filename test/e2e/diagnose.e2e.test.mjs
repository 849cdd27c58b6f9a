// E2E for Diagnose in a real VS Code: with the base URL set to {sim}/v1 the report shows the
// /v1/v1/messages finding and its fix button repairs the setting; a model the token's group cannot
// use shows the 403 cause.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startScenario, webviewFrame } from './harness.mjs';

let sim;
let vs;
let scenario;

before(async () => {
  scenario = await startScenario({
    baseUrl: (s) => `${s.url}/v1`,
    settings: {
      'modelRelay.models.chat': 'gpt-4o',
      'modelRelay.models.native': 'claude-sonnet-4-5',
      'modelRelay.models.image': 'gpt-image-1',
      'modelRelay.models.video': 'sora-2',
    },
  });
  ({ sim, vs } = scenario);
});

after(() => scenario?.stop());

/** The diagnosis panel's document (a webview: nested iframes). */
function panel() {
  return webviewFrame(vs.page);
}

test('Diagnose shows the /v1/v1/messages finding and the 403 group cause', async () => {
  await vs.waitForText('Relay: production', 60_000);
  await vs.runCommand('Model Relay: Diagnose Connection');
  const p = panel();
  await p.locator('[data-testid="diagnosis-summary"]').waitFor({ state: 'visible', timeout: 60_000 });
  const nativePath = p.locator('[data-testid="check-native-path"]');
  await nativePath.waitFor();
  assert.equal(await nativePath.getAttribute('data-result'), 'fail');
  assert.match(await nativePath.innerText(), /\/v1\/v1\/messages/);
  assert.match(await nativePath.innerText(), /404/);
  const chat = p.locator('[data-testid="check-generate-chat"]');
  assert.equal(await chat.getAttribute('data-result'), 'fail');
  assert.match(await chat.innerText(), /403/);
  assert.match(await chat.innerText(), /group/i);
  const all = await p.locator('body').innerText();
  assert.ok(
    all.includes(`${sim.tokens.production.slice(0, 6)}...${sim.tokens.production.slice(-4)}`),
    'masked token shown',
  );
  for (const t of Object.values(sim.tokens)) assert.ok(!all.includes(t), 'no full token in the report');
  await vs.screenshot('diagnose-01-v1-and-403');
});

test('the fix button repairs the base URL setting', async () => {
  const p = panel();
  await p.locator('[data-testid="fix-base-url"]').click();
  await vs.waitForText(`base URL set to ${sim.url}.`, 20_000);
  const read = (scope) => {
    try {
      return JSON.parse(readFileSync(join(vs.userDataDir, scope, 'settings.json'), 'utf8'))['modelRelay.baseUrl'];
    } catch {
      return undefined;
    }
  };
  assert.ok([read('Machine'), read('User')].includes(sim.url), 'the setting now holds the root address');
  await p.locator('[data-testid="check-native-path"][data-result="pass"]').waitFor({ timeout: 60_000 });
  await vs.screenshot('diagnose-02-fixed');
});

test('image and video checks run only when asked for, after a billing warning', async () => {
  const p = panel();
  const billed = () =>
    sim.log.filter((r) => r.method === 'POST' && (r.path === '/v1/images/generations' || r.path === '/v1/videos'));
  assert.equal(billed().length, 0, 'nothing billed by the plain runs');
  await p.locator('[data-testid="rerun-media"]').click();
  await vs.page.locator('.monaco-dialog-box').getByRole('button', { name: 'Run Them' }).click();
  await p.locator('[data-testid="check-generate-image"][data-result="pass"]').waitFor({ timeout: 90_000 });
  const video = p.locator('[data-testid="check-generate-video"]');
  assert.equal(await video.getAttribute('data-result'), 'pass', await video.innerText());
  assert.equal(billed().filter((r) => r.path === '/v1/videos').length, 1);
  await vs.screenshot('diagnose-03-media-checks');
});
