/**
 * Tokens: values only in SecretStorage, names and the active name in global state. Nothing here
 * returns a token to a caller that displays it: use `maskToken`. Plain Node: VS Code's Memento and
 * SecretStorage are handed in (test/fakes/state.ts has in-memory ones).
 *
 * One change, one event: every write and every outside change (another window writes the same
 * SecretStorage) runs through one queue and ends in `sync()`, which fires `onDidChange` only when
 * what the store reports (names, active name, values) differs from what it last reported. The echo
 * of our own write (SecretStorage's onDidChange) therefore fires nothing a second time: each extra
 * event would restart the balance reads of a rate-limited endpoint and reload every model list.
 */
import { createHash } from 'node:crypto';
import { t } from '../../gateway/l10n';
import { maskToken } from '../../gateway/mask';
import { activeTokenName, tokenKeys, tokenNames, type TokenKeys } from './activeToken';

/** The part of VS Code's Memento (globalState) used here. */
export interface TokenState {
  get<T>(key: string): T | undefined;
  update(key: string, value: unknown): PromiseLike<void>;
}

/** The part of VS Code's SecretStorage used here. */
export interface TokenSecrets {
  get(key: string): PromiseLike<string | undefined>;
  store(key: string, value: string): PromiseLike<void>;
  delete(key: string): PromiseLike<void>;
  onDidChange(listener: (e: { key: string }) => unknown): { dispose(): unknown };
}

/** A gateway's tokens as removed: how many, and the way back (in memory only). */
export interface RemovedTokens {
  count: number;
  restore(): Promise<void>;
}

export interface TokenSummary {
  name: string;
  masked: string;
  active: boolean;
}

