/**
 * The diagnose panel's run, without `vscode`: one diagnosis at a time (Diagnose again while one
 * runs gets the running one), the progress bar in the engine's own steps, and the cancellation
 * listener owned and let go when the run ends; for Diagnose All Gateways, each gateway's own token
 * read up front and the progress per gateway.
 */
import type { DiagnosisProgress, GatewayProfile, GatewaysDiagnosisInput } from '../../gateway';
import { t } from '../../gateway/l10n';

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

/** The part of a gateway's token store Diagnose All Gateways reads (src/host/gateways/tokenStore.ts). */
export interface GatewayTokens {
  activeToken(): Promise<string | undefined>;
  activeName(): string | undefined;
}

/**
 * Each gateway's active token and its name, read once before Diagnose All Gateways starts (the core
 * asks for them synchronously). Only a gateway's own token is ever handed to its diagnosis.
 */
export async function gatewayTokens(
  gateways: readonly GatewayProfile[],
  tokensOf: (gatewayId: string) => GatewayTokens,
): Promise<{
  token: (gatewayId: string) => string | undefined;
  tokenName: (gatewayId: string) => string | undefined;
  /** every token read (to redact wherever it might appear) */
  secrets: string[];
}> {
  const values = new Map<string, { token: string | undefined; name: string | undefined }>();
  for (const g of gateways) {
    const store = tokensOf(g.id);
    values.set(g.id, { token: await store.activeToken(), name: store.activeName() });
  }
  return {
    token: (id) => values.get(id)?.token,
    tokenName: (id) => values.get(id)?.name,
    secrets: [...values.values()].flatMap((v) => (v.token ? [v.token] : [])),
  };
}

/** Diagnose All Gateways' progress: "Gateway B: checking…" as each starts, the bar moving as each finishes. */
export function gatewayProgress(report: (p: { message: string; increment?: number }) => void): {
  onGatewayStart: NonNullable<GatewaysDiagnosisInput['onGatewayStart']>;
  onGatewayDone: NonNullable<GatewaysDiagnosisInput['onGatewayDone']>;
} {
  let done = 0;
  return {
    onGatewayStart: (g, _i, total) =>
      report({ message: t('{0}: checking ({1} of {2} gateways done)', g.name, done, total) }),
    onGatewayDone: (row, _i, total) => {
      done++;
      report({
        message: row.ok
          ? t('{0}: no check failed ({1} of {2} gateways done)', row.gateway.name, done, total)
          : t('{0}: a check failed ({1} of {2} gateways done)', row.gateway.name, done, total),
        increment: 100 / Math.max(1, total),
      });
    },
  };
}
