// E2E for certificates in a real VS Code (code-server on Node 24): the simulator over HTTPS with a
// throwaway CA (test/sim/tls.ts, from out/). Without the CA, Diagnose shows the untrusted-chain cause
// and fix; with the CA installed into the system store (update-ca-certificates, as root), Diagnose
// passes and a models list is read — and with http.systemCertificates off it is untrusted again.
// The CA file is removed and the store rebuilt afterwards.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchVSCode, webviewFrame } from './harness.mjs';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '../..');
const require = createRequire(import.meta.url);
const { startHttpsSimulator, canInstallSystemCa, installSystemCa } = require(join(repoRoot, 'out/test/sim/tls.js'));

let hs;
let workspace;
let removeCa;

before(async () => {
  hs = await startHttpsSimulator();
  workspace = mkdtempSync(join(tmpdir(), 'relay-ws-tls-'));
});

after(async () => {
  removeCa?.();
  await hs?.close();
  if (workspace) rmSync(workspace, { recursive: true, force: true });
});

/**
 * A VS Code whose base URL is the HTTPS simulator, with the production token seeded. This machine's
 * NODE_EXTRA_CA_CERTS names the system bundle itself, which would hide whether the system store is
 * read: code-server starts without it.
 */
function launch(extra = {}) {
  return launchVSCode({
    workspaceDir: workspace,
    settings: { 'modelRelay.baseUrl': hs.url, 'modelRelay.models.chat': 'gpt-4o-mini', ...extra },
    machineSettings: { 'modelRelay.baseUrl': hs.url, ...extra },
    env: {
      MODEL_RELAY_SEED_TOKEN: hs.sim.tokens.production,
      MODEL_RELAY_SEED_TOKEN_NAME: 'production',
      NODE_EXTRA_CA_CERTS: undefined,
    },
  });
}

/** Runs Diagnose and returns the reachability check's element once the summary is there. */
async function diagnose(vs) {
  await vs.waitForText('Relay: production', 60_000);
  await vs.runCommand('Model Relay: Diagnose Connection');
  const p = webviewFrame(vs.page);
  await p.locator('[data-testid="diagnosis-summary"]').waitFor({ state: 'visible', timeout: 90_000 });
  return p;
}

test('without the CA: Diagnose shows the untrusted chain with its cause and fix', async (t) => {
  const vs = await launch();
  try {
    const p = await diagnose(vs);
    const reach = p.locator('[data-testid="check-reachability"]');
    assert.equal(await reach.getAttribute('data-result'), 'fail');
    const text = await reach.innerText();
    assert.match(text, /signed by an authority this machine does not trust \([A-Z_]+\)/);
    assert.match(text, /corporate TLS-inspecting proxy or an internal CA/);
    assert.match(text, /operating system's certificate store/);
    assert.match(text, /http\.systemCertificates/);
    t.diagnostic(`reachability: ${text.replace(/\s+/g, ' ').slice(0, 600)}`);
    const all = await p.locator('body').innerText();
    assert.ok(!all.includes(hs.sim.tokens.production), 'no full token in the report');
    await vs.screenshot('tls-01-untrusted');
  } finally {
    await vs.close();
  }
});

test(
  'with the CA in the system store: Diagnose passes and models are listed',
  { skip: canInstallSystemCa() ? false : 'needs root and update-ca-certificates' },
  async (t) => {
    removeCa = installSystemCa(hs.ca);
    const vs = await launch();
    try {
      const p = await diagnose(vs);
      const reach = p.locator('[data-testid="check-reachability"]');
      const text = await reach.innerText();
      assert.equal(await reach.getAttribute('data-result'), 'pass', text);
      t.diagnostic(`reachability: ${text.replace(/\s+/g, ' ').slice(0, 600)}`);
      for (const id of ['token', 'generate-chat']) {
        const c = p.locator(`[data-testid="check-${id}"]`);
        assert.equal(await c.getAttribute('data-result'), 'pass', `${id}: ${await c.innerText()}`);
      }
      assert.ok(
        hs.sim.log.some((r) => r.path === '/v1/models' && r.status === 200),
        'the models list was read through the HTTPS front',
      );
      assert.ok(
        hs.sim.log.some((r) => r.path === '/v1/chat/completions' && r.status === 200),
        'a chat went through the HTTPS front',
      );
      await vs.screenshot('tls-02-trusted');
    } finally {
      await vs.close();
      removeCa();
      removeCa = undefined;
    }
  },
);

test(
  'with the CA in the system store but http.systemCertificates off: untrusted, and the report says the store is not used',
  { skip: canInstallSystemCa() ? false : 'needs root and update-ca-certificates' },
  async () => {
    removeCa = installSystemCa(hs.ca);
    const vs = await launch({ 'http.systemCertificates': false });
    try {
      const p = await diagnose(vs);
      const reach = p.locator('[data-testid="check-reachability"]');
      const text = await reach.innerText();
      assert.equal(await reach.getAttribute('data-result'), 'fail', text);
      assert.match(text, /does not trust/);
      assert.match(
        text,
        /Trusted authorities: Node's bundled roots, the system store is not used \(http\.systemCertificates is off\), NODE_EXTRA_CA_CERTS not set\./,
      );
      await vs.screenshot('tls-03-system-certificates-off');
    } finally {
      await vs.close();
      removeCa();
      removeCa = undefined;
    }
  },
);
