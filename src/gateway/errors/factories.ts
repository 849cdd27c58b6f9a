/**
 * Every GatewayError that is not read off an HTTP answer or a network failure is built here, by a
 * named factory: nothing outside src/gateway/errors calls `new GatewayError` itself.
 */
import { stoppedAtMaxTokens } from '../chat/finishReason';
import { t } from '../l10n';
import { REQUEST_ID_SUFFIX } from './errorBody';
import { GatewayError, type ErrorContext, type ErrorDetail } from './gatewayError';
import type { TokenState } from './gatewayWords';
import { refusedToken, type TokenFacts } from './tokenWords';

/** ` The gateway said: "…".` (a sentence to append, with its leading space), or nothing. */
export function gatewaySaid(gatewayMessage: string | undefined): string {
  return gatewayMessage ? ` ${t('The gateway said: "{0}".', gatewayMessage)}` : '';
}

function protocolWords(
  detail: 'invalid_json' | 'unexpected_shape' | 'empty_choices',
  what: string,
): { message: string; cause: string } {
  switch (detail) {
    case 'invalid_json':
      return {
        message: t('The gateway answered {0} with a body that is not valid JSON.', what),
        cause: t('The response body was cut off or is not JSON: a proxy, a wrong path or a gateway fault.'),
      };
    case 'unexpected_shape':
      return {
        message: t('The gateway answered {0} with an unexpected body.', what),
        cause: t(
          'The response does not have the fields the API promises: the base URL may point at something other than the gateway API, or the gateway changed its format.',
        ),
      };
    case 'empty_choices':
      return {
        message: t('The gateway answered {0} with no reply (empty choices).', what),
        cause: t('The upstream model returned nothing: a content filter, a gateway fault or an exhausted channel.'),
      };
  }
}

/** A 2xx answer whose body is not what the endpoint promises; `what` names the request (a path, or translated words). */
export function protocolError(
  detail: 'invalid_json' | 'unexpected_shape' | 'empty_choices',
  what: string,
  context: ErrorContext,
  extra: { status?: number; requestId?: string } = {},
): GatewayError {
  return new GatewayError({
    kind: 'protocol',
    detail,
    ...protocolWords(detail, what),
    fix: t('Check the base URL and retry; if it persists, report it with the request id.'),
    context,
    ...extra,
  });
}

function emptyReplyCause(budget: boolean, filtered: boolean, hadReasoning: boolean): string {
  if (budget)
    return hadReasoning
      ? t('The model used its whole output budget (max tokens) on reasoning before writing an answer.')
      : t('The model used its whole output budget (max tokens) before writing an answer.');
  if (filtered) return t('The upstream content filter stopped the reply.');
  return hadReasoning
    ? t('The upstream model returned nothing but reasoning: a content filter, a gateway fault or an exhausted channel.')
    : t('The upstream model returned nothing: a content filter, a gateway fault or an exhausted channel.');
}

/**
 * A complete reply with neither text nor a tool call: never shown as silence. The finish reason
 * tells the likely cause.
 */
export function emptyReplyError(
  finishReason: string | undefined,
  hadReasoning: boolean,
  context: ErrorContext,
  extra: { status?: number; requestId?: string } = {},
): GatewayError {
  const budget = stoppedAtMaxTokens(finishReason);
  const filtered = finishReason === 'content_filter' || finishReason === 'refusal';
  const cause = emptyReplyCause(budget, filtered, hadReasoning);
  const fix = budget
    ? t("Raise modelRelay.maxTokens (or the request's max tokens) and retry.")
    : filtered
      ? t('Rephrase the request, or try another model.')
      : t('Retry; if it keeps happening, try another model or report it with the request id.');
  const message = finishReason
    ? t('The model\'s reply had neither text nor a tool call (finish reason "{0}").', finishReason)
    : t("The model's reply had neither text nor a tool call.");
  return new GatewayError({ kind: 'protocol', detail: 'empty_reply', message, cause, fix, context, ...extra });
}

/** A tool call whose arguments are not a JSON object. */
export function toolArgumentsError(
  name: string,
  args: string,
  context: ErrorContext,
  extra: { status?: number; requestId?: string } = {},
): GatewayError {
  return new GatewayError({
    kind: 'protocol',
    detail: 'invalid_tool_arguments',
    message: t(
      'The model called the tool "{0}" with arguments that are not a JSON object ({1} characters).',
      name,
      args.length,
    ),
    cause: t('The model (or a gateway converting between formats) produced malformed tool-call arguments.'),
    fix: t('Retry; if it keeps happening, pick a model with reliable tool calling.'),
    context,
    ...extra,
  });
}

