/**
 * relay-doctor as users run it: `node dist/cli.js …` spawned against the simulator, configured
 * only through the environment. Checks exit codes, the JSON shape, and that the full token never
 * appears in stdout or stderr. Needs `npm run build` first (npm test does it).
 */
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { spawnCli, type CliRun } from './spawnCli';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startSimulator, type Simulator } from '../sim/server';
import { deadPort } from '../gateway/helpers';
import { main } from '../../src/cli/main';

const CLI = resolve(__dirname, '../../../dist/cli.js');
let sim: Simulator;
let home: string;

before(async () => {
  assert.ok(existsSync(CLI), `${CLI} is missing: run "npm run build" first`);
  sim = await startSimulator({ profile: 'strict' });
  home = await mkdtemp(join(tmpdir(), 'relay-doctor-home-'));
});
after(async () => {
  await sim.close();
  await rm(home, { recursive: true, force: true });
});
beforeEach(() => sim.reset());

/** Spawns the CLI (async: the simulator runs in this process) with a clean, explicit environment. */
function run(args: string[], env: Record<string, string | undefined> = {}, timeoutMs = 10_000): Promise<CliRun> {
  const full: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: home,
    MODEL_RELAY_BASE_URL: sim.url,
    MODEL_RELAY_TOKEN: sim.tokens.production,
  };
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) delete full[k];
    else full[k] = v;
  }
  return spawnCli(CLI, args, full, home, timeoutMs);
}

function noToken(r: CliRun, ...tokens: string[]) {
  for (const t of tokens) {
    assert.ok(!r.stdout.includes(t), 'no full token on stdout');
    assert.ok(!r.stderr.includes(t), 'no full token on stderr');
  }
}

const T = { timeout: 15_000 };

test(
  'diagnose --json with a right configuration: exit 0 and {"checks":[{id,result,httpStatus,cause,fix}…]}',
  T,
  async () => {
    // No terminal tool on the PATH (cli-tools-run.test.ts probes Claude Code against new-api).
    const bin = join(home, 'bin');
    await mkdir(bin, { recursive: true });
    const r = await run(['diagnose', '--chat-model', 'gpt-4o-mini', '--native-model', 'claude-sonnet-4-5', '--json'], {
      PATH: bin,
      ANTHROPIC_BASE_URL: sim.url,
      ANTHROPIC_AUTH_TOKEN: sim.tokens.production,
    });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const j = JSON.parse(r.stdout);
    assert.ok(Array.isArray(j.checks));
    for (const c of j.checks) {
      for (const k of ['id', 'result', 'httpStatus', 'cause', 'fix']) assert.ok(k in c, `${c.id} has ${k}`);
      assert.ok(['pass', 'warn', 'fail', 'skipped'].includes(c.result));
      assert.ok(c.httpStatus === null || typeof c.httpStatus === 'number');
      // The spec's gateway (strict profile) has no usage log a token can read: the arrival check is
      // skipped; so are the terminal tools, none installed.
      const skipped = c.id === 'arrival' || c.id.startsWith('tool-');
      assert.equal(c.result, skipped ? 'skipped' : 'pass', `${c.id}: ${c.cause}`);
    }
    assert.equal(j.checks.find((c: { id: string }) => c.id === 'generate-native').httpStatus, 200);
    noToken(r, sim.tokens.production);
  },
);

test('diagnose with a base URL carrying /v1: human table shows the /v1/v1/messages 404, exit 1', T, async () => {
  const r = await run(['diagnose', '--native-model', 'claude-sonnet-4-5'], {
    MODEL_RELAY_BASE_URL: `${sim.url}/v1`,
    COLUMNS: '100',
  });
  assert.equal(r.code, 1, r.stdout + r.stderr);
  assert.match(r.stdout, /^Model Relay diagnosis of http:\/\/127\.0\.0\.1:\d+\/v1$/m);
  assert.match(r.stdout, /FAIL {3}Native surface path +404/);
  assert.match(r.stdout, /\/v1\/v1\/messages/);
  assert.match(r.stdout, /Fix: Set the base URL to the root address http:\/\/127\.0\.0\.1:\d+ /);
  assert.match(r.stdout, /Summary: 1 failed/);
  noToken(r, sim.tokens.production);
});

test('diagnose with a bad token: exit 1, the token check fails with 401; no token shown', T, async () => {
  const bad = `sk-${'q'.repeat(48)}`;
  const r = await run(['diagnose', '--json'], { MODEL_RELAY_TOKEN: bad });
  assert.equal(r.code, 1);
  const t = JSON.parse(r.stdout).checks.find((c: { id: string }) => c.id === 'token');
  assert.equal(t.result, 'fail');
  assert.equal(t.httpStatus, 401);
  noToken(r, bad);
});

