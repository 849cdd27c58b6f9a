/**
 * A VS Code CancellationToken as an AbortSignal for the core, with its subscription owned: the
 * listener is removed when the work ends, so tokens that live on (a chat request's, a progress
 * notification's) do not collect one listener per call. Plain Node, no `vscode`.
 */

/** The part of `vscode.CancellationToken` used here. */
export interface CancellationLike {
  readonly isCancellationRequested: boolean;
  onCancellationRequested(listener: (e: unknown) => unknown): { dispose(): unknown };
}

/** An AbortSignal that aborts when `token` is cancelled; `dispose()` drops the subscription. */
export function abortOn(token: CancellationLike): { signal: AbortSignal; dispose(): void } {
  const ac = new AbortController();
  if (token.isCancellationRequested) ac.abort();
  const sub = token.onCancellationRequested(() => ac.abort());
  return { signal: ac.signal, dispose: () => void sub.dispose() };
}

/** Runs `work` with a signal tied to `token`, and lets go of the token when it ends. */
export async function withAbort<T>(token: CancellationLike, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const cancel = abortOn(token);
  try {
    return await work(cancel.signal);
  } finally {
    cancel.dispose();
  }
}
