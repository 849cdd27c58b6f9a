/**
 * relay-doctor follows the locale: `node dist/cli.js …` spawned against the simulator with LANG /
 * LC_MESSAGES / LC_ALL set (POSIX precedence, an empty value skipped). zh_* prints Chinese (the
 * diagnosis table, causes and fixes, --help, quota); C / POSIX / en print the English of today; a
 * missing or corrupt bundle falls back to English. Needs `npm run build` first.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { spawnCli, type CliRun } from './spawnCli';
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startSimulator, type Simulator } from '../sim/server';

const DIST = resolve(__dirname, '../../../dist');
const CLI = join(DIST, 'cli.js');
let strict: Simulator;
let real: Simulator;
let home: string;

before(async () => {
  assert.ok(existsSync(CLI), `${CLI} is missing: run "npm run build" first`);
  strict = await startSimulator({ profile: 'strict' });
  real = await startSimulator({ profile: 'real' });
  home = await mkdtemp(join(tmpdir(), 'relay-doctor-locale-'));
});
after(async () => {
  await strict.close();
  await real.close();
  await rm(home, { recursive: true, force: true });
});

/** Spawns the CLI (async: the simulators run in this process) with only PATH, HOME, the gateway and `env`. */
function run(sim: Simulator, args: string[], env: Record<string, string>, cli = CLI): Promise<CliRun> {
  const full = {
    PATH: process.env.PATH ?? '',
    HOME: home,
    MODEL_RELAY_BASE_URL: sim.url,
    MODEL_RELAY_TOKEN: sim.tokens.production,
    ...env,
  };
  return spawnCli(cli, args, full, home, 15_000);
}

const T = { timeout: 60_000 };
const HAN = /[\u4e00-\u9fff]/;
const BAD = `sk-${'q'.repeat(48)}`;

/** Text without any whitespace: the table wraps causes at spaces (English) and between characters (Chinese). */
const squash = (s: string) => s.replace(/\s+/g, '');

function noToken(r: CliRun, ...tokens: string[]): void {
  for (const t of tokens) assert.ok(!r.stdout.includes(t) && !r.stderr.includes(t), 'no full token in the output');
}

test('diagnose with a wrong token (401) under LANG=zh_CN.UTF-8: Chinese table, cause and fix; exit 1', T, async () => {
  const r = await run(strict, ['diagnose', '--chat-model', 'gpt-4o-mini'], {
    MODEL_RELAY_TOKEN: BAD,
    LANG: 'zh_CN.UTF-8',
  });
  assert.equal(r.code, 1, r.stdout + r.stderr);
  const lines = r.stdout.split('\n');
  assert.match(lines[0], /^Model Relay 诊断：http:\/\/127\.0\.0\.1:\d+$/);
  assert.match(r.stdout, /^结果 {3}检查/m, 'the header row is Chinese');
  const row = lines.findIndex((l) => /^失败 {3}令牌 +401 /.test(l));
  assert.ok(row > 0, `the token row says FAIL in Chinese with 401:\n${r.stdout}`);
  const under = lines.slice(row + 1, row + 8).join('\n');
  assert.ok(
    squash(under).startsWith(
      squash('原因：GET /v1/models 返回 401：令牌（sk-qqq...qqqq）缺失、输错、已禁用，或请求头格式不对。'),
    ),
    under,
  );
  assert.match(under, /^ {7}解决办法：/m);
  assert.match(r.stdout, /^跳过 {3}模型可见性/m, 'checks after the refused token are skipped, in Chinese');
  assert.match(r.stdout, /令牌被拒绝（401），因此未测试此项。/);
  assert.match(r.stdout, /^汇总：\d+ 项失败，/m);
  assert.ok(!/\b(Cause|Fix|Summary|RESULT):?/.test(r.stdout), 'no English labels');
  noToken(r, BAD);
});

