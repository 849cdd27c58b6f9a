/**
 * The model lists of several gateways at once (VS Code's model picker, the chat panel, diagnose):
 * every gateway is read in parallel; one that has not answered within the bound is aborted and
 * reported `timedOut`, so it never delays the others beyond it; a failure of one is reported for
 * that gateway and never hides another's models.
 *
 * A caller that can take late answers (`onLate`: the language-model provider fires its change event)
 * does not wait for a straggler at all beyond a small share of the time the others took: once every
 * gateway but the stragglers answered, the result comes back with them `pending`, and each one's
 * answer, failure or time-out is handed to `onLate` when it comes (at the latest at the bound). So
 * the list of every answering gateway returns within (1 + straggle) × the time of the slowest one
 * that answered, however long another takes.
 */
import { errorFromNetwork } from '../errors/fromNetwork';
import { isGatewayError, type GatewayError } from '../errors/gatewayError';
import type { ModelInfo } from '../models';
import type { GatewaySet } from './gatewaySet';
import type { GatewayProfile } from './profile';

/** Share of the slowest answer so far that a straggler is still waited for, when late answers are taken. */
export const LIST_ACROSS_STRAGGLE = 0.1;

/** One gateway's model list, or why there is none. */
export interface GatewayModelList {
  gateway: GatewayProfile;
  models?: ModelInfo[];
  error?: GatewayError;
  /** no answer within the bound: its request was aborted */
  timedOut?: boolean;
  /** still reading when the others were returned: its outcome goes to `onLate` */
  pending?: boolean;
}

export interface ListAcrossOptions {
  /** A gateway not answering within this is aborted and reported `timedOut` (LIST_ACROSS_BOUND_MS). */
  boundMs: number;
  /** Stops every read; each is then reported with an `aborted` error. */
  signal?: AbortSignal | undefined;
  /** Only these gateways (ids), e.g. those that have a token; default all. */
  ids?: readonly string[] | undefined;
  /** Takes a straggler's outcome after the result was returned (see the module header). */
  onLate?: ((late: GatewayModelList) => void) | undefined;
  /** The share of the slowest answer a straggler is still waited for with `onLate` (default LIST_ACROSS_STRAGGLE). */
  straggle?: number | undefined;
}

type Outcome = Omit<GatewayModelList, 'gateway' | 'pending'>;

/** Reads the model lists of the set's gateways in parallel, each within the bound. */
export function listModelsAcross(set: GatewaySet, o: ListAcrossOptions): Promise<GatewayModelList[]> {
  const members = set.entries().filter((e) => !o.ids || o.ids.includes(e.profile.id));
  const out: GatewayModelList[] = members.map((m) => ({ gateway: m.profile }));
  if (!members.length) return Promise.resolve(out);
  const started = Date.now();
  const controls = members.map(() => new AbortController());
  const settled = members.map(() => false);
  let returned = false;
  let straggleTimer: NodeJS.Timeout | undefined;
  const straggle = o.straggle ?? LIST_ACROSS_STRAGGLE;

  return new Promise((resolve) => {
    const stopAll = () => controls.forEach((c) => c.abort(o.signal?.reason));
    const finish = () => {
      if (returned) return;
      returned = true;
      clearTimeout(straggleTimer);
      out.forEach((entry, i) => {
        if (!settled[i]) entry.pending = true;
      });
      resolve(out);
    };
    const settle = (i: number, r: Outcome) => {
      if (settled[i]) return;
      settled[i] = true;
      if (returned) o.onLate?.({ gateway: members[i].profile, ...r });
      else Object.assign(out[i], r);
      if (settled.every(Boolean)) {
        clearTimeout(boundTimer);
        o.signal?.removeEventListener('abort', stopAll);
        return finish();
      }
      // Late answers taken: the stragglers get a small share of the slowest answer so far, not the bound.
      if (o.onLate && !returned && !r.timedOut) {
        clearTimeout(straggleTimer);
        straggleTimer = setTimeout(finish, (Date.now() - started) * straggle);
      }
    };
    const boundTimer = setTimeout(() => {
      members.forEach((_, i) => {
        if (settled[i]) return;
        settle(i, { timedOut: true });
        controls[i].abort();
      });
    }, o.boundMs);
    if (o.signal?.aborted) stopAll();
    else o.signal?.addEventListener('abort', stopAll, { once: true });
    members.forEach((m, i) => {
      m.client.listModels(controls[i].signal).then(
        (models) => settle(i, { models }),
        (e: unknown) =>
          settle(i, {
            error: isGatewayError(e)
              ? e
              : errorFromNetwork(e, { capability: 'models' }, { aborted: !!o.signal?.aborted }),
          }),
      );
    });
  });
}
