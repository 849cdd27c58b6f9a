// E2E for the first five minutes in a real VS Code (code-server), starting unconfigured (no base URL,
// no token): the Status view's and the Video Tasks view's welcome content, the Status view's title
// (at most three inline actions), the walkthrough opened by "Get Started" ticking off its steps as the
// base URL is set, a token added, Diagnose run and the chat opened; then, in this git workspace, the
// first generated image offers the .gitignore line once, and accepting it adds `.model-relay/`.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { launchVSCode, repoRoot, webviewFrame } from './harness.mjs';

const { startSimulator } = createRequire(import.meta.url)(join(repoRoot, 'out/test/sim/server.js'));

let sim;
let vs;
let workspace;

before(async () => {
  sim = await startSimulator();
  workspace = mkdtempSync(join(tmpdir(), 'relay-onboarding-'));
  mkdirSync(join(workspace, '.git'));
  writeFileSync(join(workspace, '.gitignore'), 'node_modules');
  writeFileSync(join(workspace, 'prompts.md'), 'A lighthouse at dusk\n');
  // no modelRelay.baseUrl, no seeded token: the extension starts unconfigured
  vs = await launchVSCode({ workspaceDir: workspace, settings: { 'modelRelay.models.image': 'gpt-image-1' } });
});

after(async () => {
  await vs?.close();
  await sim?.close();
  if (workspace) rmSync(workspace, { recursive: true, force: true });
});

/** The pane of one of our views (its header and body), by the view's name. */
const pane = (name) => vs.page.locator('.pane', { has: vs.page.locator('.pane-header', { hasText: name }) }).first();
const welcome = (name) => pane(name).locator('.welcome-view-content');
const STEPS = ['baseUrl', 'token', 'diagnose', 'chat'];
const step = (id) => vs.page.locator(`.getting-started-step[data-step-id$="#gettingStarted#${id}"]`).first();
/** Which walkthrough steps show as done (the walkthrough must be the visible editor). */
async function doneSteps() {
  await step(STEPS[0]).waitFor({ state: 'attached', timeout: 20_000 });
  const done = [];
  for (const id of STEPS) if (await step(id).locator('.codicon.complete').count()) done.push(id);
  return done;
}
/** A focused webview keeps F1 from the workbench: hand the focus back to the page. */
async function unfocusWebview() {
  await vs.page.evaluate(() =>
    document.activeElement instanceof HTMLElement ? document.activeElement.blur() : undefined,
  );
}
async function waitForDone(expected, timeout = 20_000) {
  const end = Date.now() + timeout;
  let done = [];
  while (Date.now() < end) {
    done = await doneSteps();
    if (expected.every((s) => done.includes(s))) return done;
    await new Promise((r) => setTimeout(r, 500));
  }
  assert.fail(`walkthrough steps done: ${JSON.stringify(done)}; expected at least ${JSON.stringify(expected)}`);
}

test('unconfigured: the Status view shows its welcome with Configure Base URL / Add Token / Get Started', async () => {
  await vs.waitForText('Relay:', 60_000);
  await vs.runCommand('Model Relay: Focus on Status View');
  await welcome('Status').waitFor({ state: 'visible', timeout: 30_000 });
  const text = await welcome('Status').innerText();
  assert.match(text, /new-api \/ one-api gateway/);
  for (const b of ['Configure Base URL', 'Add Token', 'Get Started'])
    assert.ok(await welcome('Status').getByRole('button', { name: b }).isVisible(), `button ${b}`);
  assert.equal(await pane('Status').locator('.monaco-list-row').count(), 0, 'no status rows while unconfigured');
  await vs.screenshot('onboarding-01-status-welcome');
});

test('the Status view title shows at most three inline actions', async () => {
  await pane('Status').locator('.pane-header').hover();
  const labels = await pane('Status')
    .locator('.pane-header .actions .action-label')
    .evaluateAll((els) =>
      els
        .filter((e) => !e.classList.contains('codicon-toolbar-more') && !e.closest('.monaco-dropdown'))
        .map((e) => e.getAttribute('aria-label') ?? e.textContent ?? ''),
    );
  assert.ok(labels.length >= 1 && labels.length <= 3, `inline actions: ${JSON.stringify(labels)}`);
  assert.ok(
    labels.some((l) => /Diagnose Connection/.test(l)),
    `Diagnose is inline: ${JSON.stringify(labels)}`,
  );
});

