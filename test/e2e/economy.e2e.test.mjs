// E2E for the gateway's economy in a real VS Code against the simulator's new-api profile: the
// status bar shows what is left on the token and turns to its warning look after a billed call
// crosses modelRelay.quota.warnBelow; an expired token's bare "Invalid token" 401 is explained as
// expired (with the date) in the chat's error card and in the diagnose panel. And the amount is in
// the gateway's currency after start, after a token switch and after a reload, even when the first
// /api/status read of a window fails (it was kept as "no units" for an hour: "1.9M tokens" for $3.75).
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { startScenario, webviewFrame } from './harness.mjs';

describe("the balance: its warning look, an expired token's refusal", () => {
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
});

describe("the amount in the gateway's currency (USD, 500,000 quota per unit) when a status read fails", () => {
  let sim;
  let vs;
  let scenario;
  /** every text the status bar's item showed, read four times a second for the whole scenario */
  const shown = new Set();
  let watching;
  const statusResets = () => sim.log.filter((r) => r.path === '/api/status' && r.status === 0).length;
  /** Waits for the status bar's words; on failure says what it showed meanwhile. */
  const barShows = (text, timeout) =>
    vs.waitForText(text, timeout).catch((e) => {
      throw new Error(`${e.message}; the status bar showed: ${[...shown].join(' | ')}`);
    });
  const neverTokens = () =>
    assert.deepEqual(
      [...shown].filter((t) => /tokens/.test(t)),
      [],
      `the status bar showed raw quota: ${[...shown].join(' | ')}`,
    );

  before(async () => {
    scenario = await startScenario({
      simOptions: { profile: 'real', quotaPerUnit: 500_000, displayType: 'USD' },
      prepare: (_workspace, s) => {
        // `test` holds $3.75 (1,875,000 quota: "1.9M tokens" without the units).
        s.setToken('test', { remainQuota: 1_875_000, unlimited: false });
        // The window's first /api/status read meets a connection reset.
        s.fault({ path: '/api/status', kind: 'reset', count: 1 });
      },
    });
    ({ sim, vs } = scenario);
    watching = setInterval(() => {
      vs.page
        .locator('.statusbar-item', { hasText: 'Relay:' })
        .allInnerTexts()
        .then((texts) => texts.forEach((t) => shown.add(t.trim())))
        .catch(() => undefined); // (the page reloads)
    }, 250);
  });

  after(async () => {
    clearInterval(watching);
    await scenario?.stop();
  });

  test('after start: the failed read is asked again and the bar shows $7.50, never raw tokens', async () => {
    await barShows('Relay: production · $7.50', 90_000);
    assert.equal(statusResets(), 1, 'the first status read failed');
    assert.ok(sim.log.filter((r) => r.path === '/api/status').length >= 2, 'and was asked again');
    neverTokens();
    await vs.screenshot('economy-05-units-after-start');
  });

  test('after a token switch: the new token in dollars', async () => {
    await vs.runCommand('Model Relay: Add Token');
    await vs.answerInput('staging', { expect: 'Add Token (1/2)' });
    await vs.answerInput(sim.tokens.test, { expect: 'Add Token (2/2)' });
    await barShows('Relay: staging · $3.75', 60_000);
    neverTokens();
  });

  test('after a window reload whose first status read fails too: $3.75 again', async () => {
    sim.fault({ path: '/api/status', kind: 'reset', count: 1 });
    await vs.runCommand('Developer: Reload Window');
    await vs.page.waitForSelector('.monaco-workbench', { timeout: 90_000 });
    await barShows('Relay: staging · $3.75', 90_000);
    assert.equal(statusResets(), 2, "the reloaded window's first status read failed");
    neverTokens();
    await vs.screenshot('economy-06-units-after-reload');
  });
});
