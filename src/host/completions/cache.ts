/**
 * The recent answers by their context, so backspacing and retyping a recent prefix costs no call: a
 * small LRU keyed by (document id, the last PREFIX_TAIL characters before the cursor, the first
 * SUFFIX_HEAD after it). The key holds the text itself, not a hash of it, so two contexts never
 * share an entry; its size is bounded (entries × key length). An empty answer is kept too: the
 * model had nothing for that context, so asking again would only pay for the same nothing.
 */

export const PREFIX_TAIL = 256;
export const SUFFIX_HEAD = 64;
export const CACHE_ENTRIES = 64;

/** The cache key of a context: the text just before and after the cursor. */
export function cacheKey(docId: string, prefix: string, suffix: string): string {
  return `${docId}\u0000${prefix.slice(-PREFIX_TAIL)}\u0000${suffix.slice(0, SUFFIX_HEAD)}`;
}

export class CompletionCache {
  private readonly map = new Map<string, string>();

  constructor(private readonly capacity = CACHE_ENTRIES) {}

  /** The answer for this context (most recently used moves last), or undefined. */
  get(key: string): string | undefined {
    const v = this.map.get(key);
    if (v === undefined) return undefined;
    this.map.delete(key);
    this.map.set(key, v);
    return v;
  }

  set(key: string, text: string): void {
    this.map.delete(key);
    this.map.set(key, text);
    while (this.map.size > this.capacity) this.map.delete(this.map.keys().next().value!);
  }

  get size(): number {
    return this.map.size;
  }

  clear(): void {
    this.map.clear();
  }
}
