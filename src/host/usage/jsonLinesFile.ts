/**
 * An append-only log of JSON lines that several processes (VS Code windows) write and read at once,
 * bounded by size: the current file and the one before it. Plain Node `fs`; the folder is handed in.
 *
 * - **Writes** are whole batches of whole lines, one `write` each on a file opened with O_APPEND, so
 *   two writers never overwrite or interleave each other's lines. A batch starts with a line break:
 *   a line torn by a crash is ended by the next batch and skipped alone, never joined to a good line.
 * - **Bound**: once the current file passes `maxFileBytes` after a write, it is renamed to the rotated
 *   file (the previous rotated file is dropped), under a lock file so two writers never rotate twice;
 *   on disk at most about 2 × `maxFileBytes` (plus the batches appended meanwhile).
 * - **Reads** are bounded: at most `2 × maxFileBytes` of each file (the newest part of a larger one),
 *   and after the first read only the bytes appended since (`readNew`); a line that does not parse or
 *   that `isItem` refuses is skipped.
 */
import { closeSync, mkdirSync, openSync, promises as fsp, writeSync, type Stats } from 'node:fs';
import { join } from 'node:path';

/** How long a rotation lock is honoured before it is taken as left by a crashed window (ms). */
const STALE_LOCK_MS = 30_000;
const NEWLINE = 0x0a;

/** What the reader last read of the current file: which file it was, up to which byte, and the rotated file then. */
interface ReadMark {
  /** the current file's inode (-1: there was none) */
  ino: number;
  /** bytes of the current file read, up to a line end */
  offset: number;
  /** the rotated file's identity and size ('' when there was none) */
  rotated: string;
}

export interface NewLines<T> {
  items: T[];
  /** true: the files were read afresh (rotated, cleared, replaced): `items` is everything, not an addition */
  reset: boolean;
}