/** A bare 401 explained: the token expired, its quota is used up, or it is disabled (from the token-usage endpoint). */
export function tokenRefusedError(
  e: GatewayError,
  state: TokenState,
  facts: TokenFacts,
  token: string | undefined,
): GatewayError {
  const w = refusedToken(state, facts);
  const out = new GatewayError({
    kind: 'unauthorized',
    ...w,
    message: `HTTP 401: ${w.message}${gatewaySaid(e.gatewayMessage)}`,
    status: e.status,
    gatewayMessage: e.gatewayMessage,
    gatewayType: e.gatewayType,
    gatewayCode: e.gatewayCode,
    requestId: e.requestId,
    context: { surface: e.surface, url: e.url, model: e.model, token },
  });
  out.host = e.host;
  out.attempts = e.attempts;
  return out;
}

/** An error carried inside a 200 stream, or a stream that broke off. */
export function streamError(
  detail: 'stream_error_event' | 'stream_truncated' | 'idle_timeout',
  context: ErrorContext,
  extra: {
    gatewayMessage?: string;
    gatewayType?: string;
    gatewayCode?: string;
    requestId?: string;
    status?: number;
    original?: unknown;
  } = {},
): GatewayError {
  const gm = extra.gatewayMessage?.replace(REQUEST_ID_SUFFIX, '');
  const requestId =
    extra.requestId ?? (extra.gatewayMessage ? REQUEST_ID_SUFFIX.exec(extra.gatewayMessage)?.[1] : undefined);
  const base = { ...extra, gatewayMessage: gm, requestId, context, kind: 'stream_interrupted' as const, detail };
  switch (detail) {
    case 'stream_error_event':
      return new GatewayError({
        ...base,
        message: gm ? t('The stream carried an error: "{0}".', gm) : t('The stream carried an error.'),
        cause: t(
          'The gateway or the upstream model failed after the reply had started (an error event inside the stream).',
        ),
        fix: t('Retry the request; if it keeps failing, try another model or report it with the request id.'),
      });
    case 'stream_truncated':
      return new GatewayError({
        ...base,
        message: t('The stream ended before the reply was complete.'),
        cause: t('The connection was closed mid-reply: a proxy, a gateway timeout, or a network break.'),
        fix: t('Retry; if it happens often, a proxy may be cutting streams — turn streaming off or check the proxy.'),
      });
    case 'idle_timeout':
      return new GatewayError({
        ...base,
        message: t('The stream stalled: no data arrived within the idle limit.'),
        cause: t('The gateway, the upstream or a proxy stopped sending data mid-stream.'),
        fix: t(
          'Retry; raise the stream idle timeout if the model is slow, or turn streaming off behind a buffering proxy.',
        ),
      });
  }
}

/** An error raised before anything is sent (bad caller input); the caller passes translated sentences. */
export function inputError(
  message: string,
  fix: string,
  context: ErrorContext = {},
  detail?: ErrorDetail,
): GatewayError {
  return new GatewayError({ kind: 'bad_request', message, cause: message, fix, context, detail, notSent: true });
}

/** No usable base URL: nothing can be sent. */
export function noBaseUrlError(context: ErrorContext): GatewayError {
  return new GatewayError({
    kind: 'bad_request',
    message: t('No usable base URL is configured.'),
    cause: t('The base URL setting is empty or not a valid http(s) address.'),
    fix: t('Set the gateway root address with "Model Relay: Configure Base URL".'),
    notSent: true,
    context,
  });
}

/** Extra headers that cannot be sent (a line break in a value, a bad name): a configuration error, never sent. */
export function invalidHeadersError(problems: readonly string[], context: ErrorContext): GatewayError {
  return new GatewayError({
    kind: 'bad_request',
    message: t('The extra request headers cannot be sent: {0}.', problems.join('; ')),
    cause: t(
      'modelRelay.extraHeaders holds a header that would break the request (a line break could smuggle a second header or request).',
    ),
    fix: t('Fix modelRelay.extraHeaders: header names are letters, digits and -, values are one line.'),
    notSent: true,
    context,
  });
}

function notMediaWords(what: 'image' | 'video', found: string): { message: string; cause: string; fix: string } {
  return what === 'image'
    ? {
        message: t('The image the gateway pointed to is not an image ({0}).', found),
        cause: t(
          'The image result answered with {0} instead of the image: an expired or private link, an error page, or a gateway error answered with 200.',
          found,
        ),
        fix: t('Generate the image again; if it keeps happening, check the gateway (or its storage) in the console.'),
      }
    : {
        message: t('The video the gateway pointed to is not a video ({0}).', found),
        cause: t(
          'The video result answered with {0} instead of the video: an expired or private link, an error page, or a gateway error answered with 200.',
          found,
        ),
        fix: t('Check the task in the Video Tasks view (Refresh) and download again once it has completed.'),
      };
}

