/**
 * Reading another tool's file (issue 36 §1). A repository brings some of these files with it
 * (`.claude/settings.json`, `opencode.json`, `.gemini/.env`, …), so two rules hold for every read:
 *
 * - A project file — in the workspace folder, or in a folder above it below the home folder or one
 *   of that folder's own folders (Gemini CLI looks for `.env` and `.gemini/.env` up there) — is read
 *   only in a trusted workspace. In an untrusted one it is only looked at (`lstat`: it is never
 *   opened) and named as not read.
 * - Every read is bounded in type and size: only a regular file (a symlink is followed only to one),
 *   refused at once when it is a folder, a FIFO, a device such as /dev/zero or a socket, and never
 *   more than MAX_TOOL_FILE_BYTES + 1 bytes read, through a file handle opened without waiting (a FIFO
 *   swapped in after the check cannot hang the open) and checked again once open.
 *
 * `readBoundedFile` is the one reader; `readToolFile` puts the trust rule in front of it. Writes are
 * `writeAtomic` (temp file + rename), to the path `realTarget` finds through symlinks.
 */
import { createHash, randomBytes } from 'node:crypto';
import { constants, type Stats } from 'node:fs';
import { chmod, lstat, mkdir, open, readlink, realpath, rename, stat, unlink, type FileHandle } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { t } from '../l10n';

/** A settings file larger than this is not a settings file we should read. */
export const MAX_TOOL_FILE_BYTES = 1024 * 1024;

/**
 * Opened without waiting (O_NONBLOCK: a FIFO swapped in after the check does not block the open) and
 * without becoming the process's terminal (O_NOCTTY: a tty swapped in); Windows has neither flag, nor FIFOs.
 */
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);

export interface ToolFileText {
  path: string;
  /** undefined: the file does not exist, or was not read (`error` says why) */
  text: string | undefined;
  hash?: string;
  mtimeMs?: number;
  /** why the file was not read, a whole sentence naming it */
  error?: string;
  /** it was not read because it is a project file in an untrusted workspace */
  untrusted?: true;
}

/** Where the files are: the home folder and the workspace folder, and whether the workspace is trusted. */
export interface FilePlaces {
  homeDir?: string | undefined;
  workspaceDir?: string | undefined;
  /** VS Code's `workspace.isTrusted`, relay-doctor's `--trust-project`; absent: not trusted */
  workspaceTrusted?: boolean | undefined;
}

export function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

