/**
 * whichOnPath (src/gateway/tools/which.ts), the one PATH search of relay-doctor, the tools module
 * and the extension: the first executable file of that name; not a plain file, a folder, a name
 * with a slash or an empty PATH entry; Windows' PATHEXT endings; nodeToolsEnvironment uses it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nodeToolsEnvironment, whichOnPath } from '../../src/gateway/tools';

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
    assert.equal(await whichOnPath('claude', { PATH }, 'linux'), b);
    assert.equal(await whichOnPath('codex', { PATH }, 'linux'), undefined);
    assert.equal(await whichOnPath('../b/claude', { PATH }, 'linux'), undefined);
    assert.equal(await whichOnPath('claude', {}, 'linux'), undefined);
    const env = nodeToolsEnvironment({ env: { PATH }, homeDir: s.root });
    assert.equal(await env.which('claude'), b);
    assert.equal(env.homeDir, s.root);
  } finally {
    s.done();
  }
});

test('Windows: the Path variable and its PATHEXT endings', async () => {
  const s = folders();
  try {
    const w = s.put('win/codex.CMD', '');
    assert.equal(await whichOnPath('codex', { Path: join(s.root, 'win'), PATHEXT: '.EXE;.CMD' }, 'win32'), w);
    assert.equal(await whichOnPath('claude', { Path: join(s.root, 'win'), PATHEXT: '.EXE;.CMD' }, 'win32'), undefined);
  } finally {
    s.done();
  }
});
