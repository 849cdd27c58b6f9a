/**
 * The engine's Clock on real time (the tests use a fake one): `sleep` rejects with an AbortError at
 * once when its signal aborts. Plain Node.
 */
import type { Clock } from './types';

const abortError = () => new DOMException('The operation was aborted.', 'AbortError');

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(abortError());
      const onAbort = () => {
        clearTimeout(timer);
        reject(abortError());
      };
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
};
