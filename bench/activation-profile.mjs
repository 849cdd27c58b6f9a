// Where the real host's activation time goes: code-server launched with a preload
// (bench/exthost-profiler.cjs) that CPU-profiles its extension host from the first line; after Model
// Relay and a no-op extension have activated (same launch, same event), the profile and VS Code's own
// performance marks are read and each extension's activation window — the extension host's own
// figure, "load code" + "call activate" — is split by who was running: the extension's own code (its
// require and activate, and the VS Code API calls it made), other extensions' code, the extension
// host itself, idle. Writes bench/activation.cpuprofile (open it in Chrome DevTools / VS Code).
//   node bench/activation-profile.mjs [--json]     (needs model-relay.vsix and out/test/sim)
import { existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchVSCode } from '../test/e2e/harness.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const root = join(here, '..');
const NOOP = join(root, 'test/e2e/fixtures/noop-ext');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const r1 = (x) => Math.round(x * 10) / 10;
const idOf = (dir) => {
  const p = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  const key = /^%(.+)%$/.exec(p.displayName)?.[1];
  const name = key ? JSON.parse(readFileSync(join(dir, 'package.nls.json'), 'utf8'))[key] : p.displayName;
  return { id: `${p.publisher}.${p.name}`, name };
};

/** The extension host process whose environment names `file` (bounded scan of /proc). */
async function extensionHostPid(file, timeoutMs = 20_000) {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    for (const d of readdirSync('/proc').filter((x) => /^\d+$/.test(x))) {
      try {
        if (
          readFileSync(`/proc/${d}/cmdline`, 'utf8').includes('type=extensionHost') &&
          readFileSync(`/proc/${d}/environ`, 'utf8').includes(file)
        )
          return Number(d);
      } catch {
        // the process ended meanwhile
      }
    }
    await sleep(50);
  }
  throw new Error('no extension host process found');
}

/** Sample times (epoch ms) and leaf node ids of a V8 CPU profile started at `startedAt` (epoch ms). */
function samples(profile, startedAt) {
  const out = [];
  let t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i];
    out.push({
      at: startedAt + (t - profile.startTime) / 1000,
      node: profile.samples[i],
      dt: (profile.timeDeltas[i + 1] ?? 0) / 1000,
    });
  }
  return out;
}

/** A sample's leaf function, as `name (file:line)`. */
function frameName(profile, nodeId) {
  const f = profile.nodes.find((n) => n.id === nodeId).callFrame;
  return `${f.functionName || '(anonymous)'} (${f.url.split('/').pop()}:${f.lineNumber + 1})`;
}

/** For each node, who it counts for: an extension (by its folder), the host, or a V8 state. */
function classifier(profile, extensionsDir, ownId) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const extOf = (url) => {
    const m = url.replace(/^file:\/\//, '').startsWith(extensionsDir)
      ? url
          .replace(/^file:\/\//, '')
          .slice(extensionsDir.length + 1)
          .split('/')[0]
      : /\/extensions\/([^/]+)\//.exec(url)?.[1];
    return m ? m.replace(/-\d+\.\d+\.\d+.*$/, '') : undefined;
  };
  const memo = new Map();
  return (leafId) => {
    if (memo.has(leafId)) return memo.get(leafId);
    const leaf = byId.get(leafId);
    const fn = leaf.callFrame.functionName;
    let who;
    if (['(idle)', '(program)', '(garbage collector)'].includes(fn)) who = fn;
    else {
      let own = false;
      let other;
      for (let id = leafId; id !== undefined; id = parent.get(id)) {
        const e = extOf(byId.get(id).callFrame.url);
        if (e === ownId) own = true;
        else if (e && !other) other = e;
      }
      const leafExt = extOf(leaf.callFrame.url);
      who = own
        ? leafExt === ownId
          ? 'own code'
          : 'VS Code API called by it'
        : other
          ? `other extensions (${other})`
          : 'extension host (VS Code)';
    }
    memo.set(leafId, who);
    return who;
  };
}

/**
 * The extension's activation as the host counts it — "load code" (from the start of its module load,
 * which first awaits the host, to the end of its require) plus "call activate" (its activate() call:
 * the samples of its own code and the API it calls after willActivateExtension) — split by who ran.
 */
function breakdown({ profile, startedAt, marks }, extensionsDir, ext, reportedMs) {
  const mark = (what) => marks.find((m) => m.name === `code/extHost/${what}/${ext.id}`)?.startTime;
  const [willLoad, didLoad, willAct, didAct] = [
    'willLoadExtensionCode',
    'didLoadExtensionCode',
    'willActivateExtension',
    'didActivateExtension',
  ].map(mark);
  if ([willLoad, didLoad, willAct, didAct].some((m) => m === undefined))
    throw new Error(`${ext.name}: VS Code's activation marks are missing`);
  const who = classifier(profile, extensionsDir, ext.id);
  const all = samples(profile, startedAt);
  const isOwn = (w) => w === 'own code' || w === 'VS Code API called by it';
  const activateSamples = all.filter((s) => s.at >= willAct && s.at < didAct && isOwn(who(s.node)));
  const activateCallMs = activateSamples.reduce((a, s) => a + s.dt, 0);
  const loadStart = didLoad - (reportedMs - activateCallMs);
  const by = new Map();
  const others = new Map();
  const requireTop = new Map();
  for (const s of [...all.filter((x) => x.at >= loadStart && x.at < didLoad), ...activateSamples]) {
    let w = who(s.node);
    if (s.at >= willLoad && w === 'extension host (VS Code)') {
      // the require is synchronous: what the host does inside it (resolve, read, compile, the `vscode` API object) is the require's
      w = 'its require (the host loading its module)';
      const fn = frameName(profile, s.node);
      requireTop.set(fn, (requireTop.get(fn) ?? 0) + s.dt);
    }
    if (w.startsWith('other extensions')) {
      const name = w.slice('other extensions ('.length, -1);
      others.set(name, (others.get(name) ?? 0) + s.dt);
      w = 'other extensions';
    }
    by.set(w, (by.get(w) ?? 0) + s.dt);
  }
  return {
    name: ext.name,
    reportedMs,
    requireMs: didLoad - willLoad,
    activateCallMs: r1(activateCallMs),
    waitBeforeRequireMs: r1(willLoad - loadStart),
    by: Object.fromEntries([...by].map(([k, v]) => [k, r1(v)])),
    requireTop: Object.fromEntries(
      [...requireTop]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 5)
        .map(([k, v]) => [k, r1(v)]),
    ),
    otherExtensions: Object.fromEntries(
      [...others]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 5)
        .map(([k, v]) => [k, r1(v)]),
    ),
  };
}

