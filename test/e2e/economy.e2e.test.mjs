// E2E for the gateway's economy in a real VS Code against the simulator's new-api profile: the
// status bar shows what is left on the token and turns to its warning look after a billed call
// crosses modelRelay.quota.warnBelow; an expired token's bare "Invalid token" 401 is explained as
// expired (with the date) in the chat's error card and in the diagnose panel.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startScenario, webviewFrame } from './harness.mjs';

let sim;
let vs;
let scenario;

before(async () => {
  // $7.50 left; the threshold sits just below it, so the first billed call crosses it.
  scenario = await startScenario({
    simOptions: { profile: 'real' },
    settings: { 'modelRelay.models.chat': 'gpt-4o-mini', 'modelRelay.quota.warnBelow': 7.499999 },
  });
  ({ sim, vs } = scenario);
});

after(() => scenario?.stop());

const relayItem = () => vs.page.locator('.statusbar-item', { hasText: 'Relay: production' }).first();
const chat = () => webviewFrame(vs.page);

async function sendChat(text) {
  await chat()
    .locator('[data-testid="chat-model"] option[value="gpt-4o-mini"]')
    .waitFor({ state: 'attached', timeout: 30_000 });
  await chat().locator('[data-testid="chat-model"]').selectOption('gpt-4o-mini');
  await chat().locator('[data-testid="chat-input"]').fill(text);
  await chat().locator('[data-testid="chat-input"]').press('Enter');
}

test('the status bar shows the balance, and the warning look once a billed call takes it below the threshold', async () => {
  await vs.waitForText('Relay: production · $7.50', 60_000);
  assert.doesNotMatch((await relayItem().getAttribute('class')) ?? '', /warning-kind|error-kind/);
  await vs.screenshot('economy-01-balance');
  await vs.runCommand('Model Relay: Open Chat');
  await chat().locator('[data-testid="chat-input"]').waitFor({ state: 'visible', timeout: 60_000 });
  await sendChat('a billed question');
  await chat()
    .locator('[data-testid="chat-message"][data-role="assistant"][data-status="done"]')
    .first()
    .waitFor({ timeout: 30_000 });
  assert.ok(sim.tokenState('production').remainQuota < 3_750_000, 'the simulator billed the call');
  // Read again soon after the billed call (at most once a minute): bounded wait.
  const end = Date.now() + 90_000;
  while (!/warning-kind/.test((await relayItem().getAttribute('class')) ?? '') && Date.now() < end)
    await new Promise((r) => setTimeout(r, 500));
  assert.match(
    (await relayItem().getAttribute('class')) ?? '',
    /warning-kind/,
    'the warning look after the billed call',
  );
  const usage = sim.log.filter((r) => r.path === '/api/usage/token/').length;
  assert.ok(
    usage >= 2 && usage <= 3,
    `the balance was read ${usage} times: at start and after the billed call, not on a fast timer`,
  );
  await vs.screenshot('economy-02-below-threshold');
});

test("an expired token's 401 is explained as expired in the chat's error card and in diagnose", async () => {
  sim.setToken('production', { expiresAt: Math.floor(Date.parse('2026-11-01T00:00:00Z') / 1000) });
  await sendChat('after expiry');
  const card = chat().locator('[data-testid="chat-message"][data-role="assistant"]').last();
  await card.locator('[data-testid="chat-error-card"]').waitFor({ timeout: 30_000 });
  const text = await card.innerText();
  assert.match(text, /expired on 2026-11-01/);
  assert.doesNotMatch(text, new RegExp(sim.tokens.production));
  await vs.screenshot('economy-03-expired-chat');
  await vs.runCommand('Model Relay: Diagnose Connection');
  const panel = webviewFrame(vs.page);
  await panel.locator('[data-testid="diagnosis-summary"]').waitFor({ state: 'visible', timeout: 60_000 });
  const token = panel.locator('[data-testid="check-token"]');
  assert.equal(await token.getAttribute('data-result'), 'fail');
  assert.match(await token.innerText(), /expired on 2026-11-01/);
  await vs.screenshot('economy-04-expired-diagnose');
});
