// The Usage view's first paint (issue 24 §5): 1,000 usage-log records (the gateway's most) across 30
// days and 8 models, as the host builds them (bench/messages.ts over src/host/usage/usageData.ts), posted to the real
// bundle (dist/usage.js) in headless Chromium (jsdom has no canvas): from the `state` message to the
// frame after both charts and the whole table are in the page. Main-thread time and wall time.
// Used by bench/run.mjs; `node bench/usageRender.mjs` prints the figures alone.
import { createRequire } from 'node:module';
import { loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
export const USAGE_RECORDS = 1000;

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

function stringsAttr(outDir) {
  const { usageStrings } = require(join(outDir, 'src/host/usage/usageHtml.js'));
  return JSON.stringify(usageStrings()).replace(/&/g, '&amp;').replace(/"/g, '&quot;');
}

/** Median first-paint figures over `runs` fresh pages. */
export async function usageRenderFigures(runs = 5, outDir = join(root, 'out')) {
  // the records, the host's state of them and its message: bench/messages.ts, against the protocol's types
  const { usageViewState, usageStateMessage } = require(join(outDir, 'bench/messages.js'));
  const state = usageViewState(Date.now(), USAGE_RECORDS);
  const message = usageStateMessage(state);
  const strings = stringsAttr(outDir);
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
    ],
  });
  const cpu = [];
  const wall = [];
  const all = [];
  let rows = 0;
  let bars = false;
  /** exceptions in the page (a message it could not handle): they say why better than a missing row */
  const errors = [];
  const failed = () => new Error(`the Usage view failed: ${errors[0].stack ?? errors[0].message}`);
  try {
    for (let i = 0; i < runs; i++) {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      page.on('pageerror', (e) => errors.push(e));
      const cdp = await page.context().newCDPSession(page);
      await cdp.send('Performance.enable');
      await page.setContent(
        `<!DOCTYPE html><html><head><link rel="stylesheet" href="file://${join(root, 'media/usage.css')}"></head><body><main id="usage" data-strings="${strings}"></main></body></html>`,
      );
      await page.evaluate(() => {
        window.acquireVsCodeApi = () => ({ postMessage() {} });
      });
      await page.addScriptTag({ path: join(root, 'dist/usage.js') });
      const task = async () =>
        (await cdp.send('Performance.getMetrics')).metrics.find((m) => m.name === 'TaskDuration').value;
      const before = await task();
      // the host's JSON, handed to the page beforehand (Playwright's own argument passing is not the view's work)
      await page.evaluate((m) => {
        window.__usageMessage = m;
      }, message);
      const { ms, allMs } = await page.evaluate(async (total) => {
        const frame = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
        const rowsIn = () => document.querySelectorAll('#usage-table tbody tr').length;
        const deadline = performance.now() + 30_000;
        const until = async (cond) => {
          while (!cond()) {
            if (performance.now() > deadline)
              throw new Error(`the table shows ${rowsIn()} of ${total} rows after 30 s`);
            await new Promise((r) => setTimeout(r, 0));
          }
        };
        // the page is up and idle (it has drawn its empty charts) before the host's answer comes, as in VS Code
        await frame();
        const t0 = performance.now();
        window.postMessage(window.__usageMessage, '*');
        await until(() => rowsIn() > 0);
        await frame(); // the frame that shows the charts and the first rows
        const ms = performance.now() - t0;
        await until(() => rowsIn() >= total);
        await frame();
        return { ms, allMs: performance.now() - t0 };
      }, state.rows.length);
      const after = await task();
      rows = await page.locator('#usage-table tbody tr').count();
      // a drawn bar chart has coloured pixels on its canvas
      bars = await page.evaluate(() =>
        ['usage-per-day', 'usage-per-model'].every((id) => {
          const c = document.getElementById(id);
          const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
          for (let k = 3; k < d.length; k += 4) if (d[k] > 0) return true;
          return false;
        }),
      );
      await page.close();
      // the state message's structured clone is part of the work: counted in both figures
      cpu.push((after - before) * 1000);
      wall.push(ms);
      all.push(allMs);
    }
  } catch (e) {
    throw errors.length ? failed() : e;
  } finally {
    await browser.close();
  }
  if (errors.length) throw failed();
  if (rows !== USAGE_RECORDS) throw new Error(`the table shows ${rows} rows, not ${USAGE_RECORDS}`);
  if (!bars) throw new Error('a chart drew nothing');
  return {
    loadAverage: loadavg()[0],
    records: USAGE_RECORDS,
    rows,
    firstPaintMs: median(wall),
    allRowsMs: median(all),
    mainThreadMs: median(cpu),
    runs,
    wallMs: wall,
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const f = await usageRenderFigures(Number(process.argv[2] ?? 5));
  console.log(
    `Usage view, ${f.records} records (2 charts, ${f.rows} table rows): first paint ${f.firstPaintMs.toFixed(1)} ms (goal ≤ 150 ms), every row in ${f.allRowsMs.toFixed(1)} ms, ${f.mainThreadMs.toFixed(1)} ms main thread in all (load average ${f.loadAverage.toFixed(1)})`,
  );
}
