/**
 * What Add / Rename / Remove Gateway and Configure Base URL write to `modelRelay.gateways`: the
 * user's list as it is in their settings (entries this version cannot read are kept as they are),
 * with one entry added, renamed, re-addressed or removed. The gateway made from the old settings
 * (id `default`, not in the list) is renamed by writing an entry with its id and its values: that
 * entry then replaces the old settings, as the setting's description says. Plain Node.
 */
import type { GatewayProfile } from '../../gateway/gateways/profile';

type Entry = Record<string, unknown>;

const entries = (raw: unknown): unknown[] => (Array.isArray(raw) ? [...(raw as unknown[])] : []);
const idOf = (e: unknown): unknown => (e && typeof e === 'object' ? (e as Entry).id : undefined);

/** Whether the list holds an entry with this id (else the gateway is the one made from the old settings). */
export function hasEntry(raw: unknown, id: string): boolean {
  return entries(raw).some((e) => idOf(e) === id);
}

export function withGatewayAdded(raw: unknown, g: GatewayProfile): unknown[] {
  return [...entries(raw), { ...g }];
}

/** The list with `id` renamed; `from` is the gateway as listed (for the one made from the old settings). */
export function withGatewayRenamed(raw: unknown, from: GatewayProfile, name: string): unknown[] {
  const list = entries(raw);
  if (!hasEntry(list, from.id)) return [...list, { ...from, name }];
  return list.map((e) => (idOf(e) === from.id ? { ...(e as Entry), name } : e));
}

/** The list with `id`'s base URL replaced (its backups and headers stay). */
export function withGatewayBaseUrl(raw: unknown, id: string, baseUrl: string): unknown[] {
  return entries(raw).map((e) => (idOf(e) === id ? { ...(e as Entry), baseUrl } : e));
}

export function withGatewayRemoved(raw: unknown, id: string): unknown[] {
  return entries(raw).filter((e) => idOf(e) !== id);
}
