/**
 * The shape rules for a gateway token, in one place: the token input box warns with them as the
 * user types, and the diagnosis reports them for the stored token. Gateway tokens are `sk-` keys,
 * stored bare (the client adds `Bearer ` or sends `x-api-key` itself).
 */
import { t } from './l10n';

export type TokenShapeProblem = 'empty' | 'bearer' | 'quoted' | 'whitespace' | 'prefix' | 'short';

/** A token shorter than this is almost certainly copied incompletely. */
const MIN_LENGTH = 20;

/** The first problem with a token's shape, or undefined when it looks like a gateway token. */
export function tokenShapeProblem(value: string): TokenShapeProblem | undefined {
  const v = value.trim();
  if (!v) return 'empty';
  if (/^bearer\s+/i.test(v)) return 'bearer';
  if (/^["'`]|["'`]$/.test(v)) return 'quoted';
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
    case 'whitespace':
      return t('The stored token contains a space or line break (copied with it).');
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
