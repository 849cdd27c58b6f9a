/**
 * The chat view's model picker: the token's models from /v1/models, reloaded when settings or the
 * token change. Loads may overlap (a token switch while the last list is still loading): the newest
 * load wins, whatever order they finish in. Plain Node: the caller hands in where the models and the
 * configured defaults come from.
 */
import type { ModelInfo } from '../../gateway';
import type { ModelList } from '../../shared/chatProtocol';
import { errorSummary } from '../errorWords';

/** What the model list needs of the gateway service. */
export interface ModelSource {
  readonly current: { models: { chat: string; native: string } };
  /** the token's models, with the gateway's published prices read alongside */
  refreshModels(): Promise<ModelInfo[]>;
  /** a model's price as last read (nothing where the gateway does not publish prices) */
  price?(model: string): { text: string | undefined };
}

export class ChatModels {
  private list: ModelList;
  private loaded = false;
  /** the newest load's number: an older load that finishes later is dropped */
  private generation = 0;

  constructor(
    private readonly service: ModelSource,
    /** posts the list to the webview (dropped while it is not ready) */
    private readonly post: (models: ModelList) => void,
    /** whether the webview shows now (else the list loads when it next does) */
    private readonly showing: () => boolean,
  ) {
    this.list = { items: [], defaults: this.defaults(), loading: false };
  }

  get current(): ModelList {
    return this.list;
  }

  private defaults(): ModelList['defaults'] {
    return { compatible: this.service.current.models.chat, native: this.service.current.models.native };
  }

  /** The configured default models changed. */
  defaultsChanged(): void {
    this.list = { ...this.list, defaults: this.defaults() };
    this.stale();
  }

  /** The list is stale: reload it now if the view shows, else when it next does. */
  stale(): void {
    this.loaded = false;
    if (this.showing()) void this.load();
  }

  /** Loads the list once per view session (the view calls it on `ready`). */
  ensureLoaded(): void {
    if (!this.loaded) void this.load();
  }

  async load(): Promise<void> {
    const generation = ++this.generation;
    this.list = { ...this.list, defaults: this.defaults(), loading: true, error: undefined };
    this.post(this.list);
    try {
      const models = await this.service.refreshModels(); // with the prices, read alongside by the service
      if (generation !== this.generation) return;
      const price = (id: string) => this.service.price?.(id).text;
      this.list = {
        items: models.map((m) => ({
          id: m.id,
          capabilities: m.capabilities,
          ...(price(m.id) ? { price: price(m.id) } : {}),
        })),
        defaults: this.defaults(),
        loading: false,
      };
      this.loaded = true;
    } catch (e) {
      if (generation !== this.generation) return;
      this.list = { ...this.list, defaults: this.defaults(), loading: false, error: errorSummary(e) };
    }
    this.post(this.list);
  }
}
