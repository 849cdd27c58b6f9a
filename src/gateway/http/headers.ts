/** Request headers per surface (spec section 9): the one place the auth and version headers are spelt. */
import type { Surface } from '../errors/gatewayError';
import { t } from '../l10n';

/** The native messages surface's version header value. */
export const NATIVE_VERSION = '2023-06-01';

export const USER_AGENT = 'model-relay-vscode/0.1';

/** Headers a caller's extra headers may never set (auth is ours; host and length are the transport's). */
const RESERVED = new Set(['authorization', 'x-api-key', 'host', 'content-length']);

/** An HTTP header name (RFC 9110 token). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** What is wrong with extra headers from the settings (a CR/LF would split the request): empty when fine. */
export function headerProblems(h: Record<string, string> | undefined): string[] {
  const out: string[] = [];
  for (const [name, value] of Object.entries(h ?? {})) {
    if (!HEADER_NAME.test(name))
      out.push(t('the header name {0} is not a valid HTTP header name', JSON.stringify(name)));
    else if (/[\r\n\0]/.test(String(value))) out.push(t('the value of {0} contains a line break or NUL', name));
  }
  return out;
}

export interface HeaderInput {
  surface: Surface;
  /** none: no auth header (a probe without a token) */
  token: string | undefined;
  accept: string;
  json?: boolean | undefined;
  extraHeaders?: Record<string, string> | undefined;
}

/** Auth per surface: `Authorization: Bearer` (compatible) or `x-api-key` + version headers (native). */
export function requestHeaders(o: HeaderInput): Record<string, string> {
  const h: Record<string, string> = { 'user-agent': USER_AGENT, accept: o.accept };
  for (const [k, v] of Object.entries(o.extraHeaders ?? {})) {
    const lk = k.toLowerCase();
    if (!RESERVED.has(lk)) h[lk] = v;
  }
  if (o.token === undefined) {
    /* no auth */
  } else if (o.surface === 'native') {
    h['x-api-key'] = o.token;
    h['native-version'] = NATIVE_VERSION;
    h['anthropic-version'] = NATIVE_VERSION;
  } else {
    h['authorization'] = `Bearer ${o.token}`;
  }
  if (o.json) h['content-type'] = 'application/json';
  return h;
}
