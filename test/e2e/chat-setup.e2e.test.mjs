// E2E: the first prompt in VS Code's own Chat view works without a GitHub Copilot sign-in. On a fresh
// profile VS Code keeps its built-in chat extension off until chat setup completes, so the Chat view
// lists our models but its first prompt asks for a sign-in. Model Relay notices (the Status view
// shows "VS Code's chat"), and one click on that row runs Chat: Manage Language Models, which
// enables the chat. Then the user's first prompt, typed in the Chat view in agent mode, is answered by
// the simulator through our model, with a tool call (list_dir) that VS Code runs and whose result goes
// back to the model. And "Use a Gateway Model for VS Code's Background Tasks" sets the utility models
// after showing old → new and one test request, and Restore puts them back.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startScenario } from './harness.mjs';

let sim;
let vs;
let workspace;
let scenario;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const pane = (name) => vs.page.locator('.pane', { has: vs.page.locator('.pane-header', { hasText: name }) }).first();
const statusRow = (label) => pane('Status').locator('.monaco-list-row', { hasText: label }).first();

before(async () => {
  scenario = await startScenario({
    tokenName: 'production',
    simOptions: { profile: 'real' }, // new-api: its /api/pricing publishes the prices the command ranks by
    files: { 'list_dir/notes.txt': 'hello\n', 'list_dir/plan.md': '# plan\n' },
    settings: { 'modelRelay.models.chat': 'gpt-4o-mini' },
  });
  ({ sim, vs, workspace } = scenario);
  await vs.waitForText('Relay: production', 60_000);
});

after(async () => {
  await scenario?.stop();
});

test("a fresh profile: the Status view says VS Code's chat needs enabling; one click enables it", async () => {
  await vs.runCommand('Model Relay: Focus on Status View');
  const row = statusRow("VS Code's chat");
  await row.waitFor({ state: 'visible', timeout: 60_000 });
  assert.match(await row.innerText(), /asks for a Copilot sign-in/);
  await vs.screenshot('chat-setup-01-status-row');
  await row.click();
  // Chat: Manage Language Models enables the built-in chat and opens the Language Models editor, listing our models
  await vs.waitForText('Language Models', 60_000);
  await vs.page.getByText('gpt-4o-mini').first().waitFor({ state: 'visible', timeout: 60_000 });
  await vs.screenshot('chat-setup-02-language-models');
  await vs.page.keyboard.press('Escape');
  // the built-in chat extension runs now: the row goes
  await vs.runCommand('Model Relay: Focus on Status View');
  await row.waitFor({ state: 'detached', timeout: 90_000 });
});

test('the first prompt in the Chat view, agent mode: answered through our model, with a tool call VS Code runs', async (t) => {
  const from = Date.now();
  await vs.runCommand('Chat: Open Chat');
  const input = vs.page.locator('.interactive-input-editor').first();
  await input.waitFor({ state: 'visible', timeout: 60_000 });
  const part = vs.page.locator('.interactive-input-part').first();
  // a fresh profile starts the Chat view in agent mode with one of our models picked
  await part.getByText('Agent', { exact: true }).first().waitFor({ state: 'visible', timeout: 30_000 });
  await input.click();
  // the user's request names the directory to list (the simulator's model calls the tool the request names)
  const dir = `${workspace}/list_dir`;
  await vs.page.keyboard.type(dir);
  await vs.page.keyboard.press('Enter');
  const answer = vs.page.locator('.interactive-response', { hasText: 'Tool list_dir returned' }).first();
  await answer.waitFor({ state: 'visible', timeout: 180_000 }).catch(async (e) => {
    await vs.screenshot('chat-setup-err');
    throw new Error(
      `no answer with the tool's result: ${e.message.split('\n')[0]}\n${(await vs.pageText()).slice(-2000)}`,
    );
  });
  await sleep(500);
  const text = await answer.innerText();
  t.diagnostic(text);
  await vs.screenshot('chat-setup-03-answer');
  assert.doesNotMatch(await vs.pageText(), /Sign in to use GitHub Copilot|You need to set up GitHub Copilot/);
  // the tool ran in VS Code and listed the directory; its result went back to the model
  assert.match(text, /Tool list_dir returned: .*notes\.txt/s);
  assert.match(text, /plan\.md/);
  const chats = sim.log.filter(
    (r) => (r.path === '/v1/chat/completions' || r.path === '/v1/messages') && r.time >= from - 5,
  );
  t.diagnostic(JSON.stringify(chats.map((r) => [r.path, r.model, r.status])));
  assert.ok(chats.length >= 2, 'two turns reached the gateway: the tool call, then the answer about its result');
  for (const r of chats) assert.equal(r.status, 200);
  const models = new Set(chats.map((r) => r.model));
  assert.ok(
    [...models].every((m) => sim.config.models.some((x) => x.id === m)),
    `the gateway's own models answered: ${[...models]}`,
  );
});

/** The user settings VS Code wrote (plain JSON here). */
function userSettings() {
  const file = join(vs.userDataDir, 'User', 'settings.json');
  return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {};
}

test("Use a Gateway Model for VS Code's Background Tasks: old → new shown, one test request, both keys set; Restore", async () => {
  const value = 'model-relay/default/gpt-4o-mini';
  const from = Date.now();
  await vs.runCommand('Notifications: Clear All Notifications').catch(() => {});
  await vs.runCommand("Model Relay: Use a Gateway Model for VS Code's Background Tasks");
  const dialog = vs.page.locator('.monaco-dialog-box').first();
  await dialog.waitFor({ state: 'visible', timeout: 60_000 });
  const text = await dialog.innerText();
  assert.match(text, /use gpt-4o-mini \(.+ per 1M tokens\), the cheapest gateway chat model/);
  assert.ok(text.includes(`chat.utilityModel: (empty) → "${value}"`), text);
  assert.ok(text.includes(`chat.utilitySmallModel: (empty) → "${value}"`), text);
  assert.match(text, /chat\.byokUtilityModelDefault: "\w+" → "mainAgent"/);
  assert.match(text, /The gateway bills it/);
  assert.equal(
    sim.log.filter((r) => r.time >= from - 5 && r.path === '/v1/chat/completions').length,
    0,
    'nothing sent before the yes',
  );
  await vs.screenshot('chat-setup-04-background-tasks-confirm');
  await dialog.locator('.dialog-buttons .monaco-button', { hasText: 'Test and Set' }).click();
  const toast = vs.page.locator('.notification-toast', { hasText: 'background tasks' }).first();
  await toast.waitFor({ state: 'visible', timeout: 60_000 });
  assert.match(await toast.innerText(), /now use gpt-4o-mini/);
  const s = userSettings();
  assert.equal(s['chat.utilityModel'], value);
  assert.equal(s['chat.utilitySmallModel'], value);
  assert.equal(s['chat.byokUtilityModelDefault'], 'mainAgent');
  const tests = sim.log.filter(
    (r) => r.time >= from - 5 && (r.path === '/v1/chat/completions' || r.path === '/v1/messages'),
  );
  assert.deepEqual(
    tests.slice(0, 1).map((r) => [r.model, r.status]),
    [['gpt-4o-mini', 200]],
    'one test request to the chosen model',
  );
  await vs.screenshot('chat-setup-05-background-tasks-set');
  await toast.locator('.monaco-button', { hasText: 'Restore' }).click();
  await vs.waitForNotification('as they were', 30_000);
  const back = userSettings();
  for (const k of ['chat.utilityModel', 'chat.utilitySmallModel', 'chat.byokUtilityModelDefault'])
    assert.equal(back[k], undefined, `${k} restored (unset)`);
});
