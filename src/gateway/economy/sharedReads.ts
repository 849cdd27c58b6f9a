/**
 * One read at a time per document, shared by every caller that asks while it runs (the account's status,
 * balance and prices, the usage log). The read runs on an AbortSignal of its own, aborted only when every
 * caller waiting for it has aborted: a caller's abort rejects that caller at once and no one else (a
 * cancelled Diagnose must not fail the Usage view's read, nor poison what the read would have cached), and a
 * caller that joins while the read runs gets its answer. A caller without a signal keeps the read going.
 * Bounded: one entry per document while its read runs.
 */
import { errorFromNetwork } from '../errors/fromNetwork';

interface Running {
  promise: Promise<unknown>;
  controller: AbortController;
  /** callers still waiting (a caller without a signal is never taken off) */
  waiting: number;
}

export class SharedReads {
  private readonly running = new Map<string, Running>();

  /**
   * The answer of the read of `key` under way, or of `read` started now. `signal` is this caller's: its
   * abort rejects this caller (an `aborted` GatewayError, as the transport's own) and aborts the read only
   * when no other caller is waiting for it.
   */
  run<T>(key: string, read: (signal: AbortSignal) => Promise<T>, signal?: AbortSignal): Promise<T> {
    const cancelled = () =>
      errorFromNetwork(signal?.reason, { method: 'GET', capability: 'account' }, { aborted: true });
    if (signal?.aborted) return Promise.reject(cancelled());
    let r = this.running.get(key);
    if (!r) {
      const controller = new AbortController();
      const started: Running = { controller, waiting: 0, promise: Promise.resolve() };
      started.promise = read(controller.signal).finally(() => {
        if (this.running.get(key) === started) this.running.delete(key);
      });
      // Every caller may have left before it settles: its failure is then nobody's.
      void started.promise.catch(() => undefined);
      this.running.set(key, started);
      r = started;
    }
    const shared = r;
    shared.waiting++;
    if (!signal) return shared.promise as Promise<T>;
    return new Promise<T>((resolve, reject) => {
      const leave = () => {
        reject(cancelled());
        if (--shared.waiting > 0) return;
        // No one waits any more: a later caller starts afresh instead of joining a read being stopped.
        if (this.running.get(key) === shared) this.running.delete(key);
        shared.controller.abort(signal.reason);
      };
      signal.addEventListener('abort', leave, { once: true });
      shared.promise.then(
        (v) => {
          signal.removeEventListener('abort', leave);
          resolve(v as T);
        },
        (e: Error) => {
          signal.removeEventListener('abort', leave);
          reject(e);
        },
      );
    });
  }
}
