/**
 * One user action — a chat turn, a commit message, a question to `@relay` — and every request made
 * for it, across all the layers that may send again (a surface move, a reasoning resend, the
 * transport's retries, backup domains, another gateway). Two things are kept per action, where each
 * layer can read them without being handed anything (an AsyncLocalStorage scope):
 *
 * - whether any work request of it got an answer (a 2xx: the reply began and may be billed): then no
 *   layer moves it elsewhere (gateways/failover.ts);
 * - how many work requests it has sent: the one cap. The resend rule (retryPolicy.ts `mayResend`)
 *   refuses any further resend once MAX_SENDS_PER_ACTION were sent, whichever layer asks, so the
 *   composition of the layers is bounded however they stack (each layer alone is bounded too).
 *
 * Outside an action (a request made directly, e.g. a model list), nothing is counted or capped.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/** At most this many work requests (POSTs) for one user action, all resends included. */
export const MAX_SENDS_PER_ACTION = 12;

export interface UserAction {
  /** work requests sent so far */
  sends: number;
  /** a work request got a 2xx answer */
  answered: boolean;
}

const scope = new AsyncLocalStorage<UserAction>();

/** Runs `fn` in the current action, or in a new one when there is none (an action is never nested). */
export function inAction<T>(fn: () => T, action: UserAction | undefined = scope.getStore()): T {
  return action ? scope.run(action, fn) : scope.run({ sends: 0, answered: false }, fn);
}

/** A new action's state, for a caller that must re-enter the same action at every step (a stream). */
export function newAction(): UserAction {
  return scope.getStore() ?? { sends: 0, answered: false };
}

/** Whether the current action has used its cap (no layer may send it again). */
export function actionSpent(): boolean {
  const a = scope.getStore();
  return !!a && a.sends >= MAX_SENDS_PER_ACTION;
}

/** Called by the transport for each request it sends: a work request (a POST) counts. */
export function noteSend(method: string): void {
  const a = scope.getStore();
  if (a && method === 'POST') a.sends++;
}

/** Called by the transport for each 2xx answer: one to a work request pins its action. */
export function noteAnswered(method: string): void {
  const a = scope.getStore();
  if (a && method === 'POST') a.answered = true;
}

/**
 * An async iterable whose every step runs in `action`: an async generator runs each `next()` in its
 * caller's context, so the action is entered again at every step (and for `return`).
 */
export function iterateInAction<T>(source: () => AsyncIterable<T>, action: UserAction): AsyncIterable<T> {
  return {
    [Symbol.asyncIterator]() {
      const it = inAction(() => source()[Symbol.asyncIterator](), action);
      return {
        next: () => inAction(() => it.next(), action),
        return: (v?: unknown) =>
          inAction(() => it.return?.(v) ?? Promise.resolve({ done: true as const, value: undefined }), action),
      } as AsyncIterator<T>;
    },
  };
}
