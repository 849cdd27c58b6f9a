/**
 * Proxy selection for the core. undici does not go through VS Code's proxy support, so the
 * extension passes its settings (http.proxy, http.proxyStrictSSL, http.noProxy,
 * http.systemCertificates) and the process environment here and hands the resulting dispatcher to
 * the client. Which CAs are trusted is trust.ts's. Never a global dispatcher.
 */
import { Dispatcher, ProxyAgent } from 'undici';
import { t } from '../l10n';
import { stripUrlCredentials } from '../mask';
import { preconnect, registerPreconnect, WarmAgent } from './spareConnection';
import { trustContext, trustingConnector, type TrustSettings } from './trust';

export interface ProxySettings extends TrustSettings {
  /** VS Code's `http.proxy` (empty: use the environment) */
  proxy?: string | undefined;
  /** VS Code's `http.proxyStrictSSL` (default true) */
  strictSSL?: boolean | undefined;
  /** VS Code's `http.noProxy` */
  noProxy?: readonly string[] | undefined;
  /** the environment to read HTTPS_PROXY / HTTP_PROXY / NO_PROXY from */
  env?: Record<string, string | undefined>;
}

export interface ProxyChoice {
  /** where the proxy setting came from */
  source: 'setting' | 'environment' | 'none';
  /** the proxy URL with any credentials removed, for display */
  display: string | undefined;
  noProxy: string | undefined;
  strictSSL: boolean;
  /** why the configured proxy cannot be used (requests then go directly), e.g. a URL without scheme */
  invalid?: string | undefined;
}

function envVar(env: Record<string, string | undefined>, name: string): string | undefined {
  return env[name] || env[name.toLowerCase()] || undefined;
}

function redactCredentials(u: string): string {
  try {
    const url = new URL(u);
    if (url.username || url.password) {
      url.username = url.username ? '***' : '';
      url.password = url.password ? '***' : '';
    }
    return url.toString().replace(/\/$/, '');
  } catch {
    return t('(invalid proxy URL)');
  }
}

