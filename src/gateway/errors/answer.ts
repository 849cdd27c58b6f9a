/**
 * Reading what a gateway answered when it failed, for the builders in fromResponse.ts: the error
 * body in any shape, the request id, Retry-After and x-should-retry, the phrases messages quote,
 * and where the error was said (as the status, inside a 200 stream, or in a 200 body).
 */
import { t } from '../l10n';
import { parseErrorBody, REQUEST_ID_SUFFIX, requestIdFrom, retryAfterFrom, type ParsedErrorBody } from './errorBody';
import { gatewaySaid } from './factories';
import type { ErrorContext, GatewayErrorInit } from './gatewayError';

/**
 * Where the error was said: as the HTTP status (`status`, the default), as an error event inside a
 * 200 stream (`stream`), or as an error object in a 200 body (`okBody`).
 */
export type ErrorOrigin = 'status' | 'stream' | 'okBody';

export interface HttpErrorInput {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  context: ErrorContext;
  now?: number;
  origin?: ErrorOrigin;
  /** the request id known from elsewhere (the response headers of a 200 body) */
  requestId?: string | undefined;
}

/** What every builder needs: the common fields and the phrases they quote. */
export interface Answer {
  base: Omit<GatewayErrorInit, 'kind' | 'message' | 'reason' | 'fix'>;
  status: number;
  parsed: ParsedErrorBody;
  gatewayMessage: string | undefined;
  context: ErrorContext;
  /** the called path, e.g. /v1/chat/completions */
  path: string;
  /** `"model-id"` or `this model` */
  model: string;
  /** ` The gateway said: "…".` or nothing */
  quoted: string;
  origin: ErrorOrigin;
}

function pathOf(url: string | undefined): string {
  if (!url) return '';
  try {
    return new URL(url).pathname;
  } catch {
    return url;
  }
}

export function first(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

export function readAnswer(input: HttpErrorInput): Answer {
  const { status, headers, body, context } = input;
  const parsed = parseErrorBody(body, first(headers['content-type']));
  const requestId = requestIdFrom(headers, parsed.message) ?? input.requestId;
  const gatewayMessage = parsed.message?.replace(REQUEST_ID_SUFFIX, '') || undefined;
  const retryAfterMs = retryAfterFrom(headers, input.now);
  const origin = input.origin ?? 'status';
  return {
    base: {
      status,
      gatewayMessage,
      gatewayType: parsed.type,
      gatewayCode: parsed.code,
      gatewayJson: parsed.envelope === true,
      requestId,
      retryAfterMs,
      serverShouldRetry: shouldRetryHeader(headers),
      context,
      ...(origin === 'stream' ? { detail: 'stream_error_event' as const } : {}),
    },
    status,
    parsed,
    gatewayMessage,
    context,
    path: pathOf(context.url),
    model: context.model ? `"${context.model}"` : t('this model'),
    quoted: gatewaySaid(gatewayMessage),
    origin,
  };
}

/** The server's own word on retrying (`x-should-retry: true|false`, as openai-node honours it). */
function shouldRetryHeader(headers: HttpErrorInput['headers']): boolean | undefined {
  const v = first(headers['x-should-retry'])?.trim().toLowerCase();
  return v === 'true' ? true : v === 'false' ? false : undefined;
}

/** The message: the status's own headline over HTTP, or what the stream or the 200 body carried. */
export function headline(a: Answer, httpHead: string): string {
  switch (a.origin) {
    case 'status':
      return `${httpHead}${a.quoted}`;
    case 'stream':
      return a.gatewayMessage
        ? t('The stream carried an error: "{0}".', a.gatewayMessage)
        : t('The stream carried an error.');
    case 'okBody':
      return t('HTTP 200 carrying an error: {0}', a.gatewayMessage ?? t('unknown'));
  }
}
