/**
 * GatewaySet: one GatewayClient per gateway profile, built from shared options (proxy, timeouts,
 * retry, injected sleep/now/random). Each client's token getter asks for its own gateway's id and
 * nothing else, so a token is bound to its gateway by construction: the client that holds it only
 * knows that gateway's base URL and backups (and the transport never follows a redirect with a
 * token). Failover across gateways (failover.ts) moves a request to another client, never a token
 * to another host.
 *
 * Every request record of a set's client names its gateway (`RequestRecord.gateway`, the profile's
 * name at the time of the request).
 */
import { GatewayClient, type ClientConfiguration, type GatewayClientOptions } from '../client';
import type { ModelInfo } from '../models';
import type { RequestLogSink } from '../requestLog';
import type { GatewayProfile } from './profile';

/** What every gateway's client shares; the endpoints, headers and token come from each profile. */
export interface GatewaySetOptions extends Omit<
  GatewayClientOptions,
  'baseUrl' | 'backupUrls' | 'baseUrlVerbatim' | 'extraHeaders' | 'token' | 'explain' | 'onModelsListed'
> {
  /** The token of one gateway (SecretStorage per gateway, or the environment variable its file names). */
  token: (gatewayId: string) => string | undefined | Promise<string | undefined>;
  /** Hears every request of every gateway, its record carrying the gateway's name. */
  onRequest?: RequestLogSink;
  /** Hears a gateway's model list read for the token in use (GatewayClientOptions.onModelsListed), with its id. */
  onModelsListed?: (gatewayId: string, models: readonly ModelInfo[]) => void;
  /** Whether a base URL is called as typed ("Keep what I typed"), not as the endpoint rules would have it. */
  verbatim?: (baseUrl: string) => boolean;
}

/** The settings shared by all clients that can change at run time (not the endpoints: those are per profile). */
export type SharedConfiguration = Omit<
  ClientConfiguration,
  'baseUrl' | 'backupUrls' | 'baseUrlVerbatim' | 'extraHeaders'
>;

interface Member {
  profile: GatewayProfile;
  client: GatewayClient;
}

const sameList = (a: readonly string[] | undefined, b: readonly string[] | undefined) => {
  const x = a ?? [];
  const y = b ?? [];
  return x.length === y.length && x.every((v, i) => v === y[i]);
};

const sameHeaders = (a: Record<string, string> | undefined, b: Record<string, string> | undefined) => {
  const x = Object.entries(a ?? {});
  const y = b ?? {};
  return x.length === Object.keys(y).length && x.every(([k, v]) => y[k] === v);
};

export class GatewaySet {
  private readonly members = new Map<string, Member>();
  private order: string[] = [];

  constructor(
    profiles: readonly GatewayProfile[],
    private readonly opts: GatewaySetOptions,
  ) {
    this.configure(profiles);
  }

  /** The client of a gateway, by id. */
  get(id: string): GatewayClient | undefined {
    return this.members.get(id)?.client;
  }

  /** The profile of a gateway, by id. */
  profile(id: string): GatewayProfile | undefined {
    return this.members.get(id)?.profile;
  }

  /** A gateway by its name (case-insensitive, as `--gateway NAME` is typed), or by its id. */
  byName(name: string): { profile: GatewayProfile; client: GatewayClient } | undefined {
    const wanted = name.trim().toLowerCase();
    const all = this.entries();
    return (
      all.find((m) => m.profile.name.trim().toLowerCase() === wanted) ??
      this.members.get(name.trim()) ??
      all.find((m) => m.profile.id.toLowerCase() === wanted)
    );
  }

  /** Every gateway in the order of the profiles. */
  entries(): Array<{ profile: GatewayProfile; client: GatewayClient }> {
    return this.order.map((id) => {
      const m = this.members.get(id)!;
      return { profile: m.profile, client: m.client };
    });
  }

  get size(): number {
    return this.order.length;
  }

  /**
   * Applies another list of profiles: an unchanged gateway keeps its client (its failover state,
   * model capabilities and account), a changed one is reconfigured (GatewayClient.configure resets
   * what its change affects), a new one gets a client, a removed one is dropped.
   */
  configure(profiles: readonly GatewayProfile[]): void {
    const seen = new Set<string>();
    for (const p of profiles) {
      if (seen.has(p.id)) continue;
      seen.add(p.id);
      const had = this.members.get(p.id);
      if (!had) this.members.set(p.id, { profile: p, client: this.clientFor(p) });
      else {
        if (
          had.profile.baseUrl !== p.baseUrl ||
          !sameList(had.profile.backupUrls, p.backupUrls) ||
          !sameHeaders(had.profile.extraHeaders, p.extraHeaders)
        )
          had.client.configure({
            baseUrl: p.baseUrl,
            backupUrls: p.backupUrls ?? [],
            extraHeaders: p.extraHeaders ?? {},
          });
        // "Keep what I typed" may be chosen or dropped for the same address
        had.client.configure({ baseUrlVerbatim: this.opts.verbatim?.(p.baseUrl) ?? false });
        had.profile = p;
      }
    }
    for (const id of [...this.members.keys()]) if (!seen.has(id)) this.members.delete(id);
    this.order = [...seen];
  }

  /** Applies shared settings (proxy, timeouts, retry, concurrency…) to every client, and to those made later. */
  configureAll(c: SharedConfiguration): void {
    const o = this.opts;
    if ('dispatcher' in c) o.dispatcher = c.dispatcher;
    if (c.timeouts) o.timeouts = { ...o.timeouts, ...c.timeouts };
    if (c.retry) o.retry = { ...o.retry, ...c.retry };
    if (c.concurrency) o.concurrency = { ...o.concurrency, ...c.concurrency };
    if (c.defaultNativeMaxTokens !== undefined) o.defaultNativeMaxTokens = c.defaultNativeMaxTokens;
    for (const m of this.members.values()) m.client.configure(c);
  }

  private clientFor(p: GatewayProfile): GatewayClient {
    const { token, onRequest, onModelsListed, verbatim, ...shared } = this.opts;
    const id = p.id;
    return new GatewayClient({
      ...shared,
      gatewayName: p.name,
      baseUrl: p.baseUrl,
      baseUrlVerbatim: verbatim?.(p.baseUrl) ?? false,
      backupUrls: p.backupUrls ?? [],
      extraHeaders: p.extraHeaders ?? {},
      // Only this gateway's token, whatever the set holds: the binding of a token to its hosts.
      token: () => token(id),
      onRequest: (r) => onRequest?.({ ...r, gateway: this.members.get(id)?.profile.name ?? id }),
      ...(onModelsListed ? { onModelsListed: (models: readonly ModelInfo[]) => onModelsListed(id, models) } : {}),
    });
  }
}
