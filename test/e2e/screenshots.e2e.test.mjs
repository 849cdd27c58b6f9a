// The README's screenshots, taken from a real VS Code (code-server) against the simulator's new-api
// profile with its demo replies, into media/screenshots/ (committed; kept out of the .vsix): the chat
// panel with a streamed markdown answer, the Status view with the balance, the diagnose panel with a
// failing check, and the same chat and diagnose in Chinese when the harness can start VS Code in
// another display language. Each shot first asserts that the UI it shows is there.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { launchVSCode, repoRoot, startScenario, webviewFrame } from './harness.mjs';

const shotsDir = join(repoRoot, 'media', 'screenshots');
const viewport = { width: 1280, height: 800 };
// gpt-4o is listed for the default group without a channel there: diagnose's chat check fails (503, group advice)
const settings = {
  'modelRelay.models.chat': 'gpt-4o',
  'modelRelay.models.native': 'claude-sonnet-4-5',
  'modelRelay.models.image': 'gpt-image-1',
  'modelRelay.models.video': 'sora-2',
  'workbench.colorTheme': 'Default Dark Modern',
};
/** Whether the harness can start VS Code in another display language, and Chinese glyphs can be drawn (else boxes). */
const canLocalise = /\blocale\b/.test(startScenario.toString()) && /\blocale\b/.test(launchVSCode.toString());
const cjkFont = spawnSync('fc-list', [':lang=zh', 'family'], { encoding: 'utf8' }).stdout?.trim();
const skipChinese = !canLocalise
  ? 'test/e2e/harness.mjs has no `locale` option: the Chinese screenshots are not taken'
  : !cjkFont
    ? 'no Chinese font (apt-get install fonts-noto-cjk): the Chinese screenshots would show boxes'
    : false;

mkdirSync(shotsDir, { recursive: true });

/** Every Chinese runtime string, English key → Chinese (the fragments `npm run build` merges). */
const zh = Object.assign(
  {},
  ...readdirSync(join(repoRoot, 'l10n/zh-cn'))
    .filter((f) => f.endsWith('.json'))
    .map((f) => JSON.parse(readFileSync(join(repoRoot, 'l10n/zh-cn', f), 'utf8'))),
);

/** A file in the editor beside the views, so the shots look like a working window. */
const SAMPLE = `// Asks the team's gateway a question and returns the answer.
export async function ask(baseUrl, token, question) {
  const res = await fetch(\`\${baseUrl}/v1/chat/completions\`, {
    method: 'POST',
    headers: { Authorization: \`Bearer \${token}\`, 'Content-Type': 'application/json' },
    body: JSON.stringify({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: question }],
    }),
  });
  if (!res.ok) throw new Error(\`gateway answered \${res.status}\`);
  const data = await res.json();
  return data.choices[0].message.content;
}
`;
const SAMPLE_FILE = 'ask.mjs';

/** One scenario: the demo simulator (new-api profile) and VS Code at the README's size. */
async function open(extra = {}) {
  const scenario = await startScenario({
    simOptions: { profile: 'real', replies: 'demo' },
    settings,
    viewport,
    ...extra,
  });
  await scenario.vs.page
    .locator('.statusbar-item', { hasText: 'production' })
    .first()
    .waitFor({ state: 'visible', timeout: 60_000 });
  return scenario;
}

/** A PNG into media/screenshots/, the pointer parked on the editor's empty margin first (no hover tooltips). */
async function shot(vs, name) {
  await vs.page.mouse.move(viewport.width - 60, viewport.height - 80);
  await vs.page.waitForTimeout(300);
  return vs.screenshot(join(shotsDir, `${name}.png`));
}

/** Widens the side bar so the views have room: drags the sash on its right edge. */
async function widenSidebar(vs, width = 560) {
  const box = await vs.page.locator('.part.sidebar').boundingBox();
  assert.ok(box, 'the side bar is visible');
  if (box.width >= width) return;
  const edge = box.x + box.width;
  const sashes = await vs.page.locator('.monaco-sash.vertical').all();
  for (const sash of sashes) {
    const b = await sash.boundingBox().catch(() => null);
    if (!b || Math.abs(b.x + b.width / 2 - edge) > 6 || b.height < box.height / 2) continue;
    const [x, y] = [b.x + b.width / 2, b.y + b.height / 2];
    await vs.page.mouse.move(x, y);
    await vs.page.mouse.down();
    await vs.page.mouse.move(x + (width - box.width), y, { steps: 10 });
    await vs.page.mouse.up();
    break;
  }
  const after = await vs.page.locator('.part.sidebar').boundingBox();
  assert.ok(after && after.width >= width - 20, `the side bar is ${after?.width} px wide after the drag`);
}

