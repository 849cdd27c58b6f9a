/**
 * The diagnose panel's run, without `vscode`: one diagnosis at a time (Diagnose again while one
 * runs gets the running one), the progress bar in the engine's own steps, and the cancellation
 * listener owned and let go when the run ends.
 */
import type { DiagnosisProgress } from '../../gateway';

/** One run at a time: while one is under way, `run` answers with it instead of starting another. */
export class SingleRun<T> {
  private current: Promise<T> | undefined;

  get running(): boolean {
    return this.current !== undefined;
  }

  run(start: () => Promise<T>): Promise<T> {
    if (this.current) return this.current;
    const p = start().finally(() => {
      if (this.current === p) this.current = undefined;
    });
    this.current = p;
    return p;
  }
}

/**
 * The increments (percent) of a progress bar that ends at 100 with the engine's last step, whatever
 * number of checks the engine has or runs.
 */
export function progressSteps(): (p: DiagnosisProgress) => number {
  let shown = 0;
  return (p) => {
    const now = (100 * Math.min(p.done, p.total)) / p.total;
    const step = Math.max(0, now - shown);
    shown = Math.max(shown, now);
    return step;
  };
}

/** What a cancellation token offers (vscode.CancellationToken's shape). */
export interface Cancellable {
  readonly isCancellationRequested: boolean;
  onCancellationRequested(listener: () => unknown): { dispose(): unknown };
}

/** An AbortSignal that follows `token`; `dispose` lets go of the listener (call it when the work ends). */
export function abortOn(token: Cancellable): { signal: AbortSignal; dispose(): void } {
  const ac = new AbortController();
  if (token.isCancellationRequested) ac.abort();
  const sub = token.onCancellationRequested(() => ac.abort());
  return { signal: ac.signal, dispose: () => void sub.dispose() };
}
