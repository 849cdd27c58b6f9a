/**
 * The one place where a failed request becomes a check outcome, in the spec's terms: what the
 * status means for this diagnosis (a 429 halts every further request), and which fix applies.
 */
import { isGatewayError, type GatewayError } from '../errors/gatewayError';
import { t } from '../l10n';
import { MODELS_PATH } from '../models';
import type { DiagnosisContext } from './context';
import type { DiagnosisCheck } from './types';

/** A check's result before the engine adds its id, title and duration. */
export type Outcome = Omit<DiagnosisCheck, 'id' | 'title' | 'durationMs'> & { durationMs?: number };

export interface ErrorOptions {
  model?: string;
  /** whether the token's model list shows the model */
  listed?: boolean | undefined;
  /** said after the cause of a stream failure */
  streamNote?: string;
}

/** ` The gateway said: "…".` without doubled punctuation, or '' when it said nothing. */
export function saidText(message: string | undefined): string {
  const m = message?.trim().replace(/[.\s]+$/, '');
  return m ? ` ${t('The gateway said: "{0}".', m)}` : '';
}

export function waitText(ms: number | undefined): string {
  if (ms === undefined) return t('with exponential backoff (no Retry-After was given)');
  return t('{0} s (Retry-After)', Math.ceil(ms / 1000));
}

/** Records a 429: no further request is sent in this diagnosis. `what`: a note after the status (e.g. "(rate limited)"), or ''. */
export function haltOn429(ctx: DiagnosisContext, retryAfterMs: number | undefined, what: string): void {
  const wait = waitText(retryAfterMs);
  const note = what.trim();
  const cause = note
    ? t('The gateway answered 429 {0} and asked to wait {1}; no further request was sent.', note, wait)
    : t('The gateway answered 429 and asked to wait {0}; no further request was sent.', wait);
  ctx.halt ??= { cause, fix: t('Run the diagnosis again after {0}.', wait) };
}

type Common = Pick<Outcome, 'httpStatus' | 'url' | 'errorKind' | 'requestId' | 'maskedToken' | 'retryAfterMs'>;

function forbidden(e: GatewayError, common: Common, model: string, said: string, o: ErrorOptions): Outcome {
  if (e.detail === 'insufficient_quota')
    return { ...common, result: 'fail', cause: `HTTP 403: ${e.reason}${said}`, fix: e.fix };
  // The account's wallet, the token's own quota, the token's model limits: each its own cause and fix.
  if (e.detail === 'wallet_empty' || e.detail === 'token_quota' || e.detail === 'token_model_limit')
    return {
      ...common,
      result: 'fail',
      cause: `${e.message} ${e.reason}`,
      fix: e.fix,
      ...(e.detail === 'token_model_limit' ? { fixAction: { kind: 'switch-token' } } : {}),
    };
  const how =
    e.detail === 'model_not_found_503'
      ? t('503 "model_not_found" (new-api\'s answer for a group/model mismatch: not a temporary fault)')
      : '403';
  if (o.listed) {
    return {
      ...common,
      result: 'fail',
      cause: `${t("GET {0} lists {1}, but the generation call answered {2}: the token's group, the model id or the model's capability range does not allow this call. Listing a model does not prove generation works.", MODELS_PATH, model, how)}${said}`,
      fix: t(
        "Use a token of a group that can use {0} (switch token), or pick another model from this token's list; ask the gateway operator which group allows it.",
        model,
      ),
      fixAction: { kind: 'switch-token' },
    };
  }
  return {
    ...common,
    result: 'fail',
    cause: `${o.listed === false ? t("The generation call answered {0}: {1} is not usable with this token — its group cannot use the model (it is not even in the token's model list), or the id is wrong.", how, model) : t('The generation call answered {0}: {1} is not usable with this token — its group cannot use the model, or the id is wrong.', how, model)}${said}`,
    fix: t(
      "Pick a model from this token's list (GET {0}), or switch to a token of a group that allows {1}.",
      MODELS_PATH,
      model,
    ),
    fixAction: { kind: 'switch-token' },
  };
}

function notFoundCause(model: string, listed: boolean | undefined): string {
  if (listed === false)
    return t(
      "The generation call answered 404 for {0}: the model id does not exist, or this token's group cannot see it (it is not in the token's model list).",
      model,
    );
  if (listed)
    return t(
      "The generation call answered 404 for {0}: the model id does not exist, or this token's group cannot see it (although the model list shows it: the group, model id or capability range refuses it).",
      model,
    );
  return t(
    "The generation call answered 404 for {0}: the model id does not exist, or this token's group cannot see it.",
    model,
  );
}

