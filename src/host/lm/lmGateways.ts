/**
 * Which gateway a model of VS Code's chat belongs to. The provider lists each gateway's models as
 * `<gateway id>/<model id>` (stable across restarts: the id is the gateway's, not its position);
 * a request for such an id goes to that gateway's client only (its own token), then to the
 * fallbacks of `modelRelay.fallbacks` for that model. An id without a known gateway prefix (a model
 * chosen before there were several gateways, or another extension asking by the bare id) goes to the
 * active gateway, as before. Plain Node, no `vscode`.
 */
import { routesFor, type Route } from '../../gateway/gateways/failover';
import type { GatewaySet } from '../../gateway/gateways/gatewaySet';
import type { Fallbacks } from '../../gateway/gateways/profile';

/** The id VS Code keeps for a gateway's model. */
export function lmModelId(gatewayId: string, modelId: string): string {
  return `${gatewayId}/${modelId}`;
}

/** The gateway and model an id of ours names; a bare id (or an unknown prefix) is the active gateway's model. */
export function lmTarget(id: string, known: (gatewayId: string) => boolean, activeId: string): Route {
  const slash = id.indexOf('/');
  if (slash > 0) {
    const gateway = id.slice(0, slash);
    if (known(gateway)) return { gateway, model: id.slice(slash + 1) };
  }
  return { gateway: activeId, model: id };
}

/** The gateway another extension's or participant's model id names, when it is one of ours from another gateway. */
export function gatewayOfModel(id: string | undefined, set: GatewaySet, activeId: string): Route | undefined {
  if (!id) return undefined;
  const target = lmTarget(id, (g) => !!set.get(g), activeId);
  return target.gateway === activeId ? undefined : target;
}

/**
 * The routes of a request for one of our models (`route`: the gateway and model it was listed for;
 * else its id read as above): that gateway first, then the fallbacks listed for its model id.
 */
export function lmRoutes(
  model: { id: string; route?: Route | undefined },
  set: GatewaySet,
  activeId: string,
  fallbacks: Fallbacks,
): Route[] {
  return routesFor(model.route ?? lmTarget(model.id, (g) => !!set.get(g), activeId), fallbacks, set);
}

/** How long a tool call of ours is remembered for the tool it calls (the agent runs it at once, or after a confirmation). */
const ORIGIN_TTL_MS = 10 * 60_000;
/** At most this many calls are remembered (the oldest go first). */
const ORIGIN_MAX = 64;

/**
 * Which gateway's model asked for a tool call. VS Code does not tell a tool which model called it;
 * the provider remembers the calls its replies made (name and input, with the gateway that
 * answered), so a gateway tool (`#` tools) called by another gateway's model runs on that gateway.
 * A call no reply of ours made (another vendor's model, the user's `#` reference) is the active
 * gateway's. Bounded in count and age; nothing but names, inputs and gateway ids is kept.
 */
export class ToolCallOrigins {
  private calls: Array<{ key: string; gateway: string; at: number }> = [];

  constructor(private readonly now: () => number = Date.now) {}

  /** The tool calls of a reply that `gateway` answered. */
  remember(gateway: string | undefined, calls: ReadonlyArray<{ name: string; input: unknown }>): void {
    if (!gateway || !calls.length) return;
    const at = this.now();
    this.calls = [
      ...this.calls.filter((c) => at - c.at < ORIGIN_TTL_MS),
      ...calls.map((c) => ({ key: callKey(c.name, c.input), gateway, at })),
    ].slice(-ORIGIN_MAX);
  }

  /** The gateway whose model made this call (the latest such call), if one of ours did lately. */
  gatewayOf(name: string, input: unknown): string | undefined {
    const key = callKey(name, input);
    const at = this.now();
    for (let i = this.calls.length - 1; i >= 0; i--) {
      const c = this.calls[i];
      if (c.key === key && at - c.at < ORIGIN_TTL_MS) return c.gateway;
    }
    return undefined;
  }
}

function callKey(name: string, input: unknown): string {
  return `${name}\0${JSON.stringify(input ?? {})}`;
}
