/** Check 5: one real, minimal generation call per configured surface (max_tokens: 1). */
import { surfaceAdapter } from '../../chat/chat';
import { joinUrl } from '../../endpoint';
import type { Surface } from '../../errors/gatewayError';
import type { Check } from '../check';
import type { DiagnosisContext } from '../context';
import { outcomeFromError, type Outcome } from '../outcomeFromError';

const modelFor = (ctx: DiagnosisContext, surface: Surface) => (surface === 'compatible' ? ctx.models.chat : ctx.models.native);

async function run(ctx: DiagnosisContext, surface: Surface): Promise<Outcome> {
  const model = modelFor(ctx, surface)!;
  const url = joinUrl(ctx.usedBase!, surfaceAdapter(surface).path);
  const started = ctx.now();
  try {
    const r = await ctx.client!.chat({ surface, model, messages: [{ role: 'user', content: 'ping' }], maxTokens: 1, signal: ctx.signal });
    return {
      result: 'pass',
      httpStatus: 200,
      url,
      maskedToken: ctx.masked,
      cause: `POST ${url} with ${model} (max_tokens: 1) answered 200 with a reply in ${ctx.now() - started} ms: generation works on the ${surface} surface.`,
      fix: '',
      details: [`finish reason: ${r.finishReason ?? '-'}`, ...(r.requestId ? [`request id: ${r.requestId}`] : [])],
      requestId: r.requestId,
    };
  } catch (e) {
    return outcomeFromError(ctx, e, { model, listed: ctx.listed(model) });
  }
}

function generationCheck(surface: Surface): Check {
  const chat = surface === 'compatible';
  return {
    id: chat ? 'generate-chat' : 'generate-native',
    applies: (ctx) => !!modelFor(ctx, surface) || ctx.wanted.length > 0,
    skip: (ctx) => {
      if (!modelFor(ctx, surface)) return { cause: `No ${chat ? 'chat' : 'native'} model is configured.`, fix: chat ? 'Set modelRelay.models.chat (relay-doctor: --chat-model).' : 'Set modelRelay.models.native (relay-doctor: --native-model).' };
      return ctx.blocked();
    },
    run: (ctx) => run(ctx, surface),
  };
}

export const generateChatCheck = generationCheck('compatible');
export const generateNativeCheck = generationCheck('native');
