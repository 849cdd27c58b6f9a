/**
 * Certificates: the simulator over HTTPS with a throwaway CA (test/sim/tls.ts). Untrusted, the
 * request fails with the classified cause and fix (and is not retried); trusted through the system
 * store reader (pointed at a temp bundle — the real store is never touched here), through
 * NODE_EXTRA_CA_CERTS, and through a CONNECT proxy (tinyproxy, when installed). Diagnose shows the
 * cause and the trusted authorities, and explains a loopback base URL under a remote VS Code.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rootCertificates } from 'node:tls';
import {
  createDispatcher,
  describeTrust,
  runDiagnosis,
  tlsProblemOf,
  trustedCertificates,
  type GatewayError,
  type ProxySettings,
} from '../../src/gateway';
import { startHttpsSimulator, type HttpsSimulator } from '../sim/tls';
import { deadPort, makeClient, thrown } from './helpers';

let hs: HttpsSimulator;
let dir: string;
let bundle: string;
const missing = ['/nonexistent/model-relay-test/ca-bundle.crt'];

before(async () => {
  hs = await startHttpsSimulator();
  dir = mkdtempSync(join(tmpdir(), 'relay-tls-bundle-'));
  bundle = join(dir, 'ca-certificates.crt');
  // A system bundle as the distributions write it: other roots, then ours.
  writeFileSync(bundle, `${rootCertificates.slice(0, 3).join('\n')}\n${hs.ca.caPem}`);
});
after(async () => {
  await hs.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A client of the HTTPS simulator whose dispatcher trusts what `trust` says. */
function clientWith(trust: ProxySettings) {
  const dispatcher = createDispatcher(trust);
  const tc = makeClient(hs.sim, { baseUrl: hs.url, dispatcher });
  return { ...tc, dispatcher };
}

