/**
 * The model picker: a native `<select>` whose models are grouped by gateway. With several gateways
 * each group is an `<optgroup>` labelled with the gateway's name (a screen reader says it with each
 * model), its models in the surface's order (./../shared/modelOrder.ts), its own prices, and, when
 * its list failed, a disabled line saying why (the other groups stay). With one gateway the list is
 * flat, as before there were several. Each option carries its gateway's id (`data-gateway`): the
 * choice is a model *and* the gateway it is from.
 */
import type { ChatSurface, ModelGroup, ModelList } from '../shared/chatProtocol';
import { modelsForSurface } from '../shared/modelOrder';
import { fill, surfaceWord, type ChatStrings } from '../shared/chatStrings';

/** A choice in the picker: a model id and the id of the gateway it is from (undefined: no gateway listed). */
export interface PickedModel {
  gateway?: string | undefined;
  model: string;
}

/** The group a choice belongs to: its gateway's, else the active gateway's (a gateway no longer listed), else the first. */
export function groupOf(models: ModelList, gateway: string | undefined): ModelGroup | undefined {
  return models.groups.find((g) => g.gateway.id === gateway) ?? models.groups.find((g) => g.active) ?? models.groups[0];
}

/** What the picker shows as chosen. */
export function pickedOf(select: HTMLSelectElement): PickedModel {
  const o = select.selectedIndex >= 0 ? select.options[select.selectedIndex] : undefined;
  const gateway = o?.getAttribute('data-gateway') ?? undefined;
  return { model: select.value, ...(gateway ? { gateway } : {}) };
}

function option(doc: Document, value: string, label: string, gateway?: string): HTMLOptionElement {
  const o = doc.createElement('option');
  o.value = value;
  o.textContent = label;
  if (gateway) o.setAttribute('data-gateway', gateway);
  return o;
}

/** One gateway's options for a surface (`picked` added when its group lacks it); the chosen one, if here. */
function groupOptions(
  doc: Document,
  g: ModelGroup,
  surface: ChatSurface,
  picked: PickedModel | undefined,
  s: ChatStrings,
): { options: HTMLOptionElement[]; chosen: HTMLOptionElement | undefined } {
  const ids = modelsForSurface(g, surface);
  if (picked?.model && !ids.includes(picked.model)) ids.unshift(picked.model);
  const prices = new Map(g.items.map((m) => [m.id, m.price]));
  const learnt = new Map(g.items.flatMap((m) => (m.learnt ? [[m.id, m.learnt] as const] : [])));
  let chosen: HTMLOptionElement | undefined;
  const options = ids.map((id) => {
    const price = prices.get(id);
    const only = learnt.get(id);
    // A model the gateway refused elsewhere says where it answers (the request goes there by itself).
    const label = only && only !== surface ? fill(s.modelLearnt, id, surfaceWord(only, s)) : id;
    const name = id === g.defaults[surface] ? fill(s.modelDefault, label) : label;
    const o = option(doc, id, `${name}${price ? ` · ${price}` : ''}`, g.gateway.id);
    if (price) o.title = `${id}: ${price}`;
    if (id === picked?.model) chosen = o;
    return o;
  });
  return { options, chosen };
}

/** Fills the model select for a surface, grouped by gateway, with `picked` chosen (added to its group when missing). */
export function fillModels(
  doc: Document,
  select: HTMLSelectElement,
  models: ModelList,
  surface: ChatSurface,
  picked: PickedModel,
  s: ChatStrings,
): void {
  const home = groupOf(models, picked.gateway);
  const grouped = models.groups.length > 1;
  const nodes: HTMLElement[] = [];
  let chosen: HTMLOptionElement | undefined;
  for (const g of models.groups) {
    const own = groupOptions(doc, g, surface, g === home ? picked : undefined, s);
    chosen ??= own.chosen;
    if (!grouped) {
      nodes.push(...own.options);
      continue;
    }
    if (g.error) {
      const failed = option(doc, '', fill(s.gatewayModelsFailed, g.gateway.name, g.error));
      failed.disabled = true;
      own.options.push(failed);
    }
    const group = doc.createElement('optgroup');
    group.label = fill(g.active ? s.gatewayGroupActive : s.gatewayGroup, g.gateway.name);
    group.setAttribute('data-gateway', g.gateway.id);
    group.append(...own.options);
    nodes.push(group);
  }
  if (!home && picked.model) nodes.push((chosen = option(doc, picked.model, picked.model)));
  const selectable = () => Array.from(select.options).filter((o) => !o.disabled);
  select.replaceChildren(...nodes);
  if (!selectable().length) {
    nodes.push(option(doc, '', surface === 'native' ? s.noModelNative : s.noModelChat));
    select.replaceChildren(...nodes);
  }
  (chosen ?? selectable()[0] ?? select.options[0]).selected = true;
}

/** The note under the picker: loading, or why listing failed (per gateway when there are several). */
export function modelsNote(models: ModelList, s: ChatStrings): string {
  if (models.loading) return s.loadingModels;
  if (models.error) return fill(s.modelsFailed, models.error);
  const failed = models.groups.filter((g) => g.error);
  if (models.groups.length === 1 && failed.length) return fill(s.modelsFailed, failed[0].error!);
  return failed.map((g) => fill(s.gatewayModelsFailed, g.gateway.name, g.error!)).join('\n');
}
