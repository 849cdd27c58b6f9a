/**
 * Check 2's probe of one host: DNS, TCP (and TLS) connect, then `GET /v1/models` timed to the
 * first byte. When a proxy carries the request, DNS and the connection are the proxy's job, so only
 * the HTTP step is measured. Any HTTP answer from the API (even 401) means the host works.
 */
import { lookup } from 'node:dns/promises';
import { isIP, connect as netConnect } from 'node:net';
import { connect as tlsConnect, type SecureContext } from 'node:tls';
import type { Dispatcher } from 'undici';
import type { CredentialScope } from '../http/egress';
import { headerProblems, requestHeaders } from '../http/headers';
import { headerValue, readText, sendOnce, type Attempt, type Headers } from '../http/attempt';
import { hostOf, joinUrl } from '../endpoint';
import { GatewayError, type ErrorContext, type ErrorKind } from '../errors/gatewayError';
import { errorFromNetwork } from '../errors/fromNetwork';
import { errorFromResponse } from '../errors/fromResponse';
import { looksLikeHtml } from '../errors/errorBody';
import { invalidHeadersError, protocolError } from '../errors/factories';
import { trustContext, trustingAgent, type TrustSettings } from '../http/trust';
import { t } from '../l10n';
import { MODELS_PATH } from '../models';

/** What one probe found: fine, an HTML page, another HTTP answer, or one of the error kinds below. */
export type HostOutcome =
  | 'ok'
  | 'html'
  | 'http_error'
  | Extract<ErrorKind, 'rate_limited' | 'server_error' | 'network' | 'timeout' | 'aborted'>;

export interface HostProbe {
  base: string;
  host: string;
  url: string;
  outcome: HostOutcome;
  /** the API answered (any JSON answer other than 429/5xx/404): later checks may use this host */
  works: boolean;
  status?: number | undefined;
  address?: string | undefined;
  dnsMs?: number | undefined;
  connectMs?: number | undefined;
  tlsMs?: number | undefined;
  /** time until the response headers arrived */
  firstByteMs?: number | undefined;
  viaProxy: boolean;
  error?: GatewayError | undefined;
  /** the models list body when the answer was 200 JSON */
  body?: unknown;
}

export interface ProbeOptions {
  token: string | undefined;
  /** the origins the token may go to (the gateway's base and backups): the probed base must be one */
  scope: CredentialScope;
  dispatcher: Dispatcher | undefined;
  viaProxy: boolean;
  strictSSL: boolean;
  /** which CAs the TLS step trusts (the dispatcher's own trust): system store, NODE_EXTRA_CA_CERTS */
  trust?: TrustSettings | undefined;
  timeoutMs: number;
  now: () => number;
  signal?: AbortSignal | undefined;
  extraHeaders?: Record<string, string> | undefined;
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => {
      timer = setTimeout(
        () => reject(Object.assign(new Error(`${what} timed out after ${ms} ms`), { code: 'ETIMEDOUT_PROBE' })),
        ms,
      );
    }),
  ]);
}

function connectOnce(
  kind: 'tcp' | 'tls',
  host: string,
  servername: string,
  port: number,
  tls: { strictSSL: boolean; secureContext: SecureContext | undefined },
  timeoutMs: number,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const sock =
      kind === 'tls'
        ? tlsConnect(
            {
              host,
              port,
              servername: isIP(servername) ? undefined : servername,
              rejectUnauthorized: tls.strictSSL,
              secureContext: tls.secureContext,
              ALPNProtocols: ['http/1.1'],
            },
            () => {
              sock.destroy();
              resolve();
            },
          )
        : netConnect({ host, port }, () => {
            sock.destroy();
            resolve();
          });
    sock.setTimeout(timeoutMs, () => {
      sock.destroy();
      reject(
        Object.assign(new Error(`${kind.toUpperCase()} connect timed out after ${timeoutMs} ms`), {
          code: 'UND_ERR_CONNECT_TIMEOUT',
        }),
      );
    });
    sock.once('error', (e: Error) => {
      sock.destroy();
      reject(e);
    });
  });
}

/** DNS, TCP and TLS, each timed; returns the failed probe, or undefined when the host is reachable. */
async function connectSteps(
  u: URL,
  out: HostProbe,
  o: ProbeOptions,
  fail: (e: unknown, timedOut?: boolean) => HostProbe,
): Promise<HostProbe | undefined> {
  const hostname = u.hostname.replace(/^\[|\]$/g, '');
  const port = Number(u.port || (u.protocol === 'https:' ? 443 : 80));
  const stepMs = Math.min(o.timeoutMs, 10_000);
  let address = hostname;
  if (!isIP(hostname)) {
    const t0 = o.now();
    try {
      address = (await withTimeout(lookup(hostname), stepMs, 'DNS lookup')).address;
      out.dnsMs = o.now() - t0;
    } catch (e) {
      return fail(e, (e as { code?: string }).code === 'ETIMEDOUT_PROBE');
    }
  }
  out.address = address;
  const steps: Array<['tcp' | 'tls', 'connectMs' | 'tlsMs']> =
    u.protocol === 'https:'
      ? [
          ['tcp', 'connectMs'],
          ['tls', 'tlsMs'],
        ]
      : [['tcp', 'connectMs']];
  const tls = {
    strictSSL: o.strictSSL,
    secureContext: u.protocol === 'https:' ? trustContext(o.trust ?? {}) : undefined,
  };
  for (const [kind, field] of steps) {
    const started = o.now();
    try {
      await connectOnce(kind, address, hostname, port, tls, stepMs);
      out[field] = o.now() - started;
    } catch (e) {
      return fail(e, (e as { code?: string }).code === 'UND_ERR_CONNECT_TIMEOUT');
    }
  }
  return undefined;
}