export async function profileActivation() {
  const { createRequire: cr } = await import('node:module');
  const { startSimulator } = cr(import.meta.url)(join(root, 'out/test/sim/server.js'));
  const out = join(tmpdir(), `relay-exthost-${process.pid}-${Date.now()}.json`);
  const own = idOf(root);
  const noop = idOf(NOOP);
  const sim = await startSimulator({});
  let vs;
  try {
    vs = await launchVSCode({
      extraExtensions: [NOOP],
      viewport: { width: 1400, height: 2400 },
      nodeArgs: ['--require', join(here, 'exthost-profiler.cjs')],
      settings: { 'modelRelay.baseUrl': sim.url },
      env: {
        MODEL_RELAY_SEED_TOKEN: sim.tokens.production,
        MODEL_RELAY_SEED_TOKEN_NAME: 'production',
        RELAY_EXTHOST_PROFILE: out,
      },
    });
    await vs.waitForText('Relay: production', 60_000);
    const t = await vs.activationTimes([own.name, noop.name], { timeout: 60_000 });
    process.kill(await extensionHostPid(out), 'SIGUSR2');
    for (let i = 0; i < 200 && !existsSync(out); i++) await sleep(50);
    await sleep(200);
    const data = JSON.parse(readFileSync(out, 'utf8'));
    if (data.error) throw new Error(`the profiler failed: ${data.error}`);
    writeFileSync(join(here, 'activation.cpuprofile'), JSON.stringify(data.profile));
    const extensionsDir = vs.extensionsDir ?? '';
    return [breakdown(data, extensionsDir, own, t[own.name].ms), breakdown(data, extensionsDir, noop, t[noop.name].ms)];
  } finally {
    await vs?.close();
    await sim.close();
    rmSync(out, { force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const rows = await profileActivation();
  if (process.argv.includes('--json')) console.log(JSON.stringify(rows, null, 2));
  else {
    for (const r of rows) {
      console.log(
        `${r.name}: ${r.reportedMs} ms as the extension host counts it (load code + call activate); its require ${r.requireMs} ms, its activate() ${r.activateCallMs} ms, waiting for the host before its require ${r.waitBeforeRequireMs} ms`,
      );
      for (const [k, v] of Object.entries(r.by).sort((a, b) => b[1] - a[1]))
        console.log(`  ${String(v).padStart(6)} ms  ${k}`);
      if (Object.keys(r.requireTop).length)
        console.log(
          `  inside its require: ${Object.entries(r.requireTop)
            .map(([k, v]) => `${k} ${v} ms`)
            .join(', ')}`,
        );
      if (Object.keys(r.otherExtensions).length)
        console.log(
          `  other extensions: ${Object.entries(r.otherExtensions)
            .map(([k, v]) => `${k} ${v} ms`)
            .join(', ')}`,
        );
    }
    console.log('profile: bench/activation.cpuprofile');
  }
}
