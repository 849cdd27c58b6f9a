/**
 * Which gateway is active, and each gateway's token store. The active gateway's id is remembered per
 * window (workspace state) and as the last choice anywhere (global state): a window uses its own
 * choice while that gateway exists, else the last choice, else the first gateway. With no gateway
 * at all the tokens are the `default` gateway's (a token may be stored before the base URL is set).
 *
 * A gateway's tokens live as long as its entry: tokens are kept under the gateway's id, so a gateway
 * removed by editing the settings would leave its tokens unreachable and hand them to the next
 * gateway given its id. `settle()` therefore remembers which ids the settings listed (global state,
 * per settings scope: this machine's settings, or a remote machine's, which list gateways of their
 * own); an id no longer listed — during a session or between two — loses its tokens unless another
 * scope still lists it, and the removal is returned to be told once. Within the session the tokens
 * are held in memory: the gateway listed again with the same base URL (the user's Undo) gets them
 * back; with another address it starts with none. An entry that is still in the settings but cannot be
 * read (being edited) keeps its tokens. The `default` gateway (made from `modelRelay.baseUrl`, and
 * the tokens of "no gateway yet") is never removed this way, only by Remove Gateway.
 * Plain Node: the Mementos and the store factory are handed in (test/fakes/state.ts).
 */
import type { GatewayProfile } from '../../gateway/gateways/profile';
import { DEFAULT_GATEWAY_ID } from './activeToken';
import type { RemovedTokens, TokenStore } from './tokenStore';

export const ACTIVE_GATEWAY_KEY = 'modelRelay.activeGateway';
/** Global state: per settings scope, the gateways its settings listed (id → name). */
export const LISTED_GATEWAYS_KEY = 'modelRelay.listedGateways';
/** The settings scope of this machine's own windows (a remote window's is named after the remote). */
export const LOCAL_SCOPE = 'local';

/** The part of VS Code's Memento used here. */
export interface GatewayState {
  get<T>(key: string): T | undefined;
  update(key: string, value: unknown): PromiseLike<void>;
}

/** A gateway removed from the settings whose tokens were deleted. */
export interface GatewayRemoval {
  id: string;
  name: string;
  /** how many tokens were deleted */
  tokens: number;
  /** the gateway as listed, when it was removed during this session (listed again, it gets its tokens back) */
  profile: GatewayProfile | undefined;
}

type Listed = Record<string, Record<string, string>>;

function listedOf(v: unknown): Listed {
  const out: Listed = {};
  if (!v || typeof v !== 'object') return out;
  for (const [scope, ids] of Object.entries(v as Record<string, unknown>))
    if (ids && typeof ids === 'object')
      out[scope] = Object.fromEntries(
        Object.entries(ids as Record<string, unknown>).filter((e): e is [string, string] => typeof e[1] === 'string'),
      );
  return out;
}

export class GatewayRegistry {
  private list: GatewayProfile[] = [];
  /** the ids the settings name, read or not (null: the setting is not a list, so nothing is removed) */
  private named: readonly string[] | null = [];
  /** every gateway listed during this session, as last listed */
  private readonly seen = new Map<string, GatewayProfile>();
  /** the tokens of gateways removed during this session, by id, with the gateway as it was */
  private readonly held = new Map<string, { profile: GatewayProfile | undefined; tokens: RemovedTokens }>();
  /** gateways Remove Gateway is removing (it deletes their tokens itself, after asking) */
  private readonly removing = new Set<string>();
  private settling: Promise<unknown> = Promise.resolve();
  private readonly stores = new Map<string, TokenStore>();
  private readonly listeners = new Set<() => void>();
  /** the active gateway as last reported (id and profile), to fire only on a real change */
  private reported: string;

  constructor(
    private readonly windowState: GatewayState,
    private readonly globalState: GatewayState,
    /** a new token store for a gateway id (src/host/gateways/tokenStore.ts over SecretStorage) */
    private readonly makeTokens: (gatewayId: string) => TokenStore,
    gateways: readonly GatewayProfile[] = [],
    /** whose settings these are (LOCAL_SCOPE, or the remote machine's name) */
    private readonly scope: string = LOCAL_SCOPE,
  ) {
    this.setList(gateways, undefined);
    this.reported = this.activeKey();
  }

  /** Hears a change of the active gateway (another one chosen, or its profile changed in the settings). */
  onDidChange(listener: () => void): { dispose(): void } {
    const once = () => listener();
    this.listeners.add(once);
    return { dispose: () => this.listeners.delete(once) };
  }

  gateways(): readonly GatewayProfile[] {
    return this.list;
  }

  get(id: string): GatewayProfile | undefined {
    return this.list.find((g) => g.id === id);
  }

  /** The active gateway: this window's choice, else the last choice, else the first; none without gateways. */
  active(): GatewayProfile | undefined {
    for (const chosen of [
      this.windowState.get<unknown>(ACTIVE_GATEWAY_KEY),
      this.globalState.get<unknown>(ACTIVE_GATEWAY_KEY),
    ]) {
      const g = typeof chosen === 'string' ? this.get(chosen) : undefined;
      if (g) return g;
    }
    return this.list[0];
  }

  /** The id whose tokens are in use: the active gateway's, or `default` while there is none. */
  activeId(): string {
    return this.active()?.id ?? DEFAULT_GATEWAY_ID;
  }

