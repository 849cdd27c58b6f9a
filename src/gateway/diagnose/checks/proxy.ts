/** Check 10: the proxy in use (setting or environment), the no-proxy list, and whether it carries requests. */
import { hostOf } from '../../endpoint';
import { t } from '../../l10n';
import type { Check } from '../check';
import type { DiagnosisContext } from '../context';
import type { HostProbe } from '../hostProbe';
import type { Outcome } from '../outcomeFromError';

/** The proxy as named in the report: its address and where it was configured. */
interface Named {
  display: string;
  where: string;
}

/** No proxy: requests go directly (or through the caller's own dispatcher). */
function direct(ctx: DiagnosisContext): Outcome {
  const cause =
    ctx.input.dispatcher && !ctx.input.proxy
      ? t("Requests went through the caller's own connection settings (no proxy description was given).")
      : t(
          'No proxy is configured (no proxy setting, no HTTPS_PROXY / HTTP_PROXY): requests go directly to the gateway.',
        );
  return { result: 'pass', cause, fix: '' };
}

function unusable({ display, where }: Named, invalid: string): Outcome {
  return {
    result: 'fail',
    cause: t(
      'The proxy "{0}" (from {1}) cannot be used: {2}. Requests go directly to the gateway, without it.',
      display,
      where,
      invalid,
    ),
    fix: t('Write the proxy as a URL with its scheme, e.g. http://proxy.example.com:8080, in {0}.', where),
  };
}

/** What the probes that went through the proxy found: every host bypasses it, one reached the gateway, or none did. */
function judgeProbes(ctx: DiagnosisContext, { display, where }: Named, details: string[]): Outcome {
  const through = ctx.probes.filter((p) => p.viaProxy);
  if (!through.length)
    return {
      result: 'pass',
      cause: t(
        'A proxy is configured ({0}, from {1}), but the gateway host is in the no-proxy list, so requests go directly.',
        display,
        where,
      ),
      fix: '',
      details,
    };
  const ok = through.filter((p) => p.works);
  if (ok.length) {
    const answers = ok
      .map((p) => t('{0} answered HTTP {1} in {2} ms', p.host, p.status ?? '?', p.firstByteMs ?? '?'))
      .join('; ');
    return {
      result: 'pass',
      httpStatus: ok[0].status,
      cause: t('Requests through the proxy {0} (from {1}) reach the gateway: {2}.', display, where, answers),
      fix: '',
      details,
    };
  }
  return failedThrough(through[0], { display, where }, details);
}

/** The first probe through the proxy did not get a working API answer. */
function failedThrough(p: HostProbe, { display, where }: Named, details: string[]): Outcome {
  if (p.outcome === 'network' || p.outcome === 'timeout')
    return {
      result: 'fail',
      url: p.url,
      errorKind: p.error?.kind,
      cause: t(
        'Requests through the proxy {0} (from {1}) do not reach the gateway: {2} The proxy itself is not reachable, or it cannot connect to {3}.',
        display,
        where,
        p.error?.message ?? p.outcome,
        p.host,
      ),
      fix: t(
        'Check the proxy address and that it allows connections to {0}; or add the gateway host to the no-proxy list (http.noProxy / NO_PROXY) if it must be reached directly.',
        p.host,
      ),
      details,
    };
  const cause = t(
    'Requests pass through the proxy {0} (from {1}) and get an answer (HTTP {2}), but not a working API answer: see the reachability check.',
    display,
    where,
    p.status ?? '?',
  );
  return {
    result: 'warn',
    httpStatus: p.status,
    url: p.url,
    cause,
    fix: t('If the answer is a proxy error page, check the proxy configuration.'),
    details,
  };
}

function run(ctx: DiagnosisContext): Outcome {
  const { proxyChoice, n } = ctx;
  if (!proxyChoice || proxyChoice.source === 'none') return direct(ctx);
  const named: Named = {
    display: proxyChoice.display ?? '',
    where:
      proxyChoice.source === 'setting' ? t('the http.proxy setting') : t('the HTTPS_PROXY / HTTP_PROXY environment'),
  };
  if (proxyChoice.invalid) return unusable(named, proxyChoice.invalid);
  const details = [
    t('Proxy: {0} (from {1})', named.display, named.where),
    t('No-proxy list: {0}', proxyChoice.noProxy ?? t('(none)')),
    proxyChoice.strictSSL ? t('Strict TLS: yes') : t('Strict TLS: no (self-signed certificates accepted)'),
  ];
  if (!n.base || !ctx.probes[0])
    return {
      result: 'skipped',
      cause: t('A proxy is in use ({0}, from {1}), but no host was contacted.', named.display, named.where),
      fix: '',
      details,
    };
  const bypassed = [n.base, ...ctx.backups].filter((b) => !ctx.viaProxyFor(b)).map(hostOf);
  if (bypassed.length) details.push(t('Bypassing the proxy (no-proxy): {0}', bypassed.join(', ')));
  return judgeProbes(ctx, named, details);
}

export const proxyCheck: Check = { id: 'proxy', run };
