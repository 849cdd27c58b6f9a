/**
 * Copy Gateway Link and the URI handler: a gateway shared without its token as
 * `vscode://<publisher>.<name>/addGateway?name=…&baseUrl=…&backupUrl=…&header=Name%3A%20value`.
 * The link never carries a credential: encoding leaves out a header named like one or whose value
 * looks like a token (and says which); decoding refuses a link with one, a `token` parameter, an
 * address that is not http(s), too many parts or too many characters — each with a sentence the
 * handler shows. Plain Node.
 */
import { normalizeBaseUrl } from '../../gateway/endpoint';
import { t } from '../../gateway/l10n';
import { MAX_BACKUPS, suggestGatewayName, type GatewayProfile } from '../../gateway/gateways/profile';

export const GATEWAY_LINK_PATH = '/addGateway';
/** a link longer than this (its query, in characters) is refused unread */
export const MAX_LINK_QUERY = 8192;
export const MAX_LINK_HEADERS = 16;

/** What a link carries: everything of a profile but its id (the receiver picks one) and its models. */
export type SharedGateway = Pick<GatewayProfile, 'name' | 'baseUrl' | 'backupUrls' | 'extraHeaders'>;

const CREDENTIAL_HEADERS = /^(authorization|proxy-authorization|x-api-key|api-key|cookie|x-auth-token)$/i;

/** Whether a header would hand over a credential: its name says so, or its value looks like a token. */
export function isCredentialHeader(name: string, value: string): boolean {
  const v = value.trim();
  return (
    CREDENTIAL_HEADERS.test(name.trim()) ||
    /\bsk-[A-Za-z0-9_-]{8,}/i.test(v) ||
    /^(bearer|basic|token)\s+\S/i.test(v) ||
    // a long opaque value (no spaces, letters and digits mixed) is treated as a secret
    (v.length >= 24 && /^[A-Za-z0-9_+/=.-]+$/.test(v) && /[0-9]/.test(v) && /[A-Za-z]/.test(v))
  );
}

/** The link for `g` after `prefix` (`vscode://model-relay.model-relay`), and the headers left out. */
export function encodeGatewayLink(prefix: string, g: SharedGateway): { uri: string; leftOut: string[] } {
  const q = new URLSearchParams();
  q.append('name', g.name);
  q.append('baseUrl', g.baseUrl);
  for (const b of g.backupUrls ?? []) q.append('backupUrl', b);
  const leftOut: string[] = [];
  for (const [name, value] of Object.entries(g.extraHeaders ?? {}))
    if (isCredentialHeader(name, value)) leftOut.push(name);
    else q.append('header', `${name}: ${value}`);
  return { uri: `${prefix}${GATEWAY_LINK_PATH}?${q.toString()}`, leftOut };
}

export type DecodedLink = { ok: true; gateway: SharedGateway } | { ok: false; problem: string };

const refuse = (problem: string): DecodedLink => ({ ok: false, problem });

/** An address a link may carry: http(s) only, usable by the endpoint rules; a sentence when not. */
function addressProblem(url: string): string | undefined {
  let scheme: string;
  try {
    scheme = new URL(url).protocol;
  } catch {
    return t('The link was refused: "{0}" is not an address.', url.slice(0, 200));
  }
  if (scheme !== 'http:' && scheme !== 'https:')
    return t('The link was refused: it may only carry http or https addresses, not {0}.', scheme);
  if (!normalizeBaseUrl(url).base) return t('The link was refused: "{0}" is not a usable base URL.', url.slice(0, 200));
  return undefined;
}

/** Reads a link's query (URI handler): what it would add, or why it is refused. */
export function decodeGatewayLink(query: string): DecodedLink {
  if (query.length > MAX_LINK_QUERY)
    return refuse(t('The link was refused: it is longer than {0} characters.', MAX_LINK_QUERY));
  const q = new URLSearchParams(query);
  if (q.has('token') || q.has('apiKey') || q.has('key'))
    return refuse(t('The link was refused: it carries a token. A gateway link never does; ask for a new link.'));
  const baseUrl = q.get('baseUrl')?.trim() ?? '';
  if (!baseUrl) return refuse(t('The link was refused: it carries no base URL.'));
  const backupUrls = q
    .getAll('backupUrl')
    .map((u) => u.trim())
    .filter(Boolean);
  if (backupUrls.length > MAX_BACKUPS)
    return refuse(t('The link was refused: it carries more than {0} backup addresses.', MAX_BACKUPS));
  for (const u of [baseUrl, ...backupUrls]) {
    const p = addressProblem(u);
    if (p) return refuse(p);
  }
  const headers = q.getAll('header');
  if (headers.length > MAX_LINK_HEADERS)
    return refuse(t('The link was refused: it carries more than {0} headers.', MAX_LINK_HEADERS));
  const extraHeaders: Record<string, string> = {};
  for (const h of headers) {
    const at = h.indexOf(':');
    const name = (at > 0 ? h.slice(0, at) : '').trim();
    if (!/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,64}$/.test(name))
      return refuse(t('The link was refused: one of its headers is not "Name: value".'));
    const value = h.slice(at + 1).trim();
    if (isCredentialHeader(name, value))
      return refuse(t('The link was refused: its header {0} carries a credential. A gateway link never does.', name));
    extraHeaders[name] = value;
  }
  const name = (q.get('name') ?? '').trim().slice(0, 80) || suggestGatewayName(baseUrl);
  return {
    ok: true,
    gateway: {
      name,
      baseUrl,
      ...(backupUrls.length ? { backupUrls } : {}),
      ...(Object.keys(extraHeaders).length ? { extraHeaders } : {}),
    },
  };
}