export class TokenStore {
  private readonly listeners = new Set<() => void>();
  private readonly secretsSub: { dispose(): unknown };
  /** the active value as last synced (for the auth header) */
  private activeValue: string | undefined;
  /** a digest of the active name and value as last synced (what a cache of this token's answers hangs on) */
  private activeDigest: string | undefined;
  private synced = false;
  /** a digest of names, active name and values as last reported (never the values themselves) */
  private reported: string | undefined;
  /** writes and syncs, one at a time (a sync never sees half of a write) */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly state: TokenState,
    private readonly secrets: TokenSecrets,
    /** where a failed read of the secret storage is told (the store keeps its last state) */
    private readonly onError: (e: unknown) => void = () => undefined,
    /** where this gateway's tokens are kept (the `default` gateway: the keys tokens had before gateways) */
    private readonly keys: TokenKeys = tokenKeys(),
  ) {
    this.secretsSub = secrets.onDidChange((e) => {
      if (e.key.startsWith(keys.secretPrefix)) this.run(() => this.sync()).catch(this.onError);
    });
  }

  private secretKey(name: string): string {
    return `${this.keys.secretPrefix}${name}`;
  }

  /** Hears every change of the tokens (added, removed, switched, replaced, here or in another window). */
  onDidChange(listener: () => void): { dispose(): void } {
    const once = () => listener();
    this.listeners.add(once);
    return { dispose: () => this.listeners.delete(once) };
  }

  names(): string[] {
    return tokenNames(this.state, this.keys);
  }

  activeName(): string | undefined {
    return activeTokenName(this.state, this.keys);
  }

  /** Whether the tokens have been read once (the first read tells the listeners). */
  get hasSynced(): boolean {
    return this.synced;
  }

  /** Reads the tokens again (and tells the listeners when something changed). */
  refresh(): Promise<void> {
    return this.run(() => this.sync());
  }

  /** The active token's value, for the client's auth header only. */
  async activeToken(): Promise<string | undefined> {
    if (!this.synced) await this.refresh();
    return this.activeValue;
  }

  /**
   * A short digest of the active token (name and value) as last read, never the value: it changes
   * when the token is replaced under the same name. Undefined until the tokens were read once.
   */
  activeFingerprint(): string | undefined {
    return this.activeDigest;
  }

  async activeMasked(): Promise<string | undefined> {
    const v = await this.activeToken();
    return v ? maskToken(v) : undefined;
  }

  /** A stored token's value by name (for the auth header or the terminal environment only). */
  async value(name: string): Promise<string | undefined> {
    return this.secrets.get(this.secretKey(name));
  }

  async list(): Promise<TokenSummary[]> {
    const active = this.activeName();
    const out: TokenSummary[] = [];
    for (const name of this.names())
      out.push({ name, masked: maskToken(await this.value(name)), active: name === active });
    return out;
  }

  add(name: string, value: string, makeActive = true): Promise<void> {
    return this.run(async () => {
      await this.secrets.store(this.secretKey(name), value.trim());
      const names = this.names();
      if (!names.includes(name)) await this.state.update(this.keys.names, [...names, name]);
      if (makeActive || !this.activeName()) await this.state.update(this.keys.active, name);
      await this.sync();
    });
  }

  setActive(name: string): Promise<void> {
    return this.run(async () => {
      if (!this.names().includes(name)) throw new Error(t('No token named "{0}".', name));
      await this.state.update(this.keys.active, name);
      await this.sync();
    });
  }

  remove(name: string): Promise<void> {
    return this.run(async () => {
      await this.secrets.delete(this.secretKey(name));
      const names = this.names().filter((n) => n !== name);
      await this.state.update(this.keys.names, names);
      if (this.state.get<string>(this.keys.active) === name) await this.state.update(this.keys.active, names[0]);
      await this.sync();
    });
  }

  /**
   * Deletes every token of this gateway (its gateway is being removed): how many, and how to put them
   * back (the values are held by the returned object only, in memory, never written anywhere else).
   */
  removeAll(): Promise<RemovedTokens> {
    return this.run(async () => {
      const names = this.names();
      const active = this.activeName();
      const kept: Array<[string, string]> = [];
      for (const name of names) {
        const value = await this.value(name);
        if (value !== undefined) kept.push([name, value]);
        await this.secrets.delete(this.secretKey(name));
      }
      await this.state.update(this.keys.names, undefined);
      await this.state.update(this.keys.active, undefined);
      await this.sync();
      return {
        count: names.length,
        restore: () => this.restore(kept, active),
      };
    });
  }

  /** Puts removed tokens back beside any stored since (a name stored since keeps its new value). */
  private restore(kept: ReadonlyArray<[string, string]>, active: string | undefined): Promise<void> {
    return this.run(async () => {
      const names = this.names();
      for (const [name, value] of kept)
        if (!names.includes(name)) {
          await this.secrets.store(this.secretKey(name), value);
          names.push(name);
        }
      await this.state.update(this.keys.names, names);
      if (!this.state.get<string>(this.keys.active) && active) await this.state.update(this.keys.active, active);
      await this.sync();
    });
  }

  dispose(): void {
    this.listeners.clear();
    this.secretsSub.dispose();
  }

  private run<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.queue.then(fn);
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** Reads names, active name and values; tells the listeners once if that differs from the last report. */
  private async sync(): Promise<void> {
    const names = this.names();
    const active = this.activeName();
    const digest = createHash('sha256').update(JSON.stringify([names, active ?? null]));
    let activeValue: string | undefined;
    for (const name of names) {
      const v = await this.value(name);
      if (name === active) activeValue = v;
      digest.update(`\0${name}\0${v ?? ''}`);
    }
    this.activeValue = activeValue;
    this.activeDigest = createHash('sha256')
      .update(`${active ?? ''}\0${activeValue ?? ''}`)
      .digest('hex')
      .slice(0, 16);
    this.synced = true;
    const now = digest.digest('hex');
    if (now === this.reported) return;
    this.reported = now;
    for (const l of [...this.listeners]) {
      try {
        l();
      } catch (e) {
        this.onError(e);
      }
    }
  }
}