function inside(child: string, parent: string): boolean {
  const rel = relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/**
 * A project file's path as the user sees it from the workspace folder ("./.claude/settings.json",
 * "../.env", "../.gemini/.env"); undefined for any other file. A workspace folder that holds the home
 * folder (the home folder itself opened, or /) is not a repository: files there are the user's own.
 */
export function projectPath(places: FilePlaces, path: string): string | undefined {
  if (!places.workspaceDir) return undefined;
  const ws = resolve(places.workspaceDir);
  const home = resolve(places.homeDir ?? homedir());
  if (inside(home, ws)) return undefined;
  const file = resolve(path);
  const rel = relative(ws, file);
  if (inside(file, ws)) return `.${sep}${rel}`;
  // a file in a folder above the workspace folder (below the home folder), or in a folder of one
  // (`../.gemini/.env`): Gemini CLI looks there for .env files, and the repository may begin up there
  const dir = dirname(file);
  const above = (d: string) => d !== file && inside(ws, d) && !inside(home, d);
  return above(dir) || above(dirname(dir)) ? rel : undefined;
}

function code(e: unknown): string {
  return (e as { code?: string }).code ?? (e as Error).message;
}

/** What a file that is not a regular file is, for a sentence. */
function kindOf(st: Stats): string {
  if (st.isDirectory()) return t('a folder');
  if (st.isFIFO()) return t('a named pipe (FIFO)');
  if (st.isCharacterDevice() || st.isBlockDevice()) return t('a device');
  if (st.isSocket()) return t('a socket');
  return t('neither a file nor a folder');
}

function notRegular(path: string, st: Stats, link?: string): ToolFileText {
  return {
    path,
    text: undefined,
    error:
      link === undefined
        ? t('{0} is {1}, not a regular file, so it was not read.', path, kindOf(st))
        : t('{0} is a link to {1}, which is {2}, not a regular file, so it was not read.', path, link, kindOf(st)),
  };
}

const tooLarge = (path: string): ToolFileText => ({
  path,
  text: undefined,
  error: t('{0} is larger than 1 MiB, so it was not read.', path),
});

const CHUNK = 64 * 1024;

/**
 * At most `limit` + 1 bytes from an open file, a chunk at a time (a settings file is small): more than
 * `limit` means too large, whatever its size said (a /proc file says 0).
 */
async function readAtMost(fh: FileHandle, limit: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let n = 0;
  while (n <= limit) {
    const buf = Buffer.allocUnsafe(Math.min(CHUNK, limit + 1 - n));
    const { bytesRead } = await fh.read(buf, 0, buf.length, null);
    if (bytesRead === 0) break;
    chunks.push(buf.subarray(0, bytesRead));
    n += bytesRead;
  }
  return n > limit ? undefined : Buffer.concat(chunks, n);
}

/**
 * The one bounded reader of the tools' files: absent → text undefined; not a regular file (also
 * through a symlink), larger than MAX_TOOL_FILE_BYTES or unreadable → `error`, said at once.
 * (`limit` is lowered only by a test of the byte cap.)
 */
export async function readBoundedFile(path: string, limit = MAX_TOOL_FILE_BYTES): Promise<ToolFileText> {
  let fh: FileHandle | undefined;
  try {
    let st = await lstat(path);
    let link: string | undefined;
    if (st.isSymbolicLink()) {
      link = await readlink(path);
      st = await stat(path);
    }
    if (!st.isFile()) return notRegular(path, st, link);
    if (st.size > limit) return tooLarge(path);
    fh = await open(path, OPEN_FLAGS);
    // what was opened is what is read: the file may have been swapped since the check
    const opened = await fh.stat();
    if (!opened.isFile()) return notRegular(path, opened, link);
    if (opened.size > limit) return tooLarge(path);
    const bytes = await readAtMost(fh, limit);
    if (!bytes) return tooLarge(path);
    const text = bytes.toString('utf8');
    return { path, text, hash: sha256(text), mtimeMs: opened.mtimeMs };
  } catch (e) {
    // absent, or a link to nothing: the tool finds no file either
    if (code(e) === 'ENOENT' || code(e) === 'ENOTDIR') return { path, text: undefined };
    return { path, text: undefined, error: t('{0} could not be read ({1}).', path, code(e)) };
  } finally {
    await fh?.close().catch(() => undefined);
  }
}

/**
 * A tool's file as the tools module reads it: a project file only in a trusted workspace (in an
 * untrusted one it is looked at, never opened, and named as not read), every file through the
 * bounded reader.
 */
export async function readToolFile(places: FilePlaces, path: string): Promise<ToolFileText> {
  if (places.workspaceTrusted || projectPath(places, path) === undefined) return readBoundedFile(path);
  try {
    await lstat(path);
  } catch {
    return { path, text: undefined };
  }
  return {
    path,
    text: undefined,
    untrusted: true,
    error: t(
      '{0}: not read (untrusted workspace). A project file is read only in a trusted workspace (relay-doctor: --trust-project).',
      path,
    ),
  };
}

/** The real path of a file, or of the nearest existing folder above it joined with the rest. */
export async function realTarget(path: string): Promise<string> {
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

/** Writes `text` to `target` atomically (a temp file beside it, synced, then renamed), with `mode`. */
export async function writeAtomic(target: string, text: string, mode: number): Promise<void> {
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