/** Reads the answer of GET /v1/models into the probe: which outcome, and whether the API answered. */
function judgeAnswer(
  out: HostProbe,
  status: number,
  headers: Headers,
  text: string,
  context: ErrorContext,
  now: number,
): void {
  if (status >= 300 && status < 400) {
    // A redirect is not the API answering (and is never followed with the token).
    out.error = errorFromResponse({ status, headers, body: text, context, now });
    out.outcome = 'http_error';
  } else if (looksLikeHtml(text, headerValue(headers, 'content-type'))) {
    out.error = errorFromResponse({ status, headers, body: text, context });
    out.outcome = 'html';
  } else if (status >= 200 && status < 300) {
    try {
      out.body = JSON.parse(text);
      out.outcome = 'ok';
      out.works = true;
    } catch {
      out.error = protocolError('invalid_json', 'GET /v1/models', context, { status });
      out.outcome = 'http_error';
    }
  } else {
    out.error = errorFromResponse({ status, headers, body: text, context, now });
    if (status === 429) out.outcome = 'rate_limited';
    else if (status >= 500) out.outcome = 'server_error';
    else if (status === 404 || status === 405) out.outcome = 'http_error';
    else {
      // 401 / 403 / 400: the API itself answered; the token check explains the status.
      out.outcome = 'ok';
      out.works = true;
    }
  }
}

export async function probeHost(base: string, o: ProbeOptions): Promise<HostProbe> {
  const url = joinUrl(base, MODELS_PATH);
  const host = hostOf(base);
  const out: HostProbe = { base, host, url, outcome: 'network', works: false, viaProxy: o.viaProxy };
  const context: ErrorContext = { url, method: 'GET', surface: 'compatible', token: o.token };
  const fail = (e: unknown, timedOut = false): HostProbe => {
    const aborted = !!o.signal?.aborted;
    out.error = errorFromNetwork(e, context, {
      aborted,
      timedOut,
      timeoutMs: timedOut ? Math.min(o.timeoutMs, 10_000) : o.timeoutMs,
    });
    out.error.host = host;
    out.outcome = aborted ? 'aborted' : out.error.kind === 'timeout' ? 'timeout' : 'network';
    return out;
  };
  if (!o.viaProxy) {
    const failed = await connectSteps(new URL(base), out, o, fail);
    if (failed) return failed;
  }
  const badHeaders = headerProblems(o.extraHeaders);
  if (badHeaders.length) {
    out.error = invalidHeadersError(badHeaders, context);
    out.outcome = 'http_error';
    return out;
  }
  const started = o.now();
  let a: Attempt | undefined;
  try {
    a = await sendOnce({
      url,
      method: 'GET',
      headers: requestHeaders({ surface: 'compatible', accept: 'application/json' }),
      credential: { secret: o.token, scheme: 'bearer', scope: o.scope, headers: o.extraHeaders },
      addressFrom: host,
      dispatcher: o.dispatcher ?? (ownAgent ??= trustingAgent()),
      signal: o.signal,
      timeoutMs: o.timeoutMs,
      context,
    });
    out.firstByteMs = o.now() - started;
    out.status = a.status;
    judgeAnswer(out, a.status, a.headers, await readText(a.body, PROBE_BODY_LIMIT), context, o.now());
    if (out.error) out.error.host = host;
    return out;
  } catch (e) {
    if (e instanceof GatewayError) {
      out.error = e;
      e.host = host;
      out.outcome = e.kind === 'aborted' ? 'aborted' : e.kind === 'timeout' ? 'timeout' : 'network';
      return out;
    }
    return fail(e, a?.timedOut() || (e as { code?: string }).code === 'UND_ERR_BODY_TIMEOUT');
  } finally {
    a?.release();
  }
}

/** How much of the models list is read. */
const PROBE_BODY_LIMIT = 1024 * 1024;
/** Used when the caller gives no dispatcher (never undici's global one). */
let ownAgent: Dispatcher | undefined;

/** One line per host for the report, e.g. "127.0.0.1:8799: DNS 1 ms, TCP 0 ms, first byte 3 ms, HTTP 200". */
export function describeProbe(p: HostProbe, role: string): string {
  const parts: string[] = [];
  if (p.viaProxy) parts.push(t('through the proxy'));
  if (p.dnsMs !== undefined) parts.push(t('DNS {0} ms → {1}', p.dnsMs, p.address ?? ''));
  if (p.connectMs !== undefined) parts.push(t('TCP {0} ms', p.connectMs));
  if (p.tlsMs !== undefined) parts.push(t('TLS {0} ms', p.tlsMs));
  if (p.firstByteMs !== undefined) parts.push(t('first byte {0} ms', p.firstByteMs));
  if (p.status !== undefined) parts.push(`HTTP ${p.status}`);
  const verdict = p.works
    ? t('works')
    : p.outcome === 'html'
      ? t('answers with an HTML page, not the API')
      : p.error
        ? p.error.message
        : t('does not work');
  return `${role} ${p.base}: ${parts.length ? `${parts.join(', ')} — ` : ''}${verdict}`;
}
