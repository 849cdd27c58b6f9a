/**
 * Failover across gateways, for chat only. A chat request goes to its primary route (gateway and
 * model); when that gateway cannot serve it — after its own retries and backup domains — it moves to
 * the next route of `modelRelay.fallbacks`, but only while nothing billable may have happened:
 *
 * - the failure is one the rule of http/retryPolicy.ts lets be sent again (`mayResend`: the request
 *   provably never reached the gateway, or the gateway refused it in its own words) — never a request
 *   that may have been billed (a reset or timeout after it was written, a proxy's HTML 502/504/52x, a
 *   408) — and one another gateway may not have (`failoverWorthy`: a connection never made, the
 *   gateway's own 502/503/504, 503/404 model_not_found or no channel, 429, 401/403 of this gateway's
 *   token), never a request the next gateway would refuse too (400, 413), never the caller's abort;
 * - no attempt of this call got a 2xx answer from the gateway (its user action says so, http/action.ts:
 *   a reply that began, streamed or not, may be billed), and, for a stream, no event was handed on.
 *
 * A stream that broke mid-way is thrown as today and never re-sent. Each route's client uses only
 * its own gateway's token, so failover moves the request, never a token.
 *
 * Images, image edits and videos never fail over across gateways: they are billed per call, and the
 * media calls go to the gateway the user chose (GatewayClient's own backup domains still apply when a
 * request provably never left). Nothing here handles them.
 */
import { inputError } from '../errors/factories';
import { mayResend } from '../http/retryPolicy';
import { isGatewayError, type GatewayError } from '../errors/gatewayError';
import { t } from '../l10n';
import type { ChatEvent, ChatRequest, ChatResult } from '../chat/types';
import { inAction, newAction, type UserAction } from '../http/action';
import type { GatewaySet } from './gatewaySet';
import type { Fallbacks } from './profile';

/** One place a chat request can be served: a gateway (by id) and a model id there. */
export type Route = { gateway: string; model: string };

export type NamedRoute = Route & { gatewayName: string };

/** Told when a chat request moves on to the next gateway, before that gateway is asked. */
export type FailoverEvent = { type: 'failover'; from: NamedRoute; to: NamedRoute; error: GatewayError };

/**
 * The routes to try, in order: the primary, then the fallbacks listed for its model, without
 * duplicates. With a set, a fallback may name its gateway by id or name (as `--gateway NAME`);
 * it is resolved to the id, and a gateway the set does not know is dropped.
 */
export function routesFor(primary: Route, fallbacks: Fallbacks, set?: GatewaySet): Route[] {
  const out: Route[] = [];
  const add = (r: Route) => {
    const gateway = set ? (set.profile(r.gateway)?.id ?? set.byName(r.gateway)?.profile.id) : r.gateway;
    if (!gateway || out.some((o) => o.gateway === gateway && o.model === r.model)) return;
    out.push({ gateway, model: r.model });
  };
  add(primary);
  for (const f of fallbacks[primary.model] ?? []) add(f);
  return out;
}

/**
 * Whether another gateway may serve a request this gateway failed, given the failure (after this
 * gateway's own retries and backups). The rule first: a request that may have been billed here — an
 * answer that began (an error event in a stream, an error in a 200 body), a connection lost after the
 * request was written, a proxy's page instead of the gateway's own error — is never sent elsewhere.
 */
export function failoverWorthy(e: GatewayError): boolean {
  if (!mayResend(e)) return false;
  switch (e.kind) {
    // (never sent: the rule lets no other connection failure through)
    case 'network':
    case 'rate_limited':
    case 'unauthorized':
    case 'forbidden':
      return true;
    case 'server_error':
      // the gateway's own JSON error (the rule): refunded there, and another gateway may be healthy
      return e.status === 502 || e.status === 503 || e.status === 504;
    case 'not_found':
      return isModelNotFound(e);
    default:
      return false;
  }
}

/** Why a gateway could not serve a request, as one clause for a failover line: "HTTP 503: service or upstream fault…". */
export function failoverReason(e: GatewayError): string {
  const said = e.message.replace(/^HTTP \d+:? */, '').replace(/[.。\s]+$/, '');
  return e.status !== undefined ? `HTTP ${e.status}: ${said}` : said;
}

