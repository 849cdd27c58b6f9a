/**
 * What the chat knows of a model beyond its id: whether it takes images and its thinking budget (the
 * model family table of src/host/lm/modelProfile.ts, overridden per model in
 * modelRelay.models.overrides), which listed model to suggest for images, and a reply's cost. Plain Node.
 */
import type { ChatSurface, ChatUsage, ModelList } from '../../shared/chatProtocol';
import { modelsForSurface } from '../../shared/modelOrder';
import { familyOf, type ModelOverride } from '../lm/modelProfile';

export interface ModelTraits {
  /** true/false when known (override, else family); undefined for an unknown family: allowed, nothing said */
  imageInput: boolean | undefined;
  /** native surface: extended thinking with this budget (modelRelay.models.overrides) */
  thinkingBudget?: number | undefined;
}

/** What the session knows about models (from modelRelay.models.overrides and the family table). */
export interface SessionModels {
  traits(model: string): ModelTraits;
  /** a listed model known to accept images, preferably on `surface` (suggested when one does not) */
  imageModel(surface: ChatSurface): string | undefined;
  /** what a reply with this usage cost, where the gateway that answered (its id; undefined: the active one) publishes the model's price ("≈ $0.0004") */
  costOf?(model: string, usage: ChatUsage, gateway?: string): string | undefined;
}

/** A model's traits from the overrides and the family table. */
export function modelTraits(model: string, overrides: Readonly<Record<string, ModelOverride>>): ModelTraits {
  const o = overrides[model] ?? {};
  return { imageInput: o.imageInput ?? familyOf(model)?.imageInput, thinkingBudget: o.thinkingBudget };
}

/** The first of `candidates` known to accept images (for the refusal's suggestion). */
export function imageCapableModel(
  candidates: readonly string[],
  overrides: Readonly<Record<string, ModelOverride>>,
): string | undefined {
  return candidates.find((id) => modelTraits(id, overrides).imageInput === true);
}

/** The session's view of the models: the overrides (read at each use), the listed models of every gateway, their prices. */
export function sessionModels(src: {
  overrides(): Readonly<Record<string, ModelOverride>>;
  list(): ModelList;
  costOf?: ((model: string, usage: ChatUsage, gateway?: string) => string | undefined) | undefined;
}): SessionModels {
  return {
    traits: (model) => modelTraits(model, src.overrides()),
    imageModel: (surface) => {
      // the active gateway's models first, then the others'
      const groups = [...src.list().groups].sort((a, b) => Number(b.active) - Number(a.active));
      const candidates = groups.flatMap((g) => [...modelsForSurface(g, surface), ...g.items.map((m) => m.id)]);
      return imageCapableModel(candidates, src.overrides());
    },
    ...(src.costOf ? { costOf: src.costOf } : {}),
  };
}
