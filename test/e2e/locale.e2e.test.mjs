// E2E for the second language: VS Code (code-server) started with `--locale zh-cn` plus the fixture
// language pack that makes zh-cn a valid display language (see installLanguagePack in harness.mjs).
// The palette shows the commands' Chinese titles (package.nls.zh-cn.json), the extension's own
// prompts and notifications are Chinese (vscode.l10n: l10n/bundle.l10n.zh-cn.json), and Diagnose
// with a wrong token explains the 401 in Chinese (the core's `t`, fed the same bundle).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot, startScenario, webviewFrame } from './harness.mjs';

const readJson = (p) => JSON.parse(readFileSync(join(repoRoot, p), 'utf8'));
const nlsEn = readJson('package.nls.json');
const nlsZh = readJson('package.nls.zh-cn.json');
/** Every Chinese runtime string, English key → Chinese (the fragments `npm run build` merges). */
const zh = Object.assign(
  {},
  ...readdirSync(join(repoRoot, 'l10n/zh-cn'))
    .filter((f) => f.endsWith('.json'))
    .map((f) => readJson(`l10n/zh-cn/${f}`)),
);
const CJK = /[\u4e00-\u9fff]/;

/** The Chinese of a runtime string, failing with a clear message when it has none yet. */
function chinese(key) {
  assert.ok(zh[key] && CJK.test(zh[key]), `l10n/zh-cn/*.json has no Chinese for ${JSON.stringify(key)}`);
  return zh[key];
}
/** A command's palette label in one language: "<category>: <title>". */
function paletteTitle(nls, command) {
  const c = readJson('package.json').contributes.commands.find((x) => x.command === command);
  const resolve = (v) => (typeof v === 'string' && /^%.+%$/.test(v) ? nls[v.slice(1, -1)] : v);
  return `${resolve(c.category)}: ${resolve(c.title)}`;
}
/** The longest placeholder-free piece of a translation: what must appear whatever the arguments. */
const fixedPart = (text) =>
  text
    .split(/\{\w+\}/)
    .sort((a, b) => b.length - a.length)[0]
    .trim();

let scenario;
let vs;
let sim;
const WRONG = `sk-${'x'.repeat(40)}wrong`;

before(async () => {
  scenario = await startScenario({ locale: 'zh-cn', settings: { 'modelRelay.models.chat': 'gpt-4o' } });
  ({ vs, sim } = scenario);
});

after(() => scenario?.stop());

test('the workbench runs in zh-cn (the fixture language pack is in use)', async () => {
  assert.equal(await vs.page.evaluate(() => globalThis._VSCODE_NLS_LANGUAGE), 'zh-cn');
});

test('the command palette shows the Model Relay commands with their Chinese titles', async () => {
  for (const command of ['modelRelay.diagnose', 'modelRelay.switchToken', 'modelRelay.addToken']) {
    const title = paletteTitle(nlsZh, command);
    assert.notEqual(title, paletteTitle(nlsEn, command), `package.nls.zh-cn.json translates ${command}`);
    assert.ok(CJK.test(title), `${command}: "${title}" is Chinese`);
  }
  await vs.page.keyboard.press('F1');
  const input = vs.page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible' });
  const diagnose = paletteTitle(nlsZh, 'modelRelay.diagnose');
  // the commands arrive with the extension: retype the filter until they are listed (bounded)
  const row = vs.page.locator('.quick-input-list .monaco-list-row', { hasText: diagnose }).first();
  const end = Date.now() + 30_000;
  while (!(await row.isVisible())) {
    assert.ok(Date.now() < end, `"${diagnose}" not in the palette within 30 s`);
    await input.fill('>');
    await input.fill(`>${diagnose.split(': ').pop()}`);
    await row.waitFor({ state: 'visible', timeout: 2_500 }).catch(() => {});
  }
  await input.fill(`>${nlsZh.category ?? 'Model Relay'}`);
  await vs.page
    .locator('.quick-input-list .monaco-list-row', { hasText: paletteTitle(nlsZh, 'modelRelay.switchToken') })
    .first()
    .waitFor({ state: 'visible', timeout: 10_000 });
  await vs.screenshot('locale-01-palette');
  await vs.page.keyboard.press('Escape');
});

