/**
 * Copy Gateway Link and the URI handler: a gateway shared without its token as
 * `vscode://<publisher>.<name>/addGateway?gateway=<base64url of {"name","baseUrl","backupUrls","headers"}>`.
 * One base64url parameter, because VS Code hands a URI handler the query already percent-decoded: a
 * header value with `&`, `=`, `+` or `%` would not survive separate parameters.
 * The link never carries a credential: encoding leaves out a header named like one or whose value
 * looks like a token (and says which); decoding refuses a link with one, a token field, an address
 * that is not http(s), too many parts or too many characters — each with a sentence the handler
 * shows. Plain Node.
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

/** What the `gateway` parameter holds, as JSON. */
interface LinkPayload {
  name: string;
  baseUrl: string;
  backupUrls?: string[];
  headers?: Record<string, string>;
}

/** The `gateway` parameter's value for a payload (also what tests build refused links with). */
export const linkParam = (payload: unknown): string =>
  `gateway=${Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url')}`;

/** The link for `g` after `prefix` (`vscode://model-relay.model-relay`), and the headers left out. */
export function encodeGatewayLink(prefix: string, g: SharedGateway): { uri: string; leftOut: string[] } {
  const leftOut: string[] = [];
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(g.extraHeaders ?? {}))
    if (isCredentialHeader(name, value)) leftOut.push(name);
    else headers[name] = value;
  const payload: LinkPayload = {
    name: g.name,
    baseUrl: g.baseUrl,
    ...(g.backupUrls?.length ? { backupUrls: g.backupUrls } : {}),
    ...(Object.keys(headers).length ? { headers } : {}),
  };
  return { uri: `${prefix}${GATEWAY_LINK_PATH}?${linkParam(payload)}`, leftOut };
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

const TOKEN_FIELDS = /^(token|tokens|apikey|api_key|key|secret|password|authorization)$/i;

/** The link's JSON payload, or why it cannot be read. */
function payloadOf(query: string): { payload: Record<string, unknown> } | { problem: string } {
  const raw = new URLSearchParams(query).get('gateway');
  if (!raw) return { problem: t('The link was refused: it carries no base URL.') };
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    return { problem: t('The link was refused: it is damaged (cut off or changed).') };
  }
  if (!payload || typeof payload !== 'object' || Array.isArray(payload))
    return { problem: t('The link was refused: it is damaged (cut off or changed).') };
  return { payload: payload as Record<string, unknown> };
}

const strings = (v: unknown): string[] | undefined =>
  v === undefined ? [] : Array.isArray(v) && v.every((x) => typeof x === 'string') ? v : undefined;

/** The headers a link carries, or why it is refused (a credential, too many, not text). */
function headersOf(v: unknown): { headers: Record<string, string> } | { problem: string } {
  if (v === undefined) return { headers: {} };
  if (!v || typeof v !== 'object' || Array.isArray(v))
    return { problem: t('The link was refused: one of its headers is not "Name: value".') };
  const entries = Object.entries(v as Record<string, unknown>);
  if (entries.length > MAX_LINK_HEADERS)
    return { problem: t('The link was refused: it carries more than {0} headers.', MAX_LINK_HEADERS) };
  const headers: Record<string, string> = {};
  for (const [name, value] of entries) {
    if (typeof value !== 'string' || !/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,64}$/.test(name))
      return { problem: t('The link was refused: one of its headers is not "Name: value".') };
    if (isCredentialHeader(name, value))
      return {
        problem: t('The link was refused: its header {0} carries a credential. A gateway link never does.', name),
      };
    headers[name] = value.trim();
  }
  return { headers };
}

/** Reads a link's query (URI handler): what it would add, or why it is refused. */
export function decodeGatewayLink(query: string): DecodedLink {
  if (query.length > MAX_LINK_QUERY)
    return refuse(t('The link was refused: it is longer than {0} characters.', MAX_LINK_QUERY));
  const read = payloadOf(query);
  if ('problem' in read) return refuse(read.problem);
  const p = read.payload;
  if (Object.keys(p).some((k) => TOKEN_FIELDS.test(k)))
    return refuse(t('The link was refused: it carries a token. A gateway link never does; ask for a new link.'));
  const baseUrl = typeof p.baseUrl === 'string' ? p.baseUrl.trim() : '';
  if (!baseUrl) return refuse(t('The link was refused: it carries no base URL.'));
  const backupUrls = strings(p.backupUrls)
    ?.map((u) => u.trim())
    .filter(Boolean);
  if (!backupUrls) return refuse(t('The link was refused: it is damaged (cut off or changed).'));
  if (backupUrls.length > MAX_BACKUPS)
    return refuse(t('The link was refused: it carries more than {0} backup addresses.', MAX_BACKUPS));
  for (const u of [baseUrl, ...backupUrls]) {
    const problem = addressProblem(u);
    if (problem) return refuse(problem);
  }
  const h = headersOf(p.headers);
  if ('problem' in h) return refuse(h.problem);
  const name = (typeof p.name === 'string' ? p.name.trim().slice(0, 80) : '') || suggestGatewayName(baseUrl);
  return {
    ok: true,
    gateway: {
      name,
      baseUrl,
      ...(backupUrls.length ? { backupUrls } : {}),
      ...(Object.keys(h.headers).length ? { extraHeaders: h.headers } : {}),
    },
  };
}
