/**
 * The .gitignore offer for generated media (src/host/media/gitignore.ts), on real temp folders: only
 * a git repository (a .git folder or file) that does not ignore `.model-relay/` yet is offered the
 * line; the append creates the file, keeps one trailing newline and never adds the line twice.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  addToGitignore,
  gitignoreCovers,
  isUnderMediaRoot,
  shouldOfferGitignore,
} from '../../src/host/media/gitignore';

function workspace(
  t: { after: (fn: () => void) => void },
  opts: { git?: 'dir' | 'file'; gitignore?: string } = {},
): string {
  const root = mkdtempSync(join(tmpdir(), 'relay-gitignore-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  if (opts.git === 'dir') mkdirSync(join(root, '.git'));
  if (opts.git === 'file') writeFileSync(join(root, '.git'), 'gitdir: ../main/.git/worktrees/x\n');
  if (opts.gitignore !== undefined) writeFileSync(join(root, '.gitignore'), opts.gitignore);
  return root;
}

const gitignore = (root: string) => readFileSync(join(root, '.gitignore'), 'utf8');

test('patterns that ignore the folder count as ignored; others, comments and a later negation do not', () => {
  for (const p of [
    '.model-relay',
    '.model-relay/',
    '/.model-relay',
    '/.model-relay/',
    '.model-relay/*',
    '/.model-relay/*',
    '.model-relay/**',
    '**/.model-relay',
    '  .model-relay/  ',
  ]) {
    assert.equal(gitignoreCovers(`node_modules/\n${p}\n`), true, p);
  }
  for (const p of [
    '',
    '# .model-relay/',
    '.model-relay-old/',
    'model-relay/',
    '.model-relay/images/',
    'src/.model-relay/',
  ]) {
    assert.equal(gitignoreCovers(`dist\n${p}\n`), false, JSON.stringify(p));
  }
  assert.equal(gitignoreCovers('.model-relay/\n!.model-relay/\n'), false, 'negated after');
  assert.equal(gitignoreCovers('!.model-relay/\n.model-relay/\r\n'), true, 'ignored again after the negation (CRLF)');
});

test('only a git repository that does not ignore the folder yet is offered the line', async (t) => {
  assert.equal(await shouldOfferGitignore(workspace(t)), false, 'not a repository');
  assert.equal(await shouldOfferGitignore(workspace(t, { git: 'dir' })), true, 'repository without .gitignore');
  assert.equal(await shouldOfferGitignore(workspace(t, { git: 'file' })), true, 'a worktree (.git file)');
  assert.equal(await shouldOfferGitignore(workspace(t, { git: 'dir', gitignore: 'node_modules\n' })), true);
  for (const p of ['.model-relay', '/.model-relay/', '.model-relay/*']) {
    assert.equal(await shouldOfferGitignore(workspace(t, { git: 'dir', gitignore: `node_modules\n${p}\n` })), false, p);
  }
});

test('adding the line: creates .gitignore, keeps one trailing newline, never duplicates', async (t) => {
  const fresh = workspace(t, { git: 'dir' });
  assert.equal(await addToGitignore(fresh), true);
  assert.equal(gitignore(fresh), '.model-relay/\n');
  assert.equal(await addToGitignore(fresh), false, 'second time: already there');
  assert.equal(gitignore(fresh), '.model-relay/\n');

  const noNewline = workspace(t, { git: 'dir', gitignore: 'node_modules\ndist' });
  assert.equal(await addToGitignore(noNewline), true);
  assert.equal(gitignore(noNewline), 'node_modules\ndist\n.model-relay/\n');

  const withNewline = workspace(t, { git: 'dir', gitignore: 'node_modules\n' });
  await addToGitignore(withNewline);
  assert.equal(gitignore(withNewline), 'node_modules\n.model-relay/\n');

  const crlf = workspace(t, { git: 'dir', gitignore: 'node_modules\r\nout' });
  await addToGitignore(crlf);
  assert.equal(gitignore(crlf), 'node_modules\r\nout\r\n.model-relay/\r\n');

  const covered = workspace(t, { git: 'dir', gitignore: '/.model-relay/\n' });
  assert.equal(await addToGitignore(covered), false);
  assert.equal(gitignore(covered), '/.model-relay/\n');
});

test('only folders under .model-relay/ in the workspace count as media folders', () => {
  const root = join(tmpdir(), 'ws');
  assert.equal(isUnderMediaRoot(root, join(root, '.model-relay', 'images')), true);
  assert.equal(isUnderMediaRoot(root, join(root, '.model-relay')), true);
  assert.equal(isUnderMediaRoot(root, join(root, 'media', 'images')), false);
  assert.equal(isUnderMediaRoot(root, join(root, '.model-relay-old')), false);
  assert.equal(isUnderMediaRoot(root, join(tmpdir(), 'other', '.model-relay')), false);
});

test('a .gitignore over 1 MB is never read whole nor appended to, and no offer is made', async (t) => {
  const huge = `${'# padding line\n'.repeat(80_000)}node_modules\n`;
  const root = workspace(t, { git: 'dir', gitignore: huge });
  assert.equal(await shouldOfferGitignore(root), false);
  assert.equal(await addToGitignore(root), false);
  assert.equal(gitignore(root), huge);
});
