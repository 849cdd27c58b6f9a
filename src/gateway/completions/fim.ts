/**
 * Fill-in-the-middle on `POST /v1/completions` as new-api relays it (shared/reference/vscode-chat-settings.md
 * §5): `prompt` (the text before the cursor) + `suffix` (after it), `max_tokens`, `temperature: 0`,
 * `stop: ["\n\n"]` (one block: the suggestion ends at a blank line, and no tokens are paid for a
 * second one), not streamed (the engine shows a whole suggestion or none; one small JSON answer
 * with its usage). Billed: never re-sent; aborting closes the socket at once (the transport's signal).
 * A refusal of FIM itself (a chat model's 404, vLLM's `suffix` 400, no such route) is recognised by
 * `fimRefused` so the caller can ask the chat way instead.
 */
import { protocolError } from '../errors/factories';
import { errorFromResponse } from '../errors/fromResponse';
import { isGatewayError, type ErrorContext, type GatewayError } from '../errors/gatewayError';
import type { Transport } from '../http/transport';
import { mayResend } from '../http/retryPolicy';
import type { CompletionRequest } from './types';

export const COMPLETIONS_PATH = '/v1/completions';
/** Stop at the first blank line: one block per suggestion. */
export const FIM_STOP = ['\n\n'];
/** A completion answer is a few KB; anything larger is a broken gateway. */
const MAX_ANSWER_BYTES = 1024 * 1024;

/** The words of a gateway (or its upstream) refusing fill-in-the-middle for a model, case-insensitive. */
const FIM_REFUSALS: readonly RegExp[] = [
  // OpenAI (and compatible upstreams): "This is a chat model and not supported in the v1/completions endpoint."
  /not supported in the v1\/completions endpoint/i,
  // vLLM: "suffix is not currently supported"; others: "suffix is not supported", "does not support suffix"
  /suffix is not (currently )?supported/i,
  /does not support (the )?(suffix|fim|fill-in-the-middle|completions)/i,
  // a gateway or proxy without the route: new-api's "Invalid URL (POST /v1/completions)"
  /invalid url \(post \/?v1\/completions\)/i,
];

/**
 * Whether a failed FIM request was refused for what it is (the model or the route does no FIM),
 * before any reply: a 400 or 404 whose words say so. Such a refusal was not billed, so the same
 * insertion may be asked the chat way (a resend: the rule of http/retryPolicy.ts is asked too). Never
 * a 5xx, a timeout or an error inside a 200 answer.
 */
export function fimRefused(e: unknown): e is GatewayError {
  if (!isGatewayError(e) || (e.status !== 400 && e.status !== 404) || !mayResend(e)) return false;
  const words = `${e.gatewayMessage ?? ''}\n${e.message}`;
  return FIM_REFUSALS.some((re) => re.test(words));
}

export function fimBody(req: CompletionRequest, maxTokens: number): Record<string, unknown> {
  return {
    model: req.model,
    prompt: req.prefix,
    suffix: req.suffix,
    max_tokens: maxTokens,
    temperature: 0,
    stop: FIM_STOP,
    stream: false,
  };
}

export interface FimAnswer {
  text: string;
  finishReason: string | undefined;
  usage: { input: number; output: number } | undefined;
  requestId: string | undefined;
}

const count = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.round(v) : undefined);

/** The middle of a `text_completion` answer (the first choice), its usage; an error inside a 200 is thrown classified. */
export function parseFimAnswer(
  data: unknown,
  context: ErrorContext,
  status: number,
  requestId: string | undefined,
): Omit<FimAnswer, 'requestId'> {
  const rid = { status, ...(requestId ? { requestId } : {}) };
  const o = data && typeof data === 'object' && !Array.isArray(data) ? (data as Record<string, unknown>) : undefined;
  if (o?.error && typeof o.error === 'object')
    throw errorFromResponse({ status, headers: {}, body: JSON.stringify(data), context, origin: 'okBody', requestId });
  if (!o || !Array.isArray(o.choices)) throw protocolError('unexpected_shape', COMPLETIONS_PATH, context, rid);
  if (o.choices.length === 0) throw protocolError('empty_choices', COMPLETIONS_PATH, context, rid);
  const first = o.choices[0] as { text?: unknown; finish_reason?: unknown } | null;
  if (!first || typeof first !== 'object' || (first.text !== undefined && typeof first.text !== 'string'))
    throw protocolError('unexpected_shape', COMPLETIONS_PATH, context, rid);
  const u = o.usage && typeof o.usage === 'object' ? (o.usage as Record<string, unknown>) : undefined;
  const input = count(u?.prompt_tokens);
  const output = count(u?.completion_tokens);
  return {
    text: first.text ?? '',
    finishReason: typeof first.finish_reason === 'string' ? first.finish_reason : undefined,
    usage: input === undefined && output === undefined ? undefined : { input: input ?? 0, output: output ?? 0 },
  };
}

/**
 * One FIM request: built at once, sent once (billed) when `sendAfter` allows, read bounded; refusals
 * and failures thrown as classified GatewayErrors.
 */
export async function fimCall(
  transport: Transport,
  req: CompletionRequest,
  maxTokens: number,
  timeoutMs: number,
): Promise<FimAnswer> {
  const body = JSON.stringify(fimBody(req, maxTokens));
  if (req.sendAfter) await req.sendAfter; // built during the debounce, sent at its end
  const { data, res } = await transport.json({
    method: 'POST',
    path: COMPLETIONS_PATH,
    surface: 'compatible',
    capability: 'chat',
    purpose: 'completion',
    model: req.model,
    body,
    json: true,
    signal: req.signal,
    timeoutMs,
    sideEffecting: true,
    noRetry: true,
    maxBytes: MAX_ANSWER_BYTES,
  });
  return { ...parseFimAnswer(data, res.context, res.status, res.requestId), requestId: res.requestId };
}
