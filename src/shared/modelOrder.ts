/** The model picker's order within a gateway's group: its configured default for the surface first, then the rest. Pure. */
import type { Capability } from '../gateway';
import type { ChatSurface, ModelGroup } from './chatProtocol';

/** The capability a surface needs. */
const NEEDS: Record<ChatSurface, Capability> = { compatible: 'chat', native: 'native', responses: 'responses' };

/** The surface whose default is offered next on a surface: native's for compatible, compatible's for the others. */
const OTHER: Record<ChatSurface, ChatSurface> = { compatible: 'native', native: 'compatible', responses: 'compatible' };

/**
 * The model ids to offer for a surface: its configured default (even when the list failed or does
 * not show it), the other surface's default when the list says it fits this surface too, then
 * every listed model that can serve the surface (by its capabilities, or the surface the gateway's
 * refusals taught for it; models whose capabilities are unknown are kept), alphabetically. No
 * duplicates, no empty ids.
 */
export function modelsForSurface(list: Pick<ModelGroup, 'items' | 'defaults'>, surface: ChatSurface): string[] {
  const other = OTHER[surface];
  const fits = list.items
    .filter(
      (m) =>
        m.learnt === surface ||
        !m.capabilities ||
        m.capabilities.length === 0 ||
        m.capabilities.includes(NEEDS[surface]),
    )
    .map((m) => m.id)
    .sort((a, b) => a.localeCompare(b));
  const out: string[] = [];
  const otherDefault = list.defaults[other] && fits.includes(list.defaults[other]) ? list.defaults[other] : '';
  for (const id of [list.defaults[surface] ?? '', otherDefault, ...fits]) {
    if (id && !out.includes(id)) out.push(id);
  }
  return out;
}
