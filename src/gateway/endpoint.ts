/**
 * Endpoint rules (spec sections 1, 4 rule 3, 9): the user gives a root address; the compatible
 * surface's base is `{base}/v1`, the native surface's base is `{base}` and it appends `/v1/messages`.
 */
import { t } from './l10n';

export type FindingCode =
  | 'empty'
  | 'whitespace'
  | 'trailing-slash'
  | 'missing-scheme'
  | 'bad-scheme'
  | 'invalid-url'
  | 'trailing-v1'
  | 'full-endpoint'
  | 'query-or-fragment'
  | 'http-public-host';

export interface EndpointFinding {
  code: FindingCode;
  severity: 'info' | 'warn' | 'error';
  message: string;
  fix: string;
}

export interface NormalizedBase {
  /** The root address, no trailing slash, no `/v1`; undefined when the input cannot be used at all. */
  base: string | undefined;
  input: string;
  findings: EndpointFinding[];
}

const ENDPOINT_SUFFIXES = [
  '/v1/chat/completions',
  '/v1/messages',
  '/v1/models',
  '/v1/images/generations',
  '/v1/images/edits',
  '/v1/videos',
  '/chat/completions',
  '/messages',
];

function isLocalHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return (
    h === 'localhost' ||
    h.endsWith('.localhost') ||
    h === '::1' ||
    /^127\./.test(h) ||
    /^10\./.test(h) ||
    /^192\.168\./.test(h) ||
    /^172\.(1[6-9]|2\d|3[01])\./.test(h) ||
    h.endsWith('.local') ||
    h.endsWith('.internal')
  );
}

/** The text as a URL with an http(s) scheme (https:// assumed when none is given), or undefined when it cannot be one. */
function parseScheme(s: string, findings: EndpointFinding[]): URL | undefined {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(s)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(s) && !/^[^:]+:\d/.test(s)) {
      findings.push({
        code: 'bad-scheme',
        severity: 'error',
        message: t('The base URL "{0}" does not use http or https.', s),
        fix: t('Use an https:// address (http:// only for a gateway on this machine or your LAN).'),
      });
      return undefined;
    }
    findings.push({
      code: 'missing-scheme',
      severity: 'warn',
      message: t('The base URL "{0}" has no scheme.', s),
      fix: t('Assumed https://{0}; write the scheme explicitly.', s),
    });
    s = `https://${s}`;
  }
  let url: URL;
  try {
    url = new URL(s);
  } catch {
    findings.push({
      code: 'invalid-url',
      severity: 'error',
      message: t('"{0}" is not a valid URL.', s),
      fix: t('Enter the gateway root address, e.g. https://gateway.example.com.'),
    });
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    findings.push({
      code: 'bad-scheme',
      severity: 'error',
      message: t('The base URL uses {0}, not http or https.', url.protocol),
      fix: t('Use an https:// address.'),
    });
    return undefined;
  }
  return url;
}

