/** Check 5: one real, minimal generation call per configured surface (max_tokens: 1). */
import { surfaceAdapter } from '../../chat/chat';
import { joinUrl } from '../../endpoint';
import type { Surface } from '../../errors/gatewayError';
import { perSurface } from '../check';
import type { DiagnosisContext } from '../context';
import { groupAdvice } from '../groupAdvice';
import { outcomeFromError, saidText, type Outcome } from '../outcomeFromError';
import { isGatewayError } from '../../errors/gatewayError';
import { t } from '../../l10n';

async function run(ctx: DiagnosisContext, surface: Surface, model: string): Promise<Outcome> {
  const url = joinUrl(ctx.usedBase!, surfaceAdapter(surface).path);
  const started = ctx.now();
  try {
    const r = await ctx.client!.chat({
      surface,
      model,
      messages: [{ role: 'user', content: 'ping' }],
      maxTokens: 1,
      signal: ctx.signal,
    });
    return {
      result: 'pass',
      httpStatus: 200,
      url,
      maskedToken: ctx.masked,
      cause:
        surface === 'native'
          ? t(
              'POST {0} with {1} (max_tokens: 1) answered 200 with a reply in {2} ms: generation works on the native surface.',
              url,
              model,
              ctx.now() - started,
            )
          : t(
              'POST {0} with {1} (max_tokens: 1) answered 200 with a reply in {2} ms: generation works on the compatible surface.',
              url,
              model,
              ctx.now() - started,
            ),
      fix: '',
      details: [
        t('finish reason: {0}', r.finishReason ?? '-'),
        ...(r.requestId ? [t('request id: {0}', r.requestId)] : []),
      ],
      requestId: r.requestId,
    };
  } catch (e) {
    const o = outcomeFromError(ctx, e, { model, listed: ctx.listed(model) });
    const advice = isGatewayError(e)
      ? await groupAdvice(ctx, e, model, surface === 'native' ? 'native' : 'chat')
      : undefined;
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
