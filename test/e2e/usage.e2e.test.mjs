// E2E for the Usage view in a real VS Code against the simulator's new-api profile (its own usage log,
// GET /api/log/token): after a turn of VS Code's own chat with our model, a commit message, a video, a few
// chats and an image, Show Usage draws spend per day and per model and lists a row per record, each marked
// as sent from here, each of those calls with its receipt matched by request id; the table is the charts' text alternative
// (column headers, sortable with the keyboard, a labelled filter, named buttons); the log is read once
// for the opening (the critical rate limit), and that read reconciles the receipts: a Receipts column (✓
// consistent, ! inconsistent in the warning colour, the reason on hover) and the gateway's summary, with a
// call the simulator overcharged (a higher ratio than it publishes) shown inconsistent; screenshots in
// English and Chinese into media/screenshots/.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { axeSerious, git, repoRoot, startScenario, webviewFrame } from './harness.mjs';

const shotsDir = join(repoRoot, 'media', 'screenshots');
mkdirSync(shotsDir, { recursive: true });
const viewport = { width: 1280, height: 800 };
const settings = {
  'modelRelay.models.chat': 'gpt-4o-mini',
  'modelRelay.models.image': 'gpt-image-1',
  'modelRelay.models.video': 'sora-2',
  'git.openRepositoryInParentFolders': 'never',
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

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Waits until `ok()` holds (polled), else fails saying `what`. */
async function until(ok, what, timeoutMs = 30_000) {
  const end = Date.now() + timeoutMs;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await sleep(250);
  }
}

/** Waits until the simulator has had no POST for `ms` (a late request of VS Code's chat is counted as its own). */
const quiet = (sim, ms = 3_000) =>
  until(
    () => Date.now() - Math.max(0, ...sim.log.filter((r) => r.method === 'POST').map((r) => r.time)) >= ms,
    'quiet',
  );

/** The request ids of the billed calls (POST, 200) the simulator answered on `paths` since `from`. */
const billedSince = (sim, from, paths) =>
  sim.log
    .filter((r) => r.method === 'POST' && r.status === 200 && paths.includes(r.path) && r.time >= from)
    .map((r) => r.requestId);

/**
 * The workspace: a repository with a commit and a staged new file (the commit message describes it), and a
 * folder for VS Code's chat to list.
 */
const workspaceFiles = {
  files: {
    'src/greeting.ts': 'export const greet = (name: string) => `Hello, ${name}!`;\n',
    'list_dir/notes.txt': 'hello\n',
    '.gitignore': '.model-relay/\n',
  },
  prepare(ws) {
    git(ws, 'init', '-q', '-b', 'main');
    git(ws, 'add', '-A');
    git(ws, 'commit', '-q', '-m', 'feat(greeting): add the greeting module');
    writeFileSync(join(ws, 'src/farewell.ts'), 'export const farewell = (name: string) => `Goodbye, ${name}!`;\n');
    git(ws, 'add', 'src/farewell.ts');
  },
};

/**
 * A turn of VS Code's own chat with one of our models (as chat-setup.e2e does it): a fresh profile keeps the
 * built-in chat off until it is set up, so the Status view's row runs Chat: Manage Language Models; then the
 * prompt in the Chat view (agent mode) names a tool VS Code runs, and the model answers its result. The
 * calls' request ids.
 */
async function vscodeChatTurn(vs, sim, workspace) {
  const from = Date.now();
  await vs.runCommand('Model Relay: Focus on Status View');
  const row = vs.page
    .locator('.pane', { has: vs.page.locator('.pane-header', { hasText: 'Status' }) })
    .first()
    .locator('.monaco-list-row', { hasText: "VS Code's chat" })
    .first();
  await row.waitFor({ state: 'visible', timeout: 60_000 });
  await row.click();
  await vs.waitForText('Language Models', 60_000);
  await vs.page.getByText('gpt-4o-mini').first().waitFor({ state: 'visible', timeout: 60_000 });
  await vs.page.keyboard.press('Escape');
  // the built-in chat extension runs now: the row goes
  await vs.runCommand('Model Relay: Focus on Status View');
  await row.waitFor({ state: 'detached', timeout: 90_000 });
  await vs.runCommand('Chat: Open Chat');
  const input = vs.page.locator('.interactive-input-editor').first();
  await input.waitFor({ state: 'visible', timeout: 60_000 });
  await input.click();
  await vs.page.keyboard.type(`${workspace}/list_dir`);
  await vs.page.keyboard.press('Enter');
  await vs.page
    .locator('.interactive-response', { hasText: 'Tool list_dir returned' })
    .first()
    .waitFor({ state: 'visible', timeout: 120_000 });
  // with the focus in the chat input, a command run from the palette was once sent as a prompt: focus leaves it
  await vs.page.evaluate(() => document.activeElement instanceof HTMLElement && document.activeElement.blur());
  await vs.runCommand('View: Hide Secondary Side Bar');
  await vs.page.locator('.part.auxiliarybar').waitFor({ state: 'hidden', timeout: 10_000 });
  await quiet(sim);
  const ids = billedSince(sim, from, ['/v1/chat/completions', '/v1/messages']);
  assert.ok(ids.length >= 2, `the tool call and the answer reached the gateway: ${ids.length} calls`);
  return ids;
}

