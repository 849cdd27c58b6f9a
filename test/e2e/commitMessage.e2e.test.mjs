// E2E for Generate Commit Message (issue 25 §2) in a real VS Code against the simulator: the workspace
// is a Git repository with two commits in a recognisable style (Conventional Commits with scopes) and a
// staged new file (plus an unstaged edit, which the staged diff leaves out). The one sparkle button in
// the Source Control title writes the message into the SCM input box — the simulator's subject in the
// repository's style — with one chat request; then Cancel on a slow reply closes the request and puts
// back what the box held. The message and a screenshot of the SCM view are saved for the note
// (/tmp/commit-message.png, /tmp/commit-message.txt).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { git, startScenario } from './harness.mjs';

let sim;
let vs;
let scenario;

/** A repository with two commits in its own style and a staged change. */
function prepare(ws) {
  git(ws, 'init', '-q', '-b', 'main');
  git(ws, 'add', '-A');
  git(ws, 'commit', '-q', '-m', 'feat(greeting): add the greeting module');
  writeFileSync(join(ws, 'src/greeting.ts'), 'export const greet = (name: string) => `Hello, ${name.trim()}!`;\n');
  git(ws, 'commit', '-q', '-am', 'fix(greeting): trim the name before greeting');
  writeFileSync(join(ws, 'src/farewell.ts'), 'export const farewell = (name: string) => `Goodbye, ${name}!`;\n');
  git(ws, 'add', 'src/farewell.ts');
  // Not staged: the staged diff is what the message describes.
  writeFileSync(join(ws, 'README.md'), '# demo\n\nGreetings and farewells.\n');
}

before(async () => {
  scenario = await startScenario({
    settings: { 'modelRelay.models.chat': 'gpt-4o-mini', 'git.openRepositoryInParentFolders': 'never' },
    files: {
      'src/greeting.ts': 'export const greet = (name: string) => `Hello, ${name}!`;\n',
      'README.md': '# demo\n',
    },
    prepare,
  });
  ({ sim, vs } = scenario);
});

after(() => scenario?.stop());

const scm = () => vs.page.locator('.part.sidebar');
/** The SCM input box's text, as its editor renders it. */
const inputText = async () =>
  (await scm().locator('.scm-editor .view-lines').first().innerText()).replace(/\u00a0/g, ' ').trim();
const ourButton = () => scm().locator('.pane-header .action-label[aria-label="Generate Commit Message"]');
const chatRequests = () => sim.log.filter((r) => r.path === '/v1/chat/completions');

async function waitForInput(predicate, what, timeoutMs = 30_000) {
  const end = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < end) {
    last = await inputText().catch(() => '');
    if (predicate(last)) return last;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`the SCM input box never showed ${what}; it shows ${JSON.stringify(last)}`);
}

test('the sparkle in the Source Control title writes the message in the repository style, with one request', async () => {
  await vs.waitForText('Relay: production', 60_000);
  await vs.page.keyboard.press('Control+Shift+G');
  await scm().getByText('farewell.ts').first().waitFor({ timeout: 60_000 });
  // Ours is in the view's title; the built-in Copilot Chat puts its own sparkle of the same name in the input box.
  const button = ourButton();
  await button.first().waitFor({ timeout: 30_000 });
  assert.equal(await button.count(), 1, 'exactly one Generate Commit Message button in the title');
  await button.click();
  const message = await waitForInput((t) => /^feat\(src\): add farewell\.ts$/.test(t), 'the generated subject');
  assert.equal(chatRequests().length, 1, 'one chat request');
  assert.equal(chatRequests()[0].stream, true, 'streamed');
  // For the note: the side bar wide enough to read the message, the pointer off the button's tooltip.
  const sash = await vs.page.locator('.part.sidebar').boundingBox();
  if (sash) {
    await vs.page.mouse.move(sash.x + sash.width + 1, sash.y + sash.height / 2);
    await vs.page.mouse.down();
    await vs.page.mouse.move(sash.x + 560, sash.y + sash.height / 2, { steps: 5 });
    await vs.page.mouse.up();
  }
  await vs.page.mouse.move(900, 600);
  await vs.page.waitForTimeout(500);
  const shot = await vs.screenshot('commit-message-01-generated');
  copyFileSync(shot, '/tmp/commit-message.png');
  writeFileSync('/tmp/commit-message.txt', `${message}\n`);
  console.log(`generated commit message: ${message}`);
});

test('Cancel on a slow reply closes the request and puts back what the box held', async () => {
  const editor = scm().locator('.scm-editor .monaco-editor').first();
  await editor.click();
  await vs.page.keyboard.press('Control+A');
  await vs.page.keyboard.type('my own draft');
  await waitForInput((t) => t === 'my own draft', 'the draft');
  sim.fault({ kind: 'slowChunks', ms: 1500 });
  const before = chatRequests().length;
  await ourButton().click();
  const toast = vs.page.locator('.notification-toast', { hasText: 'writing the commit message' });
  await toast.waitFor({ timeout: 30_000 });
  await waitForInput((t) => t !== 'my own draft' && t.length > 0, 'the first piece of the message');
  await toast.getByRole('button', { name: 'Cancel' }).click();
  await waitForInput((t) => t === 'my own draft', 'the draft again', 10_000);
  await vs.page.waitForTimeout(2_000);
  const rec = chatRequests()[before];
  assert.ok(rec, 'the second request reached the simulator');
  assert.equal(rec.closedEarly, true, 'the simulator saw the request closed before its end');
  sim.clearFaults();
  await vs.screenshot('commit-message-02-cancelled');
});
