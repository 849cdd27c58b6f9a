/**
 * The diagnosis engine: sets up the shared context, runs the ordered checks (one file each under
 * checks/) against the gateway, and returns a structured report. Pure Node (no vscode). Never
 * retries (maxRetries 0): a 429 is reported with the wait it asks for and stops all further
 * requests; a 5xx is reported as a temporary fault. Every request has its own timeout and the
 * whole run has a time budget.
 */
import type { Check } from './check';
import { arrivalCheck } from './checks/arrival';
import { backgroundTasksCheck } from './checks/backgroundTasks';
import { baseUrlCheck } from './checks/baseUrl';
import { generateChatCheck, generateNativeCheck, generateResponsesCheck } from './checks/generation';
import { generateImageCheck, generateImageEditCheck, generateVideoCheck } from './checks/media';
import { nativePathCheck } from './checks/nativePath';
import { proxyCheck } from './checks/proxy';
import { reachabilityCheck } from './checks/reachability';
import { streamCompatibleCheck, streamNativeCheck, streamResponsesCheck } from './checks/streaming';
import { tokenCheck } from './checks/token';
import { visibilityCheck } from './checks/visibility';
import { wrongPlaceCheck } from './checks/wrongPlace';
import { DiagnosisContext } from './context';
import { toolCheck } from './toolCheck';
import { TOOL_IDS } from '../tools/types';
import { t } from '../l10n';
import { redactSecrets, stripUrlCredentials } from '../mask';
import type { Outcome } from './outcomeFromError';
import { tidySpacing } from './textWidth';
import { checkTitle } from './titles';
import type { CheckResult, DiagnosisCheck, DiagnosisReport } from './types';
import type { DiagnosisInput, DiagnosisProgress } from './types';

/** The checks, in report order. */
const CHECKS: readonly Check[] = [
  baseUrlCheck,
  reachabilityCheck,
  tokenCheck,
  visibilityCheck,
  generateChatCheck,
  generateNativeCheck,
  generateResponsesCheck,
  generateImageCheck,
  generateImageEditCheck,
  generateVideoCheck,
  arrivalCheck,
  nativePathCheck,
  streamCompatibleCheck,
  streamNativeCheck,
  streamResponsesCheck,
  // one row per terminal tool of the tools module
  ...TOOL_IDS.map(toolCheck),
  backgroundTasksCheck,
  wrongPlaceCheck,
  proxyCheck,
];

/** A broken progress callback must not break the diagnosis. */
function safe(f: () => void): void {
  try {
    f();
  } catch {
    /* ignored */
  }
}

/** Runs one check: start notice, its skip reason or its run, the finished record, progress. */
async function runCheck(ctx: DiagnosisContext, check: Check, progress: DiagnosisProgress): Promise<DiagnosisCheck> {
  const { id } = check;
  const title = checkTitle(id);
  safe(() => ctx.input.onCheckStart?.(id, title));
  const started = ctx.now();
  let o: Outcome;
  try {
    const skip = check.skip?.(ctx);
    o = skip ? { ...skip, result: 'skipped', durationMs: 0 } : await check.run(ctx);
  } catch (e) {
    o = {
      result: 'fail',
      cause: t('The check itself failed: {0}', e instanceof Error ? e.message : String(e)),
      fix: t('Report this with the diagnosis report.'),
    };
  }
  const { durationMs, ...rest } = o;
  const done: DiagnosisCheck = {
    id,
    title,
    ...redacted(rest, ctx.token),
    durationMs: durationMs ?? Math.max(0, ctx.now() - started),
  };
  if (!done.details?.length) delete done.details;
  for (const k of Object.keys(done) as Array<keyof DiagnosisCheck>) if (done[k] === undefined) delete done[k];
  ctx.results.set(id, done);
  safe(() => ctx.input.onProgress?.(done, progress));
  return done;
}

/** Every text of an outcome without the token, the bare key, or URL credentials. */
function redacted<T extends Omit<Outcome, 'durationMs'>>(o: T, token: string | undefined): T {
  const clean = (s: string) => tidySpacing(redactSecrets(s, [token]));
  return {
    ...o,
    cause: clean(o.cause),
    fix: clean(o.fix),
    ...(o.details ? { details: o.details.map(clean) } : {}),
    ...(o.url ? { url: clean(o.url) } : {}),
  };
}

function report(ctx: DiagnosisContext, checks: DiagnosisCheck[]): DiagnosisReport {
  const summary: Record<CheckResult, number> = { pass: 0, warn: 0, fail: 0, skipped: 0 };
  for (const c of checks) summary[c.result]++;
  const p = ctx.proxyChoice;
  return {
    startedAt: new Date(ctx.startedAt).toISOString(),
    durationMs: Math.max(0, ctx.now() - ctx.startedAt),
    baseUrl: stripUrlCredentials(ctx.input.baseUrl),
    base: ctx.n.base && stripUrlCredentials(ctx.n.base),
    backups: ctx.backups.map(stripUrlCredentials),
    usedBase: ctx.usedBase && stripUrlCredentials(ctx.usedBase),
    maskedToken: ctx.masked,
    tokenName: ctx.input.tokenName,
    proxy: !p || p.source === 'none' ? 'none' : `${p.display} (${p.source})`,
    checks,
    summary,
    ok: summary.fail === 0,
  };
}

/** Runs every check and returns the report. Never throws for gateway problems. */
export async function runDiagnosis(input: DiagnosisInput): Promise<DiagnosisReport> {
  const ctx = new DiagnosisContext(input);
  try {
    const checks: DiagnosisCheck[] = [];
    for (const [i, check] of CHECKS.entries())
      if (check.applies?.(ctx) ?? true) checks.push(await runCheck(ctx, check, { done: i + 1, total: CHECKS.length }));
    return report(ctx, checks);
  } finally {
    await ctx.close();
  }
}
