/**
 * Which of VS Code's LanguageModelError kinds a gateway error is, so that VS Code's chat (and every
 * extension using the model) can tell "not allowed" from "no such model" from "blocked for now"
 * instead of one plain Error. The sentence stays the error presenter's. Plain Node, no `vscode`.
 */
import { GatewayError } from '../../gateway';

/** The names of `vscode.LanguageModelError`'s factories. */
export type LmErrorCode = 'NoPermissions' | 'NotFound' | 'Blocked';

/** Details that say the token's money or allowance ran out: blocked until it is topped up. */
const BLOCKED_DETAILS = new Set(['insufficient_quota', 'wallet_empty', 'token_quota', 'token_exhausted']);

/** The LanguageModelError kind of `e`, or undefined when none fits (a plain Error then). */
export function lmErrorCode(e: unknown): LmErrorCode | undefined {
  if (!(e instanceof GatewayError)) return undefined;
  if (e.detail && BLOCKED_DETAILS.has(e.detail)) return 'Blocked';
  if (e.detail === 'model_not_found_503') return 'NotFound';
  switch (e.kind) {
    case 'unauthorized':
    case 'forbidden':
      return 'NoPermissions';
    case 'not_found':
      return e.model ? 'NotFound' : undefined;
    case 'rate_limited':
      return 'Blocked';
    default:
      return undefined;
  }
}
