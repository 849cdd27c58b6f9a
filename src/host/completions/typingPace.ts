/**
 * The debounce adapted to typing speed: the gaps between the user's recent keystrokes in each
 * document (an edit is a new document version), and the wait before asking drawn from them. The wait
 * is a little more than the user's usual gap (the 75th percentile of the last GAPS gaps, × MARGIN),
 * so a keystroke at the user's own pace arrives before the wait ends and no call is made; a pause
 * longer than that is when a suggestion can be seen. Gaps of PAUSE_MS or more are pauses (thinking,
 * reading), not the pace, and are left out. Bounded: GAPS gaps for each of at most DOCS documents.
 */

export const DEBOUNCE = { minMs: 75, maxMs: 400, defaultMs: 150, margin: 1.2 } as const;
export const PAUSE_MS = 1500;
export const GAPS = 16;
/** fewer gaps than this: the default wait */
export const MIN_GAPS = 4;
export const DOCS = 32;

interface Pace {
  version: number;
  at: number;
  gaps: number[];
}

export class TypingPace {
  private readonly docs = new Map<string, Pace>();

  /** Notes a keystroke when the document's version changed since the last call. */
  keystroke(docId: string, version: number, now: number): void {
    const p = this.docs.get(docId);
    if (!p) {
      this.docs.set(docId, { version, at: now, gaps: [] });
      if (this.docs.size > DOCS) this.docs.delete(this.docs.keys().next().value!);
      return;
    }
    if (p.version === version) return;
    const gap = now - p.at;
    if (gap >= 0 && gap < PAUSE_MS) {
      p.gaps.push(gap);
      if (p.gaps.length > GAPS) p.gaps.shift();
    }
    p.version = version;
    p.at = now;
    // most recently typed in last
    this.docs.delete(docId);
    this.docs.set(docId, p);
  }

  /** How long to wait before asking in this document (ms). */
  debounceMs(docId: string): number {
    const gaps = this.docs.get(docId)?.gaps ?? [];
    if (gaps.length < MIN_GAPS) return DEBOUNCE.defaultMs;
    const sorted = [...gaps].sort((a, b) => a - b);
    const p75 = sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.75))];
    return Math.round(Math.min(DEBOUNCE.maxMs, Math.max(DEBOUNCE.minMs, p75 * DEBOUNCE.margin)));
  }

  clear(): void {
    this.docs.clear();
  }
}
