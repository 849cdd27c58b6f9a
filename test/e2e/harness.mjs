// The e2e harness: a real VS Code (code-server on Node 24) with our packaged .vsix installed,
// driven through Debian's chromium by playwright-core. Everything started here is stopped by pid.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = dirname(fileURLToPath(import.meta.url));
export const repoRoot = resolve(here, '../..');
export const resultsDir = join(repoRoot, 'test-results');

let setupCache;
/** Runs setup-code-server.sh once per process; returns { NODE24, CODE_SERVER, CHROMIUM }. */
export function ensureCodeServer() {
  if (setupCache) return setupCache;
  const r = spawnSync('bash', [join(here, 'setup-code-server.sh')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], timeout: 45 * 60_000 });
  if (r.status !== 0) throw new Error(`setup-code-server.sh failed (exit ${r.status})`);
  setupCache = Object.fromEntries(r.stdout.trim().split('\n').filter((l) => l.includes('=')).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
  return setupCache;
}

export function freePort() {
  return new Promise((res, rej) => {
    const s = createServer();
    s.once('error', rej);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => res(port));
    });
  });
}

async function waitFor(fn, what, timeoutMs = 60_000, stepMs = 250) {
  const end = Date.now() + timeoutMs;
  let last;
  while (Date.now() < end) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    await new Promise((r) => setTimeout(r, stepMs));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${last.message}` : ''}`);
}

/**
 * Starts code-server with a fresh user-data and extensions dir, installs the .vsix, opens the
 * workbench in chromium. Returns helpers for driving it; close() stops everything by pid.
 */
export async function launchVSCode({ vsix = join(repoRoot, 'model-relay.vsix'), workspaceDir, settings = {}, env = {} } = {}) {
  const { NODE24, CODE_SERVER, CHROMIUM } = ensureCodeServer();
  const base = mkdtempSync(join(tmpdir(), 'relay-e2e-'));
  const userDataDir = join(base, 'user-data');
  const extensionsDir = join(base, 'extensions');
  mkdirSync(join(userDataDir, 'User'), { recursive: true });
  mkdirSync(join(userDataDir, 'Machine'), { recursive: true });
  mkdirSync(extensionsDir, { recursive: true });
  const allSettings = { 'workbench.startupEditor': 'none', 'security.workspace.trust.enabled': false, 'telemetry.telemetryLevel': 'off', 'extensions.autoUpdate': false, 'workbench.tips.enabled': false, 'workbench.secondarySideBar.defaultVisibility': 'hidden', 'chat.commandCenter.enabled': false, ...settings };
  writeFileSync(join(userDataDir, 'User', 'settings.json'), JSON.stringify(allSettings, null, 2));
  // code-server is a remote: machine-scoped settings (modelRelay.baseUrl, backupUrls) live here
  writeFileSync(join(userDataDir, 'Machine', 'settings.json'), JSON.stringify(Object.fromEntries(Object.entries(settings).filter(([k]) => /^modelRelay\.(baseUrl|backupUrls)$/.test(k))), null, 2));
  const csArgs = ['--user-data-dir', userDataDir, '--extensions-dir', extensionsDir];
  const inst = spawnSync(NODE24, [CODE_SERVER, ...csArgs, '--install-extension', vsix], { encoding: 'utf8', timeout: 120_000 });
  if (inst.status !== 0) throw new Error(`installing ${vsix} failed: ${inst.stdout}\n${inst.stderr}`);
  const port = await freePort();
  const logs = [];
  const child = spawn(NODE24, [CODE_SERVER, ...csArgs, '--bind-addr', `127.0.0.1:${port}`, '--auth', 'none', '--disable-telemetry', '--disable-update-check', '--disable-workspace-trust', '--disable-getting-started-override', workspaceDir ?? base], {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env, PATH: `${dirname(NODE24)}:${process.env.PATH}` },
  });
  child.stdout.on('data', (d) => logs.push(String(d)));
  child.stderr.on('data', (d) => logs.push(String(d)));
  const url = `http://127.0.0.1:${port}`;
  let browser;
  const close = async () => {
    try {
      await browser?.close();
    } catch {
      /* already gone */
    }
    if (child.pid && child.exitCode === null) {
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {
        /* gone */
      }
      await Promise.race([new Promise((r) => child.once('exit', r)), new Promise((r) => setTimeout(r, 5000))]);
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
    rmSync(base, { recursive: true, force: true });
  };
  try {
    await waitFor(async () => (await fetch(`${url}/healthz`)).ok, 'code-server to answer', 90_000);
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync', '--disable-dev-shm-usage'] });
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: url });
    const page = await context.newPage();
    await page.goto(`${url}/?folder=${encodeURIComponent(workspaceDir ?? base)}`);
    await page.waitForSelector('.monaco-workbench', { timeout: 90_000 });
    await page.waitForSelector('.statusbar', { timeout: 60_000 });
    const vs = {
      page,
      browser,
      url,
      logs,
      userDataDir,
      /** Runs a command by its palette title, e.g. "Model Relay: Add Token". */
      async runCommand(title) {
        // close an open quick input (but don't press Escape in an editor: it clears the selection)
        if (await page.locator('.quick-input-widget').isVisible()) await page.keyboard.press('Escape');
        await page.keyboard.press('Control+Shift+P');
        const input = page.locator('.quick-input-widget input');
        await input.waitFor({ state: 'visible', timeout: 15_000 });
        await input.fill(`>${title}`);
        const row = page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first();
        await row.waitFor({ state: 'visible', timeout: 15_000 });
        await page.keyboard.press('Enter');
        // the palette has closed (or been replaced by the command's own input)
        await page.waitForFunction(() => {
          const i = document.querySelector('.quick-input-widget input');
          return !i || i.offsetParent === null || !i.value.startsWith('>');
        }, undefined, { timeout: 15_000 });
      },
      /** Waits for the quick input to show a title or prompt containing `text`, then types and accepts. */
      async answerInput(value, { expect, timeout = 20_000 } = {}) {
        const input = page.locator('.quick-input-widget input');
        await input.waitFor({ state: 'visible', timeout });
        if (expect) await page.locator('.quick-input-widget .quick-input-title', { hasText: expect }).waitFor({ state: 'visible', timeout });
        await input.fill(value);
        await page.keyboard.press('Enter');
      },
      async waitForText(text, timeout = 30_000) {
        await page.getByText(text, { exact: false }).first().waitFor({ state: 'visible', timeout });
      },
      async pageText() {
        return page.evaluate(() => document.body.innerText);
      },
      async screenshot(name) {
        mkdirSync(resultsDir, { recursive: true });
        const path = join(resultsDir, `${name}.png`);
        await page.screenshot({ path });
        return path;
      },
      close,
    };
    return vs;
  } catch (e) {
    await close();
    throw new Error(`${e.message}\ncode-server output:\n${logs.join('').slice(-4000)}`);
  }
}