/** Model Relay: Generate Commit Message from the palette: the message in the SCM input box. Its request id. */
async function commitMessage(vs, sim) {
  const from = Date.now();
  await vs.runCommand('Model Relay: Generate Commit Message');
  const box = vs.page.locator('.part.sidebar .scm-editor .view-lines').first();
  await until(async () => /farewell/.test(await box.innerText().catch(() => '')), 'the commit message in the box');
  await vs.runCommand('View: Show Explorer');
  const ids = billedSince(sim, from, ['/v1/chat/completions', '/v1/messages']);
  assert.equal(
    ids.length,
    1,
    `one request for the commit message: ${JSON.stringify(sim.log.filter((r) => r.time >= from).map((r) => [r.method, r.path, r.model, r.status]))}`,
  );
  return ids;
}

/**
 * Model Relay: Generate Video: the task the gateway took (and billed); `downloaded()` waits for its file in the
 * workspace (the extension polls the task meanwhile). Its request id.
 */
async function video(vs, sim, workspace) {
  const from = Date.now();
  await vs.runCommand('Model Relay: Generate Video');
  await vs.answerInput('waves on a beach', { expect: 'Generate Video' });
  await vs.answerInput('4', { expect: 'video length' });
  await until(() => billedSince(sim, from, ['/v1/videos']).length === 1, 'the video task');
  const dir = join(workspace, '.model-relay/videos');
  return {
    ids: billedSince(sim, from, ['/v1/videos']),
    downloaded: () =>
      until(() => existsSync(dir) && readdirSync(dir).some((f) => f.endsWith('.mp4')), 'the video file', 90_000),
  };
}

/**
 * A few chats (and an image) from the chat panel; waits until the gateway's log shows them all (`logged`).
 * `before`: the replies already in the panel (a second round of prompts).
 */
