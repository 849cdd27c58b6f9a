/**
 * A fake Clock for time-driven rules (the inline-completion engine's debounce, back-off, hour
 * window): `now()` moves only when a test calls `advance`, and `sleep` resolves when the fake time
 * reaches its end (or rejects at once, with an AbortError, when its signal aborts).
 */
import type { Clock } from '../../src/host/completions/types';

interface Timer {
  at: number;
  seq: number;
  resolve(): void;
}

/** Lets pending promise callbacks run (several turns of the microtask queue and one macrotask). */
export const settle = () => new Promise<void>((r) => setImmediate(r));

export class FakeClock implements Clock {
  private time: number;
  private seq = 0;
  private timers: Timer[] = [];

  constructor(start = 1_000_000) {
    this.time = start;
  }

  now(): number {
    return this.time;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      const abortError = () => Object.assign(new Error('The operation was aborted.'), { name: 'AbortError' });
      if (signal?.aborted) return reject(abortError());
      const timer: Timer = {
        at: this.time + Math.max(0, ms),
        seq: this.seq++,
        resolve: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      const onAbort = () => {
        this.timers = this.timers.filter((t) => t !== timer);
        reject(abortError());
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.timers.push(timer);
    });
  }

  /** Moves the time forward by `ms`, firing the timers due on the way in order (and what they start). */
  async advance(ms: number): Promise<void> {
    const target = this.time + ms;
    await settle();
    for (;;) {
      const due = this.timers.filter((t) => t.at <= target).sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!due) break;
      this.timers = this.timers.filter((t) => t !== due);
      this.time = due.at;
      due.resolve();
      await settle();
    }
    this.time = target;
    await settle();
  }

  /** timers still waiting */
  get pending(): number {
    return this.timers.length;
  }
}
