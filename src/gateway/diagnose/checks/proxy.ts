/** Check 10: the proxy in use (setting or environment), the no-proxy list, and whether it carries requests. */
import { hostOf } from '../../endpoint';
import type { Check } from '../check';
import type { DiagnosisContext } from '../context';
import type { Outcome } from '../outcomeFromError';

function run(ctx: DiagnosisContext): Outcome {
  const { proxyChoice, input, n } = ctx;
  const primary = ctx.probes[0];
  if (!proxyChoice || proxyChoice.source === 'none') {
    const cause = input.dispatcher && !input.proxy ? 'Requests went through the caller\'s own connection settings (no proxy description was given).' : 'No proxy is configured (no proxy setting, no HTTPS_PROXY / HTTP_PROXY): requests go directly to the gateway.';
    return { result: 'pass', cause, fix: '' };
  }
  const where = proxyChoice.source === 'setting' ? 'the http.proxy setting' : 'the HTTPS_PROXY / HTTP_PROXY environment';
  if (proxyChoice.invalid) {
    return {
      result: 'fail',
      cause: `The proxy "${proxyChoice.display}" (from ${where}) cannot be used: ${proxyChoice.invalid}. Requests go directly to the gateway, without it.`,
      fix: `Write the proxy as a URL with its scheme, e.g. http://proxy.example.com:8080, in ${where}.`,
    };
  }
  const proxy = `${proxyChoice.display}, from ${where}`;
  const details = [`Proxy: ${proxyChoice.display} (from ${where})`, `No-proxy list: ${proxyChoice.noProxy ?? '(none)'}`, `Strict TLS: ${proxyChoice.strictSSL ? 'yes' : 'no (self-signed certificates accepted)'}`];
  if (!n.base || !primary) return { result: 'skipped', cause: `A proxy is in use (${proxy}), but no host was contacted.`, fix: '', details };
  const bypassed = [n.base, ...ctx.backups].filter((b) => !ctx.viaProxyFor(b)).map(hostOf);
  if (bypassed.length) details.push(`Bypassing the proxy (no-proxy): ${bypassed.join(', ')}`);
  const through = ctx.probes.filter((p) => p.viaProxy);
  if (!through.length) return { result: 'pass', cause: `A proxy is configured (${proxy}), but the gateway host is in the no-proxy list, so requests go directly.`, fix: '', details };
  const ok = through.filter((p) => p.works);
  if (ok.length) {
    return { result: 'pass', httpStatus: ok[0]!.status, cause: `Requests through the proxy ${proxyChoice.display} (from ${where}) reach the gateway: ${ok.map((p) => `${p.host} answered HTTP ${p.status} in ${p.firstByteMs} ms`).join('; ')}.`, fix: '', details };
  }
  const p = through[0]!;
  if (p.outcome === 'network' || p.outcome === 'timeout') {
    return {
      result: 'fail',
      url: p.url,
      errorKind: p.error?.kind,
      cause: `Requests through the proxy ${proxyChoice.display} (from ${where}) do not reach the gateway: ${p.error?.message ?? p.outcome} The proxy itself is not reachable, or it cannot connect to ${p.host}.`,
      fix: `Check the proxy address and that it allows connections to ${p.host}; or add the gateway host to the no-proxy list (http.noProxy / NO_PROXY) if it must be reached directly.`,
      details,
    };
  }
  return { result: 'warn', httpStatus: p.status, url: p.url, cause: `Requests pass through the proxy ${proxyChoice.display} (from ${where}) and get an answer (HTTP ${p.status ?? '?'}), but not a working API answer: see the reachability check.`, fix: 'If the answer is a proxy error page, check the proxy configuration.', details };
}

export const proxyCheck: Check = { id: 'proxy', run };