async function spend(vs, sim, prompts, logged = true, before = 0) {
  const logBefore = sim.gatewayLog.length;
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
    if (visible >= logBefore + prompts.length) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  assert.ok(
    sim.gatewayLog.length >= logBefore + prompts.length,
    `the gateway logged ${sim.gatewayLog.length - logBefore} records`,
  );
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
  const { vs, sim, workspace } = await open(workspaceFiles);
  const started = Date.now();
  // billed calls made from elsewhere than the chat panel (before its chats: their wishes read the log soon after);
  // the video task runs while the others are made
  const task = await video(vs, sim, workspace);
  const made = {
    'the video': task.ids,
    "VS Code's chat": await vscodeChatTurn(vs, sim, workspace),
    'the commit message': await commitMessage(vs, sim),
  };
  await task.downloaded();
  // for the screenshots: the video's tab and the notifications (VS Code's chat offers its own settings) away
  await vs.runCommand('View: Close All Editors');
  await vs.runCommand('Notifications: Clear All Notifications');
  console.log(`the video, VS Code's chat and the commit message: ${Date.now() - started} ms`);
  await spend(vs, sim, ['what is a relay?', 'and a gateway?', '/image a lighthouse at dusk']);
  // the last call is charged at a higher model ratio than the price list publishes, and recorded so
  sim.config.dishonest = { overcharge: { factor: 1.5, recorded: 'charged' } };
  await spend(vs, sim, ['thanks'], true, 3);
  await until(() => sim.gatewayLog.every((e) => e.visibleAt <= Date.now()), "every record in the gateway's log");
  const n = sim.gatewayLog.length;
  const calls = sim.gatewayLog.filter((e) => e.type === 2).length;
  const before = sim.log.filter((r) => r.path === '/api/log/token').length;
  const page = await showUsage(vs, n);
  const rows = page.locator('#usage-table tbody tr');
  const text = await page.locator('#usage-table tbody').innerText();
  assert.match(text, /gpt-4o-mini/);
  assert.match(text, /gpt-image-1/);
  assert.match(text, /sora-2/);
  assert.equal(await page.locator('#usage-table tbody td:nth-child(10)', { hasText: '✓' }).count(), await rows.count());
  // the Receipts column: the overcharged call (the newest row) inconsistent, in the warning colour, the reason on hover
  const marks = await page.locator('#usage-table tbody td:nth-child(11)').allInnerTexts();
  assert.equal(marks.length, n);
  assert.equal(marks[0], '!', `the marks: ${marks.join(' ')}`);
  assert.deepEqual(
    marks.slice(1).filter((m) => m !== '✓' && m !== '–'),
    [],
    'the honest calls: consistent, or not checkable',
  );
  // VS Code's chat, the commit message and the video: each call's row has its receipt, reconciled by request id
  for (const [what, ids] of Object.entries(made))
    for (const id of ids) {
      const cell = page.locator(`#usage-table tbody td[title*="Gateway receipt ${id}, matched by request id."]`);
      assert.equal(await cell.count(), 1, `${what}: the receipt of ${id} matched by request id`);
      const [mark, title] = [await cell.innerText(), await cell.getAttribute('title')];
      assert.ok(mark === '✓' || mark === '!', `${what}: ${mark} ${title}`);
      assert.match(title, mark === '✓' ? /^Receipt: consistent\n/ : /^Receipt: inconsistent\n/, what);
      // the local log kept the usage the response reported: the tokens billed are held against it
      if (what !== 'the video')
        assert.match(title, /the billed tokens equal the tokens the gateway reported in its response/, what);
    }
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
  assert.equal(
    await summary.locator('h2').innerText(),
    `Receipts of the last ${calls} calls, according to the gateway's log`,
  );
  const lines = await summary.locator('li').allInnerTexts();
  assert.match(
    lines[0],
    new RegExp(
      `^Consistent with the price list: \\d+ of ${calls} calls \\(\\d+ %\\); inconsistent: 1; not checkable: \\d+\\.$`,
    ),
  );
  assert.equal(
    lines[1],
    'No model redirect was recorded by the gateway (this does not show which model served the calls).',
  );
  // the chat panel's calls (gpt-4o-mini, plain text) were counted here as the simulated OpenAI upstream bills them
  assert.match(
    lines[2],
    /^Median input tokens billed against a local count: ×1\.00 over \d+ calls \(tokenizer o200k_base, tolerance ±5 %\)\.$/,
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
  const shownModels = () => page.locator('#usage-table tbody td:nth-child(2)').allInnerTexts();
  const ascending = [...new Set(await shownModels())];
  assert.deepEqual(
    ascending,
    [...ascending].sort((a, b) => a.localeCompare(b)),
    'ascending by model',
  );
  await vs.page.keyboard.press('Enter');
  assert.deepEqual([...new Set(await shownModels())], [...ascending].reverse(), 'descending');
  await page.locator('#usage-filter').fill('image');
  assert.equal(await rows.count(), 1);
  await page.locator('#usage-filter').fill('');
  // Refresh within the minute reads nothing and says when the next read is possible
  await page.locator('button', { hasText: 'Refresh' }).click();
  await page.locator('.usage-status', { hasText: 'Next read possible at' }).waitFor({ timeout: 10_000 });
  assert.equal(sim.log.filter((r) => r.path === '/api/log/token').length - before, 1, 'no second read');
  await shot(vs, 'usage');
  // the receipts for the README: the summary and the Receipt column in one view (the side bar away: the table's width)
  await vs.runCommand('View: Toggle Primary Side Bar Visibility');
  await summary.evaluate((e) => e.scrollIntoView({ block: 'start' }));
  await page.locator('#usage-table tbody td.receipt-inconsistent').waitFor({ state: 'visible' });
  // the column has its width (a fixed layout gives none to a column without one) and is not scrolled away
  const box = await page.locator('#usage-table tbody td.receipt-inconsistent').evaluate((td) => {
    const r = td.getBoundingClientRect();
    const wrap = td.closest('.usage-table-wrap').getBoundingClientRect();
    return { width: r.width, inside: r.right <= wrap.right + 1 && r.right <= window.innerWidth };
  });
  assert.ok(box.width >= 40 && box.inside, `the Receipt column shows: ${JSON.stringify(box)}`);
  await shot(vs, 'usage-receipts');
  await vs.runCommand('View: Toggle Primary Side Bar Visibility');

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
  assert.match(
    whole,
    /the (\d+) input tokens billed are consistent with a local count of \1 \(tokenizer o200k_base, ±\d+ tokens\)/,
  );
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
