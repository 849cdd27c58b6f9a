/**
 * applyEdits writes only what is still safe: each refusal reason (parse error, changed on disk,
 * read-only by its mode bits — also when running as root —, a symlink out of the home folder, a token
 * in the new text) leaves the file untouched and names it; a write is atomic and keeps the mode;
 * the text it replaces is kept outside the file's folder — the first for good, later ones dated and
 * bounded — and a Remove puts the original back.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, lstatSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import { addsSecret, applyEdits, MAX_DATED_BACKUPS } from '../../src/gateway/tools';
import { withOriginalsRestored } from '../../src/gateway/tools/toolBackups';
import { sha256 } from '../../src/gateway/tools/toolFile';
import type { FileEdit } from '../../src/gateway/tools/types';
import { sandbox, TOKEN } from './toolsFixture';

function edit(path: string, before: string | undefined, after: string): FileEdit {
  return { path, before, after, beforeHash: before === undefined ? undefined : sha256(before), summary: 'test' };
}

test('apply: writes atomically, keeps the mode; the first backup stays, later ones dated, outside the folder', async () => {
  const s = sandbox();
  try {
    const opts = { homeDir: s.home, backupDir: s.env.backupDir, secrets: [TOKEN] };
    const path = s.put(join(s.home, '.config/x.json'), '{"a": 1}\n');
    chmodSync(path, 0o640);
    const [o] = await applyEdits([edit(path, '{"a": 1}\n', '{"a": 2}\n')], opts);
    assert.ok(o.written && o.backup?.startsWith(s.env.backupDir + sep), JSON.stringify(o));
    assert.equal(s.get(path), '{"a": 2}\n');
    assert.equal(statSync(path).mode & 0o777, 0o640);
    const [o2] = await applyEdits([edit(path, '{"a": 2}\n', '{"a": 3}\n')], opts);
    assert.ok(o2.written && o2.backup && o2.backup !== (o.written && o.backup));
    assert.equal(s.get(o.written ? o.backup! : ''), '{"a": 1}\n', 'the first backup still holds the original');
    assert.equal(s.get(o2.backup!), '{"a": 2}\n', 'a later write is kept dated');
    assert.equal(statSync(o2.backup!).mode & 0o777, 0o600);
    assert.deepEqual(readdirSync(join(s.home, '.config')), ['x.json'], 'no backup and no temp file beside the file');
    const created = join(s.home, 'new/dir/c.toml');
    const [o3] = await applyEdits([edit(created, undefined, 'a = 1\n')], opts);
    assert.deepEqual(o3, { path: created, written: true });
    assert.equal(statSync(created).mode & 0o777, 0o600);
  } finally {
    s.done();
  }
});

test('apply: a fix of a project file leaves no backup inside the repository', async () => {
  const s = sandbox();
  try {
    const path = s.put(join(s.ws, '.claude/settings.json'), '{"env": {"ANTHROPIC_BASE_URL": "https://x"}}\n');
    const [o] = await applyEdits([edit(path, s.get(path), '{"env": {}}\n')], {
      homeDir: s.home,
      backupDir: s.env.backupDir,
      secrets: [],
    });
    assert.equal(o.written, true);
    assert.deepEqual(readdirSync(join(s.ws, '.claude')), ['settings.json']);
  } finally {
    s.done();
  }
});

test('apply: the dated backups of a file are bounded; the first is never dropped', async () => {
  const s = sandbox();
  try {
    const opts = { homeDir: s.home, backupDir: s.env.backupDir, secrets: [] };
    const path = s.put(join(s.home, 'a.json'), '{"n": 0}\n');
    for (let n = 1; n <= MAX_DATED_BACKUPS + 4; n++)
      await applyEdits([edit(path, `{"n": ${n - 1}}\n`, `{"n": ${n}}\n`)], opts);
    const kept = readdirSync(s.env.backupDir).filter((f) => f !== 'manifest.json');
    assert.equal(kept.length, 1 + MAX_DATED_BACKUPS);
    const texts = kept.map((f) => s.get(join(s.env.backupDir, f)));
    assert.ok(texts.includes('{"n": 0}\n'), 'the original is kept');
    assert.ok(!texts.includes('{"n": 1}\n'), 'the oldest dated one went');
  } finally {
    s.done();
  }
});

test('apply → remove: the original comes back exactly after two writes; a damaged manifest loses only that, never the first backup', async () => {
  const s = sandbox();
  try {
    const opts = { homeDir: s.home, backupDir: s.env.backupDir, secrets: [] };
    const original = '{ "mine": 1 , // odd spacing\n}\n';
    const path = s.put(join(s.home, 'a.jsonc'), original);
    const write = (before: string, after: string, ours: { before: boolean; after: boolean }) =>
      applyEdits([{ ...edit(path, before, after), ours }], opts);
    await write(original, '{"mine": 1, "ours": 1}\n', { before: false, after: true });
    await write('{"mine": 1, "ours": 1}\n', '{"mine": 1, "ours": 2}\n', { before: true, after: true });
    const remove = { ...edit(path, '{"mine": 1, "ours": 2}\n', '{"mine": 1}\n'), ours: { before: true, after: false } };
    const plan = { tool: 'opencode' as const, action: 'remove' as const, edits: [remove], terminalEnv: {}, notes: [] };
    const restored = await withOriginalsRestored(plan, s.env.backupDir);
    assert.equal(restored.edits[0].after, original, 'the original, not the text before the last write');
    writeFileSync(join(s.env.backupDir, 'manifest.json'), '{"files": [{"path": 1}, "x"]');
    const damaged = await withOriginalsRestored(plan, s.env.backupDir);
    assert.equal(damaged.edits[0].after, '{"mine": 1}\n', 'without a record, only our part is taken out');
    const first = readdirSync(s.env.backupDir).find((f) => f.endsWith('.first'))!;
    await write('{"mine": 1, "ours": 2}\n', '{"mine": 1, "ours": 3}\n', { before: true, after: true });
    assert.equal(s.get(join(s.env.backupDir, first)), original, 'the first backup is never replaced');
  } finally {
    s.done();
  }
});

test('apply refuses a token in the new text (also without its sk- prefix), names it, writes nothing', async () => {
  const s = sandbox();
  try {
    const path = s.put(join(s.home, 'a.json'), '{}\n');
    for (const leak of [TOKEN, TOKEN.slice(3)]) {
      const [o] = await applyEdits([edit(path, '{}\n', `{"key": "${leak}"}\n`)], {
        homeDir: s.home,
        backupDir: s.env.backupDir,
        secrets: [TOKEN],
      });
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
    const [o] = await applyEdits([e], { homeDir: s.home, backupDir: s.env.backupDir, secrets: [] });
    assert.equal(!o.written && o.reason, 'changed-on-disk');
    assert.equal(s.get(path), '{"a": 1, "b": 2}\n');
    const fresh = join(s.home, 'b.json');
    const e2 = edit(fresh, undefined, '{}\n');
    s.put(fresh, '{"mine": true}\n');
    const [o2] = await applyEdits([e2], { homeDir: s.home, backupDir: s.env.backupDir, secrets: [] });
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
    const [o] = await applyEdits([edit(path, '{"a": \n', '{"a": 1}\n')], {
      homeDir: s.home,
      backupDir: s.env.backupDir,
      secrets: [],
    });
    assert.equal(!o.written && o.reason, 'parse-error');
    assert.match(!o.written ? o.message : '', /a\.json/);
    const toml = s.put(join(s.home, 'c.toml'), 'a = 1\n');
    const [o2] = await applyEdits([edit(toml, 'a = 1\n', 'a = = 2\n')], {
      homeDir: s.home,
      backupDir: s.env.backupDir,
      secrets: [],
    });
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
    const [o] = await applyEdits([edit(path, '{}\n', '{"a": 1}\n')], {
      homeDir: s.home,
      backupDir: s.env.backupDir,
      secrets: [],
    });
    assert.equal(!o.written && o.reason, 'read-only');
    assert.equal(s.get(path), '{}\n');
    const dir = join(s.home, 'rodir');
    s.put(join(dir, 'keep'), '');
    chmodSync(dir, 0o555);
    const [o2] = await applyEdits([edit(join(dir, 'n.json'), undefined, '{}\n')], {
      homeDir: s.home,
      backupDir: s.env.backupDir,
      secrets: [],
    });
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
    const [o] = await applyEdits([edit(link, '{}\n', '{"a": 1}\n')], {
      homeDir: s.home,
      backupDir: s.env.backupDir,
      secrets: [],
    });
    assert.equal(!o.written && o.reason, 'symlink-outside-home');
    assert.equal(s.get(outside), '{}\n');
    const target = s.put(join(s.home, 'dotfiles/settings.json'), '{}\n');
    const inner = join(s.home, '.claude/inner.json');
    symlinkSync(target, inner);
    const [o2] = await applyEdits([edit(inner, '{}\n', '{"a": 1}\n')], {
      homeDir: s.home,
      backupDir: s.env.backupDir,
      secrets: [],
    });
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
    const [o] = await applyEdits([edit(path, 'a = 1\n', 'a = 2\n')], {
      homeDir: s.home,
      backupDir: s.env.backupDir,
      secrets: [],
    });
    assert.equal(!o.written && o.reason, 'symlink-outside-home');
    const [o2] = await applyEdits([edit(join(s.home, '.codex/new.toml'), undefined, 'a = 2\n')], {
      homeDir: s.home,
      backupDir: s.env.backupDir,
      secrets: [],
    });
    assert.equal(!o2.written && o2.reason, 'symlink-outside-home');
    assert.equal(s.get('outside/codex/config.toml'), 'a = 1\n');
  } finally {
    s.done();
  }
});
