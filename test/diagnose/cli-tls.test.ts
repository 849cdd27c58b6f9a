/**
 * relay-doctor (`node dist/cli.js`, spawned) against the simulator over HTTPS with a throwaway CA:
 * without the CA it fails with the untrusted-chain cause and fix; with NODE_EXTRA_CA_CERTS it
 * works; and (as root, with update-ca-certificates) it works once the CA is in the system store —
 * the CA file is removed and the store rebuilt afterwards, whatever happens.
 * Needs `npm run build` first.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnCli, type CliRun } from './spawnCli';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { canInstallSystemCa, installSystemCa, startHttpsSimulator, type HttpsSimulator } from '../sim/tls';

const CLI = resolve(__dirname, '../../../dist/cli.js');
let hs: HttpsSimulator;
let home: string;

before(async () => {
  assert.ok(existsSync(CLI), `${CLI} is missing: run "npm run build" first`);
  hs = await startHttpsSimulator();
  home = await mkdtemp(join(tmpdir(), 'relay-doctor-tls-'));
});
after(async () => {
  await hs?.close();
  await rm(home, { recursive: true, force: true });
});

/** The CLI with a clean environment (no SSL_CERT_FILE / NODE_EXTRA_CA_CERTS of this machine unless given). */
function run(args: string[], env: Record<string, string> = {}, timeoutMs = 30_000): Promise<CliRun> {
  const full = {
    PATH: process.env.PATH ?? '',
    HOME: home,
    MODEL_RELAY_BASE_URL: hs.url,
    MODEL_RELAY_TOKEN: hs.sim.tokens.production,
    ANTHROPIC_BASE_URL: hs.url,
    ANTHROPIC_AUTH_TOKEN: hs.sim.tokens.production,
    ...env,
  };
  return spawnCli(CLI, args, full, home, timeoutMs);
}

interface Check {
  id: string;
  result: string;
  cause: string;
  fix: string;
  details?: string[];
}

const checksOf = (r: CliRun): Check[] => (JSON.parse(r.stdout) as { checks: Check[] }).checks;

function assertPasses(r: CliRun): void {
  assert.equal(r.code, 0, r.stdout + r.stderr);
  const checks = checksOf(r);
  for (const id of ['reachability', 'token', 'generate-chat', 'stream-compatible'])
    assert.equal(
      checks.find((c) => c.id === id)?.result,
      'pass',
      `${id}: ${JSON.stringify(checks.find((c) => c.id === id))}`,
    );
}

test(
  'without the CA: models and diagnose fail with the untrusted-chain cause and fix',
  { timeout: 60_000 },
  async () => {
    const models = await run(['models']);
    assert.equal(models.code, 1, models.stdout + models.stderr);
    assert.match(models.stderr, /signed by an authority this machine does not trust \([A-Z_]+\)/);
    assert.match(models.stderr, /NODE_EXTRA_CA_CERTS/);
    const d = await run(['diagnose', '--json', '--chat-model', 'gpt-4o-mini']);
    assert.equal(d.code, 1, d.stdout + d.stderr);
    const r = checksOf(d).find((c) => c.id === 'reachability')!;
    assert.equal(r.result, 'fail');
    assert.match(r.cause, /does not trust .*corporate TLS-inspecting proxy or an internal CA/);
    assert.match(r.fix, /operating system's certificate store/);
    assert.ok(
      r.details?.some((l) =>
        /^Trusted authorities: Node's bundled roots, \d+ from the system store \(.+\), NODE_EXTRA_CA_CERTS not set\.$/.test(
          l,
        ),
      ),
      JSON.stringify(r.details),
    );
    const human = await run(['diagnose', '--chat-model', 'gpt-4o-mini'], { COLUMNS: '120' });
    assert.match(human.stdout, /FAIL +Reachability/);
    assert.match(human.stdout, /does not trust/);
    assert.ok(
      !`${models.stdout}${models.stderr}${d.stdout}${human.stdout}`.includes(hs.sim.tokens.production),
      'no full token in the output',
    );
  },
);

test('with NODE_EXTRA_CA_CERTS naming the CA: diagnose passes', { timeout: 60_000 }, async () => {
  assertPasses(await run(['diagnose', '--json', '--chat-model', 'gpt-4o-mini'], { NODE_EXTRA_CA_CERTS: hs.ca.caFile }));
});

test(
  'with the CA installed into the system store (update-ca-certificates): diagnose passes',
  { timeout: 180_000, skip: canInstallSystemCa() ? false : 'needs root and update-ca-certificates' },
  async () => {
    const remove = installSystemCa(hs.ca);
    try {
      assertPasses(await run(['diagnose', '--json', '--chat-model', 'gpt-4o-mini']));
    } finally {
      remove();
    }
    const again = await run(['models']);
    assert.equal(again.code, 1, 'after removal the CA is no longer trusted');
  },
);
