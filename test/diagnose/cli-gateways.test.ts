/**
 * relay-doctor with several gateways (`--gateways FILE`), as users run it: dist/cli.js spawned
 * against two simulators with different tokens, each token taken from the environment variable the
 * file names. The file contract (a token in the file refused, bad JSON, oversize), `diagnose --all`
 * (rows, exit codes, JSON, fallback targets), and that no output ever holds a full token.
 * Needs `npm run build` first.
 */
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { defaultConfig, startSimulator, type Simulator } from '../sim/server';
import { spawnCli, type CliRun } from './spawnCli';
import { findSecret, parseGatewaysFile } from '../../src/cli/gatewaysFile';
import { UsageError } from '../../src/cli/config';
import { diagnoseGateways, renderTable } from '../../src/gateway';
import { deadPort } from '../gateway/helpers';

const CLI = resolve(__dirname, '../../../dist/cli.js');
const T = { timeout: 30_000 };
/** Gateway B's own token (gateway A uses the simulator's default production token). */
const TOKEN_B = 'sk-Bgw7Qx2LmK8sJ4hGf6DsA1zXcV9bN3mQwErTyUiOpLk5dZz9';
let a: Simulator;
let b: Simulator;
let dir: string;

before(async () => {
  assert.ok(existsSync(CLI), `${CLI} is missing: run "npm run build" first`);
  a = await startSimulator({ profile: 'real' });
  // Gateway B: another token, a smaller model list, no balance endpoints (the strict profile).
  const base = defaultConfig('strict');
  b = await startSimulator({
    profile: 'strict',
    tokens: [{ name: 'production', value: TOKEN_B, group: 'default' }],
    groups: [{ name: 'default', visible: ['gpt-4o-mini', 'claude-sonnet-4-5'] }],
    models: base.models.filter((m) => m.id === 'gpt-4o-mini' || m.id === 'claude-sonnet-4-5'),
  });
  dir = await mkdtemp(join(tmpdir(), 'relay-doctor-gateways-'));
});
after(async () => {
  await a.close();
  await b.close();
  await rm(dir, { recursive: true, force: true });
});
beforeEach(() => {
  a.reset();
  b.reset();
});

const TOKEN_A = () => a.tokens.production;

function gateways(over: { fallbacks?: unknown; aModels?: Record<string, string>; aBase?: string } = {}) {
  return {
    gateways: [
      {
        id: 'cheap',
        name: 'Cheap Relay',
        baseUrl: over.aBase ?? a.url,
        models: over.aModels ?? { chat: 'gpt-4o-mini', native: 'claude-sonnet-4-5' },
        tokenEnv: 'RELAY_A_TOKEN',
      },
      { id: 'solid', name: 'Solid Relay', baseUrl: b.url, models: { chat: 'gpt-4o-mini' }, tokenEnv: 'RELAY_B_TOKEN' },
    ],
    ...(over.fallbacks ? { fallbacks: over.fallbacks } : {}),
  };
}

async function fileWith(name: string, content: unknown): Promise<string> {
  const p = join(dir, name);
  await writeFile(p, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  return p;
}

/** The CLI with a clean environment: both gateways' tokens set unless `env` says otherwise; no MODEL_RELAY_*. */
async function run(args: string[], env: Record<string, string | undefined> = {}): Promise<CliRun> {
  const full: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: dir,
    RELAY_A_TOKEN: TOKEN_A(),
    RELAY_B_TOKEN: TOKEN_B,
    COLUMNS: '160',
  };
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) delete full[k];
    else full[k] = v;
  }
  const r = await spawnCli(CLI, args, full, dir, 25_000);
  // Neither token, nor its bare key without sk- (as new-api echoes it in a 401).
  for (const token of [TOKEN_A(), TOKEN_B, TOKEN_A().slice(3), TOKEN_B.slice(3)]) {
    assert.ok(!r.stdout.includes(token), `no full token on stdout:\n${r.stdout}`);
    assert.ok(!r.stderr.includes(token), `no full token on stderr:\n${r.stderr}`);
  }
  return r;
}

