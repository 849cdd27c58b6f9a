// E2E for the extension shell in a real VS Code (code-server): activation, a token added through
// the palette, the base URL set to the simulator, the Status view (masked token, both surface URLs),
// List Models for the token's group, and a hostile workspace setting that must not move the host.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { launchVSCode, repoRoot } from './harness.mjs';

const require = createRequire(import.meta.url);
const { startSimulator } = require(join(repoRoot, 'out/test/sim/server.js'));

let sim;
let vs;
let workspace;
const EVIL = 'http://127.0.0.1:9/evil';

before(async () => {
  sim = await startSimulator();
  workspace = mkdtempSync(join(tmpdir(), 'relay-ws-'));
  mkdirSync(join(workspace, '.vscode'));
  writeFileSync(
    join(workspace, '.vscode', 'settings.json'),
    JSON.stringify({ 'modelRelay.baseUrl': EVIL, 'modelRelay.backupUrls': [EVIL] }),
  );
  writeFileSync(join(workspace, 'notes.md'), '# Notes\n\nA lighthouse at dusk.\n');
  vs = await launchVSCode({ workspaceDir: workspace });
});

after(async () => {
  await vs?.close();
  await sim?.close();
  if (workspace) rmSync(workspace, { recursive: true, force: true });
});

const token = () => sim.tokens.production;
const masked = () => `${token().slice(0, 6)}...${token().slice(-4)}`;

test('the extension activates: status bar item and the Model Relay container', async () => {
  await vs.waitForText('Relay:', 60_000);
  await vs.runCommand('Model Relay: Focus on Status View');
  await vs.waitForText('Endpoint');
  const text = await vs.pageText();
  assert.match(text, /not configured|Endpoint/);
  assert.ok(!text.includes(EVIL), 'the workspace base URL is not shown as the endpoint');
  await vs.screenshot('shell-01-activated');
});

test('add a token through the palette; it is shown masked', async () => {
  await vs.runCommand('Model Relay: Add Token');
  await vs.answerInput('production', { expect: 'name' });
  await vs.answerInput(token(), { expect: 'value' });
  await vs.waitForText(masked());
  const text = await vs.pageText();
  assert.ok(text.includes(masked()));
  assert.ok(!text.includes(token()), 'full token never on screen');
  await vs.screenshot('shell-02-token-added');
});

test('set the base URL to the simulator; a pasted /v1 is explained and fixed', async () => {
  await vs.runCommand('Model Relay: Configure Base URL');
  const input = vs.page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible' });
  await input.fill(`${sim.url}/v1`);
  await vs.page
    .locator('.quick-input-widget', { hasText: '/v1/v1/messages' })
    .waitFor({ state: 'visible', timeout: 10_000 });
  await vs.screenshot('shell-03-base-url-v1-warning');
  await vs.page.keyboard.press('Enter');
  const useFixed = vs.page.getByRole('button', { name: `Use ${sim.url}` });
  await useFixed.waitFor({ state: 'visible', timeout: 15_000 });
  await useFixed.click();
  await vs.waitForText(`${sim.url}/v1`);
});

test('the Status view shows the masked token and both surface URLs', async () => {
  await vs.runCommand('Model Relay: Focus on Status View');
  await vs.waitForText('Compatible surface');
  const text = await vs.pageText();
  assert.ok(text.includes(`${sim.url}/v1`), 'compatible surface base');
  assert.ok(text.includes(`${sim.url}/v1/messages`), 'native surface messages URL');
  assert.ok(text.includes(masked()), 'masked token');
  assert.ok(!text.includes(token()));
  assert.ok(!text.includes(EVIL), 'workspace value ignored');
  await vs.screenshot('shell-04-status-view');
});

test("List Models shows the simulator's models for the token's group", async () => {
  await vs.runCommand('Model Relay: List Models');
  await vs.page.locator('.quick-input-list', { hasText: 'gpt-4o-mini' }).waitFor({ state: 'visible', timeout: 20_000 });
  const text = await vs.pageText();
  const listed = sim.config.groups.find((g) => g.name === 'default').visible.length;
  assert.match(text, new RegExp(`${listed} models visible to this token`));
  const input = vs.page.locator('.quick-input-widget input');
  const placeholder = await input.getAttribute('placeholder');
  assert.match(placeholder ?? '', /does not prove generation works/);
  // The list is longer than the picker shows at once: each model is found by typing its name, as a user would.
  for (const m of ['gpt-4o-mini', 'claude-sonnet-4-5', 'sora-2']) {
    await input.fill(m);
    await vs.page
      .locator('.quick-input-list .monaco-list-row', { hasText: m })
      .first()
      .waitFor({ state: 'visible', timeout: 10_000 })
      .catch(() => assert.fail(`${m} is not in the list`));
  }
  await input.fill('');
  await vs.screenshot('shell-05-list-models');
  await vs.page.keyboard.press('Escape');
  const rec = sim.log.filter((r) => r.path === '/v1/models').at(-1);
  assert.ok(rec, 'the request reached the simulator (not the workspace host)');
  assert.equal(rec.tokenName, 'production');
  assert.equal(rec.status, 200);
});

test('switching to a token of another group changes the next request at once', async (t) => {
  t.after(() => vs.screenshot('shell-07-switch-token'));
  await vs.runCommand('Model Relay: Add Token');
  await vs.answerInput('test', { expect: 'name' });
  await vs.answerInput(sim.tokens.test, { expect: 'value for "test"' });
  await vs.waitForText('Relay: test');
  await vs.runCommand('Model Relay: List Models');
  await vs.page
    .locator('.quick-input-widget', { hasText: '1 models visible' })
    .waitFor({ state: 'visible', timeout: 20_000 });
  await vs.page.keyboard.press('Escape');
  assert.equal(sim.log.at(-1).tokenName, 'test');
  await vs.runCommand('Model Relay: Switch Token');
  await vs.answerInput('production');
  await vs.waitForText(masked());
});

test('the request log holds masked tokens only; no full token anywhere on screen', async () => {
  await vs.runCommand('Model Relay: Show Request Log');
  await vs.page.locator('.part.editor').getByText('/v1/models').first().waitFor({ state: 'visible', timeout: 20_000 });
  const text = await vs.pageText();
  assert.match(text, /sk-\w{3}\.\.\.\w{4}/, "the log's rows carry the masked token");
  for (const t of Object.values(sim.tokens))
    assert.ok(!text.includes(t), 'no full token in the page or the log channel');
  await vs.screenshot('shell-06-request-log');
});