test(
  'LC_ALL wins over LANG (C → English, exactly the English of today), LC_MESSAGES over LANG, an empty value is skipped',
  T,
  async () => {
    const english = await run(strict, ['diagnose', '--chat-model', 'gpt-4o-mini'], {
      MODEL_RELAY_TOKEN: BAD,
      LANG: 'zh_CN.UTF-8',
      LC_ALL: 'C',
    });
    assert.equal(english.code, 1);
    assert.match(english.stdout, /^Model Relay diagnosis of /);
    assert.match(english.stdout, /^RESULT CHECK/m);
    assert.ok(
      squash(english.stdout).includes(
        squash(
          'Cause: GET /v1/models answered 401: the token (sk-qqq...qqqq) is missing, mistyped, disabled, or sent in the wrong header format.',
        ),
      ),
    );
    assert.ok(!HAN.test(english.stdout + english.stderr), 'no Chinese at all under LC_ALL=C');
    noToken(english, BAD);

    const plain = await run(strict, ['diagnose', '--chat-model', 'gpt-4o-mini'], { MODEL_RELAY_TOKEN: BAD });
    assert.equal(
      plain.stdout.replace(/\d+(\.\d)? m?s\b/g, 'T'),
      english.stdout.replace(/\d+(\.\d)? m?s\b/g, 'T'),
      'no locale and LC_ALL=C print the same',
    );

    const zhEnvs: Array<Record<string, string>> = [
      { LANG: 'en_US.UTF-8', LC_MESSAGES: 'zh_CN.UTF-8' },
      { LC_ALL: '', LANG: 'zh_CN' },
      { LANG: 'zh_TW.UTF-8' },
      { LC_ALL: 'zh-CN' },
    ];
    for (const env of zhEnvs) {
      const r = await run(strict, ['diagnose', '--chat-model', 'gpt-4o-mini', '--json'], {
        MODEL_RELAY_TOKEN: BAD,
        ...env,
      });
      assert.equal(r.code, 1, JSON.stringify(env));
      const j = JSON.parse(r.stdout) as { checks: Array<{ id: string; result: string; title: string; cause: string }> };
      const token = j.checks.find((c) => c.id === 'token')!;
      assert.equal(token.result, 'fail', 'ids and results stay machine codes');
      assert.equal(token.title, '令牌', JSON.stringify(env));
      assert.ok(HAN.test(token.cause), `${JSON.stringify(env)}: ${token.cause}`);
    }
    const posix = await run(strict, ['diagnose', '--json'], {
      MODEL_RELAY_TOKEN: BAD,
      LC_MESSAGES: 'POSIX',
      LANG: 'zh_CN.UTF-8',
    });
    assert.equal(
      (JSON.parse(posix.stdout) as { checks: Array<{ id: string; title: string }> }).checks.find(
        (c) => c.id === 'token',
      )!.title,
      'Token',
    );
  },
);

test('--help in Chinese (answered without loading the core), English under LC_ALL=C; usage errors too', T, async () => {
  const zh = await run(strict, ['--help'], { LANG: 'zh_CN.UTF-8' });
  assert.equal(zh.code, 0);
  assert.match(zh.stdout, /^relay-doctor — 在终端中诊断和使用 Model Relay 网关$/m);
  assert.match(zh.stdout, /^用法：$/m);
  assert.match(zh.stdout, /^环境变量：$/m);
  assert.match(zh.stdout, /MODEL_RELAY_TOKEN {8}令牌（sk-…）；切勿作为参数传入/);
  const sub = await run(strict, ['diagnose', '--help'], { LANG: 'zh_CN.UTF-8' });
  assert.equal(sub.stdout, zh.stdout, 'the core says the same help');

  const en = await run(strict, ['--help'], { LANG: 'zh_CN.UTF-8', LC_ALL: 'C' });
  assert.match(en.stdout, /^relay-doctor — diagnose and use a Model Relay gateway from a terminal$/m);
  assert.match(en.stdout, /^Usage:$/m);
  assert.ok(!HAN.test(en.stdout));

  const usage = await run(strict, ['frobnicate'], { LANG: 'zh_CN.UTF-8' });
  assert.equal(usage.code, 2);
  assert.match(usage.stderr, /^relay-doctor: 未知命令“frobnicate”。/);

  const probe = `
    const Module = require('node:module');
    const seen = [];
    const load = Module._load;
    Module._load = function (request, ...rest) { seen.push(request); return load.call(this, request, ...rest); };
    process.on('exit', () => process.stderr.write('LOADED ' + JSON.stringify(seen)));
    require(${JSON.stringify(CLI)}).run(['--help']).then((c) => { process.exitCode = c; });`;
  const p = spawnSync(process.execPath, ['-e', probe], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', LANG: 'zh_CN.UTF-8' },
  });
  assert.equal(p.status, 0, p.stderr);
  assert.match(p.stdout, /用法：/);
  const loaded = JSON.parse(p.stderr.slice(p.stderr.indexOf('LOADED ') + 7)) as string[];
  assert.ok(!loaded.some((m) => /cli-core|undici|zod/.test(m)), `zh --help loaded ${loaded.join(', ')}`);
});

