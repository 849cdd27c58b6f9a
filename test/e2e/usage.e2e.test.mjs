// E2E for the Usage view in a real VS Code against the simulator's new-api profile (its own usage log,
// GET /api/log/token): after a few chats and an image, Show Usage draws spend per day and per model and
// lists a row per record, each marked as sent from here; the table is the charts' text alternative
// (column headers, sortable with the keyboard, a labelled filter, named buttons); the log is read once
// for the opening (the critical rate limit), and that read reconciles the receipts: a Receipts column (✓
// consistent, ! inconsistent in the warning colour, the reason on hover) and the gateway's summary, with a
// call the simulator overcharged (a higher ratio than it publishes) shown inconsistent; screenshots in
// English and Chinese into media/screenshots/.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { axeSerious, repoRoot, startScenario, webviewFrame } from './harness.mjs';

const shotsDir = join(repoRoot, 'media', 'screenshots');
mkdirSync(shotsDir, { recursive: true });
const viewport = { width: 1280, height: 800 };
const settings = {
  'modelRelay.models.chat': 'gpt-4o-mini',
  'modelRelay.models.image': 'gpt-image-1',
  'workbench.colorTheme': 'Default Dark Modern',
};
const cjkFont = spawnSync('fc-list', [':lang=zh', 'family'], { encoding: 'utf8' }).stdout?.trim();
const zh = Object.assign(
  {},
  ...readdirSync(join(repoRoot, 'l10n/zh-cn'))
    .filter((f) => f.endsWith('.json'))
    .map((f) => JSON.parse(readFileSync(join(repoRoot, 'l10n/zh-cn', f), 'utf8'))),
);

const scenarios = [];
after(async () => {
  for (const s of scenarios) await s.stop();
});

async function open(extra = {}) {
  const scenario = await startScenario({ simOptions: { profile: 'real' }, settings, viewport, ...extra });
  scenarios.push(scenario);
  await scenario.vs.page
    .locator('.statusbar-item', { hasText: 'production' })
    .first()
    .waitFor({ state: 'visible', timeout: 60_000 });
  return scenario;
}

/**
 * A few chats (and an image) from the chat panel; waits until the gateway's log shows them all (`logged`).
 * `before`: the replies already in the panel (a second round of prompts).
 */
async function spend(vs, sim, prompts, logged = true, before = 0) {
  await vs.runCommand('Model Relay: Open Chat');
  const chat = webviewFrame(vs.page);
  await chat
    .locator('[data-testid="chat-model"] option[value="gpt-4o-mini"]')
    .waitFor({ state: 'attached', timeout: 60_000 });
  await chat.locator('[data-testid="chat-model"]').selectOption('gpt-4o-mini');
  const done = chat.locator('[data-testid="chat-message"][data-role="assistant"][data-status="done"]');
  for (const [i, text] of prompts.entries()) {
    await chat.locator('[data-testid="chat-input"]').fill(text);
    await chat.locator('[data-testid="chat-input"]').press('Enter');
    await done.nth(before + i).waitFor({ timeout: 60_000 });
  }
  if (!logged) return;
  // the gateway writes its record a moment after the response (the simulator: 1.5 s)
  const end = Date.now() + 30_000;
  while (Date.now() < end) {
    const visible = sim.gatewayLog.filter((e) => e.visibleAt <= Date.now()).length;
    if (visible >= before + prompts.length) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  assert.ok(sim.gatewayLog.length >= before + prompts.length, `the gateway logged ${sim.gatewayLog.length} records`);
}

/** Show Usage, and the page once its table has `rows` rows. */
async function showUsage(vs, rows) {
  await vs.runCommand('Model Relay: Show Usage');
  const page = webviewFrame(vs.page);
  const body = page.locator('#usage-table tbody tr');
  const end = Date.now() + 60_000;
  while ((await body.count()) < rows && Date.now() < end) await new Promise((r) => setTimeout(r, 250));
  assert.ok((await body.count()) >= rows, `the table shows ${await body.count()} rows`);
  return page;
}

/** Whether a canvas shows bars: pixels in the theme colour its bars are drawn with (not only axes and grid). */
const drawn = (page, id, colourVar) =>
  page.locator(`#${id}`).evaluate((c, v) => {
    const hex = getComputedStyle(document.body).getPropertyValue(v).trim();
    const m = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})/i.exec(hex);
    if (!m) throw new Error(`${v} is ${hex}`);
    const [r, g, b] = m.slice(1).map((x) => parseInt(x, 16));
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let k = 0; k < d.length; k += 4)
      if (Math.abs(d[k] - r) < 12 && Math.abs(d[k + 1] - g) < 12 && Math.abs(d[k + 2] - b) < 12 && d[k + 3] > 200) n++;
    return n > 100;
  }, colourVar);

async function shot(vs, name) {
  await vs.page.mouse.move(viewport.width - 60, viewport.height - 80);
  await vs.page.waitForTimeout(300);
  return vs.screenshot(join(shotsDir, `${name}.png`));
}

