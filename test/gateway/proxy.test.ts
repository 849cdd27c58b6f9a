/**
 * Proxies with a real forward proxy (Debian's tinyproxy) on loopback, started and stopped by pid.
 * CI installs tinyproxy; elsewhere the test is skipped with a note when it is missing.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bypassesProxy, createDispatcher, describeProxy } from '../../src/gateway';
import { startSimulator, type Simulator } from '../sim/server';
import { deadPort, makeClient } from './helpers';

const hasTinyproxy = spawnSync('sh', ['-c', 'command -v tinyproxy'], { encoding: 'utf8' }).status === 0;
if (!hasTinyproxy && process.env.CI) throw new Error('tinyproxy is required in CI (.ci/run installs it)');

let sim: Simulator;
let proxy: ChildProcess | undefined;
let dir: string;
let proxyPort: number;
let logFile: string;

before(async () => {
  sim = await startSimulator();
  if (!hasTinyproxy) return;
  dir = await mkdtemp(join(tmpdir(), 'relay-proxy-'));
  proxyPort = await deadPort();
  logFile = join(dir, 'tinyproxy.log');
  const conf = join(dir, 'tinyproxy.conf');
  await writeFile(
    conf,
    [
      `Port ${proxyPort}`,
      'Listen 127.0.0.1',
      'Timeout 30',
      `LogFile "${logFile}"`,
      'LogLevel Connect',
      'MaxClients 20',
      'Allow 127.0.0.1',
      'DisableViaHeader Yes',
      '',
    ].join('\n'),
  );
  proxy = spawn('tinyproxy', ['-d', '-c', conf], { stdio: 'ignore' });
  // wait (bounded) until it accepts connections
  const net = await import('node:net');
  for (let i = 0; i < 50; i++) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect(proxyPort, '127.0.0.1', () => {
        s.destroy();
        resolve(true);
      });
      s.on('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('tinyproxy did not start');
});

after(async () => {
  await sim.close();
  if (proxy?.pid) {
    process.kill(proxy.pid, 'SIGTERM');
    await new Promise((r) => (proxy!.exitCode !== null ? r(undefined) : proxy!.once('exit', r)));
  }
  if (dir) await rm(dir, { recursive: true, force: true });
});

test('describeProxy: setting beats environment; credentials never shown', () => {
  assert.deepEqual(describeProxy({ env: {} }).source, 'none');
  const env = describeProxy({ env: { HTTPS_PROXY: 'http://user:secret@proxy.corp:3128', NO_PROXY: 'localhost' } });
  assert.equal(env.source, 'environment');
  assert.equal(env.display, 'http://***:***@proxy.corp:3128');
  assert.equal(env.noProxy, 'localhost');
  const set = describeProxy({
    proxy: 'http://proxy.local:8080',
    noProxy: ['a.com', 'b.com'],
    strictSSL: false,
    env: { HTTPS_PROXY: 'http://x:1' },
  });
  assert.equal(set.source, 'setting');
  assert.equal(set.noProxy, 'a.com,b.com');
  assert.equal(set.strictSSL, false);
});

test('bypassesProxy: one no-proxy matcher for the dispatcher and the diagnosis', () => {
  const table: Array<[string, string | undefined, boolean]> = [
    ['gw.example.com:443', undefined, false],
    ['gw.example.com:443', '', false],
    ['gw.example.com:443', '*', true],
    ['gw.example.com:443', 'example.com', true],
    ['gw.example.com:443', '.example.com', true],
    ['gw.example.com:443', '*.example.com', true],
    ['example.com:443', '.example.com', true],
    ['notexample.com:443', 'example.com', false],
    ['GW.Example.COM:443', 'gw.example.com', true],
    ['gw.example.com:443', 'other.com, example.com', true],
    ['gw.example.com:443', 'other.com example.com', true],
    ['gw.example.com:443', 'gw.example.com:8443', false],
    ['gw.example.com:8443', 'gw.example.com:8443', true],
    ['127.0.0.1:8787', '127.0.0.1', true],
    ['127.0.0.10:8787', '127.0.0.1', false],
    ['[::1]:8787', '::1', true],
    ['[::1]:8787', '[::1]', true],
    ['localhost:80', 'localhost:80', true],
  ];
  for (const [host, noProxy, expected] of table)
    assert.equal(bypassesProxy(host, noProxy), expected, `${host} under ${JSON.stringify(noProxy)}`);
});

test(
  'a chat request reaches the simulator through the proxy (VS Code http.proxy), and the proxy log shows it',
  { skip: !hasTinyproxy && 'tinyproxy not installed' },
  async () => {
    const dispatcher = createDispatcher({ proxy: `http://127.0.0.1:${proxyPort}`, env: {} });
    try {
      const { client } = makeClient(sim, { dispatcher });
      const r = await client.chat({
        surface: 'compatible',
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: 'via proxy' }],
      });
      assert.equal(r.text, 'Echo: via proxy');
      const events = [];
      for await (const e of client.chatStream({
        surface: 'native',
        model: 'claude-sonnet-4-5',
        messages: [{ role: 'user', content: 'streamed via proxy' }],
      }))
        events.push(e);
      assert.equal(events.at(-1)!.type, 'done');
    } finally {
      await dispatcher.close();
    }
    const log = await readFile(logFile, 'utf8');
    const port = new URL(sim.url).port;
    // undici tunnels through the proxy with CONNECT, also for http targets
    assert.match(log, new RegExp(`CONNECT 127\\.0\\.0\\.1:${port} `));
    assert.ok(sim.log.some((r) => r.path === '/v1/chat/completions' && r.status === 200));
    assert.ok(sim.log.some((r) => r.path === '/v1/messages' && r.status === 200));
  },
);

test(
  'HTTPS_PROXY from the environment is used, and NO_PROXY bypasses it',
  { skip: !hasTinyproxy && 'tinyproxy not installed' },
  async () => {
    const before = (await readFile(logFile, 'utf8')).length;
    const viaEnv = createDispatcher({ env: { HTTP_PROXY: `http://127.0.0.1:${proxyPort}` } });
    try {
      await makeClient(sim, { dispatcher: viaEnv }).client.listModels();
    } finally {
      await viaEnv.close();
    }
    const after1 = await readFile(logFile, 'utf8');
    const port = new URL(sim.url).port;
    assert.match(after1.slice(before), new RegExp(`CONNECT 127\\.0\\.0\\.1:${port} `));
    const bypass = createDispatcher({ env: { HTTP_PROXY: `http://127.0.0.1:${proxyPort}`, NO_PROXY: '127.0.0.1' } });
    try {
      await makeClient(sim, { dispatcher: bypass }).client.listModels();
    } finally {
      await bypass.close();
    }
    const after2 = await readFile(logFile, 'utf8');
    assert.equal(after2.slice(after1.length).match(/CONNECT/g), null, 'NO_PROXY host did not go through the proxy');
    assert.equal(sim.log.filter((r) => r.path === '/v1/models').length, 2);
  },
);

test('a proxy that is down is a network error naming the cause', async () => {
  const port = await deadPort();
  const dispatcher = createDispatcher({ proxy: `http://127.0.0.1:${port}`, env: {} });
  try {
    const { client } = makeClient(sim, { dispatcher, retry: { maxRetries: 0 } });
    await assert.rejects(
      client.listModels(),
      (e: any) => e.kind === 'network' && /ECONNREFUSED|connections/.test(e.reason),
    );
  } finally {
    await dispatcher.close();
  }
});

test('a proxy that is not a usable URL never throws: described as invalid, and requests go directly', async () => {
  for (const env of [
    { HTTPS_PROXY: 'proxy.corp:8080' },
    { HTTPS_PROXY: 'http://ok.corp:3128', HTTP_PROXY: 'ftp://nope' },
  ] as Array<Record<string, string>>) {
    const c = describeProxy({ env });
    assert.ok(c.invalid, JSON.stringify(env));
    const dispatcher = createDispatcher({ env });
    try {
      assert.ok((await makeClient(sim, { dispatcher }).client.listModelIds()).length > 0);
    } finally {
      await dispatcher.close();
    }
  }
  const noScheme = describeProxy({ proxy: 'user:pw@proxy.corp:3128', env: {} });
  assert.match(noScheme.invalid!, /http:\/\//);
  assert.equal(noScheme.display, '***@proxy.corp:3128', 'credentials hidden even without a scheme');
  assert.doesNotMatch(noScheme.invalid!, /pw/);
  assert.equal(describeProxy({ proxy: 'http://proxy.corp:3128', env: {} }).invalid, undefined);
});
