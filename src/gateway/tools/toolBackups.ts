/**
 * The user's own versions of the tools' files Model Relay changes (issue 37 §3), kept outside any
 * repository — in a folder of the extension's global storage (`ToolsEnvironment.backupDir`), never
 * beside the file (a fix of a project file must leave nothing inside the repository).
 *
 * For each file (by its real path): the text Model Relay's first write replaced is kept for good
 * (`<key>.first`); the text each later write replaced is kept dated (`<key>.<time>`), the newest
 * MAX_DATED of them. A small manifest (bounded, read defensively: a damaged one is an empty one)
 * records for each file the hash of Model Relay's last write and the file's "original": what it was
 * while it held none of Model Relay's setup (or that it did not exist). The original survives only
 * while every write since was Model Relay's own onto its own last write; so Remove Setup of a file
 * still as Model Relay left it restores the original byte for byte (or deletes a file that did not
 * exist), and a file the user changed since gets only Model Relay's part taken out, as a diff.
 */
import { unlink } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { z } from 'zod';
import { t } from '../l10n';
import { readBoundedFile, realTarget, sha256, writeAtomic } from './toolFile';
import type { FileEdit, ToolPlan } from './types';

/** Dated backups kept per file (besides the first, kept for good, and the original a Remove restores). */
export const MAX_DATED_BACKUPS = 5;
/** Files the manifest remembers; the least recently written are forgotten first. */
const MAX_FILES = 100;
const MANIFEST = 'manifest.json';
const BACKUP_MODE = 0o600;

const HASH = z.string().regex(/^[0-9a-f]{64}$/);
/** a backup's file name in the folder (never a path: no separator, no leading dot) */
const Kept = z.object({ name: z.string().regex(/^[0-9a-f]{16}-[A-Za-z0-9_-][A-Za-z0-9._-]{0,119}$/), hash: HASH });
type Kept = z.infer<typeof Kept>;
const Entry = z.object({
  /** the file's real path */
  path: z.string().min(1).max(4096),
  /** the text Model Relay's first write replaced, kept for good */
  first: Kept.optional(),
  /** the texts later writes replaced, oldest first */
  dated: z.array(Kept).max(MAX_DATED_BACKUPS + 1),
  /** sha256 of what Model Relay last wrote; null: its last write deleted the file */
  lastWrite: HASH.nullable(),
  /** the file while it held none of Model Relay's setup; absent: not known (the user changed it since) */
  original: z
    .union([z.object({ existed: z.literal(false) }), z.object({ existed: z.literal(true), backup: Kept })])
    .optional(),
  /** when Model Relay last wrote it (ms) */
  at: z.number(),
});
type Entry = z.infer<typeof Entry>;

/** What Remove Setup may put back: the original (text undefined: the file did not exist), or why not. */
export type RestorePoint = { kind: 'original'; text: string | undefined } | { kind: 'changed' } | undefined;

export class ToolBackups {
  private constructor(
    private readonly dir: string,
    private readonly files: Entry[],
  ) {}

  /** The backups in `dir`; a missing, oversized or damaged manifest reads as empty (its entries one by one). */
  static async open(dir: string): Promise<ToolBackups> {
    const r = await readBoundedFile(join(dir, MANIFEST));
    let raw: unknown;
    try {
      raw = r.text === undefined ? undefined : JSON.parse(r.text);
    } catch {
      raw = undefined;
    }
    const list = raw && typeof raw === 'object' && Array.isArray((raw as { files?: unknown }).files);
    const files = list ? (raw as { files: unknown[] }).files.slice(0, MAX_FILES) : [];
    const ok = files.map((f) => Entry.safeParse(f)).flatMap((p) => (p.success ? [p.data] : []));
    return new ToolBackups(dir, ok);
  }

  private entry(path: string): Entry | undefined {
    return this.files.find((f) => f.path === path);
  }

  private keyOf(path: string): string {
    const name =
      basename(path)
        .replace(/[^A-Za-z0-9._-]/g, '_')
        .replace(/^\.+/, '')
        .slice(0, 40) || 'file';
    return `${sha256(path).slice(0, 16)}-${name}`;
  }

  /**
   * Keeps `current`, the text a write to `target` (a real path) is about to replace, before the
   * write: the first one for good, later ones dated (one already kept is not kept twice). Throws
   * when it cannot be written: the file is then not changed either.
   */
  async keep(target: string, current: string): Promise<{ kept: Kept; path: string }> {
    let e = this.entry(target);
    if (!e) this.files.push((e = { path: target, dated: [], lastWrite: null, at: Date.now() }));
    const key = this.keyOf(target);
    if (!e.first) {
      // a first backup the manifest forgot (damaged, or the file evicted) is still never replaced
      const earlier = await readBoundedFile(join(this.dir, `${key}.first`));
      if (earlier.text !== undefined) e.first = { name: `${key}.first`, hash: sha256(earlier.text) };
      else if (earlier.error) throw new Error(earlier.error);
    }
    const hash = sha256(current);
    const same = [e.first, ...e.dated].find((k) => k?.hash === hash);
    if (same) return { kept: same, path: join(this.dir, same.name) };
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    let name = e.first ? `${key}.${stamp}` : `${key}.first`;
    for (let i = 2; e.dated.some((k) => k.name === name); i++) name = `${key}.${stamp}-${i}`;
    const kept = { name, hash };
    await writeAtomic(join(this.dir, name), current, BACKUP_MODE);
    if (!e.first) e.first = kept;
    else e.dated.push(kept);
    await this.prune(e);
    return { kept, path: join(this.dir, name) };
  }

