/**
 * Check 2's probe of one host: DNS, TCP (and TLS) connect, then `GET /v1/models` timed to the
 * first byte. When a proxy carries the request, DNS and the connection are the proxy's job, so only
 * the HTTP step is measured. Any HTTP answer from the API (even 401) means the host works.
 */
import { lookup } from 'node:dns/promises';
import { isIP, connect as netConnect } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { request, type Dispatcher } from 'undici';
import { USER_AGENT } from '../http/headers';
import { hostOf, joinUrl } from '../endpoint';
import { GatewayError, errorFromNetwork, errorFromResponse, looksLikeHtml, protocolError } from '../errors/gatewayError';
import { headerValue, readText } from '../http/transport';

export type HostOutcome = 'ok' | 'html' | 'rate_limited' | 'server_error' | 'http_error' | 'network' | 'timeout' | 'aborted';

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
  dispatcher: Dispatcher | undefined;
  viaProxy: boolean;
  strictSSL: boolean;
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
      timer = setTimeout(() => reject(Object.assign(new Error(`${what} timed out after ${ms} ms`), { code: 'ETIMEDOUT_PROBE' })), ms);
    }),
  ]);
}

function connectOnce(kind: 'tcp' | 'tls', host: string, servername: string, port: number, strictSSL: boolean, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const sock =
      kind === 'tls'
        ? tlsConnect({ host, port, servername: isIP(servername) ? undefined : servername, rejectUnauthorized: strictSSL, ALPNProtocols: ['http/1.1'] }, () => {
            sock.destroy();
            resolve();
          })
        : netConnect({ host, port }, () => {
            sock.destroy();
            resolve();
          });
    sock.setTimeout(timeoutMs, () => {
      sock.destroy();
      reject(Object.assign(new Error(`${kind.toUpperCase()} connect timed out after ${timeoutMs} ms`), { code: 'UND_ERR_CONNECT_TIMEOUT' }));
    });
    sock.once('error', (e) => {
      sock.destroy();
      reject(e);
    });
  });
}

export async function probeHost(base: string, o: ProbeOptions): Promise<HostProbe> {
  const url = joinUrl(base, '/v1/models');
  const host = hostOf(base);
  const out: HostProbe = { base, host, url, outcome: 'network', works: false, viaProxy: o.viaProxy };
  const context = { url, method: 'GET', surface: 'compatible' as const, token: o.token };
  const u = new URL(base);
  const hostname = u.hostname.replace(/^\[|\]$/g, '');
  const port = Number(u.port || (u.protocol === 'https:' ? 443 : 80));
  const stepMs = Math.min(o.timeoutMs, 10_000);
  const fail = (e: unknown, timedOut = false): HostProbe => {
    const aborted = !!o.signal?.aborted;
    out.error = errorFromNetwork(e, context, { aborted, timedOut, timeoutMs: timedOut ? stepMs : o.timeoutMs });
    out.error.host = host;
    out.outcome = aborted ? 'aborted' : out.error.kind === 'timeout' ? 'timeout' : 'network';
    return out;
  };

  if (!o.viaProxy) {
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
    const t1 = o.now();
    try {
      await connectOnce('tcp', address, hostname, port, o.strictSSL, stepMs);
      out.connectMs = o.now() - t1;
    } catch (e) {
      return fail(e, (e as { code?: string }).code === 'UND_ERR_CONNECT_TIMEOUT');
    }
    if (u.protocol === 'https:') {
      const t2 = o.now();
      try {
        await connectOnce('tls', address, hostname, port, o.strictSSL, stepMs);
        out.tlsMs = o.now() - t2;
      } catch (e) {
        return fail(e, (e as { code?: string }).code === 'UND_ERR_CONNECT_TIMEOUT');
      }
    }
  }

  const controller = new AbortController();
  const onAbort = () => controller.abort();
  o.signal?.addEventListener('abort', onAbort, { once: true });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, o.timeoutMs);
  const started = o.now();
  try {
    const headers: Record<string, string> = { 'user-agent': USER_AGENT, accept: 'application/json' };
    for (const [k, v] of Object.entries(o.extraHeaders ?? {})) if (!/^(authorization|x-api-key|host|content-length)$/i.test(k)) headers[k.toLowerCase()] = v;
    if (o.token) headers.authorization = `Bearer ${o.token}`;
    const res = await request(url, { method: 'GET', headers, signal: controller.signal, headersTimeout: o.timeoutMs, bodyTimeout: o.timeoutMs, ...(o.dispatcher ? { dispatcher: o.dispatcher } : {}) });
    out.firstByteMs = o.now() - started;
    out.status = res.statusCode;
    const text = await readText(res.body, 1024 * 1024);
    const ct = headerValue(res.headers, 'content-type');
    if (looksLikeHtml(text, ct)) {
      out.error = errorFromResponse({ status: res.statusCode, headers: res.headers, body: text, context });
      out.outcome = 'html';
    } else if (res.statusCode >= 200 && res.statusCode < 300) {
      try {
        out.body = JSON.parse(text);
        out.outcome = 'ok';
        out.works = true;
      } catch {
        out.error = protocolError('invalid_json', 'GET /v1/models', context, { status: res.statusCode });
        out.outcome = 'http_error';
      }
    } else {
      out.error = errorFromResponse({ status: res.statusCode, headers: res.headers, body: text, context, now: o.now() });
      if (res.statusCode === 429) out.outcome = 'rate_limited';
      else if (res.statusCode >= 500) out.outcome = 'server_error';
      else if (res.statusCode === 404 || res.statusCode === 405) out.outcome = 'http_error';
      else {
        // 401 / 403 / 400: the API itself answered; the token check explains the status.
        out.outcome = 'ok';
        out.works = true;
      }
    }
    if (out.error) out.error.host = host;
    return out;
  } catch (e) {
    const code = (e as { code?: string }).code;
    return fail(e, timedOut || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT');
  } finally {
    clearTimeout(timer);
    o.signal?.removeEventListener('abort', onAbort);
  }
}

/** One line per host for the report, e.g. "127.0.0.1:8799: DNS 1 ms, TCP 0 ms, first byte 3 ms, HTTP 200". */
export function describeProbe(p: HostProbe, role: string): string {
  const parts: string[] = [];
  if (p.viaProxy) parts.push('through the proxy');
  if (p.dnsMs !== undefined) parts.push(`DNS ${p.dnsMs} ms → ${p.address}`);
  if (p.connectMs !== undefined) parts.push(`TCP ${p.connectMs} ms`);
  if (p.tlsMs !== undefined) parts.push(`TLS ${p.tlsMs} ms`);
  if (p.firstByteMs !== undefined) parts.push(`first byte ${p.firstByteMs} ms`);
  if (p.status !== undefined) parts.push(`HTTP ${p.status}`);
  const verdict = p.works ? 'works' : p.outcome === 'html' ? 'answers with an HTML page, not the API' : p.error ? p.error.message : 'does not work';
  return `${role} ${p.base}: ${parts.length ? `${parts.join(', ')} — ` : ''}${verdict}`;
}
