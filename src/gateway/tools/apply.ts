/**
 * Writes a plan's file edits, each only when it is still safe: the file must be what the diff was
 * made from (same content), parse before and after, be writable by its mode bits (checked, not left
 * to EACCES: root ignores them), not be reached through a symlink that leads out of the home folder,
 * and the new text must not carry a token. Writes are atomic (temp file + rename, the mode kept) and
 * the previous text is kept as `<file>.model-relay.bak` (one per file, replaced each time).
 */
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, open, realpath, rename, stat, unlink } from 'node:fs/promises';
import { basename, dirname, extname, join, relative, resolve, isAbsolute } from 'node:path';
import { t } from '../l10n';
import { parseJsonc } from './configFile';
import { readBoundedFile, sha256 } from './toolFile';
import { parseToml } from './tomlText';
import type { EditOutcome, FileEdit } from './types';

export const BACKUP_SUFFIX = '.model-relay.bak';

export interface ApplyOptions {
  /** the home folder: a file reached through a symlink that leads out of it is not written */
  homeDir: string;
  /** values that must never land in a file (the gateway's token); checked against each edit's new text */
  secrets: readonly (string | undefined)[];
}

type Refusal = Extract<EditOutcome, { written: false }>;

function refuse(path: string, reason: Refusal['reason'], message: string): Refusal {
  return { path, written: false, reason, message };
}

function count(text: string, needle: string): number {
  return needle ? text.split(needle).length - 1 : 0;
}

/** Whether the new text carries a secret the old one did not (also the bare key without its sk- prefix). */
export function addsSecret(
  before: string | undefined,
  after: string,
  secrets: readonly (string | undefined)[],
): boolean {
  for (const raw of secrets) {
    const s = raw?.trim();
    if (!s || s.length < 8) continue;
    const forms = /^sk-/i.test(s) && s.length >= 11 ? [s, s.slice(3)] : [s];
    if (forms.some((f) => count(after, f) > count(before ?? '', f))) return true;
  }
  return false;
}

/** The parse error of a config text, by its file type (undefined when it parses). */
export function configParseError(path: string, text: string): string | undefined {
  const ext = extname(path).toLowerCase();
  if (ext === '.toml') return parseToml(text).error;
  if (ext === '.json' || ext === '.jsonc') return parseJsonc(text).error;
  return undefined;
}

function inside(child: string, parent: string): boolean {
  const rel = relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/** The real path of a file, or of the nearest existing folder above it joined with the rest. */
async function realTarget(path: string): Promise<string> {
  let dir = resolve(path);
  const rest: string[] = [];
  for (;;) {
    try {
      return join(await realpath(dir), ...rest.reverse());
    } catch {
      const up = dirname(dir);
      if (up === dir) return resolve(path);
      rest.push(basename(dir));
      dir = up;
    }
  }
}

/** Refuses when a file (or the folder a new file goes into) is read-only by its mode bits. */
async function readOnly(target: string, exists: boolean): Promise<boolean> {
  if (exists) return ((await stat(target)).mode & 0o222) === 0;
  let dir = dirname(target);
  for (;;) {
    try {
      return ((await stat(dir)).mode & 0o222) === 0;
    } catch {
      const up = dirname(dir);
      if (up === dir) return false;
      dir = up;
    }
  }
}

async function writeAtomic(target: string, text: string, mode: number): Promise<void> {
  await mkdir(dirname(target), { recursive: true });
  const tmp = join(dirname(target), `.${basename(target)}.${randomBytes(6).toString('hex')}.tmp`);
  const fh = await open(tmp, 'wx', mode);
  try {
    await fh.writeFile(text, 'utf8');
    await fh.sync();
  } finally {
    await fh.close();
  }
  try {
    await chmod(tmp, mode);
    await rename(tmp, target);
  } catch (e) {
    await unlink(tmp).catch(() => undefined);
    throw e;
  }
}

/** The checks before one write; a refusal, or the real path to write and the file's mode. */
async function check(
  edit: FileEdit,
  opts: ApplyOptions,
): Promise<Refusal | { target: string; mode: number; current: string | undefined }> {
  const { path } = edit;
  if (addsSecret(edit.before, edit.after, opts.secrets))
    return refuse(
      path,
      'contains-token',
      t('{0} was not written: the new text would contain the token, which is never written to a file.', path),
    );
  const target = await realTarget(path);
  const home = await realTarget(opts.homeDir);
  if (inside(resolve(path), resolve(opts.homeDir)) && !inside(target, home))
    return refuse(
      path,
      'symlink-outside-home',
      t('{0} is a link to {1}, outside the home folder, so it was not changed.', path, target),
    );
  // read again by the bounded reader: the file may have become a FIFO or grown since the diff
  const now = await readBoundedFile(target);
  if (now.error) return refuse(path, 'io-error', now.error);
  const current = now.text;
  const same =
    edit.before === undefined
      ? current === undefined
      : current !== undefined && (edit.beforeHash ? sha256(current) === edit.beforeHash : current === edit.before);
  if (!same)
    return refuse(
      path,
      'changed-on-disk',
      t('{0} changed on disk after the diff was made, so it was left untouched; review the new diff.', path),
    );
  if (current !== undefined) {
    const err = configParseError(path, current);
    if (err !== undefined)
      return refuse(path, 'parse-error', t('{0} does not parse ({1}), so it was left untouched.', path, err));
  }
  if (!edit.deleteFile) {
    const err = configParseError(path, edit.after);
    if (err !== undefined)
      return refuse(
        path,
        'parse-error',
        t('The new text of {0} would not parse ({1}), so it was not written.', path, err),
      );
  }
  if (await readOnly(target, current !== undefined))
    return refuse(
      path,
      'read-only',
      t('{0} is read-only, so it was not changed; make it writable, or make the change yourself.', path),
    );
  const mode = current !== undefined ? (await stat(target)).mode & 0o7777 : 0o600;
  return { target, mode, current };
}

async function applyOne(edit: FileEdit, opts: ApplyOptions): Promise<EditOutcome> {
  const { path } = edit;
  try {
    const c = await check(edit, opts);
    if ('written' in c) return c;
    let backup: string | undefined;
    if (c.current !== undefined) {
      backup = `${c.target}${BACKUP_SUFFIX}`;
      await writeAtomic(backup, c.current, c.mode & 0o666);
    }
    if (edit.deleteFile) await unlink(c.target);
    else await writeAtomic(c.target, edit.after, c.mode);
    return backup ? { path, written: true, backup } : { path, written: true };
  } catch (e) {
    const code = (e as { code?: string }).code;
    if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS')
      return refuse(
        path,
        'read-only',
        t('{0} is read-only, so it was not changed; make it writable, or make the change yourself.', path),
      );
    return refuse(path, 'io-error', t('{0} could not be written ({1}).', path, code ?? (e as Error).message));
  }
}

/** Writes each edit that is still safe to write; one outcome per edit, in order. Never throws. */
export async function applyEdits(edits: readonly FileEdit[], opts: ApplyOptions): Promise<EditOutcome[]> {
  const out: EditOutcome[] = [];
  for (const e of edits) out.push(await applyOne(e, opts));
  return out;
}