test('unconfigured: the Video Tasks view shows its welcome with Generate Video', async () => {
  await vs.runCommand('Model Relay: Focus on Video Tasks View');
  await welcome('Video Tasks').waitFor({ state: 'visible', timeout: 30_000 });
  assert.match(await welcome('Video Tasks').innerText(), /No video tasks yet/);
  assert.ok(await welcome('Video Tasks').getByRole('button', { name: 'Generate Video' }).isVisible());
  await vs.screenshot('onboarding-02-video-welcome');
});

test('Get Started opens the walkthrough; its steps tick off as the base URL, a token, Diagnose and the chat happen', async () => {
  await vs.runCommand('Model Relay: Focus on Status View');
  await welcome('Status').getByRole('button', { name: 'Get Started' }).click();
  await vs.waitForText('Get Started with Model Relay', 30_000);
  assert.deepEqual(await doneSteps(), [], 'nothing done yet');
  await vs.screenshot('onboarding-03-walkthrough');

  await vs.runCommand('Model Relay: Configure Base URL');
  // its own box, not the command palette still closing (the URL once went there and nothing was set)
  await vs.answerInput(sim.url, { expect: 'Gateway base URL' });
  assert.deepEqual(await waitForDone([STEPS[0]]), [STEPS[0]]);

  await vs.runCommand('Model Relay: Add Token');
  await vs.answerInput('production', { expect: 'name' });
  await vs.answerInput(sim.tokens.production, { expect: 'value' });
  await vs.waitForText('Relay: production', 30_000);
  await waitForDone(STEPS.slice(0, 2));

  await vs.runCommand('Model Relay: Diagnose Connection');
  await webviewFrame(vs.page)
    .locator('[data-testid="diagnosis-summary"]')
    .waitFor({ state: 'visible', timeout: 90_000 });
  await unfocusWebview();
  await vs.runCommand('Model Relay: Open Chat');
  await vs.page.locator('.pane-header', { hasText: 'Chat' }).first().waitFor({ state: 'visible', timeout: 30_000 });
  await unfocusWebview();
  await vs.runCommand('Model Relay: Get Started');
  assert.deepEqual(await waitForDone(STEPS, 30_000), STEPS);
  await vs.screenshot('onboarding-04-walkthrough-done');

  // configured now: the Status view shows its rows instead of the welcome
  await vs.runCommand('Model Relay: Focus on Status View');
  await pane('Status')
    .locator('.monaco-list-row', { hasText: /^Compatible surface/ })
    .first()
    .waitFor({ state: 'visible', timeout: 30_000 });
});

/** Generates one image from the selection in prompts.md; resolves when it is saved. */
async function generateImage(count) {
  await unfocusWebview();
  await vs.runCommand('View: Show Explorer');
  await vs.page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'prompts.md' }).click();
  const lines = vs.page
    .locator('.editor-group-container.active .monaco-editor .view-lines', { hasText: 'lighthouse' })
    .first();
  await lines.waitFor({ timeout: 30_000 });
  await lines.click();
  await vs.page.keyboard.press('Control+A');
  await vs.runCommand('Model Relay: Generate Image from Selection');
  await vs.answerInput('256x256', { expect: 'image size' });
  const dir = join(workspace, '.model-relay', 'images');
  const end = Date.now() + 60_000;
  while (!(existsSync(dir) && readdirSync(dir).length >= count)) {
    if (Date.now() > end) assert.fail(`image ${count} not saved within 60 s`);
    await new Promise((r) => setTimeout(r, 300));
  }
}

test('in a git workspace, the first generated image offers the .gitignore line once; accepting adds .model-relay/', async () => {
  await generateImage(1);
  const toast = vs.page.locator('.notification-toast', { hasText: '.gitignore' }).first();
  await toast.waitFor({ state: 'visible', timeout: 30_000 });
  await vs.screenshot('onboarding-05-gitignore-offer');
  await toast.getByRole('button', { name: 'Add to .gitignore' }).click();
  const end = Date.now() + 15_000;
  while (!readFileSync(join(workspace, '.gitignore'), 'utf8').includes('.model-relay/')) {
    if (Date.now() > end) assert.fail('.gitignore was not updated');
    await new Promise((r) => setTimeout(r, 200));
  }
  assert.equal(readFileSync(join(workspace, '.gitignore'), 'utf8'), 'node_modules\n.model-relay/\n');

  // asked once per workspace: even with the line gone again, a second image brings no offer
  writeFileSync(join(workspace, '.gitignore'), 'node_modules\n');
  await generateImage(2);
  await new Promise((r) => setTimeout(r, 3_000));
  assert.equal(
    await vs.page.locator('.notification-toast', { hasText: 'Add .model-relay/ to .gitignore' }).count(),
    0,
    'no second offer',
  );
  assert.equal(readFileSync(join(workspace, '.gitignore'), 'utf8'), 'node_modules\n');
});
