/**
 * Proxy selection for the core. undici does not go through VS Code's proxy support, so the
 * extension passes its settings (http.proxy, http.proxyStrictSSL, http.noProxy) and the process
 * environment here and hands the resulting dispatcher to the client. Never a global dispatcher.
 */
import { Agent, EnvHttpProxyAgent, ProxyAgent, type Dispatcher } from 'undici';

export interface ProxySettings {
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
    return '(invalid proxy URL)';
  }
}

/** Describes which proxy applies, without creating anything. */
export function describeProxy(s: ProxySettings): ProxyChoice {
  const env = s.env ?? process.env;
  const strictSSL = s.strictSSL ?? true;
  const settingNoProxy = s.noProxy && s.noProxy.length ? s.noProxy.join(',') : undefined;
  const noProxy = settingNoProxy ?? envVar(env, 'NO_PROXY');
  if (s.proxy && s.proxy.trim()) return { source: 'setting', display: redactCredentials(s.proxy.trim()), noProxy, strictSSL };
  const fromEnv = envVar(env, 'HTTPS_PROXY') ?? envVar(env, 'HTTP_PROXY');
  if (fromEnv) return { source: 'environment', display: redactCredentials(fromEnv), noProxy, strictSSL };
  return { source: 'none', display: undefined, noProxy, strictSSL };
}

/**
 * Builds the dispatcher for the core: a proxy agent when a proxy is configured (honouring no-proxy
 * rules), else a plain agent; `strictSSL: false` accepts self-signed certificates (as VS Code does).
 */
export function createDispatcher(s: ProxySettings): Dispatcher {
  const env = s.env ?? process.env;
  const choice = describeProxy(s);
  const tls = { rejectUnauthorized: choice.strictSSL };
  if (choice.source === 'setting') {
    const uri = s.proxy!.trim();
    if (choice.noProxy) {
      return new EnvHttpProxyAgent({ httpProxy: uri, httpsProxy: uri, noProxy: choice.noProxy, connect: tls, requestTls: tls, proxyTls: tls });
    }
    return new ProxyAgent({ uri, requestTls: tls, proxyTls: tls });
  }
  if (choice.source === 'environment') {
    const httpProxy = envVar(env, 'HTTP_PROXY') ?? envVar(env, 'HTTPS_PROXY');
    const httpsProxy = envVar(env, 'HTTPS_PROXY') ?? envVar(env, 'HTTP_PROXY');
    return new EnvHttpProxyAgent({ ...(httpProxy ? { httpProxy } : {}), ...(httpsProxy ? { httpsProxy } : {}), noProxy: choice.noProxy ?? '', connect: tls, requestTls: tls, proxyTls: tls });
  }
  return new Agent({ connect: tls });
}