test('the Usage view: bars per day and per model, a row per record sent from here with its receipt, accessible table', async () => {
  const { vs, sim } = await open();
  await spend(vs, sim, ['what is a relay?', 'and a gateway?', '/image a lighthouse at dusk']);
  // the last call is charged at a higher model ratio than the price list publishes, and recorded so
  sim.config.dishonest = { overcharge: { factor: 1.5, recorded: 'charged' } };
  await spend(vs, sim, ['thanks'], true, 3);
  const before = sim.log.filter((r) => r.path === '/api/log/token').length;
  const page = await showUsage(vs, 4);
  const rows = page.locator('#usage-table tbody tr');
  const text = await page.locator('#usage-table tbody').innerText();
  assert.match(text, /gpt-4o-mini/);
  assert.match(text, /gpt-image-1/);
  assert.equal(await page.locator('#usage-table tbody td:nth-child(10)', { hasText: '✓' }).count(), await rows.count());
  // the Receipts column: the overcharged call (the newest row) inconsistent, in the warning colour, the reason on hover
  const marks = await page.locator('#usage-table tbody td:nth-child(11)').allInnerTexts();
  assert.equal(marks.length, 4);
  assert.equal(marks[0], '!', `the marks: ${marks.join(' ')}`);
  assert.deepEqual(
    marks.slice(1).filter((m) => m !== '✓' && m !== '–'),
    [],
    'the honest calls: consistent, or not checkable',
  );
  const bad = page.locator('#usage-table tbody td.receipt-inconsistent');
  assert.equal(await bad.count(), 1);
  assert.match(await bad.getAttribute('title'), /^Receipt: inconsistent\n/);
  assert.match(
    await bad.getAttribute('title'),
    /According to the gateway's log, the ratios applied differ from the price list/,
  );
  const warning = await page
    .locator('body')
    .evaluate((b) => getComputedStyle(b).getPropertyValue('--vscode-editorWarning-foreground').trim());
  assert.ok(warning, 'the theme has a warning colour');
  assert.notEqual(
    await bad.evaluate((td) => getComputedStyle(td).color),
    await rows
      .nth(1)
      .locator('td:nth-child(11)')
      .evaluate((td) => getComputedStyle(td).color),
    'the inconsistency stands out',
  );
  // the gateway's summary over its last calls, naming its witness, with the disclaimer once
  const summary = page.locator('#usage-receipts');
  assert.equal(await summary.locator('h2').innerText(), "Receipts of the last 4 calls, according to the gateway's log");
  const lines = await summary.locator('li').allInnerTexts();
  assert.match(
    lines[0],
    /^Consistent with the price list: [0-3] of 4 calls \(\d+ %\); inconsistent: 1; not checkable: \d\.$/,
  );
  assert.equal(
    lines[1],
    'No model redirect was recorded by the gateway (this does not show which model served the calls).',
  );
  assert.match(
    lines[2],
    /^(Input tokens against a local count: not available|Median input tokens billed against a local count)/,
  );
  assert.equal(lines[3], 'No forward to another relay was recorded by the gateway.');
  assert.equal(await summary.locator('li.warn').count(), 1, 'the price list line, in the warning colour');
  assert.equal(await page.locator('.usage-disclaimer').count(), 1);
  assert.match(
    await page.locator('.usage-disclaimer').innerText(),
    /No relay can currently prove which model served a request/,
  );
  assert.doesNotMatch(await page.locator('#usage').innerText(), /verified|genuine/i);
  assert.ok(await drawn(page, 'usage-per-day', '--vscode-charts-blue'), 'spend per day has bars');
  assert.ok(await drawn(page, 'usage-per-model', '--vscode-charts-purple'), 'spend per model has bars');
  assert.ok(await page.locator('.usage-estimate').isHidden(), 'the gateway log: no estimate label');
  assert.match(await page.locator('.usage-status').innerText(), /usage log, read at/);
  assert.match(await page.locator('.usage-totals').innerText(), /Today\s*\$\d/);
  assert.equal(sim.log.filter((r) => r.path === '/api/log/token').length - before, 1, 'one read for the opening');
  // the table is the charts' text alternative, usable with the keyboard
  assert.equal(await page.locator('#usage-table thead th[scope="col"]').count(), 11);
  assert.deepEqual(await axeSerious(vs.page), [], 'axe-core finds no serious issue in the Usage view');
  for (const id of ['usage-per-day', 'usage-per-model']) {
    assert.equal(await page.locator(`#${id}`).getAttribute('role'), 'img');
    assert.ok(await page.locator(`#${id}`).getAttribute('aria-labelledby'));
  }
  assert.equal(await page.locator('label[for="usage-filter"]').count(), 1);
  const model = page.locator('#usage-table thead button[data-key="model"]');
  await model.focus();
  await vs.page.keyboard.press('Enter');
  assert.equal(await page.locator('#usage-table thead th[aria-sort]').getAttribute('aria-sort'), 'ascending');
  assert.match(await rows.first().innerText(), /gpt-4o-mini/);
  await vs.page.keyboard.press('Enter');
  assert.match(await rows.first().innerText(), /gpt-image-1/, 'descending: the image first');
  await page.locator('#usage-filter').fill('image');
  assert.equal(await rows.count(), 1);
  await page.locator('#usage-filter').fill('');
  // Refresh within the minute reads nothing and says when the next read is possible
  await page.locator('button', { hasText: 'Refresh' }).click();
  await page.locator('.usage-status', { hasText: 'Next read possible at' }).waitFor({ timeout: 10_000 });
  assert.equal(sim.log.filter((r) => r.path === '/api/log/token').length - before, 1, 'no second read');
  await shot(vs, 'usage');
  // the receipts for the README: the summary and the column in one view
  await summary.scrollIntoViewIfNeeded();
  await shot(vs, 'usage-receipts');

  // the chat panel: each answered reply has its receipt line from the same reads of the log, opening to the
  // whole receipt; the overcharged reply's line in the warning colour with its sentence
  await vs.runCommand('View: Close All Editors'); // the Usage view's frame would be the last webview
  await vs.runCommand('Model Relay: Open Chat');
  const chat = webviewFrame(vs.page);
  const replies = chat.locator('[data-testid="chat-message"][data-role="assistant"]');
  const first = replies.nth(0).locator('[data-testid="chat-receipt"]');
  const line = first.locator('[data-testid="chat-receipt-line"]');
  await line.waitFor({ state: 'visible', timeout: 30_000 });
  assert.match(await line.innerText(), /^Receipt: \$[\d.]+ charged · consistent with the price list of /);
  assert.equal(await first.getAttribute('data-kind'), 'ok');
  await line.focus();
  await vs.page.keyboard.press('Enter');
  const detail = first.locator('[data-testid="chat-receipt-detail"]');
  await detail.waitFor({ state: 'visible', timeout: 10_000 });
  const whole = await detail.innerText();
  assert.match(whole, /matched by request id/i);
  assert.match(whole, /gpt-4o-mini/);
  assert.match(whole, /No relay can currently prove which model served a request/);
  assert.doesNotMatch(whole, /verified|genuine/i);
  const overcharged = replies.nth(3).locator('[data-testid="chat-receipt"]');
  await overcharged.locator('[data-testid="chat-receipt-line"]').waitFor({ state: 'visible', timeout: 30_000 });
  assert.equal(await overcharged.getAttribute('data-kind'), 'warning');
  assert.match(
    await overcharged.locator('[data-testid="chat-receipt-warning"]').first().innerText(),
    /According to the gateway's log, the ratios applied differ from the price list/,
  );
  assert.equal(sim.log.filter((r) => r.path === '/api/log/token').length - before, 1, 'the chat read nothing more');
  await vs.screenshot('usage-chat-receipts');
});