interface JsonCell {
  status: string;
  text: string;
  cause: string | null;
  fix: string | null;
}
interface JsonRow extends Record<'reachability' | 'token' | 'balance' | 'models' | 'generation', JsonCell> {
  id: string;
  name: string;
  ok: boolean;
  report: { checks: Array<{ id: string; result: string }> };
}
interface JsonAll {
  ok: boolean;
  gateways: JsonRow[];
  fallbacks: Array<{
    status: string;
    model: string;
    target: { gateway: string; model: string };
    cause: string;
    fix: string;
  }>;
}

test('diagnose --all: one row per gateway, exit 0; --json has every cell and the full report', T, async () => {
  const file = await fileWith(
    'ok.json',
    gateways({ fallbacks: { 'gpt-4o-mini': [{ gateway: 'solid', model: 'gpt-4o-mini' }] } }),
  );
  const r = await run(['diagnose', '--all', '--gateways', file]);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /^Model Relay diagnosis of 2 gateways$/m);
  assert.match(r.stdout, /^GATEWAY +REACHABILITY +TOKEN +BALANCE +MODELS +GENERATION$/m);
  // The production token's group lists the default group's models.
  const listed = a.config.groups.find((g) => g.name === 'default')!.visible.length;
  assert.match(
    r.stdout,
    // (the real profile lists o3-pro as openai-response: generation and streaming on /v1/responses too)
    new RegExp(
      `^Cheap Relay +PASS 127\\.0\\.0\\.1:\\d+ +PASS sk-Pr0\\.\\.\\.Lk5d +PASS \\$7\\.50 +PASS ${listed} models +PASS 6 of 6 passed$`,
      'm',
    ),
  );
  assert.match(
    r.stdout,
    /^Solid Relay +PASS 127\.0\.0\.1:\d+ +PASS sk-Bgw\.\.\.dZz9 +SKIP not told +PASS 2 models +PASS 2 of 2 passed$/m,
  );
  assert.match(r.stdout, /Summary: no check failed on 2 of 2 gateways\./);
  // Then each gateway under its name: its token, proxy and balance, and its checks.
  assert.match(
    r.stdout,
    /^Cheap Relay: http:\/\/127\.0\.0\.1:\d+\ntoken sk-Pr0\.\.\.Lk5d \(RELAY_A_TOKEN\) · proxy none · balance \$7\.50\n\nRESULT +CHECK +HTTP +TIME$/m,
  );
  assert.match(
    r.stdout,
    /^Solid Relay: http:\/\/127\.0\.0\.1:\d+\ntoken sk-Bgw\.\.\.dZz9 \(RELAY_B_TOKEN\) · proxy none\n\nRESULT +CHECK +HTTP +TIME$/m,
  );
  assert.equal(r.stdout.match(/^PASS +Generation \(compatible chat\) +200 /gm)?.length, 2, "each gateway's checks");
  // Each gateway's token went to its own gateway only.
  assert.ok(a.log.length > 0 && a.log.every((l) => l.tokenMasked === null || l.tokenName === 'production'));
  assert.ok(b.log.every((l) => l.tokenMasked === null || l.tokenName === 'production'));

  const j = await run(['diagnose', '--all', '--json', '--gateways', file]);
  assert.equal(j.code, 0, j.stderr);
  const out = JSON.parse(j.stdout) as JsonAll;
  assert.equal(out.ok, true);
  assert.deepEqual(
    out.gateways.map((g) => [g.id, g.name, g.ok]),
    [
      ['cheap', 'Cheap Relay', true],
      ['solid', 'Solid Relay', true],
    ],
  );
  for (const g of out.gateways)
    for (const k of ['reachability', 'token', 'balance', 'models', 'generation'] as const) {
      assert.ok(['ok', 'warn', 'fail', 'skipped'].includes(g[k].status), `${g.id} ${k}`);
      assert.equal(typeof g[k].text, 'string');
    }
  assert.equal(out.gateways[0].report.checks.find((c) => c.id === 'generate-native')?.result, 'pass');
  assert.deepEqual(out.fallbacks, []);
});

