/**
 * whichOnPath (src/gateway/tools/which.ts), the one PATH search of relay-doctor, the tools module
 * and the extension: the first executable file of that name; not a plain file, a folder, a name
 * with a slash or an empty PATH entry; on Windows the PATHEXT endings in their order and never npm's
 * extensionless shim, nor a file found only in the current folder; nodeToolsEnvironment uses it.
 * The `--version` runner: Windows' .cmd shims through cmd.exe with the path quoted, output bounded.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nodeToolsEnvironment, whichOnPath } from '../../src/gateway/tools';
import { toolVersion, versionCommand } from '../../src/gateway/tools/toolsEnvironment';

function folders() {
  const root = mkdtempSync(join(tmpdir(), 'which-'));
  const put = (rel: string, text: string, mode = 0o644) => {
    const file = join(root, rel);
    mkdirSync(join(file, '..'), { recursive: true });
    writeFileSync(file, text);
    chmodSync(file, mode);
    return file;
  };
  return { root, put, done: () => rmSync(root, { recursive: true, force: true }) };
}

test('the first executable on the PATH: not a non-executable file, a folder, an empty entry or a name with a slash', async (t) => {
  if (process.platform === 'win32') return t.skip('POSIX permissions');
  const s = folders();
  try {
    s.put('a/claude', 'not executable');
    mkdirSync(join(s.root, 'b/codex'), { recursive: true }); // a folder named codex
    const b = s.put('b/claude', '#!/bin/sh\n', 0o755);
    s.put('c/claude', '#!/bin/sh\n', 0o755);
    const PATH = ['', ...['a', 'b', 'c'].map((d) => join(s.root, d))].join(':');
    assert.equal(await whichOnPath('claude', { PATH }), b);
    assert.equal(await whichOnPath('codex', { PATH }), undefined);
    assert.equal(await whichOnPath('../b/claude', { PATH }), undefined);
    assert.equal(await whichOnPath('claude', {}), undefined);
    const env = nodeToolsEnvironment({ env: { PATH }, homeDir: s.root });
    assert.equal(await env.which('claude'), b);
    assert.equal(env.homeDir, s.root);
  } finally {
    s.done();
  }
});

/**
 * whichOnPath as it runs on Windows: `which` and `isexe` decide by process.platform when loaded and
 * split PATHEXT by path.delimiter, so a child Node process is started with both set as on Windows
 * before anything loads (the paths themselves stay POSIX).
 */
function onWindows(script: string, cwd: string): unknown {
  const which = require.resolve('../../src/gateway/tools/which');
  const code = `Object.defineProperty(process, 'platform', { value: 'win32' });
require('node:path').delimiter = ';';
const { whichOnPath } = require(${JSON.stringify(which)});
(async () => { ${script} })().then((r) => process.stdout.write(JSON.stringify(r ?? null)));`;
  return JSON.parse(execFileSync(process.execPath, ['-e', code], { cwd, encoding: 'utf8' })) as unknown;
}

test("Windows: PATHEXT endings in their order, never npm's extensionless shim, not the current folder alone", (t) => {
  if (process.platform === 'win32') return t.skip('simulated on POSIX');
  const s = folders();
  try {
    s.put('npm/claude', '#!/bin/sh\n', 0o755); // npm's sh shim, beside the one Windows runs
    const cmd = s.put('npm/claude.cmd', '@echo off\n');
    s.put('win/codex.CMD', '');
    const exe = s.put('win/codex.EXE', '');
    s.put('here/opencode.cmd', '');
    const Path = [join(s.root, 'npm'), join(s.root, 'win')].join(';');
    const env = JSON.stringify({ Path, PATHEXT: '.EXE;.CMD' });
    const found = onWindows(
      `const env = ${env};
       return [await whichOnPath('claude', env), await whichOnPath('codex', env), await whichOnPath('opencode', env),
               await whichOnPath('gemini', env)];`,
      join(s.root, 'here'),
    );
    assert.deepEqual(found, [cmd, exe, null, null]);
  } finally {
    s.done();
  }
});

test('--version: a Windows .cmd through cmd.exe with the path quoted (refused when cmd.exe would read it); an executable directly', async (t) => {
  assert.deepEqual(versionCommand('C:\\Program Files\\nodejs\\codex.cmd', 'win32'), {
    file: '"C:\\Program Files\\nodejs\\codex.cmd"',
    args: ['--version'],
    shell: true,
  });
  assert.equal(versionCommand('C:\\100%\\codex.CMD', 'win32'), undefined);
  assert.equal(versionCommand('C:\\a"b\\codex.bat', 'win32'), undefined);
  assert.deepEqual(versionCommand('C:\\tools\\codex.exe', 'win32'), {
    file: 'C:\\tools\\codex.exe',
    args: ['--version'],
    shell: false,
  });
  if (process.platform === 'win32') return t.skip('POSIX scripts');
  const s = folders();
  try {
    const ok = s.put('bin/tool', '#!/bin/sh\necho "tool 1.2.3 ($1)"\necho second line\n', 0o755);
    const loud = s.put('bin/loud', '#!/bin/sh\necho "loud 9.9"\nhead -c 200000 /dev/zero | tr "\\0" x\n', 0o755);
    const bad = s.put('bin/bad', '#!/bin/sh\nexit 3\n', 0o755);
    assert.equal(await toolVersion(ok, { PATH: '/usr/bin:/bin' }), 'tool 1.2.3 (--version)');
    assert.equal(await toolVersion(loud, { PATH: '/usr/bin:/bin' }), 'loud 9.9', 'output beyond the bound is cut');
    assert.equal(await toolVersion(bad, { PATH: '/usr/bin:/bin' }), undefined);
    const env = nodeToolsEnvironment({ env: { PATH: join(s.root, 'bin') } });
    assert.equal(await env.version?.(ok), 'tool 1.2.3 (--version)', 'relay-doctor and the extension run the same one');
  } finally {
    s.done();
  }
});
