/**
 * The one door a credential goes out by (issue 36 §1). A gateway's token — and the extra headers of
 * its profile, which may carry credentials too (an access proxy's secret) — goes only to the origins
 * the user configured for that gateway: its base URL and backup domains, from user settings, the
 * gateways file or the `MODEL_RELAY_*` environment. Whoever else names an address (a repository's
 * tool file, a tool's own settings, a redirect, a server's answer) cannot add an origin here.
 *
 * Every request of the product is sent by `sendOnce` (attempt.ts), and `sendOnce` asks `admitRequest`
 * before a byte is sent: a credential bound for an origin outside its scope is refused with a
 * classified error naming the address and where it came from, a token no header can carry (more than
 * one line: tokenShape.ts) is refused as malformed, and a credential header set anywhere but here is
 * refused as a defect. The credential headers are spelt only in this file (a lint test
 * greps the source for them).
 */
import { inputError } from '../errors/factories';
import type { ErrorContext, GatewayError } from '../errors/gatewayError';
import { t } from '../l10n';
import { unsendableTokenError } from '../tokenShape';

/** How a credential travels: a Bearer header, an `x-api-key` / `x-goog-api-key` header, or `?key=` in the query. */
export type CredentialScheme = 'bearer' | 'x-api-key' | 'x-goog-api-key' | 'query-key';

/** The origins one gateway's credentials may go to, with the gateway's name for the error. */
export class CredentialScope {
  private readonly allowed: ReadonlySet<string>;

  /** `bases`: the gateway's base URL and backup domains as the user configured them (never a tool's or a server's). */
  constructor(
    readonly gateway: string,
    bases: readonly string[],
  ) {
    this.allowed = new Set(bases.map(originOf).filter((o): o is string => !!o));
  }

  /** The allowed origins, e.g. `https://gw.example.com`. */
  get origins(): string[] {
    return [...this.allowed];
  }

  /** Whether a request to `url` may carry this gateway's credentials. */
  allows(url: string): boolean {
    const o = originOf(url);
    return !!o && this.allowed.has(o);
  }
}

/** The credential of one request and the scope it belongs to. */
export interface Credential {
  /** none: only the profile's headers (a probe without a token) */
  secret?: string | undefined;
  scheme: CredentialScheme;
  scope: CredentialScope;
  /** the profile's extra headers: attached only where the secret may go */
  headers?: Readonly<Record<string, string>> | undefined;
}

/** `scheme://host[:port]` of an http(s) URL (lower-cased host, default port dropped); undefined for anything else. */
export function originOf(url: string): string | undefined {
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.origin : undefined;
  } catch {
    return undefined;
  }
}

/** Header names that carry a credential: set only by `admitRequest`. */
const CREDENTIAL_HEADER =
  /^(authorization|proxy-authorization|x-api-key|x-goog-api-key|api-key|cookie|x-auth-token|x-goog-api-client-secret)$/i;

/** What the profile's extra headers may never set: the token's headers, and the transport's host and length. */
const GATE_OWNED = new Set(['authorization', 'x-api-key', 'host', 'content-length']);

/** Whether a header name carries a credential (the profile's extra headers may not set these; `admitRequest` refuses them elsewhere). */
export function isCredentialHeader(name: string): boolean {
  return CREDENTIAL_HEADER.test(name);
}

/** The refusal: the address, where it came from, and what to do. Never sent, never retried, never failed over. */
function credentialElsewhereError(
  url: string,
  addressFrom: string,
  scope: CredentialScope,
  context: ErrorContext,
): GatewayError {
  const origin = originOf(url) ?? url.slice(0, 200);
  return inputError(
    t(
      'Refused to send the token of {0} to {1} (named in {2}): a token goes only to its own gateway ({3}).',
      scope.gateway,
      origin,
      addressFrom,
      scope.origins.join(', ') || t('no address configured'),
    ),
    t(
      'If {0} is your gateway, add it as its base URL or a backup domain in your user settings; otherwise remove it from {1}.',
      origin,
      addressFrom,
    ),
    { ...context, url: origin },
    'credential_elsewhere',
  );
}

/**
 * The request as it goes out: the URL and headers with the credential attached, when the URL's
 * origin is in the credential's scope. Throws `credentialElsewhereError` otherwise, and a defect
 * error when a credential header was set by the caller (only this function attaches them).
 */
export function admitRequest(
  o: { url: string; headers: Record<string, string>; credential?: Credential | undefined; addressFrom?: string },
  context: ErrorContext,
): { url: string; headers: Record<string, string> } {
  const set = Object.keys(o.headers).filter(isCredentialHeader);
  if (set.length)
    throw inputError(
      t('A credential header ({0}) was set outside the credential gate; the request was not sent.', set.join(', ')),
      t('This is a defect in Model Relay: please report it.'),
      context,
    );
  const c = o.credential;
  if (!c) return o;
  if (!c.scope.allows(o.url))
    throw credentialElsewhereError(o.url, o.addressFrom ?? t('the request'), c.scope, context);
  const headers = { ...o.headers };
  for (const [k, v] of Object.entries(c.headers ?? {}))
    if (!GATE_OWNED.has(k.toLowerCase())) headers[k.toLowerCase()] = v;
  if (c.secret === undefined) return { url: o.url, headers };
  // A token no header can carry (two lines pasted together): refused here, not by the HTTP layer as a network fault.
  const malformed = unsendableTokenError(c.secret, context);
  if (malformed) throw malformed;
  switch (c.scheme) {
    case 'bearer':
      headers['authorization'] = `Bearer ${c.secret}`;
      return { url: o.url, headers };
    case 'x-api-key':
      headers['x-api-key'] = c.secret;
      return { url: o.url, headers };
    case 'x-goog-api-key':
      headers['x-goog-api-key'] = c.secret;
      return { url: o.url, headers };
    case 'query-key':
      return { url: `${o.url}${o.url.includes('?') ? '&' : '?'}key=${encodeURIComponent(c.secret)}`, headers };
  }
}