test('a token on the command line is refused (exit 2) and not echoed', T, async () => {
  const secret = sim.tokens.production;
  for (const args of [
    ['diagnose', '--token', secret],
    ['diagnose', `--api-key=${secret}`],
    ['chat', '--model', 'gpt-4o-mini', secret],
  ]) {
    const r = await run(args);
    assert.equal(r.code, 2, args.join(' '));
    assert.match(r.stderr, /must not be given on the command line/);
    assert.match(r.stderr, /shell history/);
    assert.match(r.stderr, /MODEL_RELAY_TOKEN/);
    noToken(r, secret);
  }
});

test('usage errors exit 2: no base URL, unknown command, unknown option, bad surface, missing prompt', T, async () => {
  const cases: Array<[string[], Record<string, string | undefined>, RegExp]> = [
    [['diagnose'], { MODEL_RELAY_BASE_URL: undefined }, /MODEL_RELAY_BASE_URL is not set/],
    [['frobnicate'], {}, /Unknown command "frobnicate"/],
    [['diagnose', '--bogus'], {}, /bogus/],
    [['models', '--chat-model', 'x'], {}, /does not apply to "models"/],
    [
      ['chat', '--surface', 'other', '--model', 'm', 'hi'],
      {},
      /--surface must be "compatible", "native" or "responses"/,
    ],
    [['chat', '--model', 'gpt-4o-mini'], {}, /needs a prompt/],
    [['models'], { MODEL_RELAY_TOKEN: undefined }, /MODEL_RELAY_TOKEN is not set/],
  ];
  for (const [args, env, re] of cases) {
    const r = await run(args, env);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, re);
  }
  const help = await run(['--help']);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /relay-doctor diagnose/);
});

test('models and models --json', T, async () => {
  const plain = await run(['models']);
  assert.equal(plain.code, 0, plain.stderr);
  assert.match(plain.stdout, /^gpt-4o-mini\b/m);
  const j = await run(['models', '--json']);
  assert.equal(j.code, 0);
  const ids = JSON.parse(j.stdout).models.map((m: { id: string }) => m.id);
  assert.ok(ids.includes('claude-sonnet-4-5'));
  const test = await run(['models', '--json'], { MODEL_RELAY_TOKEN: sim.tokens.test });
  assert.deepEqual(
    JSON.parse(test.stdout).models.map((m: { id: string }) => m.id),
    ['gpt-4o-mini'],
  );
  noToken(j, sim.tokens.production);
});

test('chat streams the reply to stdout on both surfaces, and --no-stream works', T, async () => {
  const c = await run(['chat', '--surface', 'compatible', '--model', 'gpt-4o-mini', 'hello there']);
  assert.equal(c.code, 0, c.stderr);
  assert.match(c.stdout, /hello there/);
  const n = await run(['chat', '--surface', 'native', '--model', 'claude-sonnet-4-5', '--no-stream', 'native hi']);
  assert.equal(n.code, 0, n.stderr);
  assert.match(n.stdout, /native hi/);
  assert.equal(sim.log.filter((l) => l.path === '/v1/messages').length, 1);
});

test('chat errors go to stderr with their classified kind, exit 1', T, async () => {
  const forbidden = await run(['chat', '--surface', 'compatible', '--model', 'gpt-4o', 'hi']);
  assert.equal(forbidden.code, 1);
  assert.equal(forbidden.stdout, '');
  assert.match(forbidden.stderr, /^relay-doctor: error \(forbidden, HTTP 403\)/);
  assert.match(forbidden.stderr, /cause: /);
  assert.match(forbidden.stderr, /token: sk-\w{3}\.\.\.\w{4}/);
  const bad = `sk-${'z'.repeat(48)}`;
  const unauth = await run(['chat', '--surface', 'native', '--model', 'claude-sonnet-4-5', 'hi'], {
    MODEL_RELAY_TOKEN: bad,
  });
  assert.equal(unauth.code, 1);
  assert.match(unauth.stderr, /error \(unauthorized, HTTP 401\)/);
  noToken(unauth, bad);
  noToken(forbidden, sim.tokens.production);
});

test(
  'HTTPS_PROXY / HTTP_PROXY from the environment are honoured (a dead proxy fails), NO_PROXY bypasses',
  T,
  async () => {
    const port = await deadPort();
    const viaProxy = await run(['diagnose', '--json'], {
      HTTP_PROXY: `http://127.0.0.1:${port}`,
      HTTPS_PROXY: `http://127.0.0.1:${port}`,
    });
    assert.equal(viaProxy.code, 1);
    const p = JSON.parse(viaProxy.stdout).checks.find((c: { id: string }) => c.id === 'proxy');
    assert.equal(p.result, 'fail');
    assert.equal(sim.log.length, 0, 'nothing reached the gateway directly');
    const bypass = await run(['models'], { HTTP_PROXY: `http://127.0.0.1:${port}`, NO_PROXY: '127.0.0.1' });
    assert.equal(bypass.code, 0, bypass.stderr);
  },
);