test('an untrusted CA fails with the classified cause and fix, without retries', async () => {
  const { client, records, sleeps, dispatcher } = clientWith({ env: {}, systemCaFiles: missing });
  try {
    const before = hs.sim.log.length;
    const err = (await thrown(() => client.listModels())) as GatewayError;
    assert.equal(err.kind, 'network');
    const code = /\(([A-Z_]+)\)\.$/.exec(err.message)?.[1];
    assert.equal(tlsProblemOf(code), 'untrusted', err.message);
    assert.match(
      err.reason,
      /signed by an authority this machine does not trust \([A-Z_]+\) — typical of a corporate TLS-inspecting proxy or an internal CA\./,
    );
    assert.match(err.fix, /operating system's certificate store/);
    assert.match(err.fix, /http\.systemCertificates/);
    assert.match(err.fix, /NODE_EXTRA_CA_CERTS/);
    assert.doesNotMatch(`${err.reason} ${err.fix}`, /strictSSL|rejectUnauthorized|NODE_TLS_REJECT_UNAUTHORIZED/);
    assert.equal(err.notSent, true);
    assert.deepEqual(sleeps, [], 'a certificate failure is not retried');
    assert.equal(records.length, 1);
    assert.equal(hs.sim.log.length, before, 'nothing reached the gateway');
  } finally {
    await dispatcher.close();
  }
});

test('the CA in the system store (the bundle file) is trusted', async () => {
  const { client, dispatcher } = clientWith({ env: {}, systemCaFiles: [...missing, bundle] });
  try {
    const models = await client.listModels();
    assert.ok(models.length > 0);
  } finally {
    await dispatcher.close();
  }
  const s = describeTrust({ env: {}, systemCaFiles: [...missing, bundle] });
  assert.equal(s.systemSource, bundle);
  assert.equal(s.system, 4);
});

test('http.systemCertificates off: the system store is not trusted', async () => {
  const { client, dispatcher } = clientWith({ env: {}, systemCaFiles: [bundle], systemCertificates: false });
  try {
    const err = (await thrown(() => client.listModels())) as GatewayError;
    assert.match(err.reason, /does not trust/);
  } finally {
    await dispatcher.close();
  }
  assert.ok(
    !trustedCertificates({ env: {}, systemCaFiles: [bundle], systemCertificates: false }).includes(hs.ca.caPem.trim()),
  );
});

test("NODE_EXTRA_CA_CERTS is trusted beside Node's roots", async () => {
  const { client, dispatcher } = clientWith({ env: { NODE_EXTRA_CA_CERTS: hs.ca.caFile }, systemCaFiles: missing });
  try {
    assert.ok((await client.listModels()).length > 0);
  } finally {
    await dispatcher.close();
  }
  const all = trustedCertificates({ env: { NODE_EXTRA_CA_CERTS: hs.ca.caFile }, systemCaFiles: missing });
  assert.ok(all.length >= rootCertificates.length + 1);
  const bad = describeTrust({ env: { NODE_EXTRA_CA_CERTS: join(dir, 'absent.pem') }, systemCaFiles: missing });
  assert.equal(bad.extraProblem, 'ENOENT');
});

test('the TLS error codes are classified', () => {
  const table: Array<[string, string | undefined]> = [
    ['UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'untrusted'],
    ['SELF_SIGNED_CERT_IN_CHAIN', 'untrusted'],
    ['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'untrusted'],
    ['DEPTH_ZERO_SELF_SIGNED_CERT', 'self_signed'],
    ['CERT_HAS_EXPIRED', 'expired'],
    ['ERR_TLS_CERT_ALTNAME_INVALID', 'name'],
    ['ERR_SSL_WRONG_VERSION_NUMBER', 'not_tls'],
    ['ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE', 'other'],
    ['ECONNREFUSED', undefined],
  ];
  for (const [code, want] of table) assert.equal(tlsProblemOf(code), want, code);
});

test('https:// to a plain HTTP port says the server does not speak TLS', async () => {
  const dispatcher = createDispatcher({ env: {}, systemCaFiles: missing });
  try {
    const { client } = makeClient(hs.sim, { baseUrl: hs.sim.url.replace('http:', 'https:'), dispatcher });
    const err = (await thrown(() => client.listModels())) as GatewayError;
    assert.equal(err.kind, 'network');
    assert.match(err.reason, /does not speak TLS on this port/, err.message);
    assert.match(err.fix, /http:\/\//);
  } finally {
    await dispatcher.close();
  }
});

test('diagnose: reachability shows the untrusted chain and what was trusted; passes with the CA', async () => {
  const token = hs.sim.tokens.production;
  const untrusted = await runDiagnosis({ baseUrl: hs.url, token, proxy: { env: {}, systemCaFiles: missing } });
  const r = untrusted.checks.find((c) => c.id === 'reachability')!;
  assert.equal(r.result, 'fail');
  assert.match(r.cause, /does not trust/);
  assert.match(r.fix, /certificate store/);
  assert.ok(
    r.details?.some((d) =>
      /^Trusted authorities: Node's bundled roots, no system store found, NODE_EXTRA_CA_CERTS not set\.$/.test(d),
    ),
    JSON.stringify(r.details),
  );
  const trusted = await runDiagnosis({ baseUrl: hs.url, token, proxy: { env: {}, systemCaFiles: [bundle] } });
  const ok = trusted.checks.find((c) => c.id === 'reachability')!;
  assert.equal(ok.result, 'pass', ok.cause);
  assert.ok(
    ok.details?.some((d) => / TLS \d+ ms/.test(d)),
    JSON.stringify(ok.details),
  );
  assert.equal(trusted.checks.find((c) => c.id === 'token')?.result, 'pass');
});

test('diagnose: a loopback base URL under a remote VS Code is explained', async () => {
  const port = await deadPort();
  const remote = await runDiagnosis({
    baseUrl: `http://127.0.0.1:${port}`,
    token: 'sk-test-remote-0000',
    remoteName: 'ssh-remote',
    proxy: { env: {} },
  });
  const r = remote.checks.find((c) => c.id === 'reachability')!;
  assert.equal(r.result, 'fail');
  assert.match(
    r.cause,
    /^127\.0\.0\.1:\d+: VS Code runs remotely \(ssh-remote\): Model Relay runs on the remote machine, so 127\.0\.0\.1 means the remote host, not your own computer\. Nothing accepts connections/,
  );
  assert.match(r.fix, new RegExp(`ssh -R ${port}:localhost:${port}`));
  // Local VS Code, or code-server opened on this same machine: no such note.
  for (const remoteName of [undefined, '127.0.0.1:8080']) {
    const local = await runDiagnosis({
      baseUrl: `http://127.0.0.1:${port}`,
      token: 'sk-test-remote-0000',
      remoteName,
      proxy: { env: {} },
    });
    assert.doesNotMatch(local.checks.find((c) => c.id === 'reachability')!.cause, /remotely/);
  }
  // A working loopback gateway under a remote: a detail line, not a failure.
  const works = await runDiagnosis({
    baseUrl: hs.sim.url,
    token: hs.sim.tokens.production,
    remoteName: 'dev-container',
    proxy: { env: {} },
  });
  const w = works.checks.find((c) => c.id === 'reachability')!;
  assert.equal(w.result, 'pass');
  assert.ok(w.details?.some((d) => /VS Code runs remotely \(dev-container\)/.test(d)));
});

const hasTinyproxy = spawnSync('sh', ['-c', 'command -v tinyproxy'], { encoding: 'utf8' }).status === 0;

test(
  'through a CONNECT proxy the CA from the system store is trusted too',
  { skip: hasTinyproxy ? false : 'tinyproxy is not installed' },
  async () => {
    const proxyPort = await deadPort();
    const conf = join(dir, 'tinyproxy.conf');
    writeFileSync(
      conf,
      [
        `Port ${proxyPort}`,
        'Listen 127.0.0.1',
        'Timeout 30',
        'MaxClients 20',
        'Allow 127.0.0.1',
        'DisableViaHeader Yes',
        '',
      ].join('\n'),
    );
    const proxy: ChildProcess = spawn('tinyproxy', ['-d', '-c', conf], { stdio: 'ignore' });
    try {
      let up = false;
      for (let i = 0; i < 50 && !up; i++) {
        up = await new Promise<boolean>((resolve) => {
          const s = connect(proxyPort, '127.0.0.1', () => (s.destroy(), resolve(true)));
          s.on('error', () => resolve(false));
        });
        if (!up) await new Promise((r) => setTimeout(r, 100));
      }
      assert.ok(up, 'tinyproxy did not start');
      const via = { proxy: `http://127.0.0.1:${proxyPort}`, env: {} };
      const bad = clientWith({ ...via, systemCaFiles: missing });
      const err = (await thrown(() => bad.client.listModels()).finally(() => bad.dispatcher.close())) as GatewayError;
      assert.match(err.reason, /does not trust/, err.message);
      const good = clientWith({ ...via, systemCaFiles: [bundle] });
      assert.ok((await good.client.listModels().finally(() => good.dispatcher.close())).length > 0);
    } finally {
      proxy.kill('SIGTERM');
    }
  },
);
