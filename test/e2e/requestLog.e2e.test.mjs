// E2E for evidence that a request arrived, in a real VS Code against the simulator's new-api profile
// (which keeps the gateway's usage log): a chat reply, then Show Request Log — a read-only document in
// the editor whose row for the chat request says "arrived" with what the gateway billed — and Copy
// Support Report, opened as Markdown (and copied), once, with no token in it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startScenario, webviewFrame } from './harness.mjs';

let sim;
let vs;
let scenario;

before(async () => {
  scenario = await startScenario({
    simOptions: { profile: 'real' },
    settings: { 'modelRelay.models.chat': 'gpt-4o-mini' },
  });
  ({ sim, vs } = scenario);
});

after(() => scenario?.stop());

const chat = () => webviewFrame(vs.page);
const editor = () => vs.page.locator('.part.editor');

test('the request log shows the chat request as arrived, with what the gateway billed', async () => {
  await vs.waitForText('Relay: production', 60_000);
  await vs.runCommand('Model Relay: Open Chat');
  await chat().locator('[data-testid="chat-input"]').waitFor({ state: 'visible', timeout: 60_000 });
  await chat()
    .locator('[data-testid="chat-model"] option[value="gpt-4o-mini"]')
    .waitFor({ state: 'attached', timeout: 30_000 });
  await chat().locator('[data-testid="chat-model"]').selectOption('gpt-4o-mini');
  await chat().locator('[data-testid="chat-input"]').fill('did this arrive?');
  await chat().locator('[data-testid="chat-input"]').press('Enter');
  await chat()
    .locator('[data-testid="chat-message"][data-role="assistant"][data-status="done"]')
    .first()
    .waitFor({ timeout: 30_000 });
  // The gateway writes its record after the response; the reader allows 5 s before it calls it missing.
  await new Promise((r) => setTimeout(r, 7_000));
  await vs.runCommand('Model Relay: Show Request Log');
  await editor().getByText('arrived: billed').first().waitFor({ state: 'visible', timeout: 30_000 });
  const text = (await vs.pageText()).replace(/\u00a0/g, ' ');
  assert.match(text, /arrived: billed[^\n]*POST \/v1\/chat\/completions/, 'the chat request row says it arrived');
  assert.ok(!text.includes(sim.tokens.production), 'no full token on screen');
  const reads = sim.log.filter((r) => r.path.startsWith('/api/log/token')).length;
  assert.equal(reads, 1, `the whole log was looked up with one read of the usage log (${reads})`);
  await vs.screenshot('request-log-01-arrived');
});

test('Copy Support Report opens the report (one tab), copied, without the token', async () => {
  await vs.runCommand('Model Relay: Copy Support Report');
  await editor().getByText('Model Relay support report').first().waitFor({ state: 'visible', timeout: 30_000 });
  await vs.waitForText('support report was copied to the clipboard');
  const tabs = await vs.page
    .locator('.tab')
    .evaluateAll((ts) => ts.map((t) => t.getAttribute('aria-label') ?? '').filter((l) => l.includes('support report')));
  assert.equal(tabs.length, 1, `the report is open once: ${JSON.stringify(tabs)}`);
  const text = await vs.pageText();
  assert.ok(!text.includes(sim.tokens.production), 'no full token in the report');
  await vs.screenshot('request-log-02-support-report');
});