test('the extension speaks Chinese: Add Token with a wrong token', async () => {
  await vs.runCommand(paletteTitle(nlsZh, 'modelRelay.addToken'));
  await vs.answerInput('wrong', { expect: chinese('Model Relay: Add Token (1/2) — name') });
  await vs.answerInput(WRONG, { expect: fixedPart(chinese('Model Relay: Add Token (2/2) — value for "{0}"')) });
  const note = await vs.waitForNotification(fixedPart(chinese('Model Relay: token "{0}" ({1}) stored and active.')));
  assert.ok(note.includes(`${WRONG.slice(0, 6)}...${WRONG.slice(-4)}`), 'the token is shown masked');
  assert.ok(!note.includes(WRONG), 'never in full');
  await vs.screenshot('locale-02-token-added');
});

test('the extension host runs with vscode.env.language = zh-cn and the Chinese bundle', async () => {
  // The output channel's log file: "Model Relay loaded (VS Code …, display language zh-cn) …" in Chinese.
  const expected = fixedPart(chinese('Model Relay loaded (VS Code {0}, display language {1}); endpoint {2}'));
  const files = [];
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.log') && statSync(p).size < 5_000_000) files.push(p);
    }
  };
  walk(join(vs.userDataDir, 'logs'));
  const line = files
    .map((f) => readFileSync(f, 'utf8'))
    .join('\n')
    .split('\n')
    .find((l) => l.includes(expected));
  assert.ok(line, `a log line containing "${expected}" in ${files.length} log files`);
  assert.match(line, /zh-cn/);
});

test('Diagnose with the wrong token explains the 401 in Chinese', async () => {
  await vs.runCommand(paletteTitle(nlsZh, 'modelRelay.diagnose'));
  const p = webviewFrame(vs.page);
  const token = p.locator('[data-testid="check-token"]');
  await token.waitFor({ state: 'visible', timeout: 60_000 });
  await p.locator('[data-testid="diagnosis-summary"]').waitFor({ state: 'visible', timeout: 60_000 });
  assert.equal(await token.getAttribute('data-result'), 'fail');
  const text = await token.innerText();
  // the token check's 401 cause: with or without the gateway's explanation of the token
  const causes = [
    'GET {0} answered 401: the token ({1}) is missing, mistyped, disabled, or sent in the wrong header format.',
    'GET {0} answered 401 for {1}: {2} {3}',
  ];
  const found = causes.filter((k) => zh[k]).map((k) => fixedPart(zh[k]));
  assert.ok(found.length, `l10n/zh-cn/*.json has no Chinese for the token check's 401 cause (${causes.join(' | ')})`);
  assert.ok(
    found.some((f) => text.includes(f)),
    `the token check shows a Chinese cause (one of ${JSON.stringify(found)}); it shows:\n${text}`,
  );
  assert.match(text, /401/);
  assert.ok(!text.includes(WRONG) && !text.includes(sim.tokens.production), 'no full token in the report');
  await vs.screenshot('locale-03-diagnose');
});

test('Switch Token back, and a 403 in the chat shows its error card in Chinese', async () => {
  await vs.runCommand('View: Close All Editors'); // the diagnosis panel: the chat becomes the newest webview
  await vs.runCommand(paletteTitle(nlsZh, 'modelRelay.switchToken'));
  await vs.page
    .locator('.quick-input-widget .quick-input-title', { hasText: chinese('Model Relay: Switch Token') })
    .waitFor({ state: 'visible', timeout: 20_000 });
  await vs.page.locator('.quick-input-list .monaco-list-row', { hasText: 'production' }).first().click();
  await vs.waitForNotification(fixedPart(chinese('Model Relay: now using token "{0}" ({1}).')));
  await vs.runCommand(paletteTitle(nlsZh, 'modelRelay.openChat'));
  const c = webviewFrame(vs.page);
  await c.locator('[data-testid="chat-input"]').waitFor({ state: 'visible', timeout: 60_000 });
  await c.locator('[data-testid="chat-model"] option[value="gpt-4o"]').waitFor({ state: 'attached', timeout: 30_000 });
  await c.locator('[data-testid="chat-surface"]').selectOption('compatible');
  await c.locator('[data-testid="chat-model"]').selectOption('gpt-4o'); // not in the production token's group: 403
  await c.locator('[data-testid="chat-input"]').fill('你好');
  await c.locator('[data-testid="chat-input"]').press('Enter');
  const card = c.locator('[data-testid="chat-error-card"]').last();
  await card.waitFor({ timeout: 30_000 });
  assert.equal(await card.getAttribute('data-http-status'), '403');
  const cause = await card.locator('[data-testid="chat-error-cause"]').innerText();
  const fix = await card.locator('[data-testid="chat-error-fix"]').innerText();
  assert.ok(CJK.test(cause), `the cause is Chinese: ${cause}`);
  assert.ok(CJK.test(fix), `the fix is Chinese: ${fix}`);
  await vs.screenshot('locale-04-chat-error-card');
});
