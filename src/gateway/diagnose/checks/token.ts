/** Check 3: the token — present, shaped like a gateway token, and accepted by GET /v1/models. */
import { joinUrl } from '../../endpoint';
import { isGatewayError } from '../../errors/gatewayError';
import { MODELS_PATH } from '../../models';
import { storedTokenShapeProblems } from '../../tokenShape';
import type { Check } from '../check';
import type { DiagnosisContext } from '../context';
import { outcomeFromError, saidText, type Outcome } from '../outcomeFromError';

const shapeOf = (ctx: DiagnosisContext) => (ctx.token ? storedTokenShapeProblems(ctx.token) : []);

async function run(ctx: DiagnosisContext): Promise<Outcome> {
  if (!ctx.token) {
    return {
      result: 'fail',
      cause: 'No token is set: every request would be refused with 401.',
      fix: 'Copy a token from the gateway console (it starts with sk-) and add it ("Model Relay: Add Token", or MODEL_RELAY_TOKEN for relay-doctor).',
      fixAction: { kind: 'add-token' },
    };
  }
  const shape = shapeOf(ctx);
  const masked = ctx.masked;
  const url = joinUrl(ctx.usedBase!, MODELS_PATH);
  let list;
  try {
    list = ctx.modelList = await ctx.client!.listModels(ctx.signal);
  } catch (e) {
    const o = outcomeFromError(ctx, e);
    if (isGatewayError(e) && e.kind === 'unauthorized') {
      ctx.tokenRefused = true;
      // Explained from the gateway's token-usage endpoint: expired on …, quota used up, disabled.
      if (e.detail) return { ...o, cause: `GET ${MODELS_PATH} answered 401 for ${masked}: ${e.message.replace(/^HTTP 401: /, '')} ${e.cause}`, fix: e.fix };
      return { ...o, cause: `GET ${MODELS_PATH} answered 401: the token (${masked}) is missing, mistyped, disabled, or sent in the wrong header format.${shape.length ? ` ${shape.join(' ')}` : ''}${saidText(e.gatewayMessage)}`, fix: `${shape.length ? 'Store the bare key (sk-…). ' : ''}${e.fix}` };
    }
    return o;
  }
  const named = ctx.input.tokenName ? ` ("${ctx.input.tokenName}")` : '';
  const out: Outcome = { result: 'pass', httpStatus: 200, url, maskedToken: masked, cause: `The gateway accepted the token ${masked}${named}: GET ${MODELS_PATH} lists ${list.length} model${list.length === 1 ? '' : 's'}.`, fix: '', details: [`Visible models: ${list.map((m) => m.id).join(', ') || '(none)'}`] };
  if (shape.length) return { ...out, result: 'warn', cause: `${out.cause} But: ${shape.join(' ')}`, fix: 'Store the token as copied from the gateway console (sk-…), without prefixes or spaces.' };
  if (list.length === 0) return { ...out, result: 'warn', cause: `${out.cause} The token's group sees no model at all.`, fix: 'Ask the gateway operator which group the token should belong to, or use another token.', fixAction: { kind: 'switch-token' } };
  return out;
}

export const tokenCheck: Check = {
  id: 'token',
  skip: (ctx) => {
    const b = ctx.token ? ctx.blocked(false) : undefined;
    if (!b) return undefined;
    const shape = shapeOf(ctx);
    return { cause: `${b.cause}${shape.length ? ` (Also: ${shape.join(' ')})` : ''}`, fix: b.fix, maskedToken: ctx.masked };
  },
  run,
};