/**
 * One scenario's world: a fresh simulator, a fresh workspace (with `files`), and VS Code with the
 * base URL set to the simulator and a demo token seeded into SecretStorage. `stop()` ends all three.
 */
export async function startScenario({ settings = {}, tokenName = 'production', files = {}, simOptions = {}, baseUrl } = {}) {
  const { createRequire } = await import('node:module');
  const require = createRequire(import.meta.url);
  const { startSimulator } = require(join(repoRoot, 'out/test/sim/server.js'));
  const sim = await startSimulator(simOptions);
  const workspace = mkdtempSync(join(tmpdir(), 'relay-ws-'));
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(dirname(join(workspace, name)), { recursive: true });
    writeFileSync(join(workspace, name), content);
  }
  let vs;
  try {
    vs = await launchVSCode({
      workspaceDir: workspace,
      settings: { 'modelRelay.baseUrl': baseUrl ? baseUrl(sim) : sim.url, ...settings },
      env: { MODEL_RELAY_SEED_TOKEN: sim.tokens[tokenName], MODEL_RELAY_SEED_TOKEN_NAME: tokenName },
    });
  } catch (e) {
    await sim.close();
    rmSync(workspace, { recursive: true, force: true });
    throw e;
  }
  return {
    sim,
    vs,
    workspace,
    async stop() {
      await vs.close();
      await sim.close();
      rmSync(workspace, { recursive: true, force: true });
    },
  };
}

/** The document inside the newest webview (webviews are nested iframes). */
export function webviewFrame(page) {
  return page.frameLocator('iframe.webview.ready').last().frameLocator('#active-frame');
}
