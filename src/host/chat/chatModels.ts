/**
 * The chat view's model picker: the models of every gateway that has a token (and of the active one,
 * so its failure shows), grouped by gateway, each group with that gateway's own prices. The lists are
 * read in parallel within a bound (the core's listModelsAcross): a gateway that fails or does not
 * answer in time shows so in its group and never hides the others. Reloaded when settings, the active
 * gateway or the token change. Loads may overlap (a token switch while the last list is still
 * loading): the newest load wins, whatever order they finish in. Plain Node: the caller hands in
 * where the gateways, their models and their prices come from.
 */
import {
  LIST_ACROSS_BOUND_MS,
  priceText,
  type GatewayModelList,
  type GatewayProfile,
  type ModelPrice,
  type Surface,
} from '../../gateway';
import { t } from '../../gateway/l10n';
import type { ModelGroup, ModelList } from '../../shared/chatProtocol';
import { errorSummary } from '../errorWords';

/** A gateway the picker lists. */
export interface ChatGateway {
  id: string;
  name: string;
  active: boolean;
  /** its configured default models (its models.chat / .native) */
  defaults: ModelGroup['defaults'];
}

/** What the model list needs of the gateway service. */
export interface ModelSource {
  /** the gateways to list, in the settings' order */
  gateways(): ChatGateway[];
  /** their model lists, each within `boundMs` (listModelsAcross) */
  listModels(ids: readonly string[], boundMs: number): Promise<GatewayModelList[]>;
  /** a gateway's published prices (undefined where it publishes none) */
  prices?(id: string): Promise<Map<string, ModelPrice> | undefined>;
  /** the surfaces a gateway's refusals taught for its models (GatewayClient.learntSurfaces) */
  learnt?(id: string): ReadonlyArray<{ model: string; surface: Surface }>;
}

/** What chatGateways needs of the gateway registry. */
export interface GatewaysWithTokens {
  gateways(): readonly GatewayProfile[];
  activeId(): string;
  tokensOf(id: string): { activeName(): string | undefined };
}

/** The gateways the picker lists: every one with a token, and the active one (its failure tells why). */
export function chatGateways(registry: GatewaysWithTokens): ChatGateway[] {
  const active = registry.activeId();
  return registry
    .gateways()
    .filter((g) => g.id === active || registry.tokensOf(g.id).activeName() !== undefined)
    .map((g) => ({
      id: g.id,
      name: g.name,
      active: g.id === active,
      defaults: { compatible: g.models?.chat ?? '', native: g.models?.native ?? '', responses: g.models?.chat ?? '' },
    }));
}

/** Waits for `p` at most `ms`; undefined when it takes longer or fails. */
function within<T>(p: Promise<T>, ms: number): Promise<T | undefined> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(undefined), ms);
    const done = (v: T | undefined) => {
      clearTimeout(timer);
      resolve(v);
    };
    p.then(done, () => done(undefined));
  });
}

export class ChatModels {
  private list: ModelList;
  private loaded = false;
  /** the newest load's number: an older load that finishes later is dropped */
  private generation = 0;
  /** each gateway's prices as last read (for the picker and a reply's cost) */
  private prices = new Map<string, Map<string, ModelPrice>>();

  constructor(
    private readonly service: ModelSource,
    /** posts the list to the webview (dropped while it is not ready) */
    private readonly post: (models: ModelList) => void,
    /** whether the webview shows now (else the list loads when it next does) */
    private readonly showing: () => boolean,
    private readonly boundMs = LIST_ACROSS_BOUND_MS,
  ) {
    this.list = { groups: this.skeleton([]), loading: false };
  }

  get current(): ModelList {
    return this.list;
  }

  /** A model's price at a gateway, as last read (undefined where that gateway publishes none). */
  priceOf(gateway: string, model: string): ModelPrice | undefined {
    return this.prices.get(gateway)?.get(model);
  }

  /** The groups as the gateways are now, keeping the models already listed for each. */
  private skeleton(previous: readonly ModelGroup[] = this.list.groups): ModelGroup[] {
    return this.service.gateways().map((g) => {
      const had = previous.find((x) => x.gateway.id === g.id);
      return {
        gateway: { id: g.id, name: g.name },
        active: g.active,
        items: had?.items ?? [],
        defaults: g.defaults,
        ...(had?.error ? { error: had.error } : {}),
      };
    });
  }

  /** The configured gateways or default models changed. */
  defaultsChanged(): void {
    this.list = { ...this.list, groups: this.skeleton() };
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
    const gateways = this.service.gateways();
    this.list = { groups: this.skeleton(), loading: gateways.length > 0 };
    if (!gateways.length) {
      this.list.error = t('No gateway is configured yet: run "Model Relay: Configure Base URL" or "Add Gateway".');
      this.post(this.list);
      return;
    }
    this.post(this.list);
    const ids = gateways.map((g) => g.id);
    const [lists, prices] = await Promise.all([
      this.service.listModels(ids, this.boundMs).catch((e: unknown) => e),
      Promise.all(ids.map((id) => this.pricesOf(id))),
    ]);
    if (generation !== this.generation) return;
    this.prices = new Map(ids.flatMap((id, i) => (prices[i] ? [[id, prices[i]] as const] : [])));
    this.list = {
      groups: gateways.map((g) => this.group(g, Array.isArray(lists) ? lists : [], lists)),
      loading: false,
    };
    this.loaded = true;
    this.post(this.list);
  }

  private learntOf(id: string): Map<string, Surface> {
    return new Map((this.service.learnt?.(id) ?? []).map((l) => [l.model, l.surface]));
  }

  /**
   * A gateway's refusals may have taught a model's surface (or a model list forgot one): the listed
   * models say so, posted only when that changed (nothing is read again).
   */
  surfacesLearnt(): void {
    let changed = false;
    const groups = this.list.groups.map((g) => {
      const learnt = this.learntOf(g.gateway.id);
      const items = g.items.map((m) => {
        const only = learnt.get(m.id);
        if (only === m.learnt) return m;
        changed = true;
        const { learnt: _was, ...rest } = m;
        return only ? { ...rest, learnt: only } : rest;
      });
      return { ...g, items };
    });
    if (!changed) return;
    this.list = { ...this.list, groups };
    this.post(this.list);
  }

  /** A gateway's prices, read within the bound (a gateway slow to tell its prices shows none). */
  private pricesOf(id: string): Promise<Map<string, ModelPrice> | undefined> {
    return this.service.prices ? within(this.service.prices(id), this.boundMs) : Promise.resolve(undefined);
  }

  /** One gateway's group from its list (or why there is none), with its own prices. */
  private group(g: ChatGateway, lists: readonly GatewayModelList[], failure: unknown): ModelGroup {
    const base = { gateway: { id: g.id, name: g.name }, active: g.active, defaults: g.defaults };
    const read = lists.find((l) => l.gateway.id === g.id);
    if (read?.models) {
      const price = (model: string) => priceText(this.priceOf(g.id, model));
      const learnt = this.learntOf(g.id);
      return {
        ...base,
        items: read.models.map((m) => {
          const p = price(m.id);
          const only = learnt.get(m.id);
          return {
            id: m.id,
            capabilities: m.capabilities,
            ...(p ? { price: p } : {}),
            ...(only ? { learnt: only } : {}),
          };
        }),
      };
    }
    const error = read?.error
      ? errorSummary(read.error)
      : read?.timedOut || read?.pending
        ? t('no answer within {0} s', (this.boundMs / 1000).toFixed(1))
        : errorSummary(failure);
    return { ...base, items: [], error };
  }
}
