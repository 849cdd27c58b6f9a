/**
 * Every GatewayError that is not read off an HTTP answer or a network failure is built here, by a
 * named factory: nothing outside src/gateway/errors calls `new GatewayError` itself.
 */
import { answerEnding } from '../chat/finishReason';
import { t } from '../l10n';
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
): { message: string; reason: string } {
  switch (detail) {
    case 'invalid_json':
      return {
        message: t('The gateway answered {0} with a body that is not valid JSON.', what),
        reason: t('The response body was cut off or is not JSON: a proxy, a wrong path or a gateway fault.'),
      };
    case 'unexpected_shape':
      return {
        message: t('The gateway answered {0} with an unexpected body.', what),
        reason: t(
          'The response does not have the fields the API promises: the base URL may point at something other than the gateway API, or the gateway changed its format.',
        ),
      };
    case 'empty_choices':
      return {
        message: t('The gateway answered {0} with no reply (empty choices).', what),
        reason: t('The upstream model returned nothing: a content filter, a gateway fault or an exhausted channel.'),
      };
  }
}

/** A 2xx answer whose body is not what the endpoint promises; `what` names the request (a path, or translated words). */
export function protocolError(
  detail: 'invalid_json' | 'unexpected_shape' | 'empty_choices',
  what: string,
  context: ErrorContext,
  extra: { status?: number; requestId?: string; gatewayMessage?: string } = {},
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
  const ending = answerEnding(finishReason);
  const budget = ending === 'budget';
  const filtered = ending === 'filter';
  const reason = emptyReplyCause(budget, filtered, hadReasoning);
  const fix = budget
    ? t("Raise modelRelay.maxTokens (or the request's max tokens) and retry.")
    : filtered
      ? t('Rephrase the request, or try another model.')
      : t('Retry; if it keeps happening, try another model or report it with the request id.');
  const message = finishReason
    ? t('The model\'s reply had neither text nor a tool call (finish reason "{0}").', finishReason)
    : t("The model's reply had neither text nor a tool call.");
  return new GatewayError({ kind: 'protocol', detail: 'empty_reply', message, reason, fix, context, ...extra });
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
    reason: t('The model (or a gateway converting between formats) produced malformed tool-call arguments.'),
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

/**
 * A stream that broke off: the connection was lost, nothing arrived within the idle limit, or it
 * ended without its end marker. (An error the gateway sends inside a stream is classified by what
 * it says: errorFromResponse with origin 'stream'.)
 */
export function streamError(
  detail: 'stream_truncated' | 'idle_timeout',
  context: ErrorContext,
  extra: { requestId?: string; status?: number; cause?: unknown } = {},
): GatewayError {
  const base = { ...extra, context, kind: 'stream_interrupted' as const, detail };
  switch (detail) {
    case 'stream_truncated':
      return new GatewayError({
        ...base,
        message: t('The stream ended before the reply was complete.'),
        reason: t('The connection was closed mid-reply: a proxy, a gateway timeout, or a network break.'),
        fix: t('Retry; if it happens often, a proxy may be cutting streams — turn streaming off or check the proxy.'),
      });
    case 'idle_timeout':
      return new GatewayError({
        ...base,
        message: t('The stream stalled: no data arrived within the idle limit.'),
        reason: t('The gateway, the upstream or a proxy stopped sending data mid-stream.'),
        fix: t(
          'Retry; raise the stream idle timeout if the model is slow, or turn streaming off behind a buffering proxy.',
        ),
      });
  }
}

/** One stream event larger than the client holds (a hostile or broken gateway): the stream is closed. */
export function eventTooLargeError(
  limit: number,
  context: ErrorContext,
  extra: { requestId?: string; status?: number } = {},
): GatewayError {
  return new GatewayError({
    kind: 'protocol',
    detail: 'event_too_large',
    message: t('The gateway sent one stream event larger than {0} MB; the stream was closed.', mb(limit)),
    reason: t(
      'A single event of a reply stream is never that large: the gateway, its upstream or a proxy sent a broken or endless event (a line without its end).',
    ),
    fix: t('Retry; if it happens again, report it to the gateway operator with the request id.'),
    context,
    ...extra,
  });
}

/** A 2xx body larger than the client reads for this request: named as too large, never as invalid JSON. */
export function bodyTooLargeError(
  limit: number,
  what: string,
  context: ErrorContext,
  extra: { requestId?: string; status?: number } = {},
): GatewayError {
  return new GatewayError({
    kind: 'protocol',
    detail: 'body_too_large',
    message: t('The gateway answered {0} with a body larger than {1} MB; it was not read to the end.', what, mb(limit)),
    reason: t(
      'No answer of this API is that large: the base URL may point at something other than the gateway API, or the gateway sent a broken answer.',
    ),
    fix: t('Check the base URL and retry; if it persists, report it to the gateway operator with the request id.'),
    context,
    ...extra,
  });
}

/**
 * The request body could not be built on this machine (e.g. the file to upload could not be read):
 * nothing was sent, so nothing was billed.
 */
export function requestNotBuiltError(cause: unknown, context: ErrorContext): GatewayError {
  const said = cause instanceof Error ? cause.message : String(cause);
  return new GatewayError({
    kind: 'bad_request',
    detail: 'request_not_built',
    message: t('The request could not be prepared on this machine: {0}', said),
    reason: t('Building the request body failed before anything was sent (nothing reached the gateway).'),
    fix: t('Check the input (for an upload: that the file exists and can be read) and try again.'),
    context,
    cause,
    notSent: true,
  });
}

const mb = (bytes: number) => String(Math.round(bytes / (1024 * 1024)));

/** An error raised before anything is sent (bad caller input); the caller passes translated sentences. */
export function inputError(
  message: string,
  fix: string,
  context: ErrorContext = {},
  detail?: ErrorDetail,
): GatewayError {
  return new GatewayError({ kind: 'bad_request', message, reason: message, fix, context, detail, notSent: true });
}

/** No usable base URL: nothing can be sent. */
export function noBaseUrlError(context: ErrorContext): GatewayError {
  return new GatewayError({
    kind: 'bad_request',
    message: t('No usable base URL is configured.'),
    reason: t('The base URL setting is empty or not a valid http(s) address.'),
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
    reason: t(
      'modelRelay.extraHeaders holds a header that would break the request (a line break could smuggle a second header or request).',
    ),
    fix: t('Fix modelRelay.extraHeaders: header names are letters, digits and -, values are one line.'),
    notSent: true,
    context,
  });
}

function notMediaWords(what: 'image' | 'video', found: string): { message: string; reason: string; fix: string } {
  return what === 'image'
    ? {
        message: t('The image the gateway pointed to is not an image ({0}).', found),
        reason: t(
          'The image result answered with {0} instead of the image: an expired or private link, an error page, or a gateway error answered with 200.',
          found,
        ),
        fix: t('Generate the image again; if it keeps happening, check the gateway (or its storage) in the console.'),
      }
    : {
        message: t('The video the gateway pointed to is not a video ({0}).', found),
        reason: t(
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
    reason: t('The result file is far larger than an image should be: a wrong link, or not an image.'),
    fix: t('Open the result URL in a browser to see what it is, or generate a smaller image.'),
    context,
  });
}

/** No token stored: the gateway would answer 401, so nothing is sent. */
export function noTokenError(context: ErrorContext): GatewayError {
  return new GatewayError({
    kind: 'unauthorized',
    message: t('No token is set.'),
    reason: t('No API token is stored for the gateway, so the request would be refused with 401.'),
    fix: t('Add a token with "Model Relay: Add Token" (copy it from the gateway console; it starts with sk-).'),
    notSent: true,
    context,
  });
}

/**
 * A token a request header cannot carry (tokenShape.ts): more than one line — two tokens pasted
 * together, say — or a character no header may hold. Refused before anything is sent; never retried.
 */
export function malformedTokenError(problem: 'lines' | 'characters', context: ErrorContext): GatewayError {
  return new GatewayError({
    kind: 'unauthorized',
    detail: 'malformed_token',
    message:
      problem === 'lines'
        ? t('The token holds more than one line.')
        : t('The token contains characters that cannot be sent in a request header.'),
    reason:
      problem === 'lines'
        ? t(
            'Two tokens were pasted together, or a line break was copied with the token: it cannot be sent, so nothing was sent.',
          )
        : t('The value is not a gateway token as copied from the console: it cannot be sent, so nothing was sent.'),
    fix: t(
      'Store one token, on one line, with "Model Relay: Add Token" (copy it from the gateway console; it starts with sk-).',
    ),
    notSent: true,
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
    reason: t('The request body would be larger than the gateway accepts (it would answer 413).'),
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
    reason: t('The image response held no image.'),
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
      reason: t('The finished video was kept only for a limited time and has expired (download expired).'),
      fix: t('Generate the video again; download results soon after they complete.'),
    });
  }
  return new GatewayError({
    ...common,
    message: t('The video is not finished yet, so its content cannot be downloaded.'),
    reason: t('Content can be downloaded only after the task has completed.'),
    fix: t('Wait until the task shows completed, then download.'),
  });
}

/** `/image` in the chat with no image model configured. */
export function noImageModelError(): GatewayError {
  return new GatewayError({
    kind: 'bad_request',
    message: t('No image model is set.'),
    reason: t('/image needs an image model, and modelRelay.models.image is empty.'),
    fix: t('Set modelRelay.models.image to an image model from "Model Relay: List Models".'),
    notSent: true,
    context: { capability: 'image' },
  });
}
