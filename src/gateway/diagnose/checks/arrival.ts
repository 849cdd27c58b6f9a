/**
 * Arrival: after the generation calls, the gateway's own usage log (new-api `GET /api/log/token`) is read
 * for the first passing call's record, by its request id — evidence that the request reached the gateway,
 * what it was billed and under which group. Waits a bounded moment for the record (the gateway writes it
 * after the response); one read only (the route shares a tight rate limit with the balance).
 */
import { DEFAULT_DIAGNOSIS_TIMEOUTS } from '../../defaults';
import { formatAmount } from '../../economy/units';
import type { Arrival, UsageRecord } from '../../economy/usageTypes';
import { realSleep } from '../../http/transport';
import { t } from '../../l10n';
import { USAGE_LOG_PATH } from '../../economy/usageLogParse';
import type { Check, Skip } from '../check';
import type { DiagnosisContext } from '../context';
import type { Outcome } from '../outcomeFromError';
import type { CheckId, DiagnosisCheck } from '../types';

const GENERATIONS: readonly CheckId[] = [
  'generate-chat',
  'generate-native',
  'generate-responses',
  'generate-image',
  'generate-image-edit',
  'generate-video',
];

/** The first generation call that passed, with its request id (undefined when none passed). */
function passedCall(ctx: DiagnosisContext): DiagnosisCheck | undefined {
  return GENERATIONS.map((id) => ctx.results.get(id)).find((c) => c && c.result !== 'fail' && c.result !== 'skipped');
}

function skipReason(ctx: DiagnosisContext): Skip | undefined {
  const blocked = ctx.blocked();
  if (blocked) return blocked;
  const call = passedCall(ctx);
  if (!call) return { cause: t('No generation call passed, so there is no request to look for.'), fix: '' };
  if (!call.requestId)
    return {
      cause: t('The gateway gave the generation call no request id, so its record cannot be found.'),
      fix: '',
    };
  return undefined;
}

function arrived(rec: UsageRecord, url: string): Outcome {
  const billed = formatAmount(rec.cost.amount, rec.cost.unit);
  const when = new Date(rec.time).toISOString();
  return {
    result: 'pass',
    httpStatus: 200,
    url,
    cause: rec.group
      ? t(
          'The gateway logged request {0} at {1}, billed {2}, group {3}.',
          rec.requestId ?? '-',
          when,
          billed,
          rec.group,
        )
      : t('The gateway logged request {0} at {1}, billed {2}.', rec.requestId ?? '-', when, billed),
    fix: '',
    details: [
      t('model: {0}', rec.model),
      t('tokens in / out: {0} / {1}', rec.promptTokens, rec.completionTokens),
      ...(rec.requestPath ? [t('request path: {0}', rec.requestPath)] : []),
      ...(rec.kind === 'error' ? [t('The gateway logged it as an error.')] : []),
    ],
    requestId: rec.requestId,
  };
}

/** What an answer other than "arrived" means for the diagnosis. */
function otherwise(a: Exclude<Arrival, { state: 'arrived' }>, rid: string, waitS: number, url: string): Outcome {
  const skipped = (cause: string, fix = ''): Outcome => ({ result: 'skipped', url, cause, fix, requestId: rid });
  if (a.state === 'no-record')
    return {
      result: 'warn',
      httpStatus: 200,
      url,
      cause: t(
        "The call was answered, but the gateway's usage log has no record of request {0} {1} s later: the gateway has not written it yet, or did not bill it.",
        rid,
        waitS,
      ),
      fix: t(
        "The gateway may write its log late: look again in the Usage view in a minute, or give the request id to the gateway's admin.",
      ),
      requestId: rid,
    };
  if (a.state === 'pending') return skipped(t('The record of request {0} was not due yet.', rid));
  switch (a.reason) {
    case 'unsupported':
      return skipped(
        t('This gateway has no usage log a token can read (one-api, or an older new-api): arrival cannot be checked.'),
        t("The gateway's console shows its usage log."),
      );
    case 'no-ids-in-log':
      return skipped(
        t("The gateway's usage log carries no request ids (new-api older than early 2026): arrival cannot be matched."),
      );
    case 'limited':
      return skipped(
        t("The gateway's usage log is paused by its rate limit (shared with the balance): not read now."),
        t('Try again in a few minutes.'),
      );
    case 'rolled-out':
      return skipped(t('The request is older than the newest 1000 records the gateway shows.'));
    case 'no-request-id':
      return skipped(t('The gateway gave the generation call no request id, so its record cannot be found.'));
    default:
      return skipped(t("The gateway's usage log could not be read."));
  }
}

async function run(ctx: DiagnosisContext): Promise<Outcome> {
  const call = passedCall(ctx)!;
  const rid = call.requestId!;
  const waitMs = ctx.input.timeouts?.arrivalMs ?? DEFAULT_DIAGNOSIS_TIMEOUTS.arrivalMs;
  const endedAt = ctx.now();
  const client = ctx.client!;
  const url = `${ctx.usedBase ?? ''}${USAGE_LOG_PATH}`;
  // The gateway writes the record after the response: wait a bounded moment, then read once.
  await (ctx.input.sleep ?? realSleep)(waitMs, ctx.signal);
  // The wait above was the grace: the record is due now (a timer may fire a millisecond before its time,
  // and a grace counted again from the call's end then called the record "not due yet").
  const a = await client.usage.arrival(rid, endedAt - call.durationMs, call.durationMs, {
    signal: ctx.signal,
    graceMs: 0,
  });
  if (a.state === 'arrived') return arrived(a.record, url);
  const o = otherwise(a, rid, Math.round(waitMs / 1000), url);
  const last = client.usage.last;
  if (a.state === 'unknown' && a.reason === 'failed' && last?.state === 'failed')
    return { ...o, details: [t('The gateway answered: {0}', last.message)] };
  return o;
}

export const arrivalCheck: Check = {
  id: 'arrival',
  applies: (ctx) => GENERATIONS.some((id) => ctx.results.has(id)),
  skip: skipReason,
  run,
};
