// The e2e harness: a real VS Code (code-server on Node 24) with an extension installed, driven
// through Debian's chromium by playwright-core. Plain ESM, no compile step.
//
//   const vs = await launchVSCode({ workspaceDir, settings, env });            // our packaged .vsix
//   const vs = await launchVSCode({ extensionDevelopmentPath: 'fixtures/x' }); // an unpacked folder
//   await vs.runCommand('Model Relay: Add Token'); await vs.screenshot('/tmp/x.png'); await vs.close();
//
// Everything started here (code-server's process group, chromium) is stopped by pid in close(), and
// also on process exit / SIGINT / SIGTERM, so a failed or interrupted run leaves no orphans.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';

const here = dirname(fileURLToPath(import.meta.url));
export const repoRoot = resolve(here, '../..');
export const resultsDir = join(repoRoot, 'test-results');
const DEFAULT_TIMEOUT = 60_000;
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

let setupCache;
/** Runs setup-code-server.sh once per process (a no-op when cached); returns { NODE24, CODE_SERVER, CHROMIUM }. */
/** git in a scenario's workspace, as a fixed author (a commit needs one on a bare machine). */
export const git = (cwd, ...args) =>
  execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 'E2E',
      GIT_AUTHOR_EMAIL: 'e2e@example.com',
      GIT_COMMITTER_NAME: 'E2E',
      GIT_COMMITTER_EMAIL: 'e2e@example.com',
    },
  });

export function ensureCodeServer() {
  if (setupCache) return setupCache;
  const r = spawnSync('bash', [join(here, 'setup-code-server.sh')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    timeout: 45 * 60_000,
  });
  if (r.status !== 0)
    throw new Error(`setup-code-server.sh failed (exit ${r.status}${r.error ? `, ${r.error.message}` : ''})`);
  setupCache = Object.fromEntries(
    r.stdout
      .trim()
      .split('\n')
      .filter((l) => l.includes('='))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
  for (const k of ['NODE24', 'CODE_SERVER', 'CHROMIUM'])
    if (!setupCache[k] || !existsSync(setupCache[k]))
      throw new Error(`setup-code-server.sh gave no usable ${k} (${setupCache[k]})`);
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

async function waitFor(fn, what, timeoutMs = DEFAULT_TIMEOUT, stepMs = 250) {
  const end = Date.now() + timeoutMs;
  let last;
  while (Date.now() < end) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (e) {
      if (e?.fatal) throw e; // no point waiting any longer
      last = e;
    }
    await new Promise((r) => setTimeout(r, stepMs));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${last.message}` : ''}`);
}

const withTimeout = (promise, ms, what) => {
  let timer;
  return Promise.race([
    promise,
    new Promise((_, rej) => (timer = setTimeout(() => rej(new Error(`timed out after ${ms} ms: ${what}`)), ms))),
  ]).finally(() => clearTimeout(timer));
};

// Every process this harness starts (code-server and its children, chromium and its helpers)
// carries MODEL_RELAY_E2E_OWNER=<marker> in its environment. Killing code-server's process group
// gets most of them, but not those that leave the group: terminal shells (node-pty gives each its
// own session) and chromium's crash handler (double-forked). A sweep of /proc for the marker finds
// those too, and it never touches anything another run started.
const OWNER_VAR = 'MODEL_RELAY_E2E_OWNER';
/** Pids of live processes whose environment carries this run's marker. */
export function findProcesses(marker) {
  const needle = `${OWNER_VAR}=${marker}\0`;
  const pids = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const environ = readFileSync(`/proc/${name}/environ`, 'latin1');
      if (environ.startsWith(needle) || environ.includes(`\0${needle}`)) pids.push(Number(name));
    } catch {
      /* gone, or not ours to read */
    }
  }
  return pids;
}
const killPid = (pid, signal) => {
  try {
    process.kill(pid, signal);
    return true;
  } catch {
    return false; // ESRCH: gone
  }
};
const killGroup = (pgid, signal) => killPid(-pgid, signal);
const liveRuns = new Map(); // marker -> code-server pid (= its process group)
const sweepNow = (marker, pgid) => {
  if (pgid) killGroup(pgid, 'SIGKILL');
  for (const pid of findProcesses(marker)) killPid(pid, 'SIGKILL');
};
let exitHooked = false;
function hookExit() {
  if (exitHooked) return;
  exitHooked = true;
  // a test that fails or is interrupted without close(): leave nothing behind
  process.on('exit', () => {
    for (const [marker, pgid] of liveRuns) sweepNow(marker, pgid);
  });
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.once(sig, () => {
      for (const [marker, pgid] of liveRuns) sweepNow(marker, pgid);
      process.exit(128 + { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 }[sig]);
    });
  }
}

