/**
 * Which gateway is active, and each gateway's token store. The active gateway's id is remembered per
 * window (workspace state) and as the last choice anywhere (global state): a window uses its own
 * choice while that gateway exists, else the last choice, else the first gateway. With no gateway
 * at all the tokens are the `default` gateway's (a token may be stored before the base URL is set).
 * Plain Node: the Mementos and the store factory are handed in (test/fakes/state.ts).
 */
import type { GatewayProfile } from '../../gateway/gateways/profile';
import { DEFAULT_GATEWAY_ID } from './activeToken';
import type { TokenStore } from './tokenStore';

export const ACTIVE_GATEWAY_KEY = 'modelRelay.activeGateway';

/** The part of VS Code's Memento used here. */
export interface GatewayState {
  get<T>(key: string): T | undefined;
  update(key: string, value: unknown): PromiseLike<void>;
}

export class GatewayRegistry {
  private list: GatewayProfile[] = [];
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
  ) {
    this.list = [...gateways];
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

  /** The settings changed: the new list; stores of gateways no longer listed are closed (their tokens stay). */
  update(gateways: readonly GatewayProfile[]): void {
    this.list = [...gateways];
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

  /** Deletes a removed gateway's tokens (the caller has asked first) and forgets it as a choice. */
  async forget(id: string): Promise<void> {
    const s = this.tokensOf(id);
    await s.removeAll();
    if (!this.get(id)) {
      s.dispose();
      this.stores.delete(id);
    }
    for (const state of [this.windowState, this.globalState])
      if (state.get<unknown>(ACTIVE_GATEWAY_KEY) === id) await state.update(ACTIVE_GATEWAY_KEY, undefined);
    this.check();
  }

  dispose(): void {
    this.listeners.clear();
    for (const s of this.stores.values()) s.dispose();
    this.stores.clear();
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