test(
  'a proxy without a scheme (HTTPS_PROXY=proxy.corp:8080): warned, requests go directly, diagnose reports it',
  T,
  async () => {
    const models = await run(['models'], { HTTPS_PROXY: 'proxy.corp:8080' });
    assert.equal(models.code, 0, models.stderr);
    assert.match(
      models.stderr,
      /warning: the proxy "proxy\.corp:8080".*cannot be used: it must start with http:\/\/ or https:\/\//,
    );
    assert.match(models.stdout, /gpt-4o-mini/);
    const d = await run(['diagnose', '--json', '--chat-model', 'gpt-4o-mini'], { HTTPS_PROXY: 'proxy.corp:8080' });
    const proxy = (
      JSON.parse(d.stdout) as { checks: Array<{ id: string; result: string; cause: string; fix: string }> }
    ).checks.find((c) => c.id === 'proxy')!;
    assert.equal(proxy.result, 'fail');
    assert.match(proxy.cause, /cannot be used.*Requests go directly/);
    assert.match(proxy.fix, /http:\/\/proxy\.example\.com:8080/);
  },
);

test(
  'terminal use: fixes name the environment, a malformed base URL is a usage error, normalised URLs and retries are said',
  T,
  async () => {
    const bad = await run(['models'], { MODEL_RELAY_TOKEN: `sk-${'x'.repeat(40)}` });
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /fix: .*by exporting MODEL_RELAY_TOKEN=<token>/);
    assert.doesNotMatch(bad.stderr, /Model Relay: Add Token/);
    const malformed = await run(['models'], { MODEL_RELAY_BASE_URL: 'ftp://gateway.example.com' });
    assert.equal(malformed.code, 2, malformed.stderr);
    assert.match(malformed.stderr, /MODEL_RELAY_BASE_URL is not a usable address/);
    const v1 = await run(['models'], { MODEL_RELAY_BASE_URL: `${sim.url}/v1/` });
    assert.equal(v1.code, 0, v1.stderr);
    assert.match(v1.stderr, new RegExp(`warning: MODEL_RELAY_BASE_URL: .*Using ${sim.url.replace(/[.]/g, '\\.')}\\.`));
    sim.fault({ kind: 'status', status: 429, retryAfter: '1', count: 1 });
    const waited = await run(['chat', '--model', 'gpt-4o-mini', 'hi']);
    assert.equal(waited.code, 0, waited.stderr);
    assert.match(waited.stderr, /relay-doctor: HTTP 429: retrying in 1 s \(retry 1 of 2\)/);
  },
);

test(
  'diagnose without --chat-model picks the first visible chat and native models, says so, and tests generation',
  T,
  async () => {
    const r = await run(['diagnose', '--json']);
    assert.match(
      r.stderr,
      /no --chat-model \/ --native-model given: checking with the first models this token sees \(chat gpt-4o-mini, native claude-sonnet-4-5\)/,
    );
    const checks = (JSON.parse(r.stdout) as { checks: Array<{ id: string; result: string }> }).checks;
    assert.equal(checks.find((c) => c.id === 'generate-chat')?.result, 'pass');
    assert.equal(checks.find((c) => c.id === 'generate-native')?.result, 'pass');
    // The list the models were picked from is the diagnosis' own: read no more often than with the models given.
    const lists = () => sim.log.filter((l) => l.path === '/v1/models').length;
    const picking = lists();
    sim.reset();
    const given = await run([
      'diagnose',
      '--json',
      '--chat-model',
      'gpt-4o-mini',
      '--native-model',
      'claude-sonnet-4-5',
    ]);
    assert.equal(given.code, 0, given.stderr);
    assert.equal(picking, lists(), 'the model list is read once');
  },
);

test('diagnose with a reasoning model on both surfaces: generation and streaming pass', T, async () => {
  const r = await run([
    'diagnose',
    '--json',
    '--chat-model',
    'deepseek-reasoner',
    '--native-model',
    'deepseek-reasoner',
  ]);
  assert.equal(r.code, 0, r.stdout);
  const checks = (JSON.parse(r.stdout) as { checks: Array<{ id: string; result: string; cause: string }> }).checks;
  for (const id of ['generate-chat', 'generate-native', 'stream-compatible', 'stream-native']) {
    const c = checks.find((x) => x.id === id);
    assert.equal(c?.result, 'pass', `${id}: ${c?.cause}`);
  }
  assert.match(checks.find((c) => c.id === 'generate-native')!.cause, /spent that budget on reasoning/);
});

test('gateway text written to a terminal loses its escape sequences', T, async () => {
  sim.config.replyText = 'Hello \u001b]0;pwned\u0007\u001b[31mred\u001b[0m done';
  try {
    let out = '';
    const code = await main({
      argv: ['chat', '--model', 'gpt-4o-mini', '--no-stream', 'hi'],
      env: { MODEL_RELAY_BASE_URL: sim.url, MODEL_RELAY_TOKEN: sim.tokens.production },
      cwd: home,
      stdout: { write: (s: string) => (out += s), isTTY: true },
      stderr: { write: () => true, isTTY: true },
    });
    assert.equal(code, 0);
    assert.equal(out, 'Hello red done\n');
    assert.doesNotMatch(out, /\u001b/);
  } finally {
    sim.config.replyText = undefined;
  }
});
