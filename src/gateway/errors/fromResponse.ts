/**
 * The classified error for what a gateway answers when it fails: a non-success HTTP answer (or an
 * HTML page answered with 200), an error event inside a 200 stream, or an error object in a 200
 * body. One builder per status, each with its cause and fix in the spec's terms (section 7); an
 * error without a status (stream, 200 body) is built by the builder of the status its words stand
 * for (`statusFromWords`), so it means exactly what the same error would mean as an HTTP status.
 */
import { hostOf } from '../endpoint';
import { t } from '../l10n';
import { first, headline, readAnswer, type Answer, type HttpErrorInput } from './answer';
import { GatewayError, type ErrorDetail } from './gatewayError';
import { contextTooLong, noChannelGroup, quotaRefusalFrom, statusFromWords, tokenStateFrom } from './gatewayWords';
import { refusedToken, refusedForQuota } from './tokenWords';

function htmlPage(a: Answer): GatewayError {
  const { status, parsed, path, context } = a;
  if (status >= 500) {
    return new GatewayError({
      ...a.base,
      kind: 'server_error',
      detail: 'html_page',
      message: parsed.title
        ? t('HTTP {0}: an HTML error page came back from {1} ("{2}").', status, path || t('the gateway'), parsed.title)
        : t('HTTP {0}: an HTML error page came back from {1}.', status, path || t('the gateway')),
      reason: t(
        'A proxy or CDN in front of the gateway answered with its own error page: a temporary service or upstream fault.',
      ),
      fix: t(
        'Retry with backoff after about 1 to 2 minutes; if it persists, try a backup domain or report it to the gateway operator.',
      ),
    });
  }
  return new GatewayError({
    ...a.base,
    kind: 'protocol',
    detail: 'html_page',
    message: parsed.title
      ? t(
          'You reached the gateway\'s web page, not its API (HTTP {0} HTML "{1}" from {2}).',
          status,
          parsed.title,
          context.url ?? path,
        )
      : t("You reached the gateway's web page, not its API (HTTP {0} HTML from {1}).", status, context.url ?? path),
    reason: t(
      "The URL that was called serves the gateway's web console (or another web page), not the API — the base URL or path is wrong.",
    ),
    fix: t(
      'Check the base URL: it must be the root address of the gateway (e.g. https://gateway.example.com), without /v1 and without a console path.',
    ),
  });
}

function modelNotFound503(a: Answer): GatewayError {
  const group = noChannelGroup(a.gatewayMessage)?.group;
  const whose = group ? t('this token\'s group "{0}"', group) : t("the token's group");
  return new GatewayError({
    ...a.base,
    kind: 'forbidden',
    detail: 'model_not_found_503',
    message: headline(a, t('HTTP 503 model_not_found: {0} cannot use {1}.', whose, a.model)),
    reason: t(
      'The token\'s group cannot use {0} (the gateway reports it as 503 "model_not_found"/"no available channel"; this is not a temporary fault, retrying will not help).',
      a.model,
    ),
    fix: t(
      'Pick a model visible to this token (GET /v1/models), or use a token from a group that allows this model (ask the gateway operator).',
    ),
  });
}

/** What kind of bad request the gateway's words name (its detail), if any. */
function badRequestDetail(a: Answer): ErrorDetail | undefined {
  const m = a.gatewayMessage ?? '';
  if (contextTooLong(a.parsed.code, m)) return 'context_too_long';
  if (/native-version|anthropic-version/i.test(m)) return 'missing_native_version';
  if (/does not support|not support|capabilit|not an? (image|video|chat)/i.test(m)) return 'capability_mismatch';
  if (a.parsed.code === 'task_not_exist') return 'task_not_found';
  return undefined;
}