/** A generated image (or video content) that is not what it claims: an HTML page, a JSON error, unknown bytes (`found`: translated words). */
export function notMediaError(
  what: 'image' | 'video',
  found: string,
  context: ErrorContext,
  extra: { gatewayMessage?: string | undefined } = {},
): GatewayError {
  return new GatewayError({
    kind: 'protocol',
    detail: 'unexpected_shape',
    ...notMediaWords(what, found),
    gatewayMessage: extra.gatewayMessage,
    context,
  });
}

/** A generated image larger than the client reads. */
export function imageTooLargeError(limit: number, context: ErrorContext): GatewayError {
  return new GatewayError({
    kind: 'payload_too_large',
    message: t('The generated image is larger than {0} MiB, so it was not read.', (limit / 1048576).toFixed(0)),
    cause: t('The result file is far larger than an image should be: a wrong link, or not an image.'),
    fix: t('Open the result URL in a browser to see what it is, or generate a smaller image.'),
    context,
  });
}

/** No token stored: the gateway would answer 401, so nothing is sent. */
export function noTokenError(context: ErrorContext): GatewayError {
  return new GatewayError({
    kind: 'unauthorized',
    message: t('No token is set.'),
    cause: t('No API token is stored for the gateway, so the request would be refused with 401.'),
    fix: t('Add a token with "Model Relay: Add Token" (copy it from the gateway console; it starts with sk-).'),
    notSent: true,
    context,
  });
}

/** A 200 answer whose body is an error object (some gateways answer errors with 200). */
export function errorInOkBody(
  e: GatewayError,
  status: number,
  requestId: string | undefined,
  context: ErrorContext,
): GatewayError {
  return new GatewayError({
    kind: e.kind,
    message: t('HTTP 200 carrying an error: {0}', e.gatewayMessage ?? t('unknown')),
    cause: e.cause,
    fix: e.fix,
    status,
    gatewayMessage: e.gatewayMessage,
    gatewayCode: e.gatewayCode,
    gatewayType: e.gatewayType,
    requestId: requestId ?? e.requestId,
    context,
  });
}

/** An image above the upload limit for edits: refused before anything is sent. */
export function uploadTooLargeError(size: number, limit: number, context: ErrorContext): GatewayError {
  return new GatewayError({
    kind: 'payload_too_large',
    message: t(
      'The image is {0} MiB, above the {1} MiB limit for edits.',
      (size / 1048576).toFixed(1),
      (limit / 1048576).toFixed(1),
    ),
    cause: t('The request body would be larger than the gateway accepts (it would answer 413).'),
    fix: t(
      'Reduce the image or file size (scale it down or compress it), or raise modelRelay.images.maxUploadBytes if your gateway allows more.',
    ),
    context,
    notSent: true,
  });
}

/** The gateway answered an image request without any image in it. */
export function noImageError(context: ErrorContext = {}): GatewayError {
  return new GatewayError({
    kind: 'protocol',
    message: t('The gateway returned no image.'),
    cause: t('The image response held no image.'),
    fix: t('Try again or another image model.'),
    context,
  });
}

/** A video download refused: the result expired, or the task has not finished. */
export function videoContentError(e: GatewayError, detail: 'content_not_ready' | 'content_expired'): GatewayError {
  const context = { url: e.url, model: e.model, surface: e.surface };
  const common = {
    kind: e.kind,
    status: e.status,
    detail,
    gatewayMessage: e.gatewayMessage,
    requestId: e.requestId,
    context,
  };
  if (detail === 'content_expired') {
    return new GatewayError({
      ...common,
      message: t('The video result is no longer held by the gateway (HTTP {0}).', String(e.status)),
      cause: t('The finished video was kept only for a limited time and has expired (download expired).'),
      fix: t('Generate the video again; download results soon after they complete.'),
    });
  }
  return new GatewayError({
    ...common,
    message: t('The video is not finished yet, so its content cannot be downloaded.'),
    cause: t('Content can be downloaded only after the task has completed.'),
    fix: t('Wait until the task shows completed, then download.'),
  });
}

/** `/image` in the chat with no image model configured. */
export function noImageModelError(): GatewayError {
  return new GatewayError({
    kind: 'bad_request',
    message: t('No image model is set.'),
    cause: t('/image needs an image model, and modelRelay.models.image is empty.'),
    fix: t('Set modelRelay.models.image to an image model from "Model Relay: List Models".'),
    notSent: true,
    context: { capability: 'image' },
  });
}