test(
  "Chinese: the Usage view in VS Code's Chinese display language",
  { skip: !cjkFont && 'no Chinese font' },
  async () => {
    const { vs, sim } = await open({ locale: 'zh-cn' });
    await spend(vs, sim, ['什么是中转网关？', '再来一个问题', '/image 黄昏时的灯塔']);
    const page = await showUsage(vs, 3);
    assert.equal(await page.locator('h1').innerText(), zh['Model Relay: Usage']);
    assert.match(await page.locator('.usage-totals').innerText(), new RegExp(zh.Today));
    assert.ok(await drawn(page, 'usage-per-day', '--vscode-charts-blue'));
    assert.equal(await page.locator('#usage-table thead button[data-key="receipt"]').innerText(), zh['Receipt']);
    assert.match(await page.locator('#usage-receipts h2').innerText(), /据中转站自身日志/);
    assert.equal(
      await page.locator('#usage-receipts li').nth(1).innerText(),
      zh['No model redirect was recorded by the gateway (this does not show which model served the calls).'],
    );
    await shot(vs, 'usage-zh');
  },
);

test('one-api (no usage log): the same view from the requests sent from here, labelled estimate', async () => {
  const { vs, sim } = await open({ simOptions: { profile: 'real', gateway: 'one-api' } });
  await spend(vs, sim, ['what is a relay?', 'and a gateway?'], false);
  const page = await showUsage(vs, 2);
  assert.ok(await page.locator('.usage-estimate').isVisible(), 'the estimate label');
  assert.match(await page.locator('.usage-status').innerText(), /no usage log: an estimate/);
  assert.match(await page.locator('#usage-per-day-title').innerText(), /estimate/);
  const text = await page.locator('#usage-table tbody').innerText();
  assert.match(text, /gpt-4o-mini/);
  assert.match(text, /\d+ ms/, 'the local latency in milliseconds');
  assert.equal(
    await page.locator('#usage-table tbody tr').count(),
    2,
    'a row per chat (no model list or balance read)',
  );
});
