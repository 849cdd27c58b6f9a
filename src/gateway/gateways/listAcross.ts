/**
 * The model lists of several gateways at once (VS Code's model picker, the chat panel, diagnose):
 * every gateway is read in parallel; one that has not answered within the bound is aborted and
 * reported `timedOut`, so it never delays the others beyond it; a failure of one is reported for
 * that gateway and never hides another's models.
 *
 * A caller that can take late answers (`onLate`: the language-model provider fires its change event
 * when one comes) is not held by a gateway that is slower than it used to be: each gateway is waited
 * for up to its allowance — LATE_FACTOR × its last answer's time (at least LATE_FLOOR_MS), nothing
 * when it did not answer last time, and FIRST_READ_FACTOR × the latest answer so far (at least
 * LATE_FLOOR_MS) when it was never read — and the result comes back once every gateway answered or
 * is past its allowance, the latter `pending`; each pending one's answer, failure or time-out goes to
 * `onLate` when it comes (at the latest at the bound). So a gateway that does not answer never holds
 * the lists of the answering ones beyond FIRST_READ_FACTOR × the slowest of them, even the first time;
 * a new gateway slower than that comes a moment later through `onLate`.
 */
import { errorFromNetwork } from '../errors/fromNetwork';
import { isGatewayError, type GatewayError } from '../errors/gatewayError';
import type { GatewayClient } from '../client';
import type { ModelInfo } from '../models';
import type { GatewaySet } from './gatewaySet';
import type { GatewayProfile } from './profile';

/** With late answers taken, a gateway is waited for this many times its last answer's time… */
export const LATE_FACTOR = 2;
/** …and at least this long (ms). */
export const LATE_FLOOR_MS = 100;
/** A gateway never read is waited for this many times the latest answer of the others (at least LATE_FLOOR_MS). */
export const FIRST_READ_FACTOR = 1.1;
/** The allowance of a gateway never read: relative to the others' answers (FIRST_READ_FACTOR). */
const FIRST_READ = -1;

/** One gateway's model list, or why there is none. */
export interface GatewayModelList {
  gateway: GatewayProfile;
  models?: ModelInfo[];
  error?: GatewayError;
  /** no answer within the bound: its request was aborted */
  timedOut?: boolean;
  /** still reading when the others were returned (`onLate` only): its outcome goes to `onLate` */
  pending?: boolean;
}

export interface ListAcrossOptions {
  /** A gateway not answering within this is aborted and reported `timedOut` (LIST_ACROSS_BOUND_MS). */
  boundMs: number;
  /** Stops every read; each is then reported with an `aborted` error. */
  signal?: AbortSignal | undefined;
  /** Only these gateways (ids), e.g. those that have a token; default all. */
  ids?: readonly string[] | undefined;
  /** Takes a pending gateway's outcome after the result was returned (see the module header). */
  onLate?: ((late: GatewayModelList) => void) | undefined;
}

type Outcome = Omit<GatewayModelList, 'gateway' | 'pending'>;

/** How long each gateway's last model list took (ms), or 'silent' when it did not answer; per client and base URL. */
const lastRead = new WeakMap<GatewayClient, { base: string | undefined; took: number | 'silent' }>();

function allowanceOf(client: GatewayClient, boundMs: number): number {
  const last = lastRead.get(client);
  if (!last || last.base !== client.endpoints().base) return FIRST_READ;
  return last.took === 'silent' ? 0 : Math.min(boundMs, Math.max(LATE_FLOOR_MS, LATE_FACTOR * last.took));
}

function remember(client: GatewayClient, r: Outcome, took: number): void {
  const base = client.endpoints().base;
  if (r.models) lastRead.set(client, { base, took });
  else if (r.timedOut) lastRead.set(client, { base, took: 'silent' });
}

/** Reads the model lists of the set's gateways in parallel, each within the bound. */
export function listModelsAcross(set: GatewaySet, o: ListAcrossOptions): Promise<GatewayModelList[]> {
  const members = set.entries().filter((e) => !o.ids || o.ids.includes(e.profile.id));
  const out: GatewayModelList[] = members.map((m) => ({ gateway: m.profile }));
  if (!members.length) return Promise.resolve(out);
  const started = Date.now();
  const controls = members.map(() => new AbortController());
  const settled = members.map(() => false);
  const allowance = members.map((m) => (o.onLate ? allowanceOf(m.client, o.boundMs) : o.boundMs));
  let returned = false;
  /** when the latest answer (or failure) came, after the start (ms) */
  let latest = 0;
  let overdueTimer: NodeJS.Timeout | undefined;

  return new Promise((resolve) => {
    const stopAll = () => controls.forEach((c) => c.abort(o.signal?.reason));
    const finish = () => {
      if (returned) return;
      returned = true;
      clearTimeout(overdueTimer);
      out.forEach((entry, i) => {
        if (!settled[i]) entry.pending = true;
      });
      resolve(out);
    };
    /** Returns once every gateway answered or is past its allowance (late answers taken). */
    const checkOverdue = () => {
      // Never empty-handed before the bound: at least one gateway has answered (or failed).
      if (returned || !o.onLate || !settled.some(Boolean)) return;
      const relative = Math.max(LATE_FLOOR_MS, FIRST_READ_FACTOR * latest);
      const waitFor = members
        .map((_, i) => (settled[i] ? 0 : allowance[i] === FIRST_READ ? relative : allowance[i]))
        .reduce((x, y) => Math.max(x, y), 0);
      const left = started + waitFor - Date.now();
      clearTimeout(overdueTimer);
      // Waiting up to the bound: the bound's own timer reports the others timed out (no race with it).
      if (waitFor >= o.boundMs) return;
      if (left <= 0) finish();
      else overdueTimer = setTimeout(finish, left);
    };
    const settle = (i: number, r: Outcome) => {
      if (settled[i]) return;
      settled[i] = true;
      latest = Date.now() - started;
      remember(members[i].client, r, latest);
      if (returned) o.onLate?.({ gateway: members[i].profile, ...r });
      else Object.assign(out[i], r);
      if (settled.every(Boolean)) {
        clearTimeout(boundTimer);
        o.signal?.removeEventListener('abort', stopAll);
        return finish();
      }
      checkOverdue();
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
