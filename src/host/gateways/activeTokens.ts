/**
 * The active gateway's tokens, as one store: what every consumer (chat, language models, media,
 * status, terminals) holds. Each call goes to the store of the gateway active at that moment, and
 * `onDidChange` fires for a change of that store's tokens and once when another gateway becomes
 * active. A command that asks the user before it writes takes `current()` first, so what it stores
 * lands with the gateway its prompts named even if the gateway is switched meanwhile. Plain Node.
 */
import type { GatewayProfile } from '../../gateway/gateways/profile';
import type { GatewayRegistry } from './gatewayRegistry';
import type { TokenStore, TokenSummary } from './tokenStore';

export type { TokenSummary } from './tokenStore';

export class ActiveTokens {
  private readonly listeners = new Set<() => void>();
  private store: TokenStore;
  private storeSub: { dispose(): unknown };
  private readonly registrySub: { dispose(): unknown };

  constructor(private readonly registry: GatewayRegistry) {
    this.store = registry.tokensOf(registry.activeId());
    this.storeSub = this.store.onDidChange(() => this.fire());
    this.registrySub = registry.onDidChange(() => this.follow());
  }

  /** The active gateway (undefined while none is configured) and its token store, taken together. */
  current(): { gateway: GatewayProfile | undefined; store: TokenStore } {
    this.follow();
    return { gateway: this.registry.active(), store: this.store };
  }

  /** Whether there are several gateways (the token prompts then name the gateway they store for). */
  several(): boolean {
    return this.registry.gateways().length > 1;
  }

  onDidChange(listener: () => void): { dispose(): void } {
    const once = () => listener();
    this.listeners.add(once);
    return { dispose: () => this.listeners.delete(once) };
  }

  names(): string[] {
    return this.current().store.names();
  }
  activeName(): string | undefined {
    return this.current().store.activeName();
  }
  refresh(): Promise<void> {
    return this.current().store.refresh();
  }
  activeToken(): Promise<string | undefined> {
    return this.current().store.activeToken();
  }
  activeMasked(): Promise<string | undefined> {
    return this.current().store.activeMasked();
  }
  value(name: string): Promise<string | undefined> {
    return this.current().store.value(name);
  }
  list(): Promise<TokenSummary[]> {
    return this.current().store.list();
  }
  add(name: string, value: string, makeActive = true): Promise<void> {
    return this.current().store.add(name, value, makeActive);
  }
  setActive(name: string): Promise<void> {
    return this.current().store.setActive(name);
  }
  remove(name: string): Promise<void> {
    return this.current().store.remove(name);
  }

  dispose(): void {
    this.listeners.clear();
    this.storeSub.dispose();
    this.registrySub.dispose();
  }

  /**
   * Moves to the active gateway's store when it is another one, and tells the listeners once: at
   * once when that store has been read before, else through its first read (started here), which
   * tells its listeners anyway — one event per switch, not two.
   */
  private follow(): void {
    const store = this.registry.tokensOf(this.registry.activeId());
    if (store === this.store) return;
    this.storeSub.dispose();
    this.store = store;
    this.storeSub = store.onDidChange(() => this.fire());
    if (store.hasSynced) this.fire();
    else void store.refresh().catch(() => undefined);
  }

  private fire(): void {
    for (const l of [...this.listeners]) l();
  }
}
