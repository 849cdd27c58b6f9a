/**
 * provideTokenCount's answer: local, fast, and the same again for the same text. VS Code counts
 * every message of a conversation on every turn, so each count is kept by content (countCache.ts)
 * and a turn with one new message costs that message's count and a hash of the others.
 *
 * The real tokenizer (o200k, 2.4 MB) is loaded on the first count, off the caller's path. Short
 * texts are then counted exactly at once; longer ones (the tokenizer does 5–8 MB/s) are answered
 * with the script-aware estimate (within a few percent of o200k on prose, code and Chinese) and
 * counted exactly in the background, a slice per turn of the event loop, the exact count replacing
 * the estimate in the cache for the next turn.
 */
import { CountCache, contentKey } from './countCache';
import type { LmPart } from './lmRequest';
import { estimateTokens } from './tokenEstimate';

export type CountTokens = (text: string) => number;
export { loadBundledTokenizer } from '../../gateway/economy/inputCount';

/** Texts up to this long are counted exactly on the caller's path once the tokenizer is loaded (under a millisecond). */
export const EXACT_NOW_LIMIT = 4 * 1024;
/** The background count's work per turn of the event loop, in characters (a few milliseconds). */
export const SLICE_CHARS = 16 * 1024;
/** Texts waiting for their exact count, in characters; a text beyond this keeps its estimate. */
export const QUEUE_CHARS = 8 * 1024 * 1024;
/** What an image costs a prompt, roughly (a 512 px tile and its overhead). */
export const IMAGE_TOKENS = 800;

/** Where a background count may cut a text: after a line, else before a space, never inside a surrogate pair. */
export function sliceEnd(text: string, at: number, size: number): number {
  const limit = at + size;
  if (limit >= text.length) return text.length;
  const floor = at + (size >> 1);
  const line = text.lastIndexOf('\n', limit - 1);
  if (line >= floor) return line + 1;
  const space = text.lastIndexOf(' ', limit - 1);
  if (space > floor) return space;
  const c = text.charCodeAt(limit - 1);
  return c >= 0xd800 && c <= 0xdbff ? limit - 1 : limit;
}

/** A count, or undefined when the tokenizer refuses the text (it throws). */
function countOrNot(count: CountTokens, text: string): number | undefined {
  try {
    return count(text);
  } catch {
    return undefined;
  }
}

interface Job {
  key: string;
  text: string;
  /** counted up to here */
  at: number;
  tokens: number;
  /** who waits for the exact count (`exactly`) */
  waiters?: Array<(tokens: number | undefined) => void>;
}

/** The text a message's count is made of: its text and reasoning, tool calls' names and input, tool results' text; and its images. */
export function countableText(parts: readonly LmPart[]): { text: string; images: number } {
  const acc = { text: '', images: 0 };
  addCountable(parts, acc);
  return acc;
}

function addCountable(parts: readonly LmPart[], acc: { text: string; images: number }): void {
  for (const p of parts) {
    if (p.kind === 'text' || p.kind === 'thinking') acc.text += p.value;
    else if (p.kind === 'toolCall') acc.text += p.name + JSON.stringify(p.input);
    else if (p.kind === 'toolResult') addCountable(p.content, acc);
    else if (p.kind === 'data' && p.mimeType.startsWith('image/')) acc.images++;
  }
}

export class TokenCounter {
  private exact: CountTokens | undefined;
  private state: 'idle' | 'loading' | 'failed' | 'ready' = 'idle';
  private readonly queue: Job[] = [];
  private queuedChars = 0;
  private scheduled = false;

  /**
   * @param load returns the tokenizer's count function (a require of the bundled tokenizer)
   * @param defer where the load and the background counts run (a later turn of the event loop by default)
   * @param cache the counts kept by content
   */
  constructor(
    private readonly load: () => CountTokens,
    private readonly defer: (fn: () => void) => void = (fn) => void setImmediate(fn),
    private readonly cache = new CountCache(),
  ) {}