function badRequestWords(a: Answer, detail: ErrorDetail | undefined): { reason: string; fix: string } {
  switch (detail) {
    case 'context_too_long':
      return {
        reason: t("The conversation is longer than the model's context window (the gateway refused it as too long)."),
        fix: t('Start a new chat or shorten the conversation, or pick a model with a larger context window.'),
      };
    case 'missing_native_version':
      return {
        reason: t('The native messages surface requires the native-version header (2023-06-01).'),
        fix: t('Send native-version: 2023-06-01 (and anthropic-version) on /v1/messages.'),
      };
    case 'capability_mismatch':
      return {
        reason: t(
          'The model {0} does not support this capability: each capability (chat, image, image edit, video) needs a model of that capability.',
          a.model,
        ),
        fix: t('Choose a model of the right capability for this call (see the model list).'),
      };
    default:
      return {
        reason: t(
          'The request parameters are invalid: invalid JSON, a missing required field, bad model parameters, or a context that is too long.',
        ),
        fix: t('Check the model parameters and shorten the conversation if it is long.'),
      };
  }
}

function badRequest(a: Answer): GatewayError {
  const detail = badRequestDetail(a);
  return new GatewayError({
    ...a.base,
    kind: 'bad_request',
    ...(detail ? { detail } : {}),
    message: headline(a, t('HTTP 400 bad request.')),
    ...badRequestWords(a, detail),
  });
}

function unauthorized(a: Answer): GatewayError {
  const state = tokenStateFrom(a.gatewayMessage);
  if (state) {
    const w = refusedToken(state, {});
    return new GatewayError({ ...a.base, kind: 'unauthorized', ...w, message: headline(a, `HTTP 401: ${w.message}`) });
  }
  return new GatewayError({
    ...a.base,
    kind: 'unauthorized',
    message: headline(a, t('HTTP 401 invalid token.')),
    reason:
      a.context.surface === 'native'
        ? t('The token is missing, copied wrongly, disabled, or not sent as the x-api-key header.')
        : t('The token is missing, copied wrongly, disabled, or not sent as "Authorization: Bearer <token>".'),
    fix: t(
      'Copy the token again from the gateway console (it starts with sk-) and store it with "Model Relay: Add Token"; if it was disabled, create a new one.',
    ),
  });
}

function forbidden(a: Answer): GatewayError {
  const refusal = quotaRefusalFrom(a.parsed.code, a.gatewayMessage);
  if (refusal) {
    const w = refusedForQuota(refusal, a.context.model);
    return new GatewayError({
      ...a.base,
      kind: 'forbidden',
      ...w,
      message: headline(a, `HTTP ${a.status}: ${w.message}`),
    });
  }
  const quota = /quota|额度/i.test(`${a.parsed.type ?? ''} ${a.parsed.code ?? ''} ${a.gatewayMessage ?? ''}`);
  return new GatewayError({
    ...a.base,
    kind: 'forbidden',
    detail: quota ? 'insufficient_quota' : undefined,
    // (a quota refusal may come as 429 or 402 too)
    message: headline(a, a.status === 403 ? t('HTTP 403 no access.') : `HTTP ${a.status}.`),
    reason: quota
      ? t('The account or token has no quota left for this request.')
      : t(
          'The token\'s group cannot use {0} — the message may read "model not found". Listing a model does not prove generation works.',
          a.model,
        ),
    fix: quota
      ? t('Top up the account or raise the token quota in the gateway console.')
      : t(
          "Use a model id from this token's group (GET /v1/models), check the model's capability, or use a token from a group that allows it.",
        ),
  });
}

function notFound(a: Answer): GatewayError {
  const doubleV1 = a.path.includes('/v1/v1/');
  const modelish = /model/i.test(a.gatewayMessage ?? '') || a.parsed.code === 'model_not_found';
  return new GatewayError({
    ...a.base,
    kind: 'not_found',
    detail: doubleV1 ? 'double_v1' : undefined,
    message: headline(a, t('HTTP 404 not found: {0}.', a.path || t('the path'))),
    reason: doubleV1
      ? t('The request went to {0}: the base URL carries an extra /v1, and the client appends /v1/... itself.', a.path)
      : modelish
        ? t("The model id {0} does not exist (or is not visible to this token's group).", a.model)
        : t('The path or the model does not exist: the base URL may carry an extra /v1, or the model id is wrong.'),
    fix: doubleV1
      ? t('Set the base URL to the root address, without /v1 (e.g. https://gateway.example.com).')
      : modelish
        ? t('Copy the model id from GET /v1/models or the gateway model catalogue.')
        : t(
            'Check that the base URL is the root address (no /v1) and that the model id is copied from the model list.',
          ),
  });
}