/** A 404 that says the model is unknown here (not a wrong path: another gateway would 404 too). */
function isModelNotFound(e: GatewayError): boolean {
  if (e.detail === 'double_v1') return false;
  return e.gatewayCode === 'model_not_found' || /model|channel|渠道/i.test(e.gatewayMessage ?? '');
}

interface Hop {
  route: Route;
  named: NamedRoute;
  client: NonNullable<ReturnType<GatewaySet['get']>>;
}

/** The routes the set can serve, with their gateway's name; none at all is an input error. */
function hopsOf(set: GatewaySet, routes: readonly Route[], model: string | undefined): Hop[] {
  const hops: Hop[] = [];
  for (const route of routes) {
    const client = set.get(route.gateway);
    const profile = set.profile(route.gateway);
    if (client && profile) hops.push({ route, client, named: { ...route, gatewayName: profile.name } });
  }
  if (!hops.length)
    throw inputError(
      t('None of the gateways this request may use is configured: {0}.', routes.map((r) => r.gateway).join(', ')),
      t('Add the gateway, or choose a model from a gateway in the list.'),
      { model },
    );
  return hops;
}

/** Whether the failure of one hop moves the call on to the next. */
function movesOn(e: unknown, action: UserAction, signal: AbortSignal | undefined): e is GatewayError {
  // asked inside the action: the rule's cap counts what this action has sent
  return isGatewayError(e) && !action.answered && !signal?.aborted && inAction(() => failoverWorthy(e), action);
}

const named = (result: ChatResult, hop: Hop): ChatResult => ({
  ...result,
  gateway: { id: hop.route.gateway, name: hop.named.gatewayName },
});

/**
 * A streamed chat over routes (routesFor): the first route's gateway first; on a failure before
 * anything of a reply arrived, a `failover` event, then the next route. Once an event was handed on,
 * an error is thrown as from a single gateway. The `done` result names the gateway that answered.
 */
export async function* chatStreamAcross(
  set: GatewaySet,
  routes: readonly Route[],
  req: Omit<ChatRequest, 'model'>,
): AsyncIterable<ChatEvent | FailoverEvent> {
  const hops = hopsOf(set, routes, routes[0]?.model);
  // One user action over every hop: its requests count against one cap, and a reply that began pins it.
  const action = newAction();
  for (let i = 0; i < hops.length; i++) {
    const hop = hops[i];
    const events = inAction(
      () => hop.client.chatStream({ ...req, model: hop.route.model })[Symbol.asyncIterator](),
      action,
    );
    let handedOn = false;
    try {
      for (;;) {
        const next = await inAction(() => events.next(), action);
        if (next.done) return;
        handedOn = true;
        const ev = next.value;
        yield ev.type === 'done' ? { type: 'done', result: named(ev.result, hop) } : ev;
      }
    } catch (e) {
      if (handedOn || i === hops.length - 1 || !movesOn(e, action, req.signal)) throw e;
      yield { type: 'failover', from: hop.named, to: hops[i + 1].named, error: e };
    } finally {
      if (handedOn) await events.return?.();
    }
  }
}

/** A non-streamed chat over routes, with the same rule; returns the reply and the failovers on the way. */
export async function chatAcross(
  set: GatewaySet,
  routes: readonly Route[],
  req: Omit<ChatRequest, 'model'>,
): Promise<{ result: ChatResult; failovers: FailoverEvent[] }> {
  const hops = hopsOf(set, routes, routes[0]?.model);
  const failovers: FailoverEvent[] = [];
  const action = newAction();
  for (let i = 0; ; i++) {
    const hop = hops[i];
    try {
      const result = await inAction(() => hop.client.chat({ ...req, model: hop.route.model }), action);
      return { result: named(result, hop), failovers };
    } catch (e) {
      if (i === hops.length - 1 || !movesOn(e, action, req.signal)) throw e;
      failovers.push({ type: 'failover', from: hop.named, to: hops[i + 1].named, error: e });
    }
  }
}