/**
 * Loads an unpacked extension folder (code-server has no --extensionDevelopmentPath, and
 * --install-extension takes only a .vsix or a gallery id): copies it into the extensions dir as
 * <publisher>.<name>-<version> and lists it in the dir's extensions.json, which is what VS Code
 * reads (a folder that is not listed there is ignored).
 */
function installFolder(extensionDevelopmentPath, extensionsDir) {
  const manifest = JSON.parse(readFileSync(join(extensionDevelopmentPath, 'package.json'), 'utf8'));
  const id = `${manifest.publisher}.${manifest.name}`.toLowerCase();
  const relativeLocation = `${id}-${manifest.version}`;
  const dest = join(extensionsDir, relativeLocation);
  rmSync(dest, { recursive: true, force: true });
  cpSync(extensionDevelopmentPath, dest, {
    recursive: true,
    filter: (src) => !/[\\/](\.git|\.vscode-test)$/.test(src),
  });
  const listFile = join(extensionsDir, 'extensions.json');
  const list = existsSync(listFile)
    ? JSON.parse(readFileSync(listFile, 'utf8')).filter((e) => e.identifier?.id?.toLowerCase() !== id)
    : [];
  list.push({
    identifier: { id },
    version: manifest.version,
    location: { $mid: 1, fsPath: dest, external: pathToFileURL(dest).href, path: dest, scheme: 'file' },
    relativeLocation,
    metadata: { installedTimestamp: Date.now(), pinned: true, source: 'vsix' },
  });
  writeFileSync(listFile, JSON.stringify(list));
  return id;
}

/**
 * Makes `locale` a valid display language: installs the fixture language pack for it
 * (fixtures/<locale>-langpack, which translates next to nothing of the workbench) and registers it
 * in <userDataDir>/languagepacks.json, as VS Code's installer does after installing a language pack
 * (code-server's --install-extension and a copied folder skip that step). Without a registered pack
 * VS Code ignores `--locale` and runs in English: no package.nls.<locale>.json, no l10n bundle.
 */
function installLanguagePack(locale, extensionsDir, userDataDir) {
  const folder = join(here, 'fixtures', `${locale.toLowerCase()}-langpack`);
  if (!existsSync(folder)) throw new Error(`locale ${locale}: no language pack fixture ${folder}`);
  const id = installFolder(folder, extensionsDir);
  const manifest = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8'));
  const dest = join(extensionsDir, `${id}-${manifest.version}`);
  const packs = {};
  for (const loc of manifest.contributes.localizations) {
    packs[loc.languageId] = {
      hash: createHash('md5').update(id).update(manifest.version).digest('hex'),
      extensions: [{ extensionIdentifier: { id }, version: manifest.version }],
      translations: Object.fromEntries(loc.translations.map((tr) => [tr.id, join(dest, tr.path)])),
      label: loc.localizedLanguageName ?? loc.languageName,
    };
  }
  writeFileSync(join(userDataDir, 'languagepacks.json'), JSON.stringify(packs));
  return id;
}

/**
 * Starts code-server (fresh user-data and extensions dirs unless given), installs the extension,
 * writes `settings`, opens the workbench in chromium.
 *
 * Options:
 *  - vsix: a packaged .vsix, installed with `code-server --install-extension` (the default is the
 *    repo's model-relay.vsix, so the packaged artefact is what is tested)
 *  - extensionDevelopmentPath: an unpacked extension folder instead (copied into the extensions dir;
 *    code-server has no --extensionDevelopmentPath flag)
 *  - extraExtensions: unpacked extension folders installed beside it (each copied into the
 *    extensions dir and listed in extensions.json, as extensionDevelopmentPath is), e.g. a fixture
 *    that drives the packaged extension through VS Code's API
 *  - workspaceDir: the folder to open; userDataDir / extensionsDir: kept (not deleted) when given
 *  - settings: user settings.json; machine-scoped keys also need machineSettings (code-server is a
 *    remote, and machine-scoped settings are read from <userDataDir>/Machine/settings.json)
 *  - env: extra environment for code-server and so for the extension host
 *  - args: extra code-server arguments
 *  - nodeArgs: Node options for code-server, which its extension host inherits (e.g. a --require
 *    preload: bench/activation-profile.mjs profiles the extension host from its first line)
 *  - locale: the display language, e.g. 'zh-cn' (`--locale` plus a fixture language pack that makes
 *    it valid; see installLanguagePack): package.nls.<locale>.json and the l10n bundle then apply
 *  - timeoutMs: the bound for each startup wait (default 60 s; the first workbench load gets 1.5x)
 */
