/** What one check of the diagnosis is: adding a check is one file under checks/ and one line in engine.ts. */
import type { Surface } from '../errors/gatewayError';
import { t } from '../l10n';
import type { DiagnosisContext, Reason } from './context';
import type { Outcome } from './outcomeFromError';
import type { CheckId } from './types';

/** A reason to skip (reported with 0 ms), with anything else the skipped check should show. */
export type Skip = Reason & Partial<Omit<Outcome, 'result'>>;

export interface Check {
  id: CheckId;
  /** false: not part of this diagnosis at all (e.g. a streaming check when no model is configured) */
  applies?(ctx: DiagnosisContext): boolean;
  /** a reason not to run it now (reported as skipped), or undefined to run it */
  skip?(ctx: DiagnosisContext): Skip | undefined;
  run(ctx: DiagnosisContext): Promise<Outcome> | Outcome;
}

/**
 * A check made once per surface with that surface's configured model: skipped without one (absent
 * when no model at all is configured; on the responses surface, absent without a responses model),
 * else skipped for `skip`'s reason, else run with the model.
 */
export function perSurface(
  surface: Surface,
  o: {
    id: CheckId;
    noModelFix: () => string;
    skip(ctx: DiagnosisContext): Skip | undefined;
    run(ctx: DiagnosisContext, model: string): Promise<Outcome>;
  },
): Check {
  const modelOf = (ctx: DiagnosisContext) =>
    surface === 'compatible' ? ctx.models.chat : surface === 'native' ? ctx.models.native : ctx.responsesModel();
  return {
    id: o.id,
    // The responses checks only where the token sees a responses model (listed so, given, or learnt by a refusal).
    applies: (ctx) => !!modelOf(ctx) || (surface !== 'responses' && ctx.wanted.length > 0),
    skip: (ctx) =>
      modelOf(ctx)
        ? o.skip(ctx)
        : {
            cause: surface === 'native' ? t('No native model is configured.') : t('No chat model is configured.'),
            fix: o.noModelFix(),
          },
    run: (ctx) => o.run(ctx, modelOf(ctx)!),
  };
}