  /** The oldest dated backups beyond MAX_DATED_BACKUPS go (never the one holding the original). */
  private async prune(e: Entry): Promise<void> {
    const held = e.original?.existed ? e.original.backup.name : undefined;
    while (e.dated.filter((k) => k.name !== held).length > MAX_DATED_BACKUPS) {
      const i = e.dated.findIndex((k) => k.name !== held);
      const [gone] = e.dated.splice(i, 1);
      await unlink(join(this.dir, gone.name)).catch(() => undefined);
    }
  }

  /**
   * Records a write Model Relay made to `target` (a real path): `current` the text before (its backup
   * `kept`), `after` the text written (undefined: the file was deleted), `ours` whether Model Relay's
   * setup was in it before and after. The original is what the file was while it held none of ours;
   * it is kept while every write goes onto Model Relay's own last write, and forgotten otherwise.
   */
  async record(
    target: string,
    write: { current: string | undefined; kept: Kept | undefined; after: string | undefined; ours: FileEdit['ours'] },
  ): Promise<void> {
    let e = this.entry(target);
    if (!e) this.files.push((e = { path: target, dated: [], lastWrite: null, at: Date.now() }));
    const { current, kept, after, ours } = write;
    const before = current === undefined ? null : sha256(current);
    if (!ours?.after) delete e.original;
    else if (!ours.before) e.original = kept ? { existed: true, backup: kept } : { existed: false };
    else if (!(e.original && before === e.lastWrite)) delete e.original;
    e.lastWrite = after === undefined ? null : sha256(after);
    e.at = Date.now();
    await this.save();
  }

  private async save(): Promise<void> {
    this.files.sort((a, b) => b.at - a.at);
    for (const gone of this.files.splice(MAX_FILES))
      for (const k of gone.dated) await unlink(join(this.dir, k.name)).catch(() => undefined);
    await writeAtomic(join(this.dir, MANIFEST), `${JSON.stringify({ files: this.files })}\n`, BACKUP_MODE);
  }

  /**
   * What Remove Setup may restore for `path`, whose text now has the hash `currentHash`: its
   * original, when the file is still what Model Relay last wrote and the original's backup is intact;
   * `changed` when the user changed it since; undefined when nothing is recorded.
   */
  /** Whether Model Relay has written `path` (and knows what it was before). */
  async wrote(path: string): Promise<boolean> {
    return !!this.entry(await realTarget(path))?.original;
  }

  async restorePoint(path: string, currentHash: string): Promise<RestorePoint> {
    const e = this.entry(await realTarget(path));
    if (!e?.original) return undefined;
    if (e.lastWrite !== currentHash) return { kind: 'changed' };
    if (!e.original.existed) return { kind: 'original', text: undefined };
    const r = await readBoundedFile(join(this.dir, e.original.backup.name));
    return r.text !== undefined && sha256(r.text) === e.original.backup.hash
      ? { kind: 'original', text: r.text }
      : undefined;
  }
}

/**
 * A Remove plan with each file that would be left holding none of Model Relay's setup restored to
 * its original instead, when the file is still as Model Relay last wrote it: byte for byte, comments
 * and order included, or deleted when it did not exist. A file the user changed since keeps the
 * plan's own edit (only Model Relay's part taken out), and a note says why.
 */
export async function withOriginalsRestored(plan: ToolPlan, dir: string): Promise<ToolPlan> {
  const backups = await ToolBackups.open(dir);
  const notes = [...plan.notes];
  const edits: FileEdit[] = [];
  for (const e of plan.edits) {
    const takesAllBack = e.ours?.before === true && !e.ours.after && e.before !== undefined;
    const point = takesAllBack ? await backups.restorePoint(e.path, e.beforeHash ?? sha256(e.before!)) : undefined;
    if (point?.kind === 'original') {
      const { deleteFile: _, ...rest } = e;
      edits.push(
        point.text === undefined
          ? {
              ...rest,
              after: '',
              deleteFile: true,
              summary: t('Deletes {0}: it did not exist before Model Relay created it.', e.path),
            }
          : {
              ...rest,
              after: point.text,
              summary: t(
                'Restores {0} exactly as it was before Model Relay changed it, comments and order included.',
                e.path,
              ),
            },
      );
      continue;
    }
    if (point?.kind === 'changed')
      notes.push(
        t(
          '{0} was changed since Model Relay last wrote it, so your change is kept and only what Model Relay added is taken out.',
          e.path,
        ),
      );
    edits.push(e);
  }
  return { ...plan, edits, notes };
}
