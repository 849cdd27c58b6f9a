/**
 * What one gateway's refusals taught per model (refusals.ts): the surface it answers on, the
 * parameters it refused, the values it takes instead, whether it wants its reasoning back — so the
 * next request is built right the first time (modelRules.ts `wirePlan`), not refused again. One
 * memory per client, i.e. per gateway; bounded (the model learnt longest ago is forgotten first);
 * forgotten when the gateway's model list changes (another list may route the model elsewhere) or
 * the client's token or address changes.
 */
import type { Surface } from '../errors/gatewayError';
import type { ModelInfo } from '../models';
import type { DroppableParam, Learnt } from './modelRules';

/** How many models a gateway's memory holds at most (the one learnt longest ago is forgotten first). */
export const MAX_LEARNT_MODELS = 256;

/** Two lessons in one: the later wins, dropped parameters add up. */
export function mergedLearnt(a: Learnt | undefined, b: Learnt): Learnt {
  const dropped = [...new Set<DroppableParam>([...(a?.dropped ?? []), ...(b.dropped ?? [])])];
  return { ...a, ...b, ...(dropped.length ? { dropped } : {}) };
}

export class ModelMemory {
  private readonly learnt = new Map<string, Learnt>();
  /** what the last model list read said (ids and endpoint types), to notice a change */
  private listPrint: string | undefined;

  constructor(private readonly max = MAX_LEARNT_MODELS) {}

  /** What was learnt for a model, if anything. */
  of(model: string): Learnt | undefined {
    return this.learnt.get(model);
  }

  /** Adds a lesson to what was learnt for a model (which becomes the newest). */
  learn(model: string, lesson: Learnt): void {
    const now = mergedLearnt(this.learnt.get(model), lesson);
    this.learnt.delete(model);
    this.learnt.set(model, now);
    while (this.learnt.size > this.max) this.learnt.delete(this.learnt.keys().next().value!);
  }

  /** Every learnt surface, oldest first. */
  surfaces(): Array<{ model: string; surface: Surface }> {
    return [...this.learnt].flatMap(([model, l]) => (l.surface ? [{ model, surface: l.surface }] : []));
  }

  /** Everything learnt, oldest first. */
  entries(): Array<{ model: string; learnt: Learnt }> {
    return [...this.learnt].map(([model, learnt]) => ({ model, learnt }));
  }

  get size(): number {
    return this.learnt.size;
  }

  /** A model list was read: a list other than the last one forgets what was learnt. */
  listed(models: readonly ModelInfo[]): void {
    const print = listPrint(models);
    if (this.listPrint !== undefined && print !== this.listPrint) this.learnt.clear();
    this.listPrint = print;
  }

  forget(): void {
    this.learnt.clear();
    this.listPrint = undefined;
  }
}

/** A model list's fingerprint: its ids with their endpoint types, in order of id. */
function listPrint(models: readonly ModelInfo[]): string {
  const rows = models.map((m) => `${m.id}\u0000${(m.endpointTypes ?? []).join(',')}`);
  rows.sort();
  return rows.join('\n');
}