/** Why a proxy URL cannot be used, or undefined when it can (http: or https: with a host). */
function proxyUrlProblem(u: string): string | undefined {
  let url: URL;
  try {
    url = new URL(u);
  } catch {
    return t('it is not a URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return t(
      'it must start with http:// or https:// (e.g. http://{0})',
      hideUserinfo(u)
        .replace(/^[a-z][a-z0-9+.-]*:\/\//i, '')
        .replace(/^\*\*\*@/, ''),
    );
  return url.hostname ? undefined : t('it names no host');
}

/** A proxy value as shown: credentials hidden, also when it has no scheme (`user:pw@host:port`). */
function hideUserinfo(u: string): string {
  return stripUrlCredentials(u).replace(/^[^/@\s]*@/, '***@');
}

function choice(
  source: 'setting' | 'environment',
  uri: string,
  base: Omit<ProxyChoice, 'source' | 'display'>,
): ProxyChoice {
  const problem = proxyUrlProblem(uri);
  return {
    source,
    display: problem ? hideUserinfo(uri) : redactCredentials(uri),
    ...base,
    ...(problem ? { invalid: problem } : {}),
  };
}

/** Describes which proxy applies, without creating anything. */
export function describeProxy(s: ProxySettings): ProxyChoice {
  const env = s.env ?? process.env;
  const strictSSL = s.strictSSL ?? true;
  const settingNoProxy = s.noProxy && s.noProxy.length ? s.noProxy.join(',') : undefined;
  const noProxy = settingNoProxy ?? envVar(env, 'NO_PROXY');
  if (s.proxy && s.proxy.trim()) return choice('setting', s.proxy.trim(), { noProxy, strictSSL });
  const fromEnv = envVar(env, 'HTTPS_PROXY') ?? envVar(env, 'HTTP_PROXY');
  if (!fromEnv) return { source: 'none', display: undefined, noProxy, strictSSL };
  const c = choice('environment', fromEnv, { noProxy, strictSSL });
  // Both variables are used (per scheme): either one unusable means no proxy at all.
  const other = envVar(env, 'HTTP_PROXY');
  const otherProblem = other && other !== fromEnv ? proxyUrlProblem(other) : undefined;
  return otherProblem && !c.invalid ? { ...c, display: hideUserinfo(other!), invalid: otherProblem } : c;
}

/** A no-proxy entry as name and optional port: `[::1]:80`, `::1` (bare IPv6, no port), `a.com:8443`. */
function splitEntry(entry: string): [string, string | undefined] {
  const v6 = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
  if (v6) return [v6[1], v6[2]];
  if (entry.indexOf(':') !== entry.lastIndexOf(':')) return [entry, undefined];
  const [name, port] = entry.split(':');
  return [name, port && /^\d+$/.test(port) ? port : undefined];
}

/**
 * Whether `host` (`name` or `name:port`, IPv6 in brackets) bypasses the proxy under a no-proxy list
 * (comma or space separated): `*` matches everything; an entry matches the name itself and its
 * subdomains (`example.com`, `.example.com` and `*.example.com` alike); `name:port` only that port.
 * The dispatcher and the diagnosis both ask this one function.
 */
export function bypassesProxy(host: string, noProxy: string | undefined): boolean {
  if (!noProxy) return false;
  const m = /^\[?([^\]]+?)\]?(?::(\d+))?$/.exec(host);
  const name = m?.[1]?.toLowerCase() ?? host.toLowerCase();
  const port = m?.[2];
  for (const raw of noProxy.split(/[,\s]+/)) {
    const entry = raw.trim().toLowerCase();
    if (!entry) continue;
    if (entry === '*') return true;
    const [eName, ePort] = splitEntry(entry);
    if (ePort && ePort !== port) continue;
    const bare = eName.replace(/^\*?\./, '');
    if (name === bare || name.endsWith(`.${bare}`)) return true;
  }
  return false;
}

/** The `host:port` of an origin, with the scheme's default port filled in (what no-proxy entries name). */
export function hostPort(origin: string | URL): string {
  const u = typeof origin === 'string' ? new URL(origin) : origin;
  return `${u.hostname}:${u.port || (u.protocol === 'https:' ? '443' : '80')}`;
}

/** Routes each request by its origin: directly when the no-proxy list says so, else through a proxy. */
class NoProxyRouter extends Dispatcher {
  /** the proxy agents, made on first use (their TLS options read the trusted CAs) */
  private readonly made: { http?: ProxyAgent; https?: ProxyAgent } = {};

  constructor(
    private readonly direct: WarmAgent,
    private readonly makeProxy: (scheme: 'http' | 'https') => ProxyAgent,
    private readonly noProxy: string | undefined,
  ) {
    super();
    // a spare connection only where requests go direct; a proxy's tunnels are its own
    registerPreconnect(this, (origin) => {
      if (this.goesDirect(origin)) preconnect(direct, origin);
    });
  }

  private proxy(scheme: 'http' | 'https'): ProxyAgent {
    return (this.made[scheme] ??= this.makeProxy(scheme));
  }

  private madeProxies(): ProxyAgent[] {
    return [this.made.http, this.made.https].filter((p): p is ProxyAgent => !!p);
  }

  /** Whether requests to `u` bypass the proxy (the no-proxy list names its host). */
  private goesDirect(u: URL): boolean {
    return bypassesProxy(hostPort(u), this.noProxy);
  }

  private route(origin: string | URL | undefined): Dispatcher {
    if (!origin) return this.direct;
    const u = typeof origin === 'string' ? new URL(origin) : origin;
    if (this.goesDirect(u)) return this.direct;
    return this.proxy(u.protocol === 'https:' ? 'https' : 'http');
  }

  override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    return this.route(options.origin).dispatch(options, handler);
  }

  override async close(): Promise<void> {
    await Promise.all([this.direct.close(), ...this.madeProxies().map((p) => p.close())]);
  }

  override destroy(): Promise<void>;
  override destroy(err: Error | null): Promise<void>;
  override destroy(err: Error | null, callback: () => void): void;
  override destroy(callback: () => void): void;
  override destroy(a?: Error | null | (() => void), b?: () => void): Promise<void> | void {
    const err = typeof a === 'function' ? null : (a ?? null);
    const done = Promise.all([this.direct.destroy(err), ...this.madeProxies().map((p) => p.destroy(err))]).then(
      () => undefined,
    );
    const callback = typeof a === 'function' ? a : b;
    if (!callback) return done;
    void done.then(callback, callback);
  }
}

/**
 * Builds the dispatcher for the core: a router over a proxy agent (per scheme) and a direct agent
 * when a proxy is configured — the no-proxy list decided by {@link bypassesProxy} — else a plain
 * agent; `strictSSL: false` accepts self-signed certificates (as VS Code does). Every TLS connection
 * (to the gateway and to an https proxy) trusts Node's roots, the system store and NODE_EXTRA_CA_CERTS.
 */
export function createDispatcher(s: ProxySettings): Dispatcher {
  const env = s.env ?? process.env;
  const chosen = describeProxy(s);
  const direct = new WarmAgent(trustingConnector({ ...s, env }, chosen.strictSSL));
  // A proxy that cannot be used (e.g. `proxy.corp:8080`, no scheme): direct, and every caller says so.
  if (chosen.source === 'none' || chosen.invalid) return direct;
  const setting = chosen.source === 'setting' ? s.proxy!.trim() : undefined;
  const httpUri = setting ?? (envVar(env, 'HTTP_PROXY') ?? envVar(env, 'HTTPS_PROXY'))!;
  const httpsUri = setting ?? (envVar(env, 'HTTPS_PROXY') ?? envVar(env, 'HTTP_PROXY'))!;
  const makeProxy = (scheme: 'http' | 'https') => {
    const tls = { rejectUnauthorized: chosen.strictSSL, secureContext: trustContext({ ...s, env }) };
    return new ProxyAgent({ uri: scheme === 'https' ? httpsUri : httpUri, requestTls: tls, proxyTls: tls });
  };
  return new NoProxyRouter(direct, makeProxy, chosen.noProxy);
}
