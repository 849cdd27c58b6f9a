/**
 * Streamed text for the webview, batched: deltas per entry are joined and posted at most every
 * `intervalMs` (the webview renders once per frame anyway). Plain Node, no `vscode`.
 */
export class DeltaBatcher {
  private readonly pending = new Map<string, string>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly post: (id: string, text: string) => void,
    private readonly intervalMs = 16,
  ) {}

  add(id: string, text: string): void {
    this.pending.set(id, (this.pending.get(id) ?? '') + text);
    this.timer ??= setTimeout(() => this.flush(), this.intervalMs);
  }

  /** Posts everything pending now, in arrival order per entry. */
  flush(): void {
    this.cancelTimer();
    if (!this.pending.size) return;
    const batch = [...this.pending];
    this.pending.clear();
    for (const [id, text] of batch) this.post(id, text);
  }

  /** Drops what is pending (the webview gets the whole state another way). */
  clear(): void {
    this.cancelTimer();
    this.pending.clear();
  }

  private cancelTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
