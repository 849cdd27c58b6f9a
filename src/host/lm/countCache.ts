/**
 * Token counts kept by content: VS Code asks for each message's count again on every turn of an
 * agent conversation, with new objects each time (they cross the extension host's RPC), so a count
 * is found again by a key made from the text itself — its length and a SHA-1 of it (about 2 ms a
 * megabyte, a fraction of counting it). Bounded: the least recently used counts go first.
 */
import { createHash } from 'node:crypto';

/** How many counts are kept: an agent conversation's messages several times over. */
export const COUNT_CACHE_ENTRIES = 4096;

export interface CachedCount {
  tokens: number;
  /** counted by the tokenizer (else estimated, and the exact count may still come) */
  exact: boolean;
}

/** The cache key of a text: its length and a hash of its UTF-16 code units (nothing of the text kept). */
export function contentKey(text: string): string {
  return `${text.length}:${createHash('sha1').update(text, 'utf16le').digest('base64')}`;
}

export class CountCache {
  private readonly map = new Map<string, CachedCount>();

  constructor(private readonly maxEntries = COUNT_CACHE_ENTRIES) {}

  get size(): number {
    return this.map.size;
  }

  /** The count kept for this key, now the most recently used. */
  get(key: string): CachedCount | undefined {
    const hit = this.map.get(key);
    if (hit) {
      this.map.delete(key);
      this.map.set(key, hit);
    }
    return hit;
  }

  /** Whether a count is kept for this key (without making it recently used). */
  has(key: string): boolean {
    return this.map.has(key);
  }

  set(key: string, count: CachedCount): void {
    this.map.delete(key);
    this.map.set(key, count);
    while (this.map.size > this.maxEntries) this.map.delete(this.map.keys().next().value!);
  }

  /** Replaces an estimate with the exact count, if the key is still kept (an evicted one stays out). */
  settle(key: string, tokens: number): void {
    if (this.map.has(key)) this.map.set(key, { tokens, exact: true });
  }
}
