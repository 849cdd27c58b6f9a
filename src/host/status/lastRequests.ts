/**
 * The last request of each gateway, for the Status view's "Last request" rows: kept by the gateway's
 * name (RequestRecord.gateway) as the records arrive. Plain Node, no `vscode`.
 */
import type { RequestRecord } from '../../gateway';

/** How many gateways' last requests are kept (a removed gateway's entry is dropped first). */
export const MAX_LAST_REQUESTS = 32;

/** The last request per gateway name; balance reads are not requests a user made. Bounded: the oldest entry goes first. */
export class LastRequests {
  private readonly byGateway = new Map<string, RequestRecord>();

  note(r: RequestRecord | undefined): void {
    if (!r?.gateway || r.capability === 'account') return;
    this.byGateway.delete(r.gateway);
    this.byGateway.set(r.gateway, r);
    while (this.byGateway.size > MAX_LAST_REQUESTS) this.byGateway.delete(this.byGateway.keys().next().value!);
  }

  of(gatewayName: string): RequestRecord | undefined {
    return this.byGateway.get(gatewayName);
  }
}