/** Opens a workspace file in the editor (quick open). */
async function openFile(vs, name) {
  await vs.page.keyboard.press('Control+P');
  const input = vs.page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible' });
  await input.fill(name);
  await vs.page
    .locator('.quick-input-list .monaco-list-row', { hasText: name })
    .first()
    .waitFor({ state: 'visible', timeout: 15_000 });
  await vs.page.keyboard.press('Enter');
  await vs.page.locator('.tab', { hasText: name }).first().waitFor({ state: 'visible', timeout: 15_000 });
}

/** The Model Relay container's views in order (by position: their titles follow the display language). */
const PANES = { status: 0, chat: 1, videoTasks: 2 };
/** Collapses or expands a view of the Model Relay container. */
async function setPaneExpanded(vs, pane, expanded) {
  const header = vs.page.locator('.part.sidebar .pane-header').nth(PANES[pane]);
  await header.waitFor({ state: 'visible' });
  if ((await header.getAttribute('aria-expanded')) !== String(expanded)) await header.click();
  await vs.page.waitForFunction(
    ([i, want]) => document.querySelectorAll('.part.sidebar .pane-header')[i]?.getAttribute('aria-expanded') === want,
    [PANES[pane], String(expanded)],
    { timeout: 10_000 },
  );
}

/** Asks the chat panel `prompt` with gpt-4o-mini; waits for the finished demo answer and checks what it shows. */
async function askDemo(vs, prompt, { heading, usage }) {
  await vs.runCommand('Model Relay: Open Chat');
  const chat = webviewFrame(vs.page);
  await chat.locator('[data-testid="chat-input"]').waitFor({ state: 'visible', timeout: 60_000 });
  await chat
    .locator('[data-testid="chat-model"] option[value="gpt-4o-mini"]')
    .waitFor({ state: 'attached', timeout: 30_000 });
  await chat.locator('[data-testid="chat-surface"]').selectOption('compatible');
  await chat.locator('[data-testid="chat-model"]').selectOption('gpt-4o-mini');
  await chat.locator('[data-testid="chat-input"]').fill(prompt);
  await chat.locator('[data-testid="chat-input"]').press('Enter');
  const answer = chat.locator('[data-testid="chat-message"][data-role="assistant"][data-status="done"]').last();
  await answer.waitFor({ timeout: 60_000 });
  const body = answer.locator('[data-testid="chat-message-body"]');
  assert.match(await body.locator('h3').innerText(), heading);
  assert.ok((await body.locator('li').count()) >= 4, 'a bullet list');
  assert.equal(await body.locator('table tbody tr').count(), 3, 'a table (one row per surface)');
  const code = body.locator('[data-testid="chat-code-block"]');
  assert.equal(await code.count(), 1, 'a code block');
  assert.equal(await code.locator('[data-testid="chat-code-copy"]').count(), 1, 'its Copy button');
  assert.equal(await code.locator('[data-testid="chat-code-insert"]').count(), 1, 'its Insert button');
  assert.match(await answer.locator('[data-testid="chat-usage"]').innerText(), usage);
  // the top of the answer in view (heading, the quoted prompt and the list), not the composer's end
  await body.locator('h3').evaluate((h) => h.scrollIntoView({ block: 'start' }));
  return chat;
}

/** Runs Diagnose Connection and waits for the report with the failing chat check (the 503 of gpt-4o in the default group). */
async function diagnose(vs) {
  // the whole width for the report's table
  await vs.runCommand('View: Close Primary Side Bar');
  await vs.runCommand('Model Relay: Diagnose Connection');
  const panel = webviewFrame(vs.page);
  await panel.locator('[data-testid="diagnosis-summary"]').waitFor({ state: 'visible', timeout: 60_000 });
  const check = panel.locator('[data-testid="check-generate-chat"]');
  await check.waitFor({ timeout: 60_000 });
  await panel.locator('[data-testid="check-generate-chat"][data-result="fail"]').waitFor({ timeout: 60_000 });
  assert.match(await check.innerText(), /503/);
  assert.match(await check.innerText(), /gpt-4o/);
  await check.evaluate((row) => row.scrollIntoView({ block: 'center' }));
  return { panel, check };
}

