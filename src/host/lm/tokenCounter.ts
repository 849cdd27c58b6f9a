/**
 * provideTokenCount's answer: local and fast. The real tokenizer (o200k, 2.4 MB) is loaded on the
 * first count, off the caller's path; until it is there, and for texts too long to tokenize on a
 * hot path, the script-aware estimate answers (right for Chinese and code within a few percent).
 */
import { estimateTokens } from './tokenEstimate';

export type CountTokens = (text: string) => number;

/** Longer texts are estimated: the tokenizer does about 3 MB/s, and VS Code counts per message. */
export const EXACT_LIMIT = 64 * 1024;

export class TokenCounter {
  private exact: CountTokens | undefined;
  private state: 'idle' | 'loading' | 'failed' | 'ready' = 'idle';

  /**
   * @param load returns the tokenizer's count function (a require of the bundled tokenizer)
   * @param defer where the load runs (a later turn of the event loop by default)
   */
  constructor(
    private readonly load: () => CountTokens,
    private readonly defer: (fn: () => void) => void = (fn) => void setImmediate(fn),
  ) {}

  count(text: string): number {
    if (!text) return 0;
    if (this.exact && text.length <= EXACT_LIMIT) return this.exact(text);
    if (this.state === 'idle') this.startLoading();
    return estimateTokens(text);
  }

  get ready(): boolean {
    return this.state === 'ready';
  }

  private startLoading(): void {
    this.state = 'loading';
    this.defer(() => {
      try {
        this.exact = this.load();
        this.state = 'ready';
      } catch {
        this.state = 'failed'; // the estimate keeps answering
      }
    });
  }
}
