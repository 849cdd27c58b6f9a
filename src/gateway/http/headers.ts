/** Request headers per surface (spec section 9): the version headers, and which way the token travels (egress.ts attaches it). */
import type { Surface } from '../errors/gatewayError';
import { t } from '../l10n';
import type { CredentialScheme } from './egress';

/** The native messages surface's version header value. */
export const NATIVE_VERSION = '2023-06-01';

export const USER_AGENT = 'model-relay-vscode/0.1';

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
  accept: string;
  json?: boolean | undefined;
}

/**
 * The headers of a gateway request that carry no credential: the agent, what is accepted, the body's
 * type, and the native surface's version headers. The token and the profile's extra headers are
 * attached by the credential gate (egress.ts), only where they may go.
 */
export function requestHeaders(o: HeaderInput): Record<string, string> {
  const h: Record<string, string> = { 'user-agent': USER_AGENT, accept: o.accept };
  if (o.surface === 'native') {
    h['native-version'] = NATIVE_VERSION;
    h['anthropic-version'] = NATIVE_VERSION;
  }
  if (o.json) h['content-type'] = 'application/json';
  return h;
}

/** How the token travels on a surface: `x-api-key` on native messages, else `Authorization: Bearer`. */
export function credentialScheme(surface: Surface, inQuery = false): CredentialScheme {
  return inQuery ? 'query-key' : surface === 'native' ? 'x-api-key' : 'bearer';
}