/** The URL's path with a query, fragment and trailing slash removed (each reported). */
function tidyPath(url: URL, typed: string, findings: EndpointFinding[]): string {
  if (url.search || url.hash) {
    findings.push({
      code: 'query-or-fragment',
      severity: 'warn',
      message: t('The base URL carried a query string or fragment.'),
      fix: t('Removed it; the base URL is only scheme, host and optional path prefix.'),
    });
    url.search = '';
    url.hash = '';
  }
  const path = url.pathname;
  if ((/\/{1,}$/.test(path) && path !== '/') || (path === '/' && /\/$/.test(typed.replace(/[?#].*$/, '')))) {
    findings.push({
      code: 'trailing-slash',
      severity: 'info',
      message: t('The base URL ended with a slash.'),
      fix: t('Removed the trailing slash.'),
    });
  }
  return path.replace(/\/+$/, '');
}

/** The path without a pasted endpoint or a trailing /v1 (the client appends those itself), each reported. */
function rootPath(url: URL, path: string, findings: EndpointFinding[]): string {
  const lower = path.toLowerCase();
  const suffix = ENDPOINT_SUFFIXES.find((e) => lower.endsWith(e));
  if (suffix) {
    const stripped = path.slice(0, path.length - suffix.length).replace(/\/v1$/i, '');
    findings.push({
      code: 'full-endpoint',
      severity: 'warn',
      message: t(
        'A full endpoint was pasted ({0}). The client appends the endpoint path itself, so requests would go to {1} and get 404.',
        path,
        `${path}${suffix === '/v1/messages' ? '/v1/messages' : '/v1/...'}`,
      ),
      fix: t('Use the root address {0} (removed {1}).', `${url.origin}${stripped}`, path.slice(stripped.length)),
    });
    return stripped;
  }
  if (/\/v1$/i.test(path)) {
    const stripped = path.replace(/\/v1$/i, '');
    findings.push({
      code: 'trailing-v1',
      severity: 'warn',
      message: t(
        'The base URL ends in /v1. The native surface appends /v1/messages itself, so it would call /v1/v1/messages and get 404.',
      ),
      fix: t('Use the root address {0}; the compatible surface adds /v1 on its own.', `${url.origin}${stripped}`),
    });
    return stripped;
  }
  return path;
}

/** Normalises a user-entered base URL and reports every problem with its fix. Never throws. */
export function normalizeBaseUrl(input: string): NormalizedBase {
  const findings: EndpointFinding[] = [];
  const raw = input ?? '';
  const s = raw.trim();
  if (s !== raw && s) {
    findings.push({
      code: 'whitespace',
      severity: 'info',
      message: t('The base URL had leading or trailing whitespace.'),
      fix: t('Removed it.'),
    });
  }
  if (!s) {
    findings.push({
      code: 'empty',
      severity: 'error',
      message: t('No base URL is set.'),
      fix: t('Set the gateway root address, e.g. https://gateway.example.com (no /v1).'),
    });
    return { base: undefined, input: raw, findings };
  }
  const url = parseScheme(s, findings);
  if (!url) return { base: undefined, input: raw, findings };
  const typed = /^[a-z][a-z0-9+.-]*:\/\//i.test(s) ? s : `https://${s}`;
  const path = rootPath(url, tidyPath(url, typed, findings), findings);
  if (url.protocol === 'http:' && !isLocalHost(url.hostname)) {
    findings.push({
      code: 'http-public-host',
      severity: 'warn',
      message: t('The base URL uses plain http to {0}: the token would cross the network unencrypted.', url.hostname),
      fix: t('Use https://{0}.', `${url.host}${path}`),
    });
  }
  return { base: `${url.origin}${path}`, input: raw, findings };
}

/**
 * The base URL as typed, for Configure Base URL's "Keep what I typed": trimmed and without trailing
 * slashes, nothing else changed (a path ending in /v1 stays). Undefined unless it is an http(s) URL
 * without query or fragment, i.e. one that can be called as it is.
 */
export function verbatimBaseUrl(input: string): string | undefined {
  const s = (input ?? '').trim().replace(/\/+$/, '');
  if (!/^https?:\/\/[^/]/i.test(s) || /[?#\s]/.test(s)) return undefined;
  try {
    new URL(s);
  } catch {
    return undefined;
  }
  return s;
}

/** Compatible surface base URL: `{base}/v1`. */
export function compatibleBase(base: string): string {
  return `${base}/v1`;
}

/** Native surface base URL: `{base}` (clients append `/v1/messages`). */
export function nativeBase(base: string): string {
  return base;
}

/** The exact URL the native surface calls. */
export function nativeMessagesUrl(base: string): string {
  return `${nativeBase(base)}/v1/messages`;
}

/** Joins a root base with an API path such as `/v1/models`. */
export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}${path.startsWith('/') ? path : `/${path}`}`;
}

/** The host part used for logs and status (`host:port`). */
export function hostOf(base: string): string {
  try {
    return new URL(base).host;
  } catch {
    return base;
  }
}