  count(text: string): number {
    if (!text) return 0;
    if (this.state === 'idle') this.startLoading();
    const key = contentKey(text);
    const hit = this.cache.get(key);
    const now = !!this.exact && text.length <= EXACT_NOW_LIMIT;
    if (hit && (hit.exact || !now)) return hit.tokens;
    const counted = now ? countOrNot(this.exact!, text) : undefined;
    if (counted !== undefined) {
      this.cache.set(key, { tokens: counted, exact: true });
      return counted;
    }
    const tokens = estimateTokens(text);
    this.cache.set(key, { tokens, exact: false });
    this.enqueue(key, text);
    return tokens;
  }

  /**
   * The exact count of a text (a receipt's local count: never an estimate), made off the caller's path:
   * at once when short or known, else in the background count's slices. Undefined when the tokenizer
   * could not be loaded or the text does not fit the waiting texts (QUEUE_CHARS).
   */
  exactly(text: string): Promise<number | undefined> {
    if (!text) return Promise.resolve(0);
    if (this.state === 'failed') return Promise.resolve(undefined);
    if (this.state === 'idle') this.startLoading();
    const key = contentKey(text);
    const hit = this.cache.get(key);
    if (hit?.exact) return Promise.resolve(hit.tokens);
    if (this.exact && text.length <= EXACT_NOW_LIMIT) {
      const tokens = countOrNot(this.exact, text);
      if (tokens !== undefined) this.cache.set(key, { tokens, exact: true });
      return Promise.resolve(tokens);
    }
    return new Promise((resolve) => {
      let job = this.queue.find((j) => j.key === key);
      if (!job) {
        job = this.enqueue(key, text);
        if (!job) return resolve(undefined);
      }
      (job.waiters ??= []).push(resolve);
    });
  }

  /** A message's count: its text (countableText) and its images. */
  countParts(parts: readonly LmPart[]): number {
    const { text, images } = countableText(parts);
    return this.count(text) + images * IMAGE_TOKENS;
  }

  get ready(): boolean {
    return this.state === 'ready';
  }

  /** Texts still waiting for their exact count. */
  get pending(): number {
    return this.queue.length;
  }

  private enqueue(key: string, text: string): Job | undefined {
    if (this.state === 'failed' || this.queuedChars + text.length > QUEUE_CHARS) return undefined;
    const job: Job = { key, text, at: 0, tokens: 0 };
    this.queue.push(job);
    this.queuedChars += text.length;
    if (this.state === 'ready') this.schedule();
    return job;
  }

  private startLoading(): void {
    this.state = 'loading';
    this.defer(() => {
      try {
        this.exact = this.load();
        this.state = 'ready';
        this.schedule();
      } catch {
        this.state = 'failed'; // the estimate keeps answering
        for (const job of this.queue) for (const w of job.waiters ?? []) w(undefined);
        this.queue.length = 0;
        this.queuedChars = 0;
      }
    });
  }

  private schedule(): void {
    if (this.scheduled || !this.queue.length) return;
    this.scheduled = true;
    this.defer(() => {
      this.scheduled = false;
      this.work();
      this.schedule();
    });
  }

  /** One turn's background count: about SLICE_CHARS of the waiting texts, the finished ones settled in the cache. */
  private work(): void {
    const exact = this.exact!;
    let budget = SLICE_CHARS;
    while (budget > 0 && this.queue.length) {
      const job = this.queue[0];
      const end = sliceEnd(job.text, job.at, SLICE_CHARS);
      const tokens = countOrNot(exact, job.text.slice(job.at, end));
      if (tokens === undefined) {
        // a text the tokenizer refuses keeps its estimate; never an error on a later turn of the event loop
        this.queue.shift();
        this.queuedChars -= job.text.length;
        for (const w of job.waiters ?? []) w(undefined);
        continue;
      }
      job.tokens += tokens;
      budget -= end - job.at;
      job.at = end;
      if (end < job.text.length) continue;
      this.queue.shift();
      this.queuedChars -= job.text.length;
      this.cache.settle(job.key, job.tokens);
      for (const w of job.waiters ?? []) w(job.tokens);
    }
  }
}