function tooLarge(a: Answer): GatewayError {
  return new GatewayError({
    ...a.base,
    kind: 'payload_too_large',
    message: headline(a, t('HTTP 413 request body too large.')),
    reason: t('The request body is larger than the gateway accepts.'),
    fix: t('Shorten the context, or reduce the image or file size.'),
  });
}

function rateLimited(a: Answer): GatewayError {
  return new GatewayError({
    ...a.base,
    kind: 'rate_limited',
    message: headline(a, t('HTTP 429 rate limited.')),
    reason: t('Too many requests for this token or model in a short time (rate limited).'),
    fix: t('Lower concurrency and retry with exponential backoff.'),
  });
}

/** 408: the gateway (or a proxy) gave up waiting; retried like 429, never for a billed call. */
function requestTimeout(a: Answer): GatewayError {
  return new GatewayError({
    ...a.base,
    kind: 'timeout',
    message: headline(a, t('HTTP 408 request timeout.')),
    reason: t('The gateway or a proxy in front of it gave up waiting for the request or its upstream (HTTP 408).'),
    fix: t('Retry after a moment; if it keeps happening, shorten the request or check the proxy.'),
  });
}

/** 409: the request conflicts with another one in progress; retried like 429, never for a billed call. */
function conflict(a: Answer): GatewayError {
  return new GatewayError({
    ...a.base,
    kind: 'bad_request',
    message: headline(a, t('HTTP 409 conflict.')),
    reason: t('The gateway refused the request because it conflicts with another request in progress (HTTP 409).'),
    fix: t('Retry after a moment; if it keeps happening, send fewer requests at once.'),
  });
}

function serverError(a: Answer): GatewayError {
  return new GatewayError({
    ...a.base,
    kind: 'server_error',
    message: headline(a, t('HTTP {0} service or upstream fault.', a.status)),
    reason: t('A temporary fault in the gateway or its upstream provider.'),
    fix: t('Retry with backoff after about 1 to 2 minutes; if the fault persists, report it with the request id.'),
  });
}

/** Where a redirect points, as `https://host` (never a path or query that could carry anything else). */
function redirectTarget(a: Answer, location: string | undefined): { origin: string; host: string } | undefined {
  if (!location) return undefined;
  try {
    const u = new URL(location, a.context.url);
    return { origin: u.origin, host: u.host };
  } catch {
    return undefined;
  }
}

/** A 3xx: never followed with the token (it would be sent wherever the redirect points). */
function redirected(a: Answer, location: string | undefined): GatewayError {
  const target = redirectTarget(a, location);
  const fromHost = a.context.url ? hostOf(a.context.url) : undefined;
  const where = !target
    ? t('an address it did not name')
    : target.host === fromHost
      ? t('another address on {0}', target.host)
      : target.host;
  const httpToHttps =
    !!target && !!a.context.url?.startsWith('http:') && target.origin.startsWith('https:') && target.host === fromHost;
  return new GatewayError({
    ...a.base,
    kind: 'protocol',
    detail: 'redirect',
    message: t(
      'HTTP {0}: {1} redirects {2} to {3}.',
      a.status,
      fromHost ?? t('the gateway'),
      a.path || t('the request'),
      where,
    ),
    reason: httpToHttps
      ? t(
          'The gateway serves its API over https only; this client never follows a redirect with your token, so the request was not repeated at {0}.',
          target.origin,
        )
      : t(
          'The address answers with a redirect (to {0}): the base URL points at a page, an old domain or a proxy, not the API. This client never follows a redirect with your token.',
          where,
        ),
    fix: target
      ? t(
          'If you trust {0}, set the base URL to {1} (the root address); otherwise check the gateway console for its API address.',
          target.host,
          target.origin,
        )
      : t('Check the gateway console for its API address and set the base URL to that root address.'),
  });
}

