/**
 * What an HTTP Archive may keep of a request (har.ts): credentials masked as everywhere else
 * (`maskToken`: the first 6 characters, `...`, the last 4) — the auth headers, cookies, a `key=`-like
 * query parameter, the password of a URL — and every occurrence of the request's own token in any
 * other header, the URL or a body. Bodies are cut to a bound before they are searched.
 */
import { maskToken, redactSecrets, stripUrlCredentials } from '../mask';

/** Headers whose whole value is a credential. */
const SECRET_HEADERS = new Set([
  'authorization',
  'proxy-authorization',
  'x-api-key',
  'x-goog-api-key',
  'api-key',
  'x-auth-token',
]);
/** Names that say a header carries a credential (a gateway's extra headers: `cf-access-client-secret`, …). */
const SECRET_HEADER_WORDS = /auth|token|secret|passw|api[-_]?key|session|signature/i;
const COOKIE_HEADERS = new Set(['cookie', 'set-cookie']);
/** Query parameters that carry a credential (new-api's older `?key=`, Google's `key=`, …). */
const SECRET_PARAMS = /^(key|api[-_]?key|access[-_]?token|token|password|secret|auth|sig|signature)$/i;
/** JSON fields that carry a credential, masked inside a recorded body. */
const SECRET_FIELDS =
  /("(?:api[-_]?key|x-api-key|authorization|password|secret|client[-_]?secret|access[-_]?token|refresh[-_]?token|token)"\s*:\s*")((?:[^"\\]|\\.){4,}?)(")/gi;

/** `Bearer sk-abc...wxyz`: the scheme kept, the credential masked. */
function maskCredential(value: string): string {
  const m = /^(\s*(?:bearer|basic|token|digest)\s+)(.*)$/i.exec(value);
  return m ? `${m[1]}${maskToken(m[2])}` : maskToken(value);
}

/** `a=sk-abc...wxyz; b=xyz...` for a cookie header; the attributes of a set-cookie kept. */
function maskCookies(value: string, setCookie: boolean): string {
  const parts = value.split(';');
  const masked = (p: string) => {
    const i = p.indexOf('=');
    return i < 0 ? p : `${p.slice(0, i + 1)}${maskToken(p.slice(i + 1))}`;
  };
  // set-cookie: only the first pair is the cookie; Path, Expires, … stay.
  return (setCookie ? [masked(parts[0]), ...parts.slice(1)] : parts.map(masked)).join(';');
}

/** One header's value as the archive keeps it. */
export function redactHeader(name: string, value: string, secrets: readonly string[]): string {
  const n = name.toLowerCase();
  if (COOKIE_HEADERS.has(n)) return maskCookies(value, n === 'set-cookie');
  if (SECRET_HEADERS.has(n) || SECRET_HEADER_WORDS.test(n)) return maskCredential(value);
  return redactSecrets(value, secrets);
}

/** A URL as the archive keeps it: no user or password (`***@`), credential query parameters masked, the token nowhere. */
export function redactUrl(raw: string, secrets: readonly string[]): string {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return redactSecrets(stripUrlCredentials(raw), secrets);
  }
  for (const [k, v] of [...u.searchParams]) if (SECRET_PARAMS.test(k)) u.searchParams.set(k, maskToken(v));
  return redactSecrets(stripUrlCredentials(u.toString()), secrets);
}

/** A recorded body's text: the token and credential-looking JSON fields masked. */
export function redactBody(text: string, secrets: readonly string[]): string {
  return redactSecrets(
    text.replace(
      SECRET_FIELDS,
      (_all, head: string, value: string, tail: string) => `${head}${maskToken(value)}${tail}`,
    ),
    secrets,
  );
}
