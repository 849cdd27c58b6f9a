/** Check 3: the token — present, shaped like a gateway token, and accepted by GET /v1/models. */
import { joinUrl } from '../../endpoint';
import { isGatewayError } from '../../errors/gatewayError';
import { t } from '../../l10n';
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
      cause: t('No token is set: every request would be refused with 401.'),
      fix: t(
        'Copy a token from the gateway console (it starts with sk-) and add it ("Model Relay: Add Token", or MODEL_RELAY_TOKEN for relay-doctor).',
      ),
      fixAction: { kind: 'add-token' },
    };
  }
  const shape = shapeOf(ctx);
  const masked = ctx.masked;
  const url = joinUrl(ctx.usedBase!, MODELS_PATH);
  let list;
  try {
    list = await ctx.client!.listModels(ctx.signal);
    ctx.useModelList(list);
  } catch (e) {
    const o = outcomeFromError(ctx, e);
    if (isGatewayError(e) && e.kind === 'unauthorized') {
      ctx.tokenRefused = true;
      // Explained from the gateway's token-usage endpoint: expired on …, quota used up, disabled.
      if (e.detail)
        return {
          ...o,
          cause: t(
            'GET {0} answered 401 for {1}: {2} {3}',
            MODELS_PATH,
            masked ?? '',
            e.message.replace(/^HTTP 401: /, ''),
            e.reason,
          ),
          fix: e.fix,
        };
      const refused = t(
        'GET {0} answered 401: the token ({1}) is missing, mistyped, disabled, or sent in the wrong header format.',
        MODELS_PATH,
        masked ?? '',
      );
      return {
        ...o,
        cause: `${refused}${shape.length ? ` ${shape.join(' ')}` : ''}${saidText(e.gatewayMessage)}`,
        fix: shape.length ? t('Store the bare key (sk-…). {0}', e.fix) : e.fix,
      };
    }
    return o;
  }
  const who = ctx.input.tokenName ? `${masked} ("${ctx.input.tokenName}")` : (masked ?? '');
  const accepted =
    list.length === 1
      ? t('The gateway accepted the token {0}: GET {1} lists 1 model.', who, MODELS_PATH)
      : t('The gateway accepted the token {0}: GET {1} lists {2} models.', who, MODELS_PATH, list.length);
  const visible = list.map((m) => m.id).join(', ');
  const out: Outcome = {
    result: 'pass',
    httpStatus: 200,
    url,
    maskedToken: masked,
    cause: accepted,
    fix: '',
    details: [visible ? t('Visible models: {0}', visible) : t('Visible models: (none)')],
  };
  if (shape.length)
    return {
      ...out,
      result: 'warn',
      cause: t('{0} But: {1}', accepted, shape.join(' ')),
      fix: t('Store the token as copied from the gateway console (sk-…), without prefixes or spaces.'),
    };
  if (list.length === 0)
    return {
      ...out,
      result: 'warn',
      cause: t("{0} The token's group sees no model at all.", accepted),
      fix: t('Ask the gateway operator which group the token should belong to, or use another token.'),
      fixAction: { kind: 'switch-token' },
    };
  return out;
}

export const tokenCheck: Check = {
  id: 'token',
  skip: (ctx) => {
    const b = ctx.token ? ctx.blocked(false) : undefined;
    if (!b) return undefined;
    const shape = shapeOf(ctx);
    return {
      cause: shape.length ? t('{0} (Also: {1})', b.cause, shape.join(' ')) : b.cause,
      fix: b.fix,
      maskedToken: ctx.masked,
    };
  },
  run,
};
