/**
 * Writes a plan's file edits, each only when it is still safe: the file must be what the diff was
 * made from (same content), parse before and after, be writable by its mode bits (checked, not left
 * to EACCES: root ignores them), not be reached through a symlink that leads out of the home folder,
 * and the new text must not carry a token. Writes are atomic (temp file + rename, the mode kept).
 * The text a write replaces is kept first, outside the file's folder (toolBackups.ts: the first for
 * good, later ones dated, in the extension's global storage); a file whose backup cannot be kept is
 * not written.
 */
import { stat, unlink } from 'node:fs/promises';
import { dirname, extname, relative, resolve, isAbsolute } from 'node:path';
import { t } from '../l10n';
import { parseJsonc } from './configFile';
import { ToolBackups } from './toolBackups';
import { readBoundedFile, realTarget, sha256, writeAtomic } from './toolFile';
import { parseToml } from './tomlText';
import type { EditOutcome, FileEdit } from './types';

export interface ApplyOptions {
  /** the home folder: a file reached through a symlink that leads out of it is not written */
  homeDir: string;
  /** values that must never land in a file (the gateway's token); checked against each edit's new text */
  secrets: readonly (string | undefined)[];
  /**
   * where the texts writes replace are kept (toolBackups.ts), outside any repository: the
   * extension's global storage (`<globalStorageUri>/tool-backups`)
   */
  backupDir: string;
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

async function applyOne(edit: FileEdit, opts: ApplyOptions, backups: ToolBackups): Promise<EditOutcome> {
  const { path } = edit;
  try {
    const c = await check(edit, opts);
    if ('written' in c) return c;
    let kept: Awaited<ReturnType<ToolBackups['keep']>> | undefined;
    try {
      if (c.current !== undefined) kept = await backups.keep(c.target, c.current);
    } catch (e) {
      const code = (e as { code?: string }).code ?? (e as Error).message;
      return refuse(path, 'io-error', t('{0} was not changed: its backup could not be kept ({1}).', path, code));
    }
    if (edit.deleteFile) await unlink(c.target);
    else await writeAtomic(c.target, edit.after, c.mode);
    // the record of what the file was before Model Relay changed it; a record lost costs only the exact restore
    await backups
      .record(c.target, {
        current: c.current,
        kept: kept?.kept,
        after: edit.deleteFile ? undefined : edit.after,
        ours: edit.ours,
      })
      .catch(() => undefined);
    return kept ? { path, written: true, backup: kept.path } : { path, written: true };
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
  const backups = await ToolBackups.open(opts.backupDir);
  const out: EditOutcome[] = [];
  for (const e of edits) out.push(await applyOne(e, opts, backups));
  return out;
}
