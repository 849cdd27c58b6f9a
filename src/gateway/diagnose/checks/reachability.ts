/**
 * Check 2: every host (primary and backups) probed — DNS, connect, TLS, then GET /v1/models. A TLS
 * failure lists the trusted authorities; a loopback base URL under a remote VS Code is explained.
 */
import { tlsProblem } from '../../errors/fromNetwork';
import { t } from '../../l10n';
import { MODELS_PATH } from '../../models';
import type { Check } from '../check';
import type { DiagnosisContext, Reason } from '../context';
import { describeProbe, probeHost, type HostProbe } from '../hostProbe';
import { haltOn429, outcomeFromError, type Outcome } from '../outcomeFromError';
import { remoteLoopback, trustDetail } from './remote';

const hostList = (ps: HostProbe[]) => ps.map((p) => p.host).join(', ');

function primaryWorks(results: HostProbe[], base: Partial<Outcome>): Outcome {
  const primary = results[0];
  const broken = results.slice(1).filter((p) => !p.works);
  if (broken.length) {
    return {
      ...base,
      result: 'warn',
      cause: t(
        'The primary {0} works (first byte in {1} ms), but backup {2} does not: {3} Failing over to it would not help.',
        primary.host,
        primary.firstByteMs ?? 0,
        hostList(broken),
        broken.map((p) => p.error?.message ?? p.outcome).join(' '),
      ),
      fix: t('Check the backup domain list against the gateway console (root addresses, same path rules).'),
    };
  }
  return {
    ...base,
    result: 'pass',
    cause:
      results.length > 1
        ? t(
            'All {0} hosts work: the API answered GET {1} (HTTP {2}, first byte in {3} ms).',
            results.length,
            MODELS_PATH,
            primary.status ?? 0,
            primary.firstByteMs ?? 0,
          )
        : t(
            '{0} works: the API answered GET {1} (HTTP {2}, first byte in {3} ms).',
            primary.host,
            MODELS_PATH,
            primary.status ?? 0,
            primary.firstByteMs ?? 0,
          ),
    fix: '',
  };
}

/** Why the primary does not work, in the terms of its failure. */
function whyPrimaryFails(ctx: DiagnosisContext, primary: HostProbe): Reason & { retryAfterMs?: number | undefined } {
  const unreachable =
    (primary.outcome === 'network' || primary.outcome === 'timeout') && !(primary.error && tlsProblem(primary.error));
  const remote = unreachable ? remoteLoopback(ctx, primary.base) : undefined;
  if (remote) return { cause: `${remote.cause} ${primary.error?.reason ?? ''}`.trim(), fix: remote.fix };
  // A TLS-inspecting proxy's certificate is a certificate problem, not an unreachable proxy.
  if (primary.viaProxy && unreachable) {
    return {
      cause: t(
        'The request through the proxy {0} failed ({1}): the proxy is not reachable, or it could not connect to {2}.',
        ctx.proxyChoice?.display ?? '',
        primary.error?.message ?? primary.outcome,
        primary.host,
      ),
      fix: t(
        'Check the proxy address and that it allows connections to {0}, or add the host to the no-proxy list.',
        primary.host,
      ),
    };
  }
  if (primary.error) return outcomeFromError(ctx, primary.error);
  return { cause: t('The primary {0} did not answer as the API.', primary.host), fix: t('Check the base URL.') };
}

async function run(ctx: DiagnosisContext): Promise<Outcome> {
  const bases = [ctx.n.base!, ...ctx.backups];
  const strictSSL = ctx.proxyChoice?.strictSSL ?? ctx.input.proxy?.strictSSL ?? true;
  const trust = ctx.input.proxy ?? { env: {} };
  const results = await Promise.all(
    bases.map((b) =>
      probeHost(b, {
        token: ctx.token,
        scope: ctx.credentialScope,
        dispatcher: ctx.dispatcher,
        viaProxy: ctx.viaProxyFor(b),
        strictSSL,
        trust,
        timeoutMs: ctx.requestMs,
        now: ctx.now,
        signal: ctx.signal,
        extraHeaders: ctx.input.extraHeaders,
      }),
    ),
  );
  ctx.probes.push(...results);
  for (const p of results) ctx.noteHtml(p.error);
  const primary = results[0];
  const working = results.filter((p) => p.works);
  ctx.usedBase = working[0]?.base;
  const details = results.map((p, i) => describeProbe(p, i === 0 ? t('Primary') : t('Backup {0}', i)));
  const trusted = trustDetail(ctx, results.find((p) => p.error && tlsProblem(p.error))?.error);
  if (trusted) details.push(trusted);
  const remote = primary.works ? remoteLoopback(ctx, primary.base) : undefined;
  if (remote) details.push(remote.cause);
  const base = {
    httpStatus: primary.status,
    url: primary.url,
    details,
    durationMs: undefined,
    maskedToken: ctx.masked,
  };
  if (primary.outcome === 'aborted')
    return { ...base, result: 'skipped', cause: ctx.stopped() ?? t('Cancelled.'), fix: t('Run the diagnosis again.') };
  if (primary.works) return primaryWorks(results, base);
  const why = whyPrimaryFails(ctx, primary);
  if (working.length) {
    const w = working[0];
    return {
      ...base,
      retryAfterMs: why.retryAfterMs,
      result: 'warn',
      cause: t(
        'The primary {0} does not work: {1} The backup {2} works (HTTP {3}, first byte in {4} ms), so requests fail over to it; the rest of this diagnosis uses {5}.',
        primary.host,
        why.cause,
        w.host,
        w.status ?? 0,
        w.firstByteMs ?? 0,
        w.base,
      ),
      fix: t(
        'Nothing is needed to keep working: requests go to the backup {0}. To restore the primary {1}: {2}',
        w.host,
        primary.host,
        why.fix.replace(/,? or configure a backup domain(?=\.?$)/, ''),
      ),
    };
  }
  if (primary.outcome === 'rate_limited') haltOn429(ctx, primary.error?.retryAfterMs, '');
  return {
    ...base,
    errorKind: primary.error?.kind,
    requestId: primary.error?.requestId,
    retryAfterMs: primary.error?.retryAfterMs,
    result: 'fail',
    cause: results.length > 1 ? t('No host works. {0}: {1}', primary.host, why.cause) : `${primary.host}: ${why.cause}`,
    fix: why.fix,
  };
}

export const reachabilityCheck: Check = {
  id: 'reachability',
  skip: (ctx) =>
    ctx.n.base
      ? undefined
      : { cause: t('No usable base URL, so no host was contacted.'), fix: t('Fix the base URL first.') },
  run,
};
