// E2E for accessible, native-looking webviews in a real VS Code: the chat used with the keyboard
// only (open, send with Enter, stop with Escape and with a Tab-reached Stop button that shows a focus
// ring, copy a code block with a Tab-reached Copy button), every button named and the input labelled,
// codicons (the font loaded under the CSP) instead of glyphs, and the diagnosis panel in a 500 px
// window: column headers, a status word beside each icon, and every check's fix fully visible.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { axeSerious, startScenario, webviewFrame } from './harness.mjs';

const MODELS = {
  'modelRelay.models.chat': 'gpt-4o-mini',
  'modelRelay.models.native': 'claude-sonnet-4-5',
  'modelRelay.models.image': 'gpt-image-1',
  'modelRelay.models.video': 'sora-2',
};
/** Arrows, boxes, dingbats, ×, and emoji: what icons were drawn with before codicons. */
const GLYPH = /[\u2190-\u21ff\u2300-\u23ff\u25a0-\u27bf\u00d7\u2715\u2716]|\p{Extended_Pictographic}/u;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Polls `fn` until it returns a truthy value (bounded). */
async function until(fn, what, timeout = 30_000, every = 200) {
  const end = Date.now() + timeout;
  for (;;) {
    const v = await fn().catch(() => undefined);
    if (v) return v;
    if (Date.now() >= end) throw new Error(`timed out after ${timeout} ms waiting for ${what}`);
    await sleep(every);
  }
}

