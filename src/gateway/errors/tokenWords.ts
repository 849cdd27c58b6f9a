/**
 * What a refused token or a quota refusal means, in the user's terms: which limit was hit (the
 * token's expiry, the token's quota, the account's wallet, the token's model list) and what to do.
 */
import type { ErrorDetail } from './gatewayError';
import type { QuotaRefusal, TokenState } from './gatewayWords';

export interface Words {
  detail: ErrorDetail;
  message: string;
  cause: string;
  fix: string;
}

/** What is known about the token from the gateway's token-usage endpoint. */
export interface TokenFacts {
  /** ISO date (YYYY-MM-DD) the token expired */
  expiredOn?: string | undefined;
  name?: string | undefined;
}

export function refusedToken(state: TokenState, facts: TokenFacts): Words {
  const which = facts.name ? `the token "${facts.name}"` : 'this token';
  switch (state) {
    case 'expired':
      return {
        detail: 'token_expired',
        message: `${which[0]!.toUpperCase()}${which.slice(1)} expired${facts.expiredOn ? ` on ${facts.expiredOn}` : ''}.`,
        cause: `The gateway refuses ${which} because its expiry date has passed (the gateway may only say "Invalid token").`,
        fix: "Extend the token's expiry in the gateway console, or create a new token and store it with \"Model Relay: Add Token\".",
      };
    case 'exhausted':
      return {
        detail: 'token_exhausted',
        message: `${which[0]!.toUpperCase()}${which.slice(1)}'s quota is used up.`,
        cause: `The gateway refuses ${which} because its own quota limit is spent (the account's wallet may still have money).`,
        fix: "Raise this token's quota (or make it unlimited) in the gateway console, or switch to another token.",
      };
    case 'disabled':
      return {
        detail: 'token_disabled',
        message: `${which[0]!.toUpperCase()}${which.slice(1)} is disabled.`,
        cause: `The gateway refuses ${which} because it was disabled in the gateway console.`,
        fix: 'Enable the token again in the gateway console, or create a new one and store it with "Model Relay: Add Token".',
      };
  }
}

export function refusedForQuota(r: QuotaRefusal, model: string | undefined): Words {
  switch (r.kind) {
    case 'wallet_empty':
      return {
        detail: 'wallet_empty',
        message: "The account's balance is used up.",
        cause: "The gateway account that owns this token has no balance left (insufficient_user_quota): every token of the account is refused, whatever its own limit.",
        fix: 'Top up the account in the gateway console (or ask the gateway operator).',
      };
    case 'token_quota':
      return {
        detail: 'token_quota',
        message: "This token's remaining quota is too small for this request.",
        cause: "The token's own quota limit cannot cover this request (pre_consume_token_quota_failed); the account's wallet is not the problem.",
        fix: "Raise this token's quota (or make it unlimited) in the gateway console, lower max tokens, or switch to another token.",
      };
    case 'model_limit': {
      const m = r.model ?? model;
      return {
        detail: 'token_model_limit',
        message: m ? `This token has no access to the model ${m}.` : 'This token has no access to any model.',
        cause: `The token is limited to a list of models${m ? ` that does not include ${m}` : ''} (a per-token model limit in the gateway console, not the group).`,
        fix: `Add ${m ?? 'the models you need'} to the token's model limits in the gateway console, pick a model the token allows ("Model Relay: List Models"), or switch to another token.`,
      };
    }
  }
}
