/**
 * The models VS Code's chat lists from the language-model provider, served from a cache: /v1/models is
 * read once, not on every time VS Code asks. A change of gateway or token forgets the list (the next
 * question reads it again, and a read started before the change never fills the cache); a change of
 * how models are described (overrides, default surface, max tokens, prices) keeps the list. Either
 * fires the provider's onDidChange once, so VS Code asks again. Prices are read by the gateway service
 * together with the list (their one owner); this only looks at them. Plain Node, no `vscode`.
 */
import type { ModelInfo } from '../../gateway';

export interface LmListSource {
  /** the model list from the gateway (and its prices, read alongside by the same owner) */
  refreshModels(signal?: AbortSignal): Promise<ModelInfo[]>;
  /** what decides which models the gateway lists: base URL, backups, token */
  listKey(): string;
  /** what decides how `models` are described: the profile settings and their prices */
  lookKey(models: readonly ModelInfo[]): string;
}

export class LmModelList {
  private models: ModelInfo[] | undefined;
  private loading: Promise<ModelInfo[] | undefined> | undefined;
  /** bumped by every forget(): a read started before it does not fill the cache */
  private generation = 0;
  private listKey: string;
  private lookKey: string;

  constructor(
    private readonly source: LmListSource,
    /** fires the provider's onDidChangeLanguageModelChatInformation */
    private readonly fire: () => void,
  ) {
    this.listKey = source.listKey();
    this.lookKey = source.lookKey([]);
  }

  /** The cached list; the first question reads it (questions at once share the read). A failed read is not kept. */
  async list(signal?: AbortSignal): Promise<ModelInfo[]> {
    if (this.models) return this.models;
    this.loading ??= this.load();
    const loaded = await (signal ? raceAbort(this.loading, signal) : this.loading);
    return loaded ?? [];
  }

  private async load(): Promise<ModelInfo[] | undefined> {
    const generation = this.generation;
    try {
      const models = await this.source.refreshModels();
      if (generation !== this.generation) return undefined;
      this.models = models;
      this.lookKey = this.source.lookKey(models);
      return models;
    } catch {
      return undefined;
    } finally {
      if (generation === this.generation) this.loading = undefined;
    }
  }

  /** The service changed something: forget the list, re-describe it, or nothing — with at most one event. */
  serviceChanged(): void {
    const listKey = this.source.listKey();
    if (listKey !== this.listKey) {
      this.listKey = listKey;
      this.forget();
      this.fire();
      return;
    }
    const lookKey = this.source.lookKey(this.models ?? []);
    if (lookKey !== this.lookKey) {
      this.lookKey = lookKey;
      if (this.models) this.fire();
    }
  }

  private forget(): void {
    this.generation++;
    this.models = undefined;
    this.loading = undefined;
    this.lookKey = this.source.lookKey([]);
  }
}

/** `p`, or undefined as soon as `signal` aborts (the shared read goes on for the others). */
function raceAbort<T>(p: Promise<T | undefined>, signal: AbortSignal): Promise<T | undefined> {
  if (signal.aborted) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    const onAbort = () => resolve(undefined);
    signal.addEventListener('abort', onAbort, { once: true });
    void p.then((v) => {
      signal.removeEventListener('abort', onAbort);
      resolve(v);
    });
  });
}