export async function launchVSCode({
  vsix,
  extensionDevelopmentPath,
  extraExtensions = [],
  workspaceDir,
  userDataDir,
  extensionsDir,
  settings = {},
  machineSettings,
  env = {},
  args = [],
  nodeArgs = [],
  locale,
  timeoutMs = DEFAULT_TIMEOUT,
  viewport = { width: 1400, height: 900 },
  /** workspace trust on, and the folder opened in Restricted Mode (untrusted) until the test trusts it */
  restricted = false,
} = {}) {
  const { NODE24, CODE_SERVER, CHROMIUM } = ensureCodeServer();
  const base = mkdtempSync(join(tmpdir(), 'relay-e2e-'));
  userDataDir = userDataDir ? resolve(userDataDir) : join(base, 'user-data');
  extensionsDir = extensionsDir ? resolve(extensionsDir) : join(base, 'extensions');
  const folder = workspaceDir ? resolve(workspaceDir) : base;
  mkdirSync(join(userDataDir, 'User'), { recursive: true });
  mkdirSync(join(userDataDir, 'Machine'), { recursive: true });
  mkdirSync(extensionsDir, { recursive: true });
  const allSettings = {
    'workbench.startupEditor': 'none',
    'security.workspace.trust.enabled': restricted,
    ...(restricted
      ? { 'security.workspace.trust.startupPrompt': 'never', 'security.workspace.trust.emptyWindow': false }
      : {}),
    'telemetry.telemetryLevel': 'off',
    'extensions.autoUpdate': false,
    'extensions.autoCheckUpdates': false,
    'update.mode': 'none',
    'workbench.tips.enabled': false,
    'workbench.secondarySideBar.defaultVisibility': 'hidden',
    'chat.commandCenter.enabled': false,
    ...settings,
  };
  writeFileSync(join(userDataDir, 'User', 'settings.json'), JSON.stringify(allSettings, null, 2));
  const machine =
    machineSettings ??
    Object.fromEntries(Object.entries(settings).filter(([k]) => /^modelRelay\.(baseUrl|backupUrls)$/.test(k)));
  writeFileSync(join(userDataDir, 'Machine', 'settings.json'), JSON.stringify(machine, null, 2));

  const csArgs = ['--user-data-dir', userDataDir, '--extensions-dir', extensionsDir];
  let extensionId;
  let extraExtensionIds = [];
  try {
    if (extensionDevelopmentPath && !vsix) {
      extensionId = installFolder(resolve(extensionDevelopmentPath), extensionsDir);
    } else {
      vsix = resolve(vsix ?? join(repoRoot, 'model-relay.vsix'));
      if (!existsSync(vsix)) throw new Error(`no ${vsix}: run \`npm run package\` first`);
      const inst = spawnSync(NODE24, [CODE_SERVER, ...csArgs, '--install-extension', vsix, '--force'], {
        encoding: 'utf8',
        timeout: 120_000,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      if (inst.status !== 0 || !/successfully installed/i.test(inst.stdout + inst.stderr))
        throw new Error(
          `installing ${vsix} failed (exit ${inst.status}${inst.error ? `, ${inst.error.message}` : ''}):\n${inst.stdout}\n${inst.stderr}`,
        );
    }
    // after the vsix: --install-extension rewrites extensions.json, installFolder adds to it
    extraExtensionIds = extraExtensions.map((folder) => installFolder(resolve(folder), extensionsDir));
    if (locale) installLanguagePack(locale, extensionsDir, userDataDir);
  } catch (e) {
    rmSync(base, { recursive: true, force: true });
    throw e;
  }

  const port = await freePort();
  const marker = `${process.pid}-${port}-${Date.now()}`;
  const ownerEnv = { [OWNER_VAR]: marker };
  const logs = [];
  hookExit();
  const child = spawn(
    NODE24,
    [
      ...nodeArgs,
      CODE_SERVER,
      ...csArgs,
      '--bind-addr',
      `127.0.0.1:${port}`,
      '--auth',
      'none',
      '--disable-telemetry',
      '--disable-update-check',
      ...(restricted ? [] : ['--disable-workspace-trust']),
      '--disable-getting-started-override',
      ...(locale ? ['--locale', locale] : []),
      ...args,
      folder,
    ],
    {
      detached: true, // its own process group: close() kills code-server and every child it spawned
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...env, ...ownerEnv, PATH: `${dirname(NODE24)}:${env.PATH ?? process.env.PATH}` },
    },
  );
  liveRuns.set(marker, child.pid);
  let exited = null;
  child.on('exit', (code, signal) => (exited = { code, signal }));
  child.stdout.on('data', (d) => logs.push(String(d)));
  child.stderr.on('data', (d) => logs.push(String(d)));
  const url = `http://127.0.0.1:${port}`;
  let browser;
  let closed = false;

  const close = async () => {
    if (closed) return;
    closed = true;
    if (browser) {
      // playwright kills the chromium it launched; bound it in case the browser hangs
      await withTimeout(browser.close(), 15_000, 'browser.close()').catch(() => {});
    }
    if (child.pid) {
      killGroup(child.pid, 'SIGTERM');
      const gone = await waitFor(
        () => !killGroup(child.pid, 0),
        `code-server group ${child.pid} to exit`,
        10_000,
        100,
      ).catch(() => false);
      if (!gone) killGroup(child.pid, 'SIGKILL');
    }
    // whatever left the group (terminal shells, chromium's crash handler): by the environment marker
    const left = await waitFor(
      () => {
        const pids = findProcesses(marker);
        for (const pid of pids) killPid(pid, 'SIGKILL');
        return pids.length === 0;
      },
      `the processes of run ${marker} to die`,
      10_000,
      200,
    ).then(
      () => [],
      () => findProcesses(marker),
    );
    liveRuns.delete(marker);
    if (left.length) console.error(`[harness] processes still alive after close(): ${left.join(', ')}`);
    rmSync(base, { recursive: true, force: true });
  };

  try {
    await waitFor(
      async () => {
        if (exited)
          throw Object.assign(new Error(`code-server exited early (${JSON.stringify(exited)})`), { fatal: true });
        return (await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2000) })).ok;
      },
      `code-server to answer on ${url}/healthz`,
      timeoutMs,
    ).catch((e) => {
      throw exited ? new Error(`code-server exited early (${JSON.stringify(exited)})`) : e;
    });
    browser = await withTimeout(
      chromium.launch({
        executablePath: CHROMIUM,
        headless: true,
        args: CHROMIUM_ARGS,
        timeout: timeoutMs,
        env: { ...process.env, ...ownerEnv },
      }),
      timeoutMs,
      'chromium to launch',
    );
    const context = await browser.newContext({ viewport });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: url });
    const page = await context.newPage();
    page.setDefaultTimeout(timeoutMs);
    await page.goto(`${url}/?folder=${encodeURIComponent(folder)}`, { timeout: timeoutMs });
    await page.waitForSelector('.monaco-workbench', { timeout: Math.round(timeoutMs * 1.5) }).catch((e) => {
      throw new Error(`the workbench (.monaco-workbench) did not appear: ${e.message.split('\n')[0]}`);
    });
    await page.waitForSelector('.statusbar', { timeout: timeoutMs });

    const vs = {
      page,
      browser,
      url,
      port,
      pid: child.pid,
      /** The MODEL_RELAY_E2E_OWNER value every process of this run carries (see findProcesses). */
      marker,
      logs,
      userDataDir,
      extensionsDir,
      extensionId,
      /** The ids of the extraExtensions folders, in order. */
      extraExtensionIds,
      /** Runs a command by its palette title, e.g. "Model Relay: Add Token" (F1, type, Enter). */
      async runCommand(title, { timeout = 15_000 } = {}) {
        // close an open quick input (but don't press Escape in an editor: it clears the selection)
        if (await page.locator('.quick-input-widget').isVisible()) await page.keyboard.press('Escape');
        const input = page.locator('.quick-input-widget input');
        // F1 goes to whatever has focus: a webview (a preview, the chat) that holds it under load may
        // not pass the key on, so when the palette does not open, focus is taken back and F1 pressed again
        const openPalette = async () => {
          const opened = Date.now() + timeout;
          for (let tries = 0; ; tries++) {
            if (tries > 0)
              await page.evaluate(() => {
                if (document.activeElement instanceof HTMLElement) document.activeElement.blur();
              });
            await page.keyboard.press('F1');
            const open = await input
              .waitFor({ state: 'visible', timeout: Math.max(1, Math.min(3_000, opened - Date.now())) })
              .then(
                () => true,
                () => false,
              );
            if (open) break;
            if (Date.now() >= opened)
              throw new Error(
                `runCommand(${JSON.stringify(title)}): the command palette did not open within ${timeout} ms`,
              );
          }
        };
        await openPalette();
        const row = page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first();
        // the palette lists the commands known when the filter changes: an extension whose
        // contributions arrive later (just after startup) needs the filter typed again
        const end = Date.now() + timeout;
        for (;;) {
          // a quick input closing late (the one Escape just dismissed, a picker re-shown by its command)
          // can close the palette right after it opened: open it again rather than type into nothing
          const typed = await input
            .fill('>', { timeout: 2_000 })
            .then(() => input.fill(`>${title}`, { timeout: 2_000 }))
            .then(
              () => true,
              () => false,
            );
          if (!typed) {
            if (Date.now() >= end)
              throw new Error(
                `runCommand(${JSON.stringify(title)}): the command palette kept closing for ${timeout} ms`,
              );
            await openPalette();
            continue;
          }
          const found = await row
            .waitFor({ state: 'visible', timeout: Math.max(1, Math.min(2_500, end - Date.now())) })
            .then(
              () => true,
              () => false,
            );
          if (found) break;
          if (Date.now() >= end)
            throw new Error(
              `runCommand(${JSON.stringify(title)}): no such command in the palette within ${timeout} ms (is the extension installed and activated, its contribution valid?)`,
            );
        }
        // Enter runs the focused (first) row; if fuzzy matching ranked another command first, click ours
        const focused = await page
          .locator('.quick-input-list .monaco-list-row.focused')
          .first()
          .getAttribute('aria-label')
          .catch(() => null);
        if (focused && !focused.toLowerCase().startsWith(title.toLowerCase())) await row.click();
        else await page.keyboard.press('Enter');
        // the palette has closed (or been replaced by the command's own input)
        await page.waitForFunction(
          () => {
            const i = document.querySelector('.quick-input-widget input');
            return !i || i.offsetParent === null || !i.value.startsWith('>');
          },
          undefined,
          { timeout },
        );
      },
      /** Waits for the quick input to show a title or prompt containing `expect`, then types `value` and accepts. */
      async answerInput(value, { expect, timeout = 20_000 } = {}) {
        const input = page.locator('.quick-input-widget input');
        await input.waitFor({ state: 'visible', timeout });
        if (expect)
          await page
            .locator('.quick-input-widget .quick-input-title', { hasText: expect })
            .waitFor({ state: 'visible', timeout });
        // a picker still settling (its items loading, a modal editor closing behind it) can leave the
        // input briefly not editable: try in short steps, then say what state it was in
        const end = Date.now() + timeout;
        for (;;) {
          const filled = await input.fill(value, { timeout: Math.max(1, Math.min(3_000, end - Date.now())) }).then(
            () => true,
            () => false,
          );
          if (filled) break;
          if (Date.now() >= end) {
            const state = await input
              .evaluate((i) => ({ disabled: i.disabled, readOnly: i.readOnly, focused: document.activeElement === i }))
              .catch((e) => e.message);
            throw new Error(
              `answerInput(${JSON.stringify(value)}): the input was not editable within ${timeout} ms: ${JSON.stringify(state)}`,
            );
          }
          await input.focus().catch(() => {});
        }
        await page.keyboard.press('Enter');
      },
      /** Waits until `text` is visible anywhere in the workbench (not inside webviews). */
      async waitForText(text, timeout = 30_000) {
        await page
          .getByText(text, { exact: false })
          .first()
          .waitFor({ state: 'visible', timeout })
          .catch((e) => {
            throw new Error(
              `waitForText(${JSON.stringify(text)}): not visible within ${timeout} ms (${e.message.split('\n')[0]})`,
            );
          });
      },
      /** Waits for a notification toast containing `text`; returns its full text. */
      async waitForNotification(text, timeout = 30_000) {
        const toast = page.locator('.notification-toast', { hasText: text }).first();
        await toast.waitFor({ state: 'visible', timeout }).catch(() => {
          throw new Error(`no notification containing ${JSON.stringify(text)} within ${timeout} ms`);
        });
        return (await toast.innerText()).trim();
      },
      async pageText() {
        return page.evaluate(() => document.body.innerText);
      },
      /**
       * The extension host's own activation timing of extensions (by display name), read from one
       * "Developer: Show Running Extensions": `{ [name]: { ms, startup } }` (startup: activated
       * during startup).
       */
      async activationTimes(displayNames, { timeout = 30_000 } = {}) {
        await vs.runCommand('Developer: Show Running Extensions');
        const res = displayNames.map(
          (n) =>
            new RegExp(`${n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\n[\\s\\S]{0,200}?(Startup )?Activation: (\\d+)ms`),
        );
        const found = await waitFor(
          async () => {
            const text = await vs.pageText();
            const ms = res.map((re) => re.exec(text));
            return ms.every(Boolean) ? ms : undefined;
          },
          `the activation times of ${displayNames.join(', ')}`,
          timeout,
          500,
        );
        return Object.fromEntries(displayNames.map((n, i) => [n, { ms: Number(found[i][2]), startup: !!found[i][1] }]));
      },
      async activationTime(displayName, options) {
        return (await vs.activationTimes([displayName], options))[displayName];
      },
      /** A PNG of the page: `nameOrPath` is a path (has a / or ends in .png) or a name under test-results/. */
      async screenshot(nameOrPath) {
        const path = /[\\/]|\.png$/i.test(nameOrPath)
          ? isAbsolute(nameOrPath)
            ? nameOrPath
            : resolve(nameOrPath)
          : join(resultsDir, `${nameOrPath}.png`);
        mkdirSync(dirname(path), { recursive: true });
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
 * `extraExtensions`: unpacked extension folders installed beside the vsix (see launchVSCode); `locale`: the display language (see launchVSCode);
 * `prepare(workspace, sim)`: runs after `files` are written and before VS Code opens the folder (e.g. `git init` and
 * commits, or a simulator fault the extension's first requests meet).
 */
export async function startScenario({
  settings = {},
  tokenName = 'production',
  files = {},
  simOptions = {},
  baseUrl,
  extraExtensions = [],
  viewport,
  locale,
  prepare,
  /** more environment for code-server (and so its terminals), e.g. a temporary HOME for the tools */
  env = {},
  /** open the workspace untrusted (Restricted Mode): see launchVSCode */
  restricted = false,
} = {}) {
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
    await prepare?.(workspace, sim);
  } catch (e) {
    await sim.close();
    rmSync(workspace, { recursive: true, force: true });
    throw e;
  }
  try {
    vs = await launchVSCode({
      workspaceDir: workspace,
      extraExtensions,
      ...(viewport ? { viewport } : {}),
      ...(locale ? { locale } : {}),
      restricted,
      settings: { 'modelRelay.baseUrl': baseUrl ? baseUrl(sim) : sim.url, ...settings },
      env: { ...env, MODEL_RELAY_SEED_TOKEN: sim.tokens[tokenName], MODEL_RELAY_SEED_TOKEN_NAME: tokenName },
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

/** The active webview's inner document as a Playwright Frame (to evaluate in it, e.g. axe-core). */
export async function webviewDocument(page) {
  const outer = await page.locator('iframe.webview.ready').last().elementHandle();
  const outerFrame = await outer?.contentFrame();
  const inner = await outerFrame?.locator('#active-frame').elementHandle();
  const frame = await inner?.contentFrame();
  if (!frame) throw new Error('no webview document');
  return frame;
}

const axeSource = readFileSync(new URL('../../node_modules/axe-core/axe.min.js', import.meta.url), 'utf8');

/**
 * axe-core's serious and critical findings in the active webview (its WCAG 2.x A/AA rules). The script
 * goes in through the debugging protocol, as the webview's CSP rightly refuses any script without its nonce.
 */
export async function axeSerious(page) {
  const frame = await webviewDocument(page);
  if (!(await frame.evaluate('typeof window.axe')).startsWith('object')) await frame.evaluate(axeSource);
  return frame.evaluate(async () => {
    const r = await window.axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
      resultTypes: ['violations'],
    });
    return r.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  });
}
