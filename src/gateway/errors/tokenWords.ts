/**
 * What a refused token or a quota refusal means, in the user's terms: which limit was hit (the
 * token's expiry, the token's quota, the account's wallet, the token's model list) and what to do.
 */
import { t } from '../l10n';
import type { ErrorDetail } from './gatewayError';
import type { QuotaRefusal, TokenState } from './gatewayWords';

export interface Words {
  detail: ErrorDetail;
  message: string;
  reason: string;
  fix: string;
}

/** What is known about the token from the gateway's token-usage endpoint. */
export interface TokenFacts {
  /** ISO date (YYYY-MM-DD) the token expired */
  expiredOn?: string | undefined;
  name?: string | undefined;
}

/** The token named at the start of a sentence ("The token "x"") and inside one ("the token "x""). */
function tokenNames(name: string | undefined): { subject: string; object: string } {
  return name
    ? { subject: t('The token "{0}"', name), object: t('the token "{0}"', name) }
    : { subject: t('This token'), object: t('this token') };
}

export function refusedToken(state: TokenState, facts: TokenFacts): Words {
  const { subject, object } = tokenNames(facts.name);
  switch (state) {
    case 'expired':
      return {
        detail: 'token_expired',
        message: facts.expiredOn ? t('{0} expired on {1}.', subject, facts.expiredOn) : t('{0} expired.', subject),
        reason: t(
          'The gateway refuses {0} because its expiry date has passed (the gateway may only say "Invalid token").',
          object,
        ),
        fix: t(
          'Extend the token\'s expiry in the gateway console, or create a new token and store it with "Model Relay: Add Token".',
        ),
      };
    case 'exhausted':
      return {
        detail: 'token_exhausted',
        message: t("{0}'s quota is used up.", subject),
        reason: t(
          "The gateway refuses {0} because its own quota limit is spent (the account's wallet may still have money).",
          object,
        ),
        fix: t("Raise this token's quota (or make it unlimited) in the gateway console, or switch to another token."),
      };
    case 'disabled':
      return {
        detail: 'token_disabled',
        message: t('{0} is disabled.', subject),
        reason: t('The gateway refuses {0} because it was disabled in the gateway console.', object),
        fix: t(
          'Enable the token again in the gateway console, or create a new one and store it with "Model Relay: Add Token".',
        ),
      };
  }
}

function modelLimitWords(m: string | undefined): Words {
  return {
    detail: 'token_model_limit',
    message: m ? t('This token has no access to the model {0}.', m) : t('This token has no access to any model.'),
    reason: m
      ? t(
          'The token is limited to a list of models that does not include {0} (a per-token model limit in the gateway console, not the group).',
          m,
        )
      : t('The token is limited to a list of models (a per-token model limit in the gateway console, not the group).'),
    fix: m
      ? t(
          'Add {0} to the token\'s model limits in the gateway console, pick a model the token allows ("Model Relay: List Models"), or switch to another token.',
          m,
        )
      : t(
          'Add the models you need to the token\'s model limits in the gateway console, pick a model the token allows ("Model Relay: List Models"), or switch to another token.',
        ),
  };
}

export function refusedForQuota(r: QuotaRefusal, model: string | undefined): Words {
  switch (r.kind) {
    case 'wallet_empty':
      return {
        detail: 'wallet_empty',
        message: t("The account's balance is used up."),
        reason: t(
          'The gateway account that owns this token has no balance left (insufficient_user_quota): every token of the account is refused, whatever its own limit.',
        ),
        fix: t('Top up the account in the gateway console (or ask the gateway operator).'),
      };
    case 'token_quota':
      return {
        detail: 'token_quota',
        message: t("This token's remaining quota is too small for this request."),
        reason: t(
          "The token's own quota limit cannot cover this request (pre_consume_token_quota_failed); the account's wallet is not the problem.",
        ),
        fix: t(
          "Raise this token's quota (or make it unlimited) in the gateway console, lower max tokens, or switch to another token.",
        ),
      };
    case 'model_limit':
      return modelLimitWords(r.model ?? model);
  }
}
