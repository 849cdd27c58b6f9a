/**
 * Check 5: one real, minimal generation call per configured surface, and on the responses surface
 * when the token sees a model that answers there. Minimal is the least each surface accepts: one
 * token on chat completions (in the field the model takes: `max_completion_tokens` for OpenAI's
 * reasoning family) and on the native surface, 16 on the responses surface (every model there
 * refuses less). A reasoning model may spend that budget on reasoning and answer nothing, ending
 * at its budget (finish reason "length" / "max_tokens"): the call went through and the model
 * generated, so that passes too.
 */
import { surfaceAdapter } from '../../chat/chat';
import { answerEnding } from '../../chat/finishReason';
import { RESPONSES_MIN_OUTPUT_TOKENS } from '../../chat/modelRules';
import { wirePlan } from '../../chat/wirePlan';
import { surfaceName } from '../../chat/surfaceWords';
import type { ChatRequest, ChatResult, SurfaceMove } from '../../chat/types';
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
  !r.text && !r.toolCalls.length && answerEnding(r.finishReason) === 'budget';

/** The least output budget a surface accepts. */
const leastTokens = (surface: Surface) => (surface === 'responses' ? RESPONSES_MIN_OUTPUT_TOKENS : 1);

/** What a minimal call that answered 200 proves, per surface (a reasoning model may spend the budget reasoning); `sent`: e.g. "max_tokens: 1". */
function worked(surface: Surface, url: string, model: string, sent: string, ms: number, reasoned: boolean): string {
  switch (surface) {
    case 'native':
      return reasoned
        ? t(
            'POST {0} with {1} ({2}) answered 200 in {3} ms; the model spent that budget on reasoning before answering, as reasoning models do: generation works on the native surface.',
            url,
            model,
            sent,
            ms,
          )
        : t(
            'POST {0} with {1} ({2}) answered 200 with a reply in {3} ms: generation works on the native surface.',
            url,
            model,
            sent,
            ms,
          );
    case 'responses':
      return reasoned
        ? t(
            'POST {0} with {1} ({2}) answered 200 in {3} ms; the model spent that budget on reasoning before answering, as reasoning models do: generation works on the responses surface.',
            url,
            model,
            sent,
            ms,
          )
        : t(
            'POST {0} with {1} ({2}) answered 200 with a reply in {3} ms: generation works on the responses surface.',
            url,
            model,
            sent,
            ms,
          );
    default:
      return reasoned
        ? t(
            'POST {0} with {1} ({2}) answered 200 in {3} ms; the model spent that budget on reasoning before answering, as reasoning models do: generation works on the compatible surface.',
            url,
            model,
            sent,
            ms,
          )
        : t(
            'POST {0} with {1} ({2}) answered 200 with a reply in {3} ms: generation works on the compatible surface.',
            url,
            model,
            sent,
            ms,
          );
  }
}

/** The output budget as it went on the wire, e.g. "max_completion_tokens: 1" (the field and value the model takes). */
function sentBudget(ctx: DiagnosisContext, req: ChatRequest): string {
  const tokens = wirePlan(req, req.surface, ctx.client!.learntFor(req.model), 0).tokens;
  return tokens ? `${tokens.field}: ${tokens.value}` : '';
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
  const req: ChatRequest = {
    surface,
    model,
    messages: [{ role: 'user', content: 'ping' }],
    maxTokens: leastTokens(surface),
    acceptEmptyReply: true,
    signal: ctx.signal,
  };
  try {
    const r = await ctx.client!.chat(req);
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
      cause: worked(surface, url, model, sentBudget(ctx, req), ctx.now() - started, reasoned),
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
