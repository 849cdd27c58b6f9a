/**
 * Chat on both surfaces behind one interface. Non-stream returns a ChatResult; stream is a
 * single-use AsyncIterable<ChatEvent> that closes the connection when the consumer breaks or the
 * signal aborts, and throws the same GatewayError for an error inside a 200 stream.
 */
import { DEFAULT_MAX_TOKENS } from '../defaults';
import type { ErrorContext, Surface } from '../errors/gatewayError';
import { errorFromResponse } from '../errors/fromResponse';
import { emptyReplyError, inputError, protocolError, toolArgumentsError } from '../errors/factories';
import { t } from '../l10n';
import { invalidToolNames } from './tools';
import type { Learnt } from './modelRules';
import type { ChatRequest, ChatResult, SurfaceAdapter } from './types';
import { compatibleSurface } from './surfaces/compatible';
import { nativeSurface } from './surfaces/native';
import { responsesSurface } from './surfaces/responses';
import type { BurstThresholds } from '../http/sseStream';
import { jsonBytes } from '../http/jsonBody';
import type { SendOptions, Transport } from '../http/transport';
import { localInputCount, type CountText } from '../economy/inputCount';

export function surfaceAdapter(surface: Surface): SurfaceAdapter {
  switch (surface) {
    case 'native':
      return nativeSurface;
    case 'responses':
      return responsesSurface;
    default:
      return compatibleSurface;
  }
}

export interface ChatSettings {
  timeoutMs: number;
  idleTimeoutMs: number;
  /** the whole reply (streamed or not) must be complete within this */
  overallMs?: number;
  defaultNativeMaxTokens?: number;
  burst?: BurstThresholds;
  /** the largest single stream event read (default MAX_STREAM_EVENT_BYTES) */
  maxEventBytes?: number;
  now?: () => number;
  /** the tokenizer a call's input is counted with for its receipt (economy/inputCount.ts); none: not counted */
  countText?: CountText | undefined;
}

export function validate(req: ChatRequest): void {
  if (!req.model || !req.model.trim())
    throw inputError(
      t('No model is set for this chat request.'),
      t('Pick a chat model (see "Model Relay: List Models") or set modelRelay.models.chat.'),
      { surface: req.surface },
    );
  if (!Array.isArray(req.messages) || req.messages.length === 0)
    throw inputError(t('The chat request has no messages.'), t('Send at least one user message.'), {
      surface: req.surface,
      model: req.model,
    });
  if (req.temperature !== undefined && !(req.temperature >= 0 && req.temperature <= 2))
    throw inputError(t('Temperature {0} is out of range.', req.temperature), t('Use a temperature between 0 and 2.'), {
      surface: req.surface,
      model: req.model,
    });
  if (req.maxTokens !== undefined && !(Number.isInteger(req.maxTokens) && req.maxTokens > 0))
    throw inputError(
      t('max tokens {0} is not a positive integer.', String(req.maxTokens)),
      t('Use a positive whole number for max tokens.'),
      { surface: req.surface, model: req.model },
    );
  const badNames = invalidToolNames(req.tools ?? []);
  if (badNames.length)
    throw inputError(
      t(
        'Tool names must be letters, digits, "_" or "-" (at most 64): {0}.',
        badNames
          .slice(0, 3)
          .map((n) => JSON.stringify(n))
          .join(', '),
      ),
      t('Rename the tool; both surfaces refuse other names.'),
      { surface: req.surface, model: req.model },
    );
}

/** The HTTP request of a chat call on the request's surface. */
export function sendOptions(
  adapter: SurfaceAdapter,
  req: ChatRequest,
  settings: ChatSettings,
  stream: boolean,
  learnt?: Learnt,
): SendOptions {
  const countText = settings.countText;
  const body = adapter.toRequest(
    { ...req, stream },
    { maxTokens: settings.defaultNativeMaxTokens ?? DEFAULT_MAX_TOKENS, learnt },
  );
  return {
    method: 'POST',
    path: adapter.path,
    surface: req.surface,
    capability: 'chat',
    model: req.model,
    // The bytes of JSON.stringify(body), made without one giant string (an agent conversation is megabytes).
    body: jsonBytes(body),
    json: true,
    stream,
    signal: req.signal,
    timeoutMs: settings.timeoutMs,
    ...(stream ? { idleTimeoutMs: settings.idleTimeoutMs } : {}),
    ...(settings.overallMs !== undefined ? { deadlineMs: settings.overallMs } : {}),
    onRetry: req.onRetry,
    ...(req.purpose ? { purpose: req.purpose } : {}),
    // A completion is billed and wanted now: never re-sent (one that never left fails over to a backup).
    ...(req.purpose === 'completion' ? { sideEffecting: true, noRetry: true } : {}),
    // Completions are kept per minute and model (one receipt for many): their inputs are not counted.
    ...(countText && req.purpose !== 'completion' ? { countInput: () => localInputCount(req, countText) } : {}),
  };
}

/**
 * A non-streamed chat call: one request, built with what this gateway's refusals taught for the
 * model (`learnt`; the client's refusals.ts sends again on a refusal).
 */
export async function chat(
  transport: Transport,
  req: ChatRequest,
  settings: ChatSettings,
  learnt?: Learnt,
): Promise<ChatResult> {
  validate(req);
  const now = settings.now ?? Date.now;
  const adapter = surfaceAdapter(req.surface);
  const started = now();
  const { data, res } = await transport.json(sendOptions(adapter, req, settings, false, learnt));
  const ms = now() - started;
  return toResult(adapter, data, res.context, res.host, res.requestId, res.status, ms, req.acceptEmptyReply);
}

export function toResult(
  adapter: SurfaceAdapter,
  data: unknown,
  context: ErrorContext,
  host: string,
  requestId: string | undefined,
  status: number,
  durationMs: number,
  acceptEmpty = false,
): ChatResult {
  const errorInBody = (data as { error?: unknown } | null)?.error;
  if (errorInBody && typeof errorInBody === 'object')
    // A 200 whose body is an error object (seen on some gateways): classified by what it says, never shown as a reply.
    throw errorFromResponse({
      status,
      headers: {},
      body: JSON.stringify(data),
      context,
      origin: 'okBody',
      requestId,
    });
  const parsed = adapter.parseReply(data);
  if (parsed === 'empty')
    throw protocolError('empty_choices', `${adapter.path}`, context, { status, ...(requestId ? { requestId } : {}) });
  if (!parsed)
    throw protocolError('unexpected_shape', `${adapter.path}`, context, {
      status,
      ...(requestId ? { requestId } : {}),
    });
  const rid = { status, ...(requestId ? { requestId } : {}) };
  if (parsed.badToolCall) throw toolArgumentsError(parsed.badToolCall.name, parsed.badToolCall.args, context, rid);
  if (!parsed.text && !parsed.toolCalls.length && !acceptEmpty)
    throw emptyReplyError(parsed.finishReason, !!parsed.reasoning, context, rid);
  const { badToolCall: _bad, ...reply } = parsed;
  return { ...reply, host, requestId, durationMs };
}
