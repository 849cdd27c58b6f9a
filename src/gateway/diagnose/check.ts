/** What one check of the diagnosis is: adding a check is one file under checks/ and one line in engine.ts. */
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