test(
  'a refused token on models under LANG=zh_CN.UTF-8: Chinese error lines whose fix names the environment, not a VS Code command',
  T,
  async () => {
    const r = await run(strict, ['models'], { MODEL_RELAY_TOKEN: BAD, LANG: 'zh_CN.UTF-8' });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^relay-doctor: 错误（unauthorized，HTTP 401）：/);
    assert.match(r.stderr, /^ {2}原因：/m);
    assert.match(r.stderr, /^ {2}解决办法：.*MODEL_RELAY_TOKEN=<token>/m);
    assert.ok(!r.stderr.includes('Model Relay: Add Token'), r.stderr);
    assert.ok(!/。 /.test(r.stderr), 'no space after a Chinese full stop');
    noToken(r, BAD);
  },
);

test('quota under LANG=zh_CN.UTF-8: Chinese labels; --json keeps its keys', T, async () => {
  const r = await run(real, ['quota'], { LANG: 'zh_CN.UTF-8' });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^余额：\$7\.50$/m);
  assert.ok(!/^Balance:/m.test(r.stdout));
  const j = await run(real, ['quota', '--json'], { LANG: 'zh_CN.UTF-8' });
  assert.deepEqual(Object.keys(JSON.parse(j.stdout) as object).sort(), [
    'expiresAt',
    'granted',
    'remaining',
    'source',
    'unit',
    'unlimited',
    'used',
  ]);
  noToken(r, real.tokens.production);
});

test('a missing or corrupt Chinese bundle: English, silently', T, async () => {
  const root = await mkdtemp(join(tmpdir(), 'relay-doctor-nobundle-'));
  try {
    const dist = join(root, 'a', 'b', 'dist');
    await mkdir(dist, { recursive: true });
    for (const f of ['cli.js', 'cli-core.js']) await copyFile(join(DIST, f), join(dist, f));
    const cli = join(dist, 'cli.js');
    const missing = await run(strict, ['diagnose', '--json'], { MODEL_RELAY_TOKEN: BAD, LANG: 'zh_CN.UTF-8' }, cli);
    assert.equal(missing.stderr, '');
    assert.equal(
      (JSON.parse(missing.stdout) as { checks: Array<{ id: string; title: string }> }).checks.find(
        (c) => c.id === 'token',
      )!.title,
      'Token',
    );
    await mkdir(join(root, 'a', 'b', 'l10n'));
    await writeFile(join(root, 'a', 'b', 'l10n', 'bundle.l10n.zh-cn.json'), '{ not json');
    const corrupt = await run(strict, ['--help'], { LANG: 'zh_CN.UTF-8' }, cli);
    assert.equal(corrupt.code, 0);
    assert.equal(corrupt.stderr, '');
    assert.match(corrupt.stdout, /^Usage:$/m);
    const corruptCore = await run(strict, ['diagnose', '--json'], { MODEL_RELAY_TOKEN: BAD, LANG: 'zh_CN.UTF-8' }, cli);
    assert.equal(
      (JSON.parse(corruptCore.stdout) as { checks: Array<{ id: string; title: string }> }).checks.find(
        (c) => c.id === 'token',
      )!.title,
      'Token',
    );
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});
