/**
 * The engine's Clock in the extension: wall time and timers. Tests use test/fakes/clock.ts instead.
 */
import type { Clock } from './types';

const abortError = () => Object.assign(new Error('The operation was aborted.'), { name: 'AbortError' });

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