describe('chat with the keyboard only', () => {
  let scenario;
  let sim;
  let vs;
  before(async () => {
    scenario = await startScenario({ settings: MODELS });
    ({ sim, vs } = scenario);
  });
  after(() => scenario?.stop());

  const chat = () => webviewFrame(vs.page);
  const body = () => chat().locator('body');
  const active = () =>
    body().evaluate(() =>
      document.hasFocus()
        ? (document.activeElement?.getAttribute('data-testid') ?? document.activeElement?.tagName)
        : undefined,
    );
  const assistant = () => chat().locator('[data-testid="chat-message"][data-role="assistant"]');
  const kb = () => vs.page.keyboard;

  /** Presses `key` until the focused element in the chat is `testId` (bounded). */
  async function tabTo(testId, key = 'Tab', max = 40) {
    for (let i = 0; i < max; i++) {
      if ((await active()) === testId) return;
      await kb().press(key);
    }
    assert.equal(await active(), testId, `${key} reaches ${testId}`);
  }

  /** A prompt typed into the focused input and sent with Enter. */
  async function typeAndSend(text) {
    assert.equal(await active(), 'chat-input', 'the input has the focus');
    await kb().type(text);
    await kb().press('Enter');
  }

  test('open the chat from the command palette, typed: the input gets the focus', async () => {
    await vs.waitForText('Relay: production', 60_000);
    await kb().press('F1');
    const input = vs.page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible', timeout: 15_000 });
    const row = vs.page.locator('.quick-input-list .monaco-list-row.focused', { hasText: 'Model Relay: Open Chat' });
    // The palette lists the commands known when the filter changes: retype (keyboard only) until ours is first.
    await until(
      async () => {
        await kb().press('ControlOrMeta+A');
        await kb().type('>Model Relay: Open Chat');
        return row.isVisible();
      },
      "Model Relay: Open Chat as the palette's first row",
      30_000,
      500,
    );
    await kb().press('Enter');
    await chat().locator('[data-testid="chat-input"]').waitFor({ state: 'visible', timeout: 60_000 });
    await chat()
      .locator('[data-testid="chat-model"] option[value="gpt-4o-mini"]')
      .waitFor({ state: 'attached', timeout: 30_000 });
    await until(async () => (await active()) === 'chat-input', 'the chat input to have the keyboard focus', 20_000);
  });

  test('Enter sends; Escape stops a streaming reply and the connection closes early', async () => {
    sim.config.replyText = Array.from({ length: 60 }, (_, i) => `word${i}`).join(' ');
    sim.fault({ kind: 'slowChunks', ms: 150, count: 1 });
    await typeAndSend('a long answer please');
    await assistant()
      .nth(0)
      .locator('[data-testid="chat-message-body"]', { hasText: 'word3' })
      .waitFor({ timeout: 30_000 });
    await kb().press('Escape');
    await chat()
      .locator('[data-testid="chat-message"][data-role="assistant"][data-status="stopped"]')
      .waitFor({ timeout: 15_000 });
    assert.doesNotMatch(await assistant().nth(0).innerText(), /word59/);
    await until(
      async () => sim.log.filter((r) => r.path === '/v1/chat/completions').at(-1)?.closedEarly === true,
      'the simulator to see the connection close early',
      5_000,
    );
  });

  test('Tab reaches the Stop button, which shows a focus ring; Enter on it stops, and the focus returns to the input', async () => {
    sim.fault({ kind: 'slowChunks', ms: 150, count: 1 });
    await typeAndSend('another long answer');
    await assistant()
      .nth(1)
      .locator('[data-testid="chat-message-body"]', { hasText: 'word3' })
      .waitFor({ timeout: 30_000 });
    await tabTo('chat-stop');
    const ring = await body().evaluate(() => {
      const s = getComputedStyle(document.activeElement);
      return {
        style: s.outlineStyle,
        width: parseFloat(s.outlineWidth),
        visible: document.activeElement.matches(':focus-visible'),
      };
    });
    assert.ok(
      ring.visible && ring.style !== 'none' && ring.width >= 1,
      `a visible focus ring on Stop (${JSON.stringify(ring)})`,
    );
    await vs.screenshot('a11y-01-stop-focused');
    await kb().press('Enter');
    await assistant().nth(1).and(chat().locator('[data-status="stopped"]')).waitFor({ timeout: 15_000 });
    await until(async () => (await active()) === 'chat-input', 'the focus back in the input', 5_000);
    delete sim.config.replyText;
  });

  test("a code block's Copy button is reached with the keyboard and copies the code", async () => {
    const code = 'console.log("copied by keyboard", 42);';
    sim.config.replyText = `Here it is:\n\n\`\`\`js\n${code}\n\`\`\`\n\nDone.`;
    try {
      await typeAndSend('show me code');
      await chat()
        .locator('[data-testid="chat-message"][data-role="assistant"][data-status="done"]', { hasText: 'Done.' })
        .waitFor({ timeout: 30_000 });
      await vs.page.evaluate(() => navigator.clipboard.writeText('before')).catch(() => {});
      await tabTo('chat-code-copy', 'Shift+Tab');
      assert.ok(
        await body().evaluate(
          () =>
            document.activeElement.matches(':focus-visible') &&
            getComputedStyle(document.activeElement).outlineStyle !== 'none',
        ),
        'Copy shows a focus ring',
      );
      await kb().press('Enter');
      await vs.waitForText('Model Relay: code copied', 10_000);
      const copied = await until(
        async () => {
          const text = await vs.page.evaluate(() => navigator.clipboard.readText());
          return text === `${code}\n` ? text : undefined;
        },
        'the clipboard to hold the code',
        10_000,
      );
      assert.equal(copied, `${code}\n`);
      assert.match(await chat().locator('[data-testid="chat-code-copy"]').last().innerText(), /Copied/);
      await vs.screenshot('a11y-02-code-copied');
    } finally {
      delete sim.config.replyText;
    }
  });

  test('every chat button has a name, the input a label, and icons are codicons drawn by the loaded font', async () => {
    const report = await body().evaluate(async (_body, glyph) => {
      const re = new RegExp(glyph, 'u');
      await document.fonts.ready;
      const buttons = [...document.querySelectorAll('button')];
      const input = document.querySelector('[data-testid="chat-input"]');
      return {
        count: buttons.length,
        unnamed: buttons
          .filter((b) => !(b.getAttribute('aria-label') || b.textContent.trim()))
          .map((b) => b.outerHTML.slice(0, 120)),
        glyphs: buttons.filter((b) => re.test(b.textContent)).map((b) => b.getAttribute('data-testid')),
        label: input.labels?.[0]?.textContent || input.getAttribute('aria-label') || '',
        iconButtons: [
          'chat-refresh-models',
          'chat-attach',
          'chat-context-remove',
          'chat-send',
          'chat-stop',
          'chat-code-copy',
        ].map((id) => {
          const b = document.querySelector(`[data-testid="${id}"]`);
          return {
            id,
            codicon: !!b?.querySelector('.codicon[aria-hidden="true"]'),
            name: b?.getAttribute('aria-label') || b?.textContent.trim() || '',
            title: b?.title ?? '',
          };
        }),
        font: [...document.fonts].some((f) => f.family.replace(/"/g, '') === 'codicon' && f.status === 'loaded'),
        codiconWidth: (() => {
          const i = document.querySelector('[data-testid="chat-refresh-models"] .codicon');
          return i ? i.getBoundingClientRect().width : 0;
        })(),
      };
    }, GLYPH.source);
    assert.ok(report.count >= 8, `buttons found: ${report.count}`);
    assert.deepEqual(report.unnamed, [], 'every button has an accessible name');
    assert.deepEqual(report.glyphs, [], 'no glyph or emoji in a button');
    assert.equal(report.label, 'Message', 'the input is labelled');
    for (const b of report.iconButtons) {
      assert.ok(b.codicon, `${b.id}: a codicon`);
      assert.ok(b.name, `${b.id}: a name`);
      assert.ok(b.title, `${b.id}: a tooltip`);
    }
    assert.ok(report.font, 'the codicon font loaded under the CSP');
    assert.ok(report.codiconWidth >= 12, `the refresh icon is drawn (${report.codiconWidth}px wide)`);
    assert.deepEqual(await axeSerious(vs.page), [], 'axe-core finds no serious issue in the chat');
  });
});

describe('the diagnosis panel in a 500 px window', () => {
  let scenario;
  let vs;
  before(async () => {
    // A disabled token and a base URL ending in /v1: several failing checks with long fixes.
    scenario = await startScenario({
      viewport: { width: 500, height: 1000 },
      tokenName: 'disabled',
      baseUrl: (s) => `${s.url}/v1`,
      settings: MODELS,
    });
    ({ vs } = scenario);
  });
  after(() => scenario?.stop());

  const panel = () => webviewFrame(vs.page);

  test('every check row is whole: the fix text and its button lie inside the panel, nothing scrolls sideways', async () => {
    await vs.runCommand('Model Relay: Diagnose Connection', { timeout: 60_000 });
    const p = panel();
    await p.locator('[data-testid="diagnosis-summary"]').waitFor({ state: 'visible', timeout: 90_000 });
    const m = await p.locator('body').evaluate(() => {
      const width = document.documentElement.clientWidth;
      const rows = [...document.querySelectorAll('tr[data-testid^="check-"]')].map((tr) => {
        const fix = tr.querySelector('[data-testid="fix-text"]');
        const r = fix.getBoundingClientRect();
        const cell = fix.closest('td');
        const btn = tr.querySelector('button[data-fix]');
        const b = btn?.getBoundingClientRect();
        return {
          id: tr.getAttribute('data-testid'),
          result: tr.getAttribute('data-result'),
          fix: fix.textContent.length,
          left: r.left,
          right: r.right,
          clipped: fix.scrollWidth > fix.clientWidth + 1 || cell.scrollWidth > cell.clientWidth + 1,
          button: b ? { right: b.right, clipped: btn.scrollWidth > btn.clientWidth + 1 } : undefined,
        };
      });
      return { width, scrollWidth: document.documentElement.scrollWidth, bodyScroll: document.body.scrollWidth, rows };
    });
    assert.ok(m.width < 500, `the panel is narrower than 500 px (${m.width})`);
    assert.ok(m.rows.length >= 8, `rows: ${m.rows.length}`);
    assert.ok(m.rows.filter((r) => r.result === 'fail').length >= 2, 'several failing checks');
    assert.ok(
      m.rows.some((r) => r.fix > 80),
      'at least one long fix',
    );
    assert.ok(
      m.scrollWidth <= m.width && m.bodyScroll <= m.width,
      `no horizontal scroll (${m.scrollWidth} / ${m.bodyScroll} > ${m.width})`,
    );
    for (const r of m.rows) {
      assert.ok(
        r.left >= 0 && r.right <= m.width,
        `${r.id}: the fix lies within the panel (${r.left}–${r.right} of ${m.width})`,
      );
      assert.ok(!r.clipped, `${r.id}: the fix is not clipped`);
      if (r.button) assert.ok(r.button.right <= m.width && !r.button.clipped, `${r.id}: the fix button is whole`);
    }
    await vs.screenshot('a11y-03-diagnose-500px');
  });

  test('the table has column headers, a status word beside each icon, named buttons and no emoji', async () => {
    const r = await panel()
      .locator('body')
      .evaluate((_body, glyph) => {
        const re = new RegExp(glyph, 'u');
        const rows = [...document.querySelectorAll('tr[data-testid^="check-"]')];
        return {
          th: [...document.querySelectorAll('table thead th')].map((th) => [
            th.getAttribute('scope'),
            th.textContent.trim(),
          ]),
          statuses: rows.map((tr) => ({
            result: tr.getAttribute('data-result'),
            icon: !!tr.querySelector('td.status .codicon[aria-hidden="true"]'),
            text: tr.querySelector('[data-testid="status-text"]')?.textContent.trim() ?? '',
          })),
          unnamed: [...document.querySelectorAll('button')].filter(
            (b) => !(b.getAttribute('aria-label') || b.textContent.trim()),
          ).length,
          emoji: [...document.querySelectorAll('td.status, button')].some((e) => re.test(e.textContent)),
          codicons: document.querySelectorAll('.codicon').length,
        };
      }, GLYPH.source);
    assert.deepEqual(r.th, [
      ['col', 'Status'],
      ['col', 'Check'],
      ['col', 'HTTP status'],
      ['col', 'Cause'],
      ['col', 'Fix'],
    ]);
    const words = { pass: 'Passed', fail: 'Failed', warn: 'Warning', skipped: 'Skipped' };
    for (const s of r.statuses) {
      assert.ok(s.icon, `${s.result}: an icon`);
      assert.equal(s.text, words[s.result], `the ${s.result} icon has its word beside it`);
    }
    assert.equal(r.unnamed, 0, 'every button has a name');
    assert.equal(r.emoji, false, 'no emoji or glyph icons');
    assert.ok(r.codicons >= r.statuses.length, 'codicons are used');
    assert.deepEqual(await axeSerious(vs.page), [], 'axe-core finds no serious issue in the diagnosis panel');
  });
});
