/**
 * The models VS Code's chat lists from the language-model provider: those of every gateway that has a
 * token, served from a cache kept per gateway — /v1/models of a gateway is read once, not every time
 * VS Code asks. The gateways not cached yet are read together within a short bound (listModelsAcross):
 * one that cannot be reached never hides the others' models and never holds the list longer than the
 * bound; when a gateway that was still reading answers later, its models are kept and the provider's
 * change event fires, so VS Code asks again and finds them.
 *
 * A gateway's list hangs on its key (its address and its active token: name and a digest of the
 * value, so a token replaced under the same name counts): a changed key forgets that gateway's list
 * only, and a read started before the change never fills the cache. A change of how models are
 * described (overrides, default surface, max tokens, prices, gateway names) keeps the lists. Either
 * fires the provider's change event once. Plain Node, no `vscode`.
 */
import { listModelsAcross, type GatewayModelList } from '../../gateway/gateways/listAcross';
import type { GatewaySet } from '../../gateway/gateways/gatewaySet';
import type { GatewayProfile } from '../../gateway/gateways/profile';
import type { ModelInfo } from '../../gateway';

export interface LmListSource {
  /** the configured gateways' clients */
  readonly gateways: GatewaySet;
  /** how long a listing waits for a gateway (LIST_ACROSS_BOUND_MS) */
  readonly boundMs: number;
  /** the ids of the gateways to list (those that have a token), in their order */
  listed(): string[];
  /** what decides which models gateway `id` lists: its address and its active token (never the token itself) */
  listKey(id: string): string;
  /** what decides how `lists` are described: the profile settings, gateway names and prices */
  lookKey(lists: readonly LmGatewayModels[]): string;
  /** before each listing (e.g. the token stores read once, so the keys are settled) */
  prepare?(): Promise<void>;
}

/** One gateway's models as listed. */
export interface LmGatewayModels {
  gateway: GatewayProfile;
  models: ModelInfo[];
}

export class LmModelLists {
  private readonly cache = new Map<string, ModelInfo[]>();
  /** per gateway: bumped when its key changes; a read started before never fills the cache */
  private readonly epochs = new Map<string, number>();
  /** the keys as last seen, and which gateways were listed then */
  private keys = new Map<string, string>();
  private lookKey: string;
  private loading: Promise<void> | undefined;
  /** gateways being read (a change of their key fires the event: the read's answer is dropped) */
  private readonly reading = new Set<string>();

  constructor(
    private readonly source: LmListSource,
    /** fires the provider's onDidChangeLanguageModelChatInformation */
    private readonly fire: () => void,
  ) {
    this.keys = this.currentKeys();
    this.lookKey = source.lookKey([]);
  }

  /** The cached lists, each gateway's read first when not cached (questions at once share the read). */
  async list(signal?: AbortSignal): Promise<LmGatewayModels[]> {
    if (this.source.prepare) await this.source.prepare();
    this.sync();
    if (this.source.listed().some((id) => !this.cache.has(id))) {
      if (!this.loading) {
        const loading = this.load().finally(() => {
          if (this.loading === loading) this.loading = undefined;
        });
        this.loading = loading;
      }
      await (signal ? raceAbort(this.loading, signal) : this.loading);
    }
    if (signal?.aborted) return [];
    return this.cachedLists();
  }

  /** What is cached now, in the gateways' order (without reading). */
  cachedLists(): LmGatewayModels[] {
    const out: LmGatewayModels[] = [];
    for (const id of this.source.listed()) {
      const gateway = this.source.gateways.profile(id);
      const c = this.cache.get(id);
      if (gateway && c) out.push({ gateway, models: c });
    }
    return out;
  }

  /** The service or a token store changed something: forget a gateway's list, re-describe, or nothing — at most one event. */
  serviceChanged(): void {
    const changed = this.sync();
    const lookKey = this.source.lookKey(this.cachedLists());
    const described = lookKey !== this.lookKey && this.cache.size > 0;
    this.lookKey = lookKey;
    if (changed || described) this.fire();
  }

  private async load(): Promise<void> {
    const ids = this.source.listed().filter((id) => !this.cache.has(id));
    const started = new Map(ids.map((id) => [id, this.epochOf(id)]));
    ids.forEach((id) => this.reading.add(id));
    const take = (l: GatewayModelList): boolean => {
      const id = l.gateway.id;
      if (started.get(id) !== this.epochOf(id)) return false; // read for a key that changed since
      if (!l.pending) this.reading.delete(id);
      if (!l.models) return false;
      this.cache.set(id, l.models);
      this.lookKey = this.source.lookKey(this.cachedLists());
      return true;
    };
    const lists = await listModelsAcross(this.source.gateways, {
      boundMs: this.source.boundMs,
      ids,
      onLate: (l) => {
        if (take(l)) this.fire();
      },
    });
    for (const l of lists) take(l);
  }

  /** Takes the current keys: a gateway whose key changed loses its list; true when the listing changed. */
  private sync(): boolean {
    const now = this.currentKeys();
    let changed = now.size !== this.keys.size;
    for (const [id, key] of now) {
      const before = this.keys.get(id);
      if (before === undefined) changed = true;
      else if (before !== key) {
        if (this.cache.has(id) || this.reading.has(id)) changed = true;
        this.forget(id);
      }
    }
    for (const id of this.keys.keys()) if (!now.has(id)) this.forget(id);
    this.keys = now;
    return changed;
  }

  private forget(id: string): void {
    this.cache.delete(id);
    // A read of the old key is of no use to the next question: it starts its own.
    if (this.reading.delete(id)) this.loading = undefined;
    this.epochs.set(id, this.epochOf(id) + 1);
  }

  private epochOf(id: string): number {
    return this.epochs.get(id) ?? 0;
  }

  private currentKeys(): Map<string, string> {
    return new Map(this.source.listed().map((id) => [id, this.source.listKey(id)]));
  }
}

/** `p`, or as soon as `signal` aborts (the shared read goes on for the others). */
function raceAbort(p: Promise<void>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const onAbort = () => resolve();
    signal.addEventListener('abort', onAbort, { once: true });
    void p.then(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    });
  });
}