const missing = (e: unknown) => (e as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';

async function statOf(path: string): Promise<Stats | undefined> {
  try {
    return await fsp.stat(path);
  } catch (e) {
    if (missing(e)) return undefined;
    throw e;
  }
}

/** Bytes `from`..`to` of a file (fewer when it is shorter; none when it is gone). */
async function readRange(path: string, from: number, to: number): Promise<Buffer> {
  let fh: fsp.FileHandle;
  try {
    fh = await fsp.open(path, 'r');
  } catch (e) {
    if (missing(e)) return Buffer.alloc(0);
    throw e;
  }
  try {
    const buf = Buffer.alloc(Math.max(0, to - from));
    let got = 0;
    while (got < buf.length) {
      const { bytesRead } = await fh.read(buf, got, buf.length - got, from + got);
      if (!bytesRead) break;
      got += bytesRead;
    }
    return buf.subarray(0, got);
  } finally {
    await fh.close();
  }
}

export class JsonLinesFile<T> {
  readonly current: string;
  readonly rotated: string;
  private readonly lock: string;
  private mark: ReadMark | undefined;

  constructor(
    readonly dir: string,
    private readonly isItem: (v: unknown) => v is T,
    readonly maxFileBytes: number,
    name = 'log',
  ) {
    this.current = join(dir, `${name}.jsonl`);
    this.rotated = join(dir, `${name}.1.jsonl`);
    this.lock = join(dir, `${name}.lock`);
  }

  /** The most any one read takes of a file. */
  get maxReadBytes(): number {
    return 2 * this.maxFileBytes;
  }

  async ensureDir(): Promise<void> {
    await fsp.mkdir(this.dir, { recursive: true });
  }

  /**
   * Writes `items` as the log's first lines, only when there is no log yet (neither file): what moves
   * an older store into the file happens once, whichever window comes first. True when written.
   */
  async createWith(items: readonly T[]): Promise<boolean> {
    if (await statOf(this.rotated)) return false;
    let fh: fsp.FileHandle;
    try {
      fh = await fsp.open(this.current, 'wx');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw e;
    }
    try {
      await fh.write(this.batch(items));
    } finally {
      await fh.close();
    }
    return true;
  }

  /** Appends one batch (one write), then rotates when the current file is over the bound. */
  async append(items: readonly T[]): Promise<void> {
    if (!items.length) return;
    const fh = await fsp.open(this.current, 'a');
    try {
      await fh.write(this.batch(items));
    } finally {
      await fh.close();
    }
    await this.rotateIfFull();
  }

  /** The same, synchronously (a window closing: no later turn of the event loop is promised). */
  appendSync(items: readonly T[]): void {
    if (!items.length) return;
    mkdirSync(this.dir, { recursive: true });
    const fd = openSync(this.current, 'a');
    try {
      writeSync(fd, this.batch(items));
    } finally {
      closeSync(fd);
    }
  }

  /** What was appended since the last read (by any writer), or everything when the files changed under the reader. */
  async readNew(): Promise<NewLines<T>> {
    const [cur, rot] = await Promise.all([statOf(this.current), statOf(this.rotated)]);
    const rotated = rot ? `${rot.ino}:${rot.size}:${rot.mtimeMs}` : '';
    const m = this.mark;
    // the same current file as last read (or the first one, where there was none), grown within the bound
    const same =
      m?.rotated === rotated &&
      (cur
        ? (cur.ino === m.ino || (m.ino === -1 && m.offset === 0)) &&
          cur.size >= m.offset &&
          cur.size - m.offset <= this.maxReadBytes
        : m.ino === -1);
    if (!same) return { items: await this.readAll(cur, rot, rotated), reset: true };
    if (!cur || cur.size === m.offset) return { items: [], reset: false };
    m.ino = cur.ino;
    const { items, consumed } = this.parse(await readRange(this.current, m.offset, cur.size), false);
    m.offset += consumed;
    return { items, reset: false };
  }

  /** Deletes both files (the reader then starts afresh). */
  async clear(): Promise<void> {
    await Promise.all([fsp.rm(this.current, { force: true }), fsp.rm(this.rotated, { force: true })]);
    this.mark = undefined;
  }

  private batch(items: readonly T[]): Buffer {
    return Buffer.from(`\n${items.map((i) => JSON.stringify(i)).join('\n')}\n`, 'utf8');
  }

  /** The rotated file, then the current one, each bounded; the mark set at the current file's last line end. */
  private async readAll(cur: Stats | undefined, rot: Stats | undefined, rotated: string): Promise<T[]> {
    const tail = async (path: string, size: number) => {
      const from = Math.max(0, size - this.maxReadBytes);
      return { from, ...this.parse(await readRange(path, from, size), from > 0) };
    };
    const older = rot ? (await tail(this.rotated, rot.size)).items : [];
    const now = cur ? await tail(this.current, cur.size) : { from: 0, items: [], consumed: 0 };
    this.mark = { ino: cur?.ino ?? -1, offset: now.from + now.consumed, rotated };
    return [...older, ...now.items];
  }

  /**
   * The items of whole lines in `buf` (a line without its end yet is left for the next read; `cut`:
   * the buffer starts inside a line, which is dropped), and how many bytes the whole lines took.
   */
  private parse(buf: Buffer, cut: boolean): { items: T[]; consumed: number } {
    const end = buf.lastIndexOf(NEWLINE) + 1;
    const start = cut ? buf.indexOf(NEWLINE) + 1 : 0;
    const items: T[] = [];
    if (start === 0 && cut) return { items, consumed: end };
    for (const line of buf.subarray(start, end).toString('utf8').split('\n')) {
      if (!line.trim()) continue;
      try {
        const v: unknown = JSON.parse(line);
        if (this.isItem(v)) items.push(v);
      } catch {
        /* a torn or foreign line: skipped */
      }
    }
    return { items, consumed: end };
  }

  /** Renames a full current file to the rotated one, once, whichever writer gets the lock. */
  private async rotateIfFull(): Promise<void> {
    try {
      if (((await statOf(this.current))?.size ?? 0) <= this.maxFileBytes || !(await this.takeLock())) return;
    } catch {
      return; // the batch is written; rotation waits for the next one
    }
    try {
      // another writer may have rotated between the size read above and the lock
      if (((await statOf(this.current))?.size ?? 0) > this.maxFileBytes) await fsp.rename(this.current, this.rotated);
    } catch {
      /* the rotated file is open elsewhere (Windows): the next write tries again */
    } finally {
      await fsp.rm(this.lock, { force: true });
    }
  }

  private async takeLock(): Promise<boolean> {
    for (let tries = 0; tries < 2; tries++) {
      try {
        await (await fsp.open(this.lock, 'wx')).close();
        return true;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
        const held = await statOf(this.lock);
        if (held && Date.now() - held.mtimeMs < STALE_LOCK_MS) return false;
        await fsp.rm(this.lock, { force: true });
      }
    }
    return false;
  }
}