function notFound(
  e: GatewayError,
  common: Common,
  model: string,
  said: string,
  o: ErrorOptions,
  base: string | undefined,
): Outcome {
  const modelish =
    e.detail !== 'double_v1' && (e.gatewayCode === 'model_not_found' || /model/i.test(e.gatewayMessage ?? ''));
  if (modelish && o.model) {
    return {
      ...common,
      result: 'fail',
      cause: `${notFoundCause(model, o.listed)}${said}`,
      fix: t(
        "Copy the model id from this token's list (GET {0}), or switch to a token of a group that can use {1}.",
        MODELS_PATH,
        model,
      ),
      fixAction: { kind: 'switch-token' },
    };
  }
  return {
    ...common,
    result: 'fail',
    cause: `HTTP 404: ${e.reason}${said}`,
    fix: e.fix,
    ...(e.detail === 'double_v1' && base ? { fixAction: { kind: 'set-base-url', value: base } } : {}),
  };
}

function rateLimited(ctx: DiagnosisContext, e: GatewayError, common: Common, said: string): Outcome {
  const wait = waitText(e.retryAfterMs);
  haltOn429(ctx, e.retryAfterMs, t('(rate limited)'));
  return {
    ...common,
    result: 'fail',
    cause: t(
      'HTTP 429 rate limited: too many requests for this token or model.{0} The wait that applies: {1}. The diagnosis does not retry and sent no further requests.',
      said,
      wait,
    ),
    fix: t(
      'Wait {0} before trying again; lower concurrency and retry with exponential backoff (never in a loop without delay).',
      wait,
    ),
  };
}

function retryFix(e: GatewayError): string {
  const asked = e.retryAfterMs !== undefined ? waitText(e.retryAfterMs) : undefined;
  if (asked && e.requestId)
    return t(
      'Retry with backoff after about 1 to 2 minutes (the gateway asked for {0}); if it persists, report it to the gateway operator with request id {1}, or use a backup domain.',
      asked,
      e.requestId,
    );
  if (asked)
    return t(
      'Retry with backoff after about 1 to 2 minutes (the gateway asked for {0}); if it persists, report it to the gateway operator, or use a backup domain.',
      asked,
    );
  if (e.requestId)
    return t(
      'Retry with backoff after about 1 to 2 minutes; if it persists, report it to the gateway operator with request id {0}, or use a backup domain.',
      e.requestId,
    );
  return t(
    'Retry with backoff after about 1 to 2 minutes; if it persists, report it to the gateway operator, or use a backup domain.',
  );
}

function serverError(e: GatewayError, common: Common, said: string): Outcome {
  const page = e.detail === 'html_page';
  return {
    ...common,
    result: 'fail',
    cause: page
      ? t('HTTP {0}: {1} a temporary service or upstream fault (5xx).', e.status ?? '5xx', e.message)
      : `${t('HTTP {0}: a temporary service or upstream fault (5xx).', e.status ?? '5xx')}${said}`,
    fix: retryFix(e),
  };
}

/** Turns a failed request into a check outcome, in the spec's terms. */
export function outcomeFromError(ctx: DiagnosisContext, e: unknown, o: ErrorOptions = {}): Outcome {
  if (!isGatewayError(e))
    return {
      result: 'fail',
      cause: t('Unexpected error: {0}', e instanceof Error ? e.message : String(e)),
      fix: t('Report this with the diagnosis report.'),
    };
  ctx.noteHtml(e);
  const common: Common = {
    httpStatus: e.status,
    url: e.url,
    errorKind: e.kind,
    requestId: e.requestId,
    maskedToken: e.maskedToken ?? ctx.masked,
    retryAfterMs: e.retryAfterMs,
  };
  const said = saidText(e.gatewayMessage);
  const model = o.model ? `"${o.model}"` : t('the model');
  switch (e.kind) {
    case 'aborted':
      return {
        ...common,
        result: 'skipped',
        cause: ctx.stopped() ?? t('The request was cancelled.'),
        fix: t('Run the diagnosis again.'),
      };
    case 'rate_limited':
      return rateLimited(ctx, e, common, said);
    case 'server_error':
      return serverError(e, common, said);
    case 'forbidden':
      return forbidden(e, common, model, said, o);
    case 'unauthorized':
      // Explained from the token-usage endpoint (expired on …, quota used up, disabled) where the gateway allows.
      if (e.detail)
        return {
          ...common,
          result: 'fail',
          cause: `${e.message} ${e.reason}`,
          fix: e.fix,
          fixAction: { kind: 'switch-token' },
        };
      return {
        ...common,
        result: 'fail',
        cause: `${t('HTTP 401 invalid token: {0}', e.reason)}${said}`,
        fix: e.fix,
        fixAction: ctx.token ? { kind: 'switch-token' } : { kind: 'add-token' },
      };
    case 'not_found':
      return notFound(e, common, model, said, o, ctx.n.base);
    case 'stream_interrupted':
    case 'timeout':
    case 'network':
    case 'protocol':
    case 'bad_request':
    case 'payload_too_large':
      return {
        ...common,
        result: 'fail',
        cause: `${e.message} ${e.reason}${o.streamNote ? ` ${o.streamNote}` : ''}`,
        fix: e.fix,
      };
    default: {
      const _exhaustive: never = e.kind;
      return { ...common, result: 'fail', cause: `${String(_exhaustive)}: ${e.message}`, fix: e.fix };
    }
  }
}
