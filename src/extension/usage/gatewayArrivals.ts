/**
 * The gateways' usage logs as the views ask them (src/host/usage/arrivals.ts): a record names its
 * gateway by the name it had (or its id); no name, the active gateway. Each gateway client's reader
 * shares one read among concurrent questions and reads at most once a minute.
 */
import { arrivalSource, type ArrivalSource } from '../../host/usage/arrivals';
import type { GatewayService } from '../gateways/gatewayService';

export function gatewayArrivals(service: GatewayService): ArrivalSource {
  return arrivalSource((gateway) => {
    const client = gateway === undefined ? service.client : service.gateways.byName(gateway)?.client;
    return client?.usage;
  });
}