test(
  'a gateway whose tokenEnv is not set: its token cell fails naming the variable; the other passes; exit 1',
  T,
  async () => {
    const file = await fileWith('ok.json', gateways());
    const r = await run(['diagnose', '--all', '--gateways', file], { RELAY_B_TOKEN: undefined });
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stdout, /^Cheap Relay +PASS .*PASS sk-Pr0\.\.\.Lk5d/m);
    assert.match(r.stdout, /^Solid Relay +PASS 127\.0\.0\.1:\d+ +FAIL no token +SKIP/m);
    assert.match(r.stdout, /Fix: RELAY_B_TOKEN is not set: export the token of "Solid Relay" in it/);
    assert.match(r.stdout, /Summary: 1 of 2 gateways without a failed check/);
    // A terminal too narrow for the table: a block per gateway, nothing cut.
    const narrow = await run(['diagnose', '--all', '--gateways', file], { RELAY_B_TOKEN: undefined, COLUMNS: '70' });
    assert.equal(narrow.code, 1);
    assert.match(narrow.stdout, /^Solid Relay\n {2}Reachability +PASS 127\.0\.0\.1:\d+\n {2}Token +FAIL no token$/m);
    assert.ok(
      narrow.stdout.split('\n').every((l) => l.length <= 70),
      narrow.stdout,
    );
    assert.ok(!narrow.stdout.includes('…'));
    assert.equal(b.log.filter((l) => l.tokenMasked).length, 0, 'nothing was sent with a token to B');

    const j = JSON.parse(
      (await run(['diagnose', '--all', '--json', '--gateways', file], { RELAY_B_TOKEN: '' })).stdout,
    ) as JsonAll;
    assert.equal(j.ok, false);
    assert.equal(j.gateways[1].token.status, 'fail');
    assert.match(j.gateways[1].token.fix ?? '', /RELAY_B_TOKEN/);
  },
);

test("a fallback target missing from its gateway's models, or naming no gateway, is reported (exit 1)", T, async () => {
  const file = await fileWith(
    'fallbacks.json',
    gateways({
      fallbacks: {
        'gpt-4o-mini': [
          { gateway: 'solid', model: 'deepseek-reasoner' },
          { gateway: 'nowhere', model: 'gpt-4o-mini' },
        ],
        'claude-sonnet-4-5': [{ gateway: 'Solid Relay', model: 'claude-sonnet-4-5' }],
      },
    }),
  );
  const r = await run(['diagnose', '--all', '--gateways', file]);
  assert.equal(r.code, 1, r.stdout + r.stderr);
  assert.match(r.stdout, /^Solid Relay .*FAIL fallback deepseek-reasoner not listed/m);
  assert.match(r.stdout, /^Fallbacks:$/m);
  assert.match(
    r.stdout,
    /The fallback for "gpt-4o-mini" names the model "deepseek-reasoner" on "Solid Relay", but that gateway's model list does not show it\./,
  );
  assert.match(r.stdout, /Fix: Pick a model from the list of "Solid Relay" \(gpt-4o-mini, claude-sonnet-4-5\)/);
  assert.match(r.stdout, /names the gateway "nowhere", which is not one of the gateways/);
  const j = JSON.parse((await run(['diagnose', '--all', '--json', '--gateways', file])).stdout) as JsonAll;
  assert.deepEqual(
    j.fallbacks.map((f) => [f.status, f.model, f.target.gateway, f.target.model]),
    [
      ['fail', 'gpt-4o-mini', 'solid', 'deepseek-reasoner'],
      ['fail', 'gpt-4o-mini', 'nowhere', 'gpt-4o-mini'],
    ],
    "the target named by the gateway's name is found and its model is listed",
  );
  assert.equal(j.gateways[1].models.status, 'fail');
  assert.equal(j.gateways[0].ok, true);
});

