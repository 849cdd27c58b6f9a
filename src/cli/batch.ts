/**
 * Streamed text to stdout in few writes: collected, and written once 16 KB have gathered, after a
 * short pause (so an interactive stream still appears as it comes), and at the end. One write per
 * delta would be one system call per token (stdout to a file or pipe is synchronous).
 */
export const BATCH_CHARS = 16 * 1024;
/** The longest a delta waits before it is written: well under what a reader notices. */
export const BATCH_DELAY_MS = 10;

export class BatchedWriter {
  private buf = '';
  private timer: NodeJS.Timeout | undefined;
  /** true once any text was written (or is waiting to be) */
  wrote = false;

  constructor(
    private readonly out: { write(s: string): unknown },
    /** applied to each batch as it is written */
    private readonly transform: (s: string) => string = (s) => s,
  ) {}

  write(text: string): void {
    if (!text) return;
    this.buf += text;
    this.wrote = true;
    // One timer per batch, not one per delta.
    if (this.buf.length >= BATCH_CHARS) this.flush();
    else this.timer ??= setTimeout(this.onTimer, BATCH_DELAY_MS);
  }

  /** Writes what has gathered (plus `tail`, in the same write). */
  flush(tail = ''): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const s = this.buf ? this.transform(this.buf) + tail : tail;
    this.buf = '';
    if (s) this.out.write(s);
  }

  private readonly onTimer = () => {
    this.timer = undefined;
    this.flush();
  };
}