  /** A gateway's token store (made once, kept while the gateway is listed). */
  tokensOf(id: string): TokenStore {
    let s = this.stores.get(id);
    if (!s) {
      s = this.makeTokens(id);
      this.stores.set(id, s);
    }
    return s;
  }

  /**
   * The settings changed: the new list (and the ids the setting names, read or not); stores of
   * gateways no longer listed are closed (their tokens stay until `settle`).
   */
  update(gateways: readonly GatewayProfile[], named?: readonly string[] | null): void {
    this.setList(gateways, named);
    const keep = new Set([...this.list.map((g) => g.id), DEFAULT_GATEWAY_ID]);
    for (const [id, s] of this.stores)
      if (!keep.has(id)) {
        s.dispose();
        this.stores.delete(id);
      }
    this.check();
  }

  /** Makes `id` the active gateway in this window and the last choice for new windows. */
  async setActive(id: string): Promise<void> {
    if (!this.get(id)) throw new Error(`No gateway with the id "${id}".`);
    await this.windowState.update(ACTIVE_GATEWAY_KEY, id);
    await this.globalState.update(ACTIVE_GATEWAY_KEY, id);
    this.check();
  }

  /**
   * Remove Gateway (the user has confirmed): `removeEntry` takes it out of the settings, then its tokens
   * are deleted and it is forgotten as a choice — told by the command, not again by `settle`.
   */
  async remove(id: string, removeEntry: () => Promise<void>): Promise<void> {
    this.removing.add(id);
    try {
      await removeEntry();
      await this.forget(id);
    } finally {
      this.removing.delete(id);
    }
  }

  /** Deletes a removed gateway's tokens (the caller has asked first) and forgets it as a choice. */
  async forget(id: string): Promise<void> {
    const s = this.tokensOf(id);
    await s.removeAll();
    this.held.delete(id);
    if (!this.get(id)) {
      s.dispose();
      this.stores.delete(id);
    }
    for (const state of [this.windowState, this.globalState])
      if (state.get<unknown>(ACTIVE_GATEWAY_KEY) === id) await state.update(ACTIVE_GATEWAY_KEY, undefined);
    this.check();
  }

  /**
   * Settles the tokens with the settings (see the header): deletes the tokens of gateways this scope's
   * settings no longer list, gives a gateway listed again with the same base URL its tokens back, and
   * remembers what is listed now. The removals that deleted tokens, to be told once (one window settles:
   * the caller's). One settle at a time; it reads the list when it runs, after the settings were read.
   */
  settle(): Promise<GatewayRemoval[]> {
    const next = this.settling.then(() => this.settleNow());
    this.settling = next.catch(() => undefined);
    return next;
  }

  private async settleNow(): Promise<GatewayRemoval[]> {
    const all = listedOf(this.globalState.get<unknown>(LISTED_GATEWAYS_KEY));
    const before = all[this.scope] ?? {};
    const now = Object.fromEntries(
      this.list.filter((g) => g.id !== DEFAULT_GATEWAY_ID).map((g): [string, string] => [g.id, g.name]),
    );
    const removals: GatewayRemoval[] = [];
    if (this.named === null) return removals; // the setting cannot be read as a list: nothing is removed
    const elsewhere = (id: string) => Object.entries(all).some(([scope, ids]) => scope !== this.scope && id in ids);
    for (const [id, name] of Object.entries(before)) {
      if (id in now || this.named.includes(id)) {
        if (!(id in now)) now[id] = name; // named by an entry being edited: still listed
        continue;
      }
      if (this.removing.has(id) || elsewhere(id)) continue;
      const removal = await this.removeTokens(id, name);
      if (removal) removals.push(removal);
    }
    for (const g of this.list) await this.giveBack(g);
    if (JSON.stringify(now) !== JSON.stringify(before))
      await this.globalState.update(LISTED_GATEWAYS_KEY, { ...all, [this.scope]: now });
    return removals;
  }

  /** Deletes a gateway's tokens, held for this session; a removal when there were any. */
  private async removeTokens(id: string, name: string): Promise<GatewayRemoval | undefined> {
    const store = this.tokensOf(id);
    const tokens = await store.removeAll();
    if (!this.get(id)) {
      store.dispose();
      this.stores.delete(id);
    }
    if (!tokens.count) return undefined;
    const profile = this.seen.get(id);
    this.held.set(id, { profile, tokens });
    return { id, name, tokens: tokens.count, profile };
  }

  /** A gateway removed this session is listed again: its tokens come back with the same address, else never. */
  private async giveBack(g: GatewayProfile): Promise<void> {
    const h = this.held.get(g.id);
    if (!h) return;
    this.held.delete(g.id);
    if (h.profile?.baseUrl === g.baseUrl) await h.tokens.restore();
  }

  dispose(): void {
    this.listeners.clear();
    for (const s of this.stores.values()) s.dispose();
    this.stores.clear();
  }

  private setList(gateways: readonly GatewayProfile[], named: readonly string[] | null | undefined): void {
    this.list = [...gateways];
    this.named = named === undefined ? gateways.map((g) => g.id) : named;
    for (const g of gateways) this.seen.set(g.id, g);
  }

  private activeKey(): string {
    return JSON.stringify(this.active() ?? null);
  }

  private check(): void {
    const now = this.activeKey();
    if (now === this.reported) return;
    this.reported = now;
    for (const l of [...this.listeners]) l();
  }
}