test('a token in the file is refused with the reason, masked (exit 2), before any request', T, async () => {
  const secretish = 'abcdefgh12345678zz';
  const cases: Array<[string, unknown, RegExp]> = [
    [
      'token field',
      { gateways: [{ ...gateways().gateways[0], token: TOKEN_A() }] },
      /at gateways\[0\]\.token \(sk-Pr0\.\.\.Lk5d\)/,
    ],
    [
      'bearer header',
      [{ ...gateways().gateways[1], extraHeaders: { Authorization: `Bearer ${TOKEN_B}` } }],
      /at \[0\]\.extraHeaders\.Authorization/,
    ],
    ['apiKey without sk-', [{ ...gateways().gateways[1], apiKey: secretish }], /at \[0\]\.apiKey \(abc/],
    ['an sk- value anywhere', [{ ...gateways().gateways[1], name: TOKEN_B }], /at \[0\]\.name \(sk-Bgw\.\.\.dZz9\)/],
  ];
  for (const [what, content, where] of cases) {
    const file = await fileWith('token.json', content);
    const r = await run(['diagnose', '--all', '--gateways', file]);
    assert.equal(r.code, 2, `${what}: ${r.stderr}`);
    assert.match(r.stderr, /holds a token/, what);
    assert.match(r.stderr, where, what);
    assert.match(r.stderr, /"tokenEnv": "RELAY_B_TOKEN"/, what);
    assert.ok(!r.stderr.includes(secretish), `${what}: the value is not echoed`);
  }
  assert.equal(a.log.length + b.log.length, 0, 'no request was sent');
});

test(
  'the file contract: missing, bad JSON, over 1 MB, no tokenEnv, unknown field, --all without --gateways (exit 2)',
  T,
  async () => {
    const big = await fileWith('big.json', `[${' '.repeat(1024 * 1024)}]`);
    const bad = await fileWith(
      'bad.json',
      `{"gateways": [\n  {"id": "x", "name": "X",\n   "baseUrl": "${a.url}" tokenEnv: "X"}]}`,
    );
    const noEnv = await fileWith('noenv.json', [{ id: 'x', name: 'X', baseUrl: a.url }]);
    const badEnv = await fileWith('badenv.json', [{ id: 'x', name: 'X', baseUrl: a.url, tokenEnv: 'NOT A NAME' }]);
    const typo = await fileWith('typo.json', { gateways: gateways().gateways, fallback: {} });
    const deep = await fileWith('deep.json', `${'['.repeat(200_000)}${']'.repeat(200_000)}`);
    const cases: Array<[string[], RegExp]> = [
      [['diagnose', '--all', '--gateways', join(dir, 'absent.json')], /absent\.json cannot be read \(ENOENT\)/],
      [['diagnose', '--all', '--gateways', bad], /bad\.json is not valid JSON \(line 3, column \d+\)/],
      [['diagnose', '--all', '--gateways', big], /big\.json is larger than 1 MB/],
      [['diagnose', '--all', '--gateways', noEnv], /gateway 1 \("x"\) has no "tokenEnv"/],
      [['diagnose', '--all', '--gateways', badEnv], /"tokenEnv" that is not an environment variable name/],
      [['diagnose', '--all', '--gateways', typo], /does not know: "fallback"/],
      [['diagnose', '--all', '--gateways', deep], /nested deeper than 32 levels/],
      [['diagnose', '--all'], /--all needs --gateways FILE/],
      [['diagnose', '--all', '--gateway', 'cheap', '--gateways', bad], /either --all or --gateway NAME/],
      [['models', '--gateway', 'cheap'], /--gateway needs --gateways FILE/],
    ];
    for (const [args, re] of cases) {
      const r = await run(args);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, re, args.join(' '));
    }
  },
);

test(
  'models and quota --gateway NAME pick one gateway of the file (name or id, any case) with its own token',
  T,
  async () => {
    const file = await fileWith('ok.json', gateways());
    const m = await run(['models', '--gateways', file, '--gateway', 'solid relay']);
    assert.equal(m.code, 0, m.stderr);
    assert.deepEqual(
      m.stdout
        .trim()
        .split('\n')
        .slice(1) // the header row (Model, Capabilities, Price, Groups)
        .map((l) => l.split(/\s+/)[0]),
      ['gpt-4o-mini', 'claude-sonnet-4-5'],
    );
    assert.ok(b.log.some((l) => l.tokenName === 'production') && a.log.length === 0);
    const q = await run(['quota', '--json', '--gateways', file, '--gateway', 'CHEAP']);
    assert.equal(q.code, 0, q.stderr);
    assert.equal((JSON.parse(q.stdout) as { remaining: number }).remaining, 7.5);
    const none = await run(['quota', '--gateways', file, '--gateway', 'cheap'], { RELAY_A_TOKEN: undefined });
    assert.equal(none.code, 2);
    assert.match(none.stderr, /RELAY_A_TOKEN is not set\. Export the token of gateway "Cheap Relay" in it/);
    const unknown = await run(['models', '--gateways', file, '--gateway', 'other']);
    assert.equal(unknown.code, 2);
    assert.match(
      unknown.stderr,
      /No gateway in .* is named "other" \(the gateways: Cheap Relay \(cheap\), Solid Relay \(solid\)\)/,
    );
    const several = await run(['models', '--gateways', file]);
    assert.equal(several.code, 2);
    assert.match(several.stderr, /pick one with --gateway NAME/);
  },
);

