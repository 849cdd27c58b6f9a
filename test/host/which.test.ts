/** whichOnPath: the first executable of that name on the PATH; a plain file or a directory is not one. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { whichOnPath } from '../../src/host/tools/which';

test('the first executable on the PATH; not a non-executable file, a folder, or a name with a slash', async (t) => {
  if (process.platform === 'win32') return t.skip('POSIX permissions');
  const root = mkdtempSync(join(tmpdir(), 'which-'));
  try {
    const [a, b, c] = ['a', 'b', 'c'].map((d) => join(root, d));
    for (const d of [a, b, c]) mkdirSync(d);
    writeFileSync(join(a, 'claude'), 'x'); // not executable
    mkdirSync(join(b, 'codex'));
    writeFileSync(join(b, 'claude'), '#!/bin/sh\n');
    chmodSync(join(b, 'claude'), 0o755);
    writeFileSync(join(c, 'claude'), '#!/bin/sh\n');
    chmodSync(join(c, 'claude'), 0o755);
    const path = [a, b, c].join(delimiter);
    assert.equal(await whichOnPath('claude', path), join(b, 'claude'));
    assert.equal(await whichOnPath('codex', path), undefined);
    assert.equal(await whichOnPath('../b/claude', path), undefined);
    assert.equal(await whichOnPath('claude', undefined), undefined);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