const assertNoToken = async (vs, sim) => {
  const text = await vs.pageText();
  for (const t of Object.values(sim.tokens)) assert.ok(!text.includes(t), 'no full token on screen');
};

test('English: status view, chat with a demo answer, diagnose with a failing check', async (t) => {
  const { vs, sim, stop } = await open({ files: { [`src/${SAMPLE_FILE}`]: SAMPLE } });
  t.after(stop);
  await openFile(vs, SAMPLE_FILE);
  await vs.runCommand('Model Relay: Focus on Status View', { timeout: 90_000 }); // the first command: on a busy machine the contributions arrive late
  await vs.waitForText('Compatible surface');
  await widenSidebar(vs);
  await setPaneExpanded(vs, 'chat', false);
  await setPaneExpanded(vs, 'videoTasks', false);
  await vs.waitForText('$7.50');
  const masked = `${sim.tokens.production.slice(0, 6)}...${sim.tokens.production.slice(-4)}`;
  assert.ok((await vs.pageText()).includes(masked), 'the masked token in the Status view');
  await assertNoToken(vs, sim);
  await shot(vs, 'status-view');

  await setPaneExpanded(vs, 'status', false);
  await askDemo(vs, 'How do I stream a chat completion through my gateway?', {
    heading: /demo answer/i,
    usage: /\d+ input · [2-4]\d\d output tokens/,
  });
  await assertNoToken(vs, sim);
  await shot(vs, 'chat');

  const { check } = await diagnose(vs);
  assert.match(await check.innerText(), /group/i);
  await assertNoToken(vs, sim);
  await shot(vs, 'diagnose');
});

test("Chinese: chat and diagnose in VS Code's Chinese display language", { skip: skipChinese }, async (t) => {
  const { vs, sim, stop } = await open({ locale: 'zh-cn', files: { [`src/${SAMPLE_FILE}`]: SAMPLE } });
  t.after(stop);
  await openFile(vs, SAMPLE_FILE);
  await vs.runCommand('Model Relay: Open Chat');
  await widenSidebar(vs);
  await setPaneExpanded(vs, 'videoTasks', false);
  await setPaneExpanded(vs, 'status', false);
  await askDemo(vs, '怎样通过我的网关流式调用聊天接口？', { heading: /演示回答/, usage: /\d/ });
  await assertNoToken(vs, sim);
  await shot(vs, 'chat-zh');
  const { check } = await diagnose(vs);
  assert.match(await check.innerText(), /\p{Script=Han}/u, 'the diagnose report in Chinese');
  await shot(vs, 'diagnose-zh');
});

test(
  "Chinese: the Status view with the balance, each row's label and value in place",
  { skip: skipChinese },
  async (t) => {
    const { vs, sim, stop } = await open({ locale: 'zh-cn', files: { [`src/${SAMPLE_FILE}`]: SAMPLE } });
    t.after(stop);
    await openFile(vs, SAMPLE_FILE);
    await vs.runCommand('Model Relay: Open Chat', { timeout: 90_000 }); // reveals the Model Relay views (a busy machine: a long wait)
    await widenSidebar(vs);
    await setPaneExpanded(vs, 'status', true);
    await setPaneExpanded(vs, 'chat', false);
    await setPaneExpanded(vs, 'videoTasks', false);
    await vs.waitForText('$7.50');
    const rows = vs.page.locator('.part.sidebar .monaco-list-row');
    /** A tree row by its label: [label, description] as VS Code draws them (two separate elements). */
    const row = async (key) => {
      const label = zh[key];
      assert.ok(label, `l10n/zh-cn has no Chinese for "${key}"`);
      const r = rows.filter({ has: vs.page.locator('.label-name', { hasText: label }) }).first();
      await r.waitFor({ state: 'visible', timeout: 30_000 });
      return [
        (await r.locator('.label-name').first().innerText()).trim(),
        (await r.locator('.label-description').first().innerText()).trim(),
      ];
    };
    assert.deepEqual(await row('Balance'), [zh.Balance, '$7.50']);
    assert.deepEqual(await row('Remaining'), [zh.Remaining, '$7.50'], 'the label is the label, the amount the value');
    for (const key of ['Used', 'Granted', 'Expires']) {
      const [label, value] = await row(key);
      assert.equal(label, zh[key], `${key}: the whole label, nothing cut off`);
      assert.ok(value && !value.includes('：') && !value.includes(zh[key]), `${key}: the value alone ("${value}")`);
    }
    await assertNoToken(vs, sim);
    await shot(vs, 'status-view-zh');
  },
);
