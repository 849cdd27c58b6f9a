/**
 * The gateways' usage logs as the views ask them (src/host/usage/arrivals.ts, receiptBook.ts): a record
 * names its gateway by the name it had (or its id); no name, the active gateway. Both read through the
 * gateway client's own reader, which shares one read among concurrent questions and reads at most once a
 * minute.
 */
import { hostOf, type GatewayClient } from '../../gateway';
import { maskToken } from '../../gateway/mask';
import { arrivalSource, type ArrivalSource } from '../../host/usage/arrivals';
import type { ReceiptReader } from '../../host/usage/receiptBook';
import type { GatewayService } from '../gateways/gatewayService';

/** The client of the gateway a record names (undefined: the active one); undefined when it is not configured. */
function clientOf(service: GatewayService, gateway: string | undefined): GatewayClient | undefined {
  return gateway === undefined ? service.client : service.gateways.byName(gateway)?.client;
}

export function gatewayArrivals(service: GatewayService): ArrivalSource {
  return arrivalSource((gateway) => clientOf(service, gateway)?.usage);
}

/** The same readers for the receipt book, with each gateway's price list. */
export function gatewayReceiptReaders(
  service: GatewayService,
): (gateway: string | undefined) => ReceiptReader | undefined {
  return (gateway) => {
    const client = clientOf(service, gateway);
    const base = client?.endpoints().base;
    // the token the client sends: the active gateway's (the default one's when none is configured), or the named one's
    const id = gateway === undefined ? service.registry.activeId() : service.gateways.byName(gateway)?.profile.id;
    return (
      client && {
        host: base ? hostOf(base) : undefined,
        read: () => client.usage.read(),
        priceList: () => client.account.priceList(),
        maskedToken: async () => {
          const token = id === undefined ? undefined : await service.registry.tokensOf(id).activeToken();
          return token ? maskToken(token) : undefined;
        },
      }
    );
  };
}
