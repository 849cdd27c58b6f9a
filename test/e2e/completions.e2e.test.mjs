// E2E for inline suggestions (issue 25) in a real VS Code against the simulator's new-api profile, with
// deepseek-chat as the completion model (fill-in-the-middle on POST /v1/completions) and a fixed middle:
// typing in a TypeScript file shows ghost text (VS Code's own ghost-text element in the editor), Tab
// accepts it into the document, Escape dismisses another one and leaves the document as typed; a
// `.env` file (modelRelay.completions.exclude's default) gets none, and the simulator receives no request
// while it is typed in. The status bar names the model. Screenshot with the ghost text:
// media/screenshots/inline-suggestion.png.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot, startScenario } from './harness.mjs';

const shotsDir = join(repoRoot, 'media', 'screenshots');
mkdirSync(shotsDir, { recursive: true });
const viewport = { width: 1280, height: 800 };
const MIDDLE = ' + b;';
const settings = {
  'modelRelay.completions.enabled': true,
  'modelRelay.completions.model': 'deepseek-chat',
  'workbench.colorTheme': 'Default Dark Modern',
  'editor.minimap.enabled': false,
  // the suggest widget off: Tab and Escape act on the inline suggestion alone
  'editor.quickSuggestions': { other: false, comments: false, strings: false },
  'editor.suggestOnTriggerCharacters': false,
};
const files = {
  'src/math.ts': 'export function add(a: number, b: number): number {\n  return \n}\n',
  '.env': 'API_KEY=\n',
};

const scenarios = [];
after(async () => {
  for (const s of scenarios) await s.stop();
});

/** Opens a workspace file in the editor (quick open) and puts the cursor at the end of `line` (1-based). */
async function openAt(vs, name, line) {
  await vs.page.keyboard.press('Control+P');
  const input = vs.page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible' });
  await input.fill(name);
  await vs.page
    .locator('.quick-input-list .monaco-list-row', { hasText: name })
    .first()
    .waitFor({ state: 'visible', timeout: 15_000 });
  await vs.page.keyboard.press('Enter');
  await vs.page.locator('.tab.active', { hasText: name }).waitFor({ state: 'visible', timeout: 15_000 });
  await vs.page.locator('.editor-instance .monaco-editor .view-lines').first().click();
  await vs.page.keyboard.press('Control+G');
  await input.waitFor({ state: 'visible' });
  await input.fill(`:${line}`);
  await vs.page.keyboard.press('Enter');
  await vs.page.keyboard.press('End');
}

/** VS Code's ghost text: on the cursor's line (`…-preview` when it extends the typed word) and below it. */
const ghost = (vs) =>
  vs.page
    .locator('.editor-instance .monaco-editor')
    .locator('.ghost-text-decoration, .ghost-text-decoration-preview, .ghost-text');
/** The document's text as the editor draws it, without ghost text (monaco draws spaces as no-break spaces). */
const docText = (vs) =>
  vs.page
    .locator('.editor-instance .monaco-editor .view-lines')
    .first()
    .evaluate((el) => {
      const copy = el.cloneNode(true);
      for (const g of copy.querySelectorAll('[class*="ghost-text"]')) g.remove();
      return [...copy.querySelectorAll('.view-line')]
        .sort((a, b) => parseFloat(a.style.top) - parseFloat(b.style.top))
        .map((l) => l.textContent.replace(/\u00a0/g, ' '))
        .join('\n');
    });
const completionRequests = (sim) => sim.log.filter((r) => r.path === '/v1/completions').length;

test('ghost text after typing, Tab accepts, Escape dismisses; a .env file gets none and sends nothing', async () => {
  const scenario = await startScenario({
    simOptions: { profile: 'real', completions: { latencyMs: 60, text: MIDDLE } },
    settings,
    files,
    viewport,
  });
  scenarios.push(scenario);
  const { vs, sim } = scenario;
  // the main part has loaded (the status bar's token) and inline suggestions are on with the model
  await vs.page.locator('.statusbar-item', { hasText: 'production' }).first().waitFor({ timeout: 60_000 });
  await vs.page
    .locator('.statusbar-item', { hasText: 'Suggestions: deepseek-chat' })
    .first()
    .waitFor({ state: 'visible', timeout: 30_000 });

  await openAt(vs, 'math.ts', 2);
  await vs.page.keyboard.type('a', { delay: 50 });
  await ghost(vs).first().waitFor({ state: 'visible', timeout: 20_000 });
  assert.match((await ghost(vs).allInnerTexts()).join('').replace(/\u00a0/g, ' '), /\+ b;/);
  assert.ok(completionRequests(sim) >= 1, 'the suggestion came from POST /v1/completions');
  const fim = sim.log.filter((r) => r.path === '/v1/completions' && r.status === 200);
  assert.ok(fim.length >= 1, 'answered');
  await vs.page.mouse.move(viewport.width - 60, viewport.height - 120);
  await vs.page.waitForTimeout(300);
  await vs.screenshot(join(shotsDir, 'inline-suggestion.png'));

  // Tab accepts: the suggestion is in the document (the next one may show at once after it)
  assert.doesNotMatch(await docText(vs), /return a \+ b;/, 'ghost text is not in the document yet');
  await vs.page.keyboard.press('Tab');
  for (let end = Date.now() + 10_000; Date.now() < end && !/return a \+ b;/.test(await docText(vs));)
    await vs.page.waitForTimeout(200);
  assert.match(await docText(vs), /return a \+ b;/);

  // Escape dismisses another one: the document keeps only what was typed
  await vs.page.keyboard.press('End');
  await vs.page.keyboard.press('Enter');
  await vs.page.keyboard.type('const c = a', { delay: 60 });
  await ghost(vs).first().waitFor({ state: 'visible', timeout: 20_000 });
  await vs.page.keyboard.press('Escape');
  await ghost(vs).first().waitFor({ state: 'hidden', timeout: 10_000 });
  const text = await docText(vs);
  assert.match(text, /const c = a\n/);
  assert.doesNotMatch(text, /const c = a \+/);

  // .env: matches the default exclusions — no ghost text, and no request reaches the gateway
  const before = completionRequests(sim);
  await openAt(vs, '.env', 1);
  await vs.page.keyboard.type('sk-secret', { delay: 80 });
  await vs.page.waitForTimeout(2_500);
  assert.equal(await ghost(vs).count(), 0, 'no ghost text in .env');
  assert.equal(completionRequests(sim), before, 'nothing of .env was sent');
  assert.ok(!sim.log.some((r) => r.path === '/v1/completions' && JSON.stringify(r).includes('sk-secret')));
});
