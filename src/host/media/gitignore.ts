/**
 * Generated media live under `.model-relay/` in the workspace: whether a workspace is a git
 * repository whose .gitignore does not ignore that folder yet (so the extension may offer, once, to
 * add it), and the append itself. Plain Node, no `vscode`.
 */
import { existsSync } from 'node:fs';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join, relative, isAbsolute, sep } from 'node:path';

/** The folder generated media go under, relative to the workspace root. */
export const MEDIA_ROOT = '.model-relay';
/** The line added to .gitignore. */
export const GITIGNORE_LINE = `${MEDIA_ROOT}/`;

/** A `.git` folder or file (a worktree or submodule) at the workspace root. */
export function isGitRepository(root: string): boolean {
  return existsSync(join(root, '.git'));
}

/** Whether `dir` is `.model-relay` or inside it, under `root`. */
export function isUnderMediaRoot(root: string, dir: string): boolean {
  const rel = relative(root, dir);
  return !isAbsolute(rel) && (rel === MEDIA_ROOT || rel.startsWith(`${MEDIA_ROOT}${sep}`));
}

// Lines that ignore the folder: .model-relay, /.model-relay/, .model-relay/*, .model-relay/**, **/.model-relay…
const IGNORES = /^(\*\*\/|\/)?\.model-relay(\/|\/\*|\/\*\*)?$/;

/** Whether a .gitignore text ignores `.model-relay/` (the last matching line wins, as in git). */
export function gitignoreCovers(text: string): boolean {
  let covered = false;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    if (line.startsWith('!')) {
      if (IGNORES.test(line.slice(1))) covered = false;
    } else if (IGNORES.test(line)) covered = true;
  }
  return covered;
}

/** A .gitignore larger than this is left alone (never read whole, never appended to). */
const MAX_GITIGNORE_BYTES = 1024 * 1024;

/** The root .gitignore's text ('' when there is none), or undefined when it is too large or unreadable. */
async function readGitignore(root: string): Promise<string | undefined> {
  const file = join(root, '.gitignore');
  try {
    if ((await stat(file)).size > MAX_GITIGNORE_BYTES) return undefined;
    return await readFile(file, 'utf8');
  } catch (e) {
    return (e as { code?: string }).code === 'ENOENT' ? '' : undefined;
  }
}

/** A git repository whose .gitignore (if any) does not ignore `.model-relay/` yet. */
export async function shouldOfferGitignore(root: string): Promise<boolean> {
  if (!isGitRepository(root)) return false;
  const text = await readGitignore(root);
  return text !== undefined && !gitignoreCovers(text);
}

/**
 * Appends `.model-relay/` to the root .gitignore (created when missing), keeping one trailing
 * newline; false when it was already ignored, or the file is too large or unreadable (nothing written).
 */
export async function addToGitignore(root: string): Promise<boolean> {
  const text = await readGitignore(root);
  if (text === undefined || gitignoreCovers(text)) return false;
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const lead = text === '' || text.endsWith('\n') ? '' : eol;
  await writeFile(join(root, '.gitignore'), `${text}${lead}${GITIGNORE_LINE}${eol}`);
  return true;
}
