/**
 * applyEdits writes only what is still safe: each refusal reason (parse error, changed on disk,
 * read-only by its mode bits — also when running as root —, a symlink out of the home folder, a token
 * in the new text) leaves the file untouched and names it; a write is atomic, keeps the mode and
 * keeps one backup.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, lstatSync, readdirSync, statSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { addsSecret, applyEdits, BACKUP_SUFFIX } from '../../src/gateway/tools';
import { sha256 } from '../../src/gateway/tools/toolFile';
import type { FileEdit } from '../../src/gateway/tools/types';
import { sandbox, TOKEN } from './toolsFixture';

function edit(path: string, before: string | undefined, after: string): FileEdit {
  return { path, before, after, beforeHash: before === undefined ? undefined : sha256(before), summary: 'test' };
}

test('apply: writes atomically, keeps the mode, keeps exactly one backup', async () => {
  const s = sandbox();
  try {
    const path = s.put(join(s.home, '.config/x.json'), '{"a": 1}\n');
    chmodSync(path, 0o640);
    const [o] = await applyEdits([edit(path, '{"a": 1}\n', '{"a": 2}\n')], { homeDir: s.home, secrets: [TOKEN] });
    assert.deepEqual(o, { path, written: true, backup: path + BACKUP_SUFFIX });
    assert.equal(s.get(path), '{"a": 2}\n');
    assert.equal(statSync(path).mode & 0o777, 0o640);
    const [o2] = await applyEdits([edit(path, '{"a": 2}\n', '{"a": 3}\n')], { homeDir: s.home, secrets: [] });
    assert.equal(o2.written, true);
    assert.equal(s.get(path + BACKUP_SUFFIX), '{"a": 2}\n', 'the backup holds the text before the last write');
    assert.deepEqual(
      readdirSync(join(s.home, '.config')).sort(),
      ['x.json', `x.json${BACKUP_SUFFIX}`],
      'no temp file left',
    );
    const created = join(s.home, 'new/dir/c.toml');
    const [o3] = await applyEdits([edit(created, undefined, 'a = 1\n')], { homeDir: s.home, secrets: [] });
    assert.deepEqual(o3, { path: created, written: true });
    assert.equal(statSync(created).mode & 0o777, 0o600);
  } finally {
    s.done();
  }
});

test('apply refuses a token in the new text (also without its sk- prefix), names it, writes nothing', async () => {
  const s = sandbox();
  try {
    const path = s.put(join(s.home, 'a.json'), '{}\n');
    for (const leak of [TOKEN, TOKEN.slice(3)]) {
      const [o] = await applyEdits([edit(path, '{}\n', `{"key": "${leak}"}\n`)], { homeDir: s.home, secrets: [TOKEN] });
      assert.equal(o.written, false);
      assert.equal(!o.written && o.reason, 'contains-token');
      assert.ok(!JSON.stringify(o).includes(TOKEN.slice(3)), 'the refusal does not carry the token');
      assert.equal(s.get(path), '{}\n');
    }
    // removing a token that was already there is allowed (it does not add one)
    assert.equal(addsSecret(`{"k":"${TOKEN}"}`, '{}', [TOKEN]), false);
    assert.equal(addsSecret(undefined, TOKEN, [TOKEN]), true);
  } finally {
    s.done();
  }
});

test('apply refuses a file that changed on disk since the diff, or appeared', async () => {
  const s = sandbox();
  try {
    const path = s.put(join(s.home, 'a.json'), '{"a": 1}\n');
    const e = edit(path, '{"a": 1}\n', '{"a": 2}\n');
    s.put(path, '{"a": 1, "b": 2}\n');
    const [o] = await applyEdits([e], { homeDir: s.home, secrets: [] });
    assert.equal(!o.written && o.reason, 'changed-on-disk');
    assert.equal(s.get(path), '{"a": 1, "b": 2}\n');
    const fresh = join(s.home, 'b.json');
    const e2 = edit(fresh, undefined, '{}\n');
    s.put(fresh, '{"mine": true}\n');
    const [o2] = await applyEdits([e2], { homeDir: s.home, secrets: [] });
    assert.equal(!o2.written && o2.reason, 'changed-on-disk');
    assert.equal(s.get(fresh), '{"mine": true}\n');
  } finally {
    s.done();
  }
});

test('apply refuses a file that does not parse (before), or a new text that would not', async () => {
  const s = sandbox();
  try {
    const path = s.put(join(s.home, 'a.json'), '{"a": \n');
    const [o] = await applyEdits([edit(path, '{"a": \n', '{"a": 1}\n')], { homeDir: s.home, secrets: [] });
    assert.equal(!o.written && o.reason, 'parse-error');
    assert.match(!o.written ? o.message : '', /a\.json/);
    const toml = s.put(join(s.home, 'c.toml'), 'a = 1\n');
    const [o2] = await applyEdits([edit(toml, 'a = 1\n', 'a = = 2\n')], { homeDir: s.home, secrets: [] });
    assert.equal(!o2.written && o2.reason, 'parse-error');
    assert.equal(s.get(toml), 'a = 1\n');
  } finally {
    s.done();
  }
});

test('apply refuses a read-only file by its mode bits (so also as root), and a read-only folder for a new file', async () => {
  const s = sandbox();
  try {
    const path = s.put(join(s.home, 'ro.json'), '{}\n');
    chmodSync(path, 0o444);
    const [o] = await applyEdits([edit(path, '{}\n', '{"a": 1}\n')], { homeDir: s.home, secrets: [] });
    assert.equal(!o.written && o.reason, 'read-only');
    assert.equal(s.get(path), '{}\n');
    const dir = join(s.home, 'rodir');
    s.put(join(dir, 'keep'), '');
    chmodSync(dir, 0o555);
    const [o2] = await applyEdits([edit(join(dir, 'n.json'), undefined, '{}\n')], { homeDir: s.home, secrets: [] });
    assert.equal(!o2.written && o2.reason, 'read-only');
    chmodSync(dir, 0o755);
    assert.equal(s.get(join(dir, 'n.json')), undefined);
  } finally {
    s.done();
  }
});

test('apply refuses a symlink that leads out of the home folder, and writes through one that stays inside', async () => {
  const s = sandbox();
  try {
    const outside = s.put('elsewhere/settings.json', '{}\n');
    const link = join(s.home, '.claude/settings.json');
    s.put(join(s.home, '.claude/x'), '');
    symlinkSync(outside, link);
    const [o] = await applyEdits([edit(link, '{}\n', '{"a": 1}\n')], { homeDir: s.home, secrets: [] });
    assert.equal(!o.written && o.reason, 'symlink-outside-home');
    assert.equal(s.get(outside), '{}\n');
    const target = s.put(join(s.home, 'dotfiles/settings.json'), '{}\n');
    const inner = join(s.home, '.claude/inner.json');
    symlinkSync(target, inner);
    const [o2] = await applyEdits([edit(inner, '{}\n', '{"a": 1}\n')], { homeDir: s.home, secrets: [] });
    assert.equal(o2.written, true);
    assert.ok(lstatSync(inner).isSymbolicLink(), 'the link stays a link');
    assert.equal(s.get(target), '{"a": 1}\n');
  } finally {
    s.done();
  }
});

test('apply refuses a file inside a folder that is a symlink out of the home folder', async () => {
  const s = sandbox();
  try {
    s.put('outside/codex/config.toml', 'a = 1\n');
    symlinkSync(join(s.root, 'outside/codex'), join(s.home, '.codex'));
    const path = join(s.home, '.codex/config.toml');
    const [o] = await applyEdits([edit(path, 'a = 1\n', 'a = 2\n')], { homeDir: s.home, secrets: [] });
    assert.equal(!o.written && o.reason, 'symlink-outside-home');
    const [o2] = await applyEdits([edit(join(s.home, '.codex/new.toml'), undefined, 'a = 2\n')], {
      homeDir: s.home,
      secrets: [],
    });
    assert.equal(!o2.written && o2.reason, 'symlink-outside-home');
    assert.equal(s.get('outside/codex/config.toml'), 'a = 1\n');
  } finally {
    s.done();
  }
});
