/**
 * The shape rules for a gateway token, in one place: the token input box warns with them as the
 * user types, the diagnosis reports them for the stored token, and the credential gate
 * (http/egress.ts) refuses a token a request header cannot carry before anything is sent — for every
 * client, whatever the token came from (SecretStorage, `MODEL_RELAY_TOKEN`, a gateways file's
 * variable). Gateway tokens are `sk-` keys, stored bare (the client adds `Bearer ` or sends
 * `x-api-key` itself).
 */
import { malformedTokenError } from './errors/factories';
import type { ErrorContext, GatewayError } from './errors/gatewayError';
import { t } from './l10n';

/**
 * `lines`: a line break inside (two tokens pasted together, or one copied with its line's end);
 * `characters`: a character no request header can carry (a control character, or beyond Latin-1).
 */
export type TokenShapeProblem =
  'empty' | 'bearer' | 'quoted' | 'lines' | 'characters' | 'whitespace' | 'prefix' | 'short';

/** What an HTTP header value may hold (RFC 9110 field-value: tab, visible ASCII and space, obs-text). */
const HEADER_SAFE = /^[\t\x20-\x7e\x80-\xff]*$/;

/** A token shorter than this is almost certainly copied incompletely. */
const MIN_LENGTH = 20;

/** The first problem with a token's shape, or undefined when it looks like a gateway token. */
export function tokenShapeProblem(value: string): TokenShapeProblem | undefined {
  const v = value.trim();
  if (!v) return 'empty';
  if (/^bearer\s+/i.test(v)) return 'bearer';
  if (/^["'`]|["'`]$/.test(v)) return 'quoted';
  if (/[\r\n]/.test(v)) return 'lines';
  if (!HEADER_SAFE.test(v)) return 'characters';
  if (/\s/.test(v)) return 'whitespace';
  if (!v.startsWith('sk-')) return 'prefix';
  if (v.length < MIN_LENGTH) return 'short';
  return undefined;
}

/** What the input box says while a token is typed (a warning: the value may still be stored). */
function asTyped(p: TokenShapeProblem): string {
  switch (p) {
    case 'empty':
      return t('The token is empty.');
    case 'bearer':
      return t('Paste only the token, without "Bearer ".');
    case 'quoted':
      return t('Paste only the token, without quotes.');
    case 'lines':
      return t('The token holds more than one line (two tokens pasted together?); paste one token.');
    case 'characters':
      return t('The token contains characters a gateway token never has; copy it again from the gateway console.');
    case 'whitespace':
      return t('The token contains spaces; copy it again from the gateway console.');
    case 'prefix':
      return t('Gateway tokens start with "sk-"; this one does not. It may be the wrong value.');
    case 'short':
      return t('The token looks too short; copy the whole value from the gateway console.');
  }
}

/** What the diagnosis says about the stored token. */
function asStored(p: TokenShapeProblem): string {
  switch (p) {
    case 'empty':
      return t('No token is stored.');
    case 'bearer':
      return t(
        'The stored token starts with "Bearer ": store only the key, the client adds "Bearer " itself (otherwise the header reads "Bearer Bearer sk-…" and the gateway answers 401).',
      );
    case 'quoted':
      return t('The stored token is wrapped in quotes: copy only the key.');
    case 'lines':
      return t('The stored token holds more than one line (two tokens pasted together?): it cannot be sent.');
    case 'characters':
      return t('The stored token contains characters a request header cannot carry: it cannot be sent.');
    case 'whitespace':
      return t('The stored token contains a space (copied with it).');
    case 'prefix':
      return t(
        'The token does not start with sk- (gateway tokens do): it may be another kind of key or copied incompletely.',
      );
    case 'short':
      return t('The stored token is shorter than gateway tokens are: it was probably copied incompletely.');
  }
}

/** The input box's warning for a typed token, or undefined when it looks right. */
export function tokenShapeWarning(value: string): string | undefined {
  const p = tokenShapeProblem(value);
  return p && asTyped(p);
}

/** The diagnosis's sentences about a stored token's shape (none when it looks right). */
export function storedTokenShapeProblems(value: string): string[] {
  const p = tokenShapeProblem(value);
  return p ? [asStored(p)] : [];
}

/**
 * The credential gate's check: a token a request header cannot carry (more than one line, or a
 * character no header may hold) is refused with a classified error before anything is sent, and is
 * never retried as the network failure the HTTP layer would report. undefined: it may be sent.
 */
export function unsendableTokenError(value: string, context: ErrorContext): GatewayError | undefined {
  const p = tokenShapeProblem(value);
  return p === 'lines' || p === 'characters' ? malformedTokenError(p, context) : undefined;
}
