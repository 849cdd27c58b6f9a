/**
 * Check 5: one real, minimal generation call per configured surface (max_tokens: 1), and on the
 * responses surface when the token sees a model that answers there. A reasoning
 * model spends that one token on reasoning and answers nothing, ending at its budget (finish
 * reason "length" / "max_tokens"): the call went through and the model generated, so that passes
 * too — the probe stays one token, whatever the model.
 */
import { surfaceAdapter } from '../../chat/chat';
import { surfaceName } from '../../chat/surfaceWords';
import type { ChatResult, SurfaceMove } from '../../chat/types';
import type { Capability } from '../../models';
import { joinUrl } from '../../endpoint';
import { emptyReplyError } from '../../errors/factories';
import { isGatewayError, type Surface } from '../../errors/gatewayError';
import { t } from '../../l10n';
import { perSurface } from '../check';
import type { DiagnosisContext } from '../context';
import { groupAdvice } from '../groupAdvice';
import { outcomeFromError, saidText, type Outcome } from '../outcomeFromError';

/** The reply ended at its output budget: a model that reasons before it answers. */
export const spentOnReasoning = (r: ChatResult) =>
  !r.text && !r.toolCalls.length && (r.finishReason === 'length' || r.finishReason === 'max_tokens');

/** What a one-token call that answered 200 proves, per surface (a reasoning model may spend the token reasoning). */
function worked(surface: Surface, url: string, model: string, ms: number, reasoned: boolean): string {
  switch (surface) {
    case 'native':
      return reasoned
        ? t(
            'POST {0} with {1} (max_tokens: 1) answered 200 in {2} ms; the model spent that token on reasoning before answering, as reasoning models do: generation works on the native surface.',
            url,
            model,
            ms,
          )
        : t(
            'POST {0} with {1} (max_tokens: 1) answered 200 with a reply in {2} ms: generation works on the native surface.',
            url,
            model,
            ms,
          );
    case 'responses':
      return reasoned
        ? t(
            'POST {0} with {1} (max_output_tokens: 1) answered 200 in {2} ms; the model spent that token on reasoning before answering, as reasoning models do: generation works on the responses surface.',
            url,
            model,
            ms,
          )
        : t(
            'POST {0} with {1} (max_output_tokens: 1) answered 200 with a reply in {2} ms: generation works on the responses surface.',
            url,
            model,
            ms,
          );
    default:
      return reasoned
        ? t(
            'POST {0} with {1} (max_tokens: 1) answered 200 in {2} ms; the model spent that token on reasoning before answering, as reasoning models do: generation works on the compatible surface.',
            url,
            model,
            ms,
          )
        : t(
            'POST {0} with {1} (max_tokens: 1) answered 200 with a reply in {2} ms: generation works on the compatible surface.',
            url,
            model,
            ms,
          );
  }
}

/** The call was refused on its surface and moved to /v1/responses, where it answered: a warning that says so. */
function moved(ctx: DiagnosisContext, r: ChatResult, move: SurfaceMove, url: string): Outcome {
  return {
    result: 'warn',
    httpStatus: 200,
    url: joinUrl(ctx.usedBase!, surfaceAdapter(move.to).path),
    maskedToken: ctx.masked,
    cause: t(
      'POST {0} with {1} was refused: the model answers only on the Responses API. The same call on /v1/responses answered 200, so chat with it works (Model Relay moves its requests there).',
      url,
      move.model,
    ),
    fix: t(
      'For the {0} surface pick a model that answers there, or use the responses surface for {1}.',
      surfaceName(move.from),
      move.model,
    ),
    details: [
      t('finish reason: {0}', r.finishReason ?? '-'),
      ...(r.requestId ? [t('request id: {0}', r.requestId)] : []),
    ],
    requestId: r.requestId,
  };
}

/** The capability a surface's model needs (for the advice on a group that cannot use it). */
const CAPABILITY: Record<Surface, Capability> = { compatible: 'chat', native: 'native', responses: 'responses' };

async function run(ctx: DiagnosisContext, surface: Surface, model: string): Promise<Outcome> {
  const url = joinUrl(ctx.usedBase!, surfaceAdapter(surface).path);
  const started = ctx.now();
  try {
    const r = await ctx.client!.chat({
      surface,
      model,
      messages: [{ role: 'user', content: 'ping' }],
      maxTokens: 1,
      acceptEmptyReply: true,
      signal: ctx.signal,
    });
    if (r.surfaceMove) return moved(ctx, r, r.surfaceMove, url);
    const reasoned = spentOnReasoning(r);
    if (!reasoned && !r.text && !r.toolCalls.length) {
      const rid = { status: 200, ...(r.requestId ? { requestId: r.requestId } : {}) };
      throw emptyReplyError(r.finishReason, !!r.reasoning, { surface, method: 'POST', url, model }, rid);
    }
    return {
      result: 'pass',
      httpStatus: 200,
      url,
      maskedToken: ctx.masked,
      cause: worked(surface, url, model, ctx.now() - started, reasoned),
      fix: '',
      details: [
        t('finish reason: {0}', r.finishReason ?? '-'),
        ...(r.requestId ? [t('request id: {0}', r.requestId)] : []),
      ],
      requestId: r.requestId,
    };
  } catch (e) {
    const o = outcomeFromError(ctx, e, { model, listed: ctx.listed(model) });
    const advice = isGatewayError(e) ? await groupAdvice(ctx, e, model, CAPABILITY[surface]) : undefined;
    return advice
      ? { ...o, cause: `${advice.cause}${saidText(isGatewayError(e) ? e.gatewayMessage : undefined)}`, fix: advice.fix }
      : o;
  }
}

export const generateChatCheck = perSurface('compatible', {
  id: 'generate-chat',
  noModelFix: () => t('Set {0} (relay-doctor: {1}).', 'modelRelay.models.chat', '--chat-model'),
  skip: (ctx) => ctx.blocked(),
  run: (ctx, model) => run(ctx, 'compatible', model),
});
export const generateNativeCheck = perSurface('native', {
  id: 'generate-native',
  noModelFix: () => t('Set {0} (relay-doctor: {1}).', 'modelRelay.models.native', '--native-model'),
  skip: (ctx) => ctx.blocked(),
  run: (ctx, model) => run(ctx, 'native', model),
});
export const generateResponsesCheck = perSurface('responses', {
  id: 'generate-responses',
  noModelFix: () => '',
  skip: (ctx) => ctx.blocked(),
  run: (ctx, model) => run(ctx, 'responses', model),
});