test(
  'chat --gateway NAME: the primary down, the fallback gateway answers; one failover line on stderr, masked',
  T,
  async () => {
    const fallbacks = { 'gpt-4o-mini': [{ gateway: 'solid', model: 'gpt-4o-mini' }] };
    const file = await fileWith('chat.json', gateways({ fallbacks }));
    // Down: nothing listens at the primary's address (never sent, so it may move on; a connection that
    // broke after the request was written may have been billed and never moves: the test after this one).
    const down = await fileWith('down.json', gateways({ fallbacks, aBase: `http://127.0.0.1:${await deadPort()}` }));
    for (const stream of [true, false]) {
      a.reset();
      b.reset();
      const r = await run([
        'chat',
        '--gateways',
        down,
        '--gateway',
        'Cheap Relay',
        ...(stream ? [] : ['--no-stream']),
        'Hello there',
      ]);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /^Echo: Hello there\n$/, 'stdout holds only the reply');
      // (the primary's own retries come first, each on its own line)
      const lines = r.stderr
        .trim()
        .split('\n')
        .filter((l) => !/retrying in/.test(l));
      assert.equal(lines.length, 2, r.stderr);
      assert.match(
        lines[0],
        /^relay-doctor: gateway "Cheap Relay" \(gpt-4o-mini, token sk-Pr0\.\.\.Lk5d\) could not serve the request: Could not reach 127\.0\.0\.1:\d+ \(ECONNREFUSED\)\. Trying "Solid Relay" \(gpt-4o-mini\)\.$/,
      );
      assert.equal(lines[1], 'relay-doctor: answered by gateway "Solid Relay" with gpt-4o-mini.');
      // Each gateway saw its own token only.
      assert.ok(a.log.every((l) => l.tokenName === null || l.tokenName === 'production'));
      assert.deepEqual(
        b.log.filter((l) => l.path === '/v1/chat/completions').map((l) => [l.tokenName, l.status]),
        [['production', 200]],
      );
    }
    // A 401 that echoes the primary's key: the failover line says why, the key masked.
    a.reset();
    b.reset();
    a.fault({ kind: 'echoKey', path: '/v1/chat/completions' });
    const refused = await run(['chat', '--gateways', file, '--gateway', 'cheap', 'Hi']);
    assert.equal(refused.code, 0, refused.stderr);
    assert.match(
      refused.stderr,
      /"Cheap Relay" \(gpt-4o-mini, token sk-Pr0\.\.\.Lk5d\) could not serve the request: HTTP 401: (?!HTTP)/,
    );
    assert.match(refused.stderr, /answered by gateway "Solid Relay"/);
    // Without trouble the primary answers and nothing fails over.
    a.reset();
    b.reset();
    const ok = await run(['chat', '--gateways', file, '--gateway', 'cheap', 'Hi']);
    assert.equal(ok.code, 0, ok.stderr);
    assert.equal(ok.stderr, 'relay-doctor: answered by gateway "Cheap Relay" with gpt-4o-mini.\n');
    assert.equal(b.log.length, 0);
  },
);

test(
  'chat --gateway NAME: a proxy’s 504 page or a reset after the body was read is sent once — no retry, no failover — and exits 3 saying it may have been billed',
  T,
  async () => {
    const file = await fileWith(
      'billed.json',
      gateways({ fallbacks: { 'gpt-4o-mini': [{ gateway: 'solid', model: 'gpt-4o-mini' }] } }),
    );
    for (const [fault, stream] of [
      [{ kind: 'proxyPage' }, true],
      [{ kind: 'resetAfterBody' }, false],
    ] as const) {
      a.reset();
      b.reset();
      a.fault({ ...fault, path: '/v1/chat/completions' });
      const r = await run([
        'chat',
        '--gateways',
        file,
        '--gateway',
        'cheap',
        ...(stream ? [] : ['--no-stream']),
        'Hello there',
      ]);
      assert.equal(r.code, 3, r.stderr);
      assert.equal(r.stdout, '');
      assert.equal(a.log.filter((l) => l.path === '/v1/chat/completions').length, 1, `${fault.kind}: sent once`);
      assert.equal(b.log.length, 0, `${fault.kind}: the fallback gateway was not asked`);
      assert.doesNotMatch(r.stderr, /retrying in|Trying "Solid Relay"/);
      assert.match(r.stderr, /billing: This billed call may have reached the gateway and been charged/);
      assert.match(r.stderr, /retry: run the same command again to send it once more; it may be billed again\./);
      assert.ok(!r.stderr.includes(TOKEN_A()) && !r.stderr.includes(TOKEN_B), 'no full token');
    }
  },
);