/**
 * new-api's `convert_request_failed` on /v1/responses: the model's channel (Anthropic, DeepSeek,
 * Moonshot…) has no Responses conversion. Said as HTTP 500, but no fault: a retry gets the same.
 */
function cannotConvert(a: Answer): GatewayError {
  return new GatewayError({
    ...a.base,
    kind: 'bad_request',
    detail: 'convert_request_failed',
    message: headline(a, t('HTTP {0}: the gateway cannot send {1} on the Responses surface.', a.status, a.model)),
    reason: t(
      "This model's channel on the gateway cannot convert Responses requests (Anthropic, DeepSeek, Moonshot… channels).",
    ),
    fix: t(
      "Use the compatible or native surface for this model, or ask the gateway's admin for a channel that serves /v1/responses.",
    ),
  });
}

/**
 * new-api's `convert_request_failed` on the compatible or native surface: the model's channel
 * speaks another API (a Codex channel serves only /v1/responses). No fault either: never retried.
 */
function cannotConvertHere(a: Answer): GatewayError {
  return new GatewayError({
    ...a.base,
    kind: 'bad_request',
    detail: 'convert_request_failed',
    message: headline(a, t('HTTP {0}: the gateway cannot send {1} on this surface.', a.status, a.model)),
    reason: t(
      "This model's channel on the gateway cannot convert requests of this surface: it serves another API (a Codex channel serves only the Responses API).",
    ),
    fix: t(
      "Use the surface the model answers on (the responses surface for a Codex channel), or ask the gateway's admin for a channel that serves this surface.",
    ),
  });
}

function otherStatus(a: Answer): GatewayError {
  return new GatewayError({
    ...a.base,
    kind: 'bad_request',
    message: headline(a, `HTTP ${a.status}.`),
    reason: t('The gateway refused the request.'),
    fix: t('Check the request parameters and the base URL.'),
  });
}

type Builder = (a: Answer) => GatewayError;

const BY_STATUS: Record<number, Builder> = {
  400: badRequest,
  401: unauthorized,
  403: forbidden,
  404: notFound,
  408: requestTimeout,
  409: conflict,
  413: tooLarge,
  429: rateLimited,
  500: serverError,
};

/**
 * The builder for an answer: the status's own; for an error said without one (stream, 200 body),
 * the builder of the status the gateway's words stand for (a failure it cannot name is a fault of
 * the gateway or its upstream). Over HTTP, the words refine a status only where they must: a 429
 * that says the quota is gone (OpenAI's `insufficient_quota`) is a quota refusal, not a rate
 * limit, and an unlisted 4xx takes the class its words name.
 */
function builderFor(a: Answer): Builder {
  const words = statusFromWords(a.parsed.type, a.parsed.code, a.gatewayMessage);
  if (a.parsed.code === 'convert_request_failed')
    return a.context.surface === 'responses' ? cannotConvert : cannotConvertHere;
  if (a.origin !== 'status') return BY_STATUS[words ?? 500];
  if (a.status === 503 && (a.parsed.code === 'model_not_found' || noChannelGroup(a.gatewayMessage)))
    return modelNotFound503;
  const quotaGone =
    a.parsed.code === 'insufficient_quota' ||
    a.parsed.type === 'insufficient_quota' ||
    !!quotaRefusalFrom(a.parsed.code, a.gatewayMessage);
  if (a.status === 429 && quotaGone) return forbidden;
  const own = BY_STATUS[a.status];
  if (own) return own;
  if (a.status >= 500) return serverError;
  return words !== undefined && words < 500 ? BY_STATUS[words] : otherStatus;
}

export type { ErrorOrigin, HttpErrorInput } from './answer';

/** Builds the classified error for a gateway's failure answer (see `ErrorOrigin`). */
export function errorFromResponse(input: HttpErrorInput): GatewayError {
  const a = readAnswer(input);
  if (a.origin === 'status' && a.status >= 300 && a.status < 400) return redirected(a, first(input.headers.location));
  if (a.parsed.html) return htmlPage(a);
  // Older gateways send no code: their message says "no available channel" (无可用渠道) and names the group.
  return builderFor(a)(a);
}
