/** Check 2: every host (primary and backups) probed — DNS, connect, TLS, then GET /v1/models. */
import { MODELS_PATH } from '../../models';
import type { Check } from '../check';
import type { DiagnosisContext, Reason } from '../context';
import { describeProbe, probeHost, type HostProbe } from '../hostProbe';
import { haltOn429, outcomeFromError, type Outcome } from '../outcomeFromError';

const hostList = (ps: HostProbe[]) => ps.map((p) => p.host).join(', ');

function primaryWorks(results: HostProbe[], base: Partial<Outcome>): Outcome {
  const primary = results[0]!;
  const broken = results.slice(1).filter((p) => !p.works);
  if (broken.length) {
    return {
      ...base,
      result: 'warn',
      cause: `The primary ${primary.host} works (first byte in ${primary.firstByteMs} ms), but backup ${hostList(broken)} does not: ${broken.map((p) => p.error?.message ?? p.outcome).join(' ')} Failing over to it would not help.`,
      fix: 'Check the backup domain list against the gateway console (root addresses, same path rules).',
    };
  }
  return {
    ...base,
    result: 'pass',
    cause: `${results.length > 1 ? `All ${results.length} hosts work` : `${primary.host} works`}: the API answered GET ${MODELS_PATH} (HTTP ${primary.status}, first byte in ${primary.firstByteMs} ms).`,
    fix: '',
  };
}

/** Why the primary does not work, in the terms of its failure. */
function whyPrimaryFails(ctx: DiagnosisContext, primary: HostProbe): Reason & { retryAfterMs?: number | undefined } {
  if (primary.viaProxy && (primary.outcome === 'network' || primary.outcome === 'timeout')) {
    return {
      cause: `The request through the proxy ${ctx.proxyChoice?.display} failed (${primary.error?.message ?? primary.outcome}): the proxy is not reachable, or it could not connect to ${primary.host}.`,
      fix: `Check the proxy address and that it allows connections to ${primary.host}, or add the host to the no-proxy list.`,
    };
  }
  if (primary.error) return outcomeFromError(ctx, primary.error);
  return { cause: `The primary ${primary.host} did not answer as the API.`, fix: 'Check the base URL.' };
}

async function run(ctx: DiagnosisContext): Promise<Outcome> {
  const bases = [ctx.n.base!, ...ctx.backups];
  const strictSSL = ctx.proxyChoice?.strictSSL ?? ctx.input.proxy?.strictSSL ?? true;
  const results = await Promise.all(bases.map((b) => probeHost(b, { token: ctx.token, dispatcher: ctx.dispatcher, viaProxy: ctx.viaProxyFor(b), strictSSL, timeoutMs: ctx.requestMs, now: ctx.now, signal: ctx.signal, extraHeaders: ctx.input.extraHeaders })));
  ctx.probes.push(...results);
  for (const p of results) ctx.noteHtml(p.error);
  const primary = results[0]!;
  const working = results.filter((p) => p.works);
  ctx.usedBase = working[0]?.base;
  const details = results.map((p, i) => describeProbe(p, i === 0 ? 'Primary' : `Backup ${i}`));
  const base = { httpStatus: primary.status, url: primary.url, details, durationMs: undefined, maskedToken: ctx.masked };
  if (primary.outcome === 'aborted') return { ...base, result: 'skipped', cause: ctx.stopped() ?? 'Cancelled.', fix: 'Run the diagnosis again.' };
  if (primary.works) return primaryWorks(results, base);
  const why = whyPrimaryFails(ctx, primary);
  if (working.length) {
    const w = working[0]!;
    return {
      ...base,
      retryAfterMs: why.retryAfterMs,
      result: 'warn',
      cause: `The primary ${primary.host} does not work: ${why.cause} The backup ${w.host} works (HTTP ${w.status}, first byte in ${w.firstByteMs} ms), so requests fail over to it; the rest of this diagnosis uses ${w.base}.`,
      fix: `Nothing is needed to keep working: requests go to the backup ${w.host}. To restore the primary ${primary.host}: ${why.fix.replace(/,? or configure a backup domain(?=\.?$)/, '')}`,
    };
  }
  if (primary.outcome === 'rate_limited') haltOn429(ctx, primary.error?.retryAfterMs, '');
  return {
    ...base,
    errorKind: primary.error?.kind,
    requestId: primary.error?.requestId,
    retryAfterMs: primary.error?.retryAfterMs,
    result: 'fail',
    cause: `${results.length > 1 ? 'No host works. ' : ''}${primary.host}: ${why.cause}`,
    fix: why.fix,
  };
}

export const reachabilityCheck: Check = {
  id: 'reachability',
  skip: (ctx) => (ctx.n.base ? undefined : { cause: 'No usable base URL, so no host was contacted.', fix: 'Fix the base URL first.' }),
  run,
};