test(
  'diagnose --gateway NAME: the full diagnosis of one gateway, with its models and its token variable',
  T,
  async () => {
    const file = await fileWith('ok.json', gateways());
    const r = await run(['diagnose', '--gateways', file, '--gateway', 'solid', '--json']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const checks = (JSON.parse(r.stdout) as { checks: Array<{ id: string; result: string; cause: string }> }).checks;
    assert.equal(checks.find((c) => c.id === 'generate-chat')?.result, 'pass');
    assert.match(checks.find((c) => c.id === 'token')?.cause ?? '', /sk-Bgw\.\.\.dZz9 \("RELAY_B_TOKEN"\)/);
    assert.equal(a.log.length, 0, 'the other gateway was not asked');
    // The text: the report of all gateways with one row, which shows its checks directly (its overview row would repeat them).
    const text = await run(['diagnose', '--gateways', file, '--gateway', 'solid']);
    assert.equal(text.code, 0, text.stdout + text.stderr);
    assert.match(
      text.stdout,
      /^Model Relay diagnosis of http:\/\/127\.0\.0\.1:\d+\ntoken sk-Bgw\.\.\.dZz9 \(RELAY_B_TOKEN\) · proxy none\n\nRESULT +CHECK +HTTP +TIME\n/,
    );
    assert.doesNotMatch(text.stdout, /^GATEWAY /m);
    assert.match(text.stdout, /^Summary: 0 failed, 0 warnings, \d+ passed, \d+ skipped \(.+\)\.$/m);
  },
);

test(
  'diagnose --all: a failed check no summary cell stands for (the native path of a base URL with /v1) fails its gateway and the exit code',
  T,
  async () => {
    const file = await fileWith('v1.json', gateways({ aBase: `${a.url}/v1`, aModels: { chat: 'gpt-4o-mini' } }));
    const r = await run(['diagnose', '--all', '--gateways', file]);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(
      r.stdout,
      /^Cheap Relay +WARN 127\.0\.0\.1:\d+ +PASS sk-Pr0\.\.\.Lk5d +PASS \$[\d.]+ +PASS \d+ models +PASS/m,
    );
    assert.match(r.stdout, /^FAIL +Native surface path /m);
    assert.match(r.stdout, /Summary: 1 of 2 gateways without a failed check; see the failures above\./);
    const j = JSON.parse((await run(['diagnose', '--all', '--json', '--gateways', file])).stdout) as JsonAll;
    assert.deepEqual(
      j.gateways.map((g) => [g.id, g.ok]),
      [
        ['cheap', false],
        ['solid', true],
      ],
    );
    assert.equal(j.ok, false);
  },
);

test('the token scan: what counts as a token in the file, and what does not', () => {
  const entry = { id: 'x', name: 'X', baseUrl: 'https://relay.example.com', tokenEnv: 'RELAY_X_TOKEN' };
  // Allowed: tokenEnv, a model id that merely contains "token" as a fallbacks key, ordinary headers.
  assert.equal(
    findSecret({
      gateways: [{ ...entry, extraHeaders: { 'X-Team': 'blue' } }],
      fallbacks: { 'tokenizer-7b': [{ gateway: 'x', model: 'm' }] },
    }),
    undefined,
  );
  const parsed = parseGatewaysFile({ gateways: [entry] }, 'f.json');
  assert.deepEqual([...parsed.tokenEnv], [['x', 'RELAY_X_TOKEN']]);
  // Refused, and said masked: a named field, a credential header, a bearer value, an sk- key used as a name.
  assert.deepEqual(findSecret([{ ...entry, secret: 'hunter2hunter2' }]), { at: '[0].secret', masked: 'hunter...ter2' });
  assert.equal(findSecret([{ ...entry, extraHeaders: { 'X-Api-Key': 'abcdef' } }])?.at, '[0].extraHeaders.X-Api-Key');
  assert.equal(
    findSecret([{ ...entry, extraHeaders: { 'X-Custom': 'Bearer abcdefgh' } }])?.at,
    '[0].extraHeaders.X-Custom',
  );
  const asKey = findSecret({ gateways: [entry], fallbacks: { [TOKEN_B]: [] } });
  assert.equal(asKey?.at, 'fallbacks.sk-Bgw...dZz9');
  assert.throws(
    () => parseGatewaysFile([{ ...entry, token: TOKEN_B }], 'f.json'),
    (e: unknown) => e instanceof UsageError && !e.message.includes(TOKEN_B) && e.message.includes('sk-Bgw...dZz9'),
  );
});

test(
  'one rendering for 1..N gateways: a gateway reads the same alone as among others; the overview only with several',
  T,
  async () => {
    const profiles = [
      { id: 'cheap', name: 'Cheap Relay', baseUrl: a.url, models: { chat: 'gpt-4o-mini' } },
      { id: 'solid', name: 'Solid Relay', baseUrl: b.url, models: { chat: 'gpt-4o-mini' } },
    ];
    const token = (id: string) => (id === 'solid' ? TOKEN_B : TOKEN_A());
    const both = renderTable(await diagnoseGateways({ gateways: profiles, token }), { width: 160 });
    const alone = renderTable(await diagnoseGateways({ gateways: [profiles[1]], token }), { width: 160 });
    assert.match(both, /^GATEWAY +REACHABILITY/m);
    assert.doesNotMatch(alone, /^GATEWAY /m, 'one gateway: no overview row');
    assert.match(alone, /^Model Relay diagnosis of http:\/\/127\.0\.0\.1:\d+\n/);
    // Solid Relay's head and checks (the last gateway among two), timings aside: the same lines.
    const timeless = (s: string) => s.replace(/\d+(\.\d)? m?s\b/g, 'T');
    const among = both.slice(
      both.indexOf('\n', both.indexOf('\nSolid Relay: ') + 1) + 1,
      both.lastIndexOf('\nSummary: '),
    );
    const own = alone.slice(alone.indexOf('\n') + 1, alone.lastIndexOf('\nSummary: '));
    assert.ok(own.includes('Generation (compatible chat)'), own);
    assert.equal(timeless(among), timeless(own));
  },
);

test(
  "diagnoseGateways (core): rows in the gateways' order, at most `concurrency` at once, an unreachable one fails alone",
  T,
  async () => {
    const dead = `http://127.0.0.1:${await deadPort()}`;
    const profiles = [
      { id: 'cheap', name: 'Cheap Relay', baseUrl: a.url, models: { chat: 'gpt-4o-mini' } },
      { id: 'gone', name: 'Gone Relay', baseUrl: dead },
      { id: 'solid', name: 'Solid Relay', baseUrl: b.url, models: { chat: 'gpt-4o-mini' } },
    ];
    let running = 0;
    let most = 0;
    const d = await diagnoseGateways({
      gateways: profiles,
      token: (id) => (id === 'solid' ? TOKEN_B : id === 'cheap' ? TOKEN_A() : 'sk-Gone0000000000000000000000000000'),
      concurrency: 2,
      onGatewayStart: () => {
        running++;
        most = Math.max(most, running);
        throw new Error('a broken listener does not break the diagnosis');
      },
      onGatewayDone: () => void running--,
    });
    assert.equal(most, 2);
    assert.deepEqual(
      d.rows.map((r) => [r.gateway.id, r.reachability.status, r.token.status, r.ok]),
      [
        ['cheap', 'ok', 'ok', true],
        ['gone', 'fail', 'skipped', false],
        ['solid', 'ok', 'ok', true],
      ],
    );
    assert.equal(d.ok, false);
    const text = renderTable(d, { width: 200, secrets: [TOKEN_A(), TOKEN_B] });
    assert.match(text, /^Gone Relay +FAIL unreachable/m);
    assert.ok(!text.includes(TOKEN_A()) && !text.includes(TOKEN_B));
  },
);
