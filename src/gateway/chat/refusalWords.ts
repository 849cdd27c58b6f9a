/**
 * The refusals' outcomes in words (refusals.ts), one place for every view (a log line, a reply's
 * notice, relay-doctor's stderr): a request moved to another surface, a request sent otherwise
 * than asked; and a final error in the terms of the surfaces (a refusal that says the model answers
 * only on the Responses API; a gateway too old for the Responses API: `Invalid URL (POST
 * /v1/responses)`, no such route).
 */
import { GatewayError } from '../errors/gatewayError';
import { t } from '../l10n';
import type { RequestAdjustment } from './wirePlan';
import { saysResponsesOnly } from './refusals';
import { surfaceName } from './surfaceWords';
import type { SurfaceMove } from './types';

/** new-api without a /v1/responses route (builds before May 2025): "Invalid URL (POST /v1/responses)". */
const NO_RESPONSES_ROUTE = /invalid url \(post \/?v1\/responses/i;

/** Whether an error on the responses surface says the gateway has no `/v1/responses` route at all. */
function noResponsesRoute(e: GatewayError): boolean {
  return e.surface === 'responses' && e.status === 404 && NO_RESPONSES_ROUTE.test(e.gatewayMessage ?? e.message);
}

/** The same error with another reason and fix (everything the gateway said is kept). */
function reworded(e: GatewayError, reason: string, fix: string): GatewayError {
  const out = new GatewayError({
    kind: e.kind,
    message: e.message,
    reason,
    fix,
    status: e.status,
    gatewayMessage: e.gatewayMessage,
    gatewayType: e.gatewayType,
    gatewayCode: e.gatewayCode,
    gatewayJson: e.gatewayJson,
    requestId: e.requestId,
    detail: e.detail,
    retryAfterMs: e.retryAfterMs,
    serverShouldRetry: e.serverShouldRetry,
    context: { surface: e.surface, url: e.url, model: e.model },
    notSent: e.notSent,
    ...(e.cause ? { cause: e.cause } : {}),
  });
  (out as { maskedToken: string | undefined }).maskedToken = e.maskedToken;
  out.host = e.host;
  out.attempts = e.attempts;
  out.mayHaveBeenBilled = e.mayHaveBeenBilled;
  return out;
}

/**
 * A final error in the terms of the surfaces: a refusal that says the model answers only on the
 * Responses API; a gateway too old for the Responses API. Any other error is returned as it is.
 */
export function explainSurfaceRefusal(e: GatewayError): GatewayError {
  const which =
    e.surface !== 'responses' && saysResponsesOnly(e.gatewayMessage)
      ? 'responses_only'
      : noResponsesRoute(e)
        ? 'no_route'
        : undefined;
  switch (which) {
    case 'responses_only':
      return reworded(
        e,
        t('The gateway answers {0} only on the Responses API (/v1/responses), not on this surface.', e.model ?? '-'),
        t('Use the responses surface for this model (Model Relay moves a chat request there by itself).'),
      );
    case 'no_route':
      return reworded(
        e,
        t('This gateway has no /v1/responses route: it is too old for the Responses API.'),
        t(
          'Use the compatible surface for this model, or ask the gateway operator to update new-api (it serves /v1/responses since May 2025).',
        ),
      );
    default:
      return e;
  }
}

/** A move in one sentence, for a log line, a reply's notice or relay-doctor's stderr. */
export function surfaceMoveWords(move: SurfaceMove): string {
  return move.learntNow
    ? t(
        'The gateway refused {0} on the {1} surface: it answers only on the Responses API. The request went to /v1/responses (the refused one was not billed), and the next requests for {0} go there too.',
        move.model,
        surfaceName(move.from),
      )
    : t(
        '{0} answers only on the Responses API (learnt from an earlier refusal of this gateway): the request went to /v1/responses.',
        move.model,
      );
}

/**
 * An adjustment in one sentence: what was not sent, or sent otherwise, and why — the model's family
 * is known to refuse it, this gateway refused it earlier, or it refused it in this very request.
 */
export function adjustmentWords(a: RequestAdjustment): string {
  const to = String(a.to ?? '');
  if (a.change === 'not_sent') {
    if (a.source === 'known') return t('{0} was not sent: {1} does not accept it.', a.param, a.model);
    return a.learntNow
      ? t(
          'The gateway refused {0} for {1}: the request was sent again without it (the refused one was not billed), and the next requests leave it out.',
          a.param,
          a.model,
        )
      : t('{0} was not sent: this gateway refused it for {1} earlier.', a.param, a.model);
  }
  if (a.source === 'known') return t('{0} was sent as {2}: what {1} accepts.', a.param, a.model, to);
  return a.learntNow
    ? t(
        'The gateway refused {0} as asked for {1}: the request was sent again with {2} (the refused one was not billed), and the next requests do the same.',
        a.param,
        a.model,
        to,
      )
    : t('{0} was sent as {2}: this gateway refused it as asked for {1} earlier.', a.param, a.model, to);
}
