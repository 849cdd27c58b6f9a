/**
 * Where a chat reply goes: the gateway its model was picked from (the active one when none was, or
 * when that gateway is no longer configured), through that gateway's own client — its own token
 * only — with modelRelay.fallbacks applied by the core (routesFor + chatStreamAcross / chatAcross:
 * a failover only before anything of a reply arrived, a `failover` event for each). With no gateway
 * configured at all, the unconfigured client answers (it says what to set). Plain Node.
 */
import {
  chatAcross,
  chatStreamAcross,
  routesFor,
  type ChatEvent,
  type ChatRequest,
  type ChatResult,
  type Fallbacks,
  type FailoverEvent,
  type GatewaySet,
  type Route,
} from '../../gateway';
import type { ChatBackend } from './session';

export interface ChatGatewaysInit {
  /** every configured gateway's client */
  set: GatewaySet;
  /** the active gateway's id */
  activeId(): string;
  /** modelRelay.fallbacks, read at each request */
  fallbacks(): Fallbacks;
  /** the client while no gateway is configured */
  unconfigured(): Pick<ChatBackend, 'chat' | 'chatStream'>;
}

/** The chat's backend over several gateways. */
export function gatewayBackend(g: ChatGatewaysInit): ChatBackend {
  const routes = (model: string, gateway: string | undefined): Route[] | undefined => {
    const id = gateway && g.set.profile(gateway) ? gateway : g.activeId();
    return g.set.profile(id) ? routesFor({ gateway: id, model }, g.fallbacks(), g.set) : undefined;
  };
  return {
    chatStream(req: ChatRequest, gateway?: string): AsyncIterable<ChatEvent | FailoverEvent> {
      const r = routes(req.model, gateway);
      return r ? chatStreamAcross(g.set, r, req) : g.unconfigured().chatStream(req);
    },
    async chat(req: ChatRequest, gateway?: string): Promise<ChatResult & { failovers?: FailoverEvent[] }> {
      const r = routes(req.model, gateway);
      if (!r) return g.unconfigured().chat(req);
      const { result, failovers } = await chatAcross(g.set, r, req);
      return { ...result, failovers };
    },
  };
}
