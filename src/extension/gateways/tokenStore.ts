/**
 * Tokens in SecretStorage: values only in `context.secrets`, names and the active name in global
 * state. Nothing here ever returns a token to a caller that displays it: use `maskToken`.
 */
import * as vscode from 'vscode';
import { Disposable } from '../disposable';
import { maskToken } from '../../gateway';

/** global state: the token names (values are in SecretStorage) and the active one */
const NAMES_KEY = 'modelRelay.tokenNames';
const ACTIVE_KEY = 'modelRelay.activeToken';
const secretKey = (name: string) => `modelRelay.token.${name}`;

export interface TokenSummary {
  name: string;
  masked: string;
  active: boolean;
}

export class TokenStore extends Disposable {
  private readonly changed = this._register(new vscode.EventEmitter<void>());
  readonly onDidChange = this.changed.event;
  /** cached active value, refreshed on every change */
  private activeValue: string | undefined;

  constructor(private readonly context: vscode.ExtensionContext) {
    super();
    this._register(
      context.secrets.onDidChange(async (e) => {
        if (e.key.startsWith('modelRelay.token.')) {
          await this.refresh();
          this.changed.fire();
        }
      }),
    );
  }

  names(): string[] {
    return this.context.globalState.get<string[]>(NAMES_KEY, []);
  }

  activeName(): string | undefined {
    const a = this.context.globalState.get<string>(ACTIVE_KEY);
    return a && this.names().includes(a) ? a : this.names()[0];
  }

  async refresh(): Promise<void> {
    const name = this.activeName();
    this.activeValue = name ? await this.value(name) : undefined;
  }

  /** The active token's value, for the client's auth header only. */
  async activeToken(): Promise<string | undefined> {
    if (this.activeValue === undefined) await this.refresh();
    return this.activeValue;
  }

  async activeMasked(): Promise<string | undefined> {
    const v = await this.activeToken();
    return v ? maskToken(v) : undefined;
  }

  /** A stored token's value by name (for the auth header or the terminal environment only). */
  async value(name: string): Promise<string | undefined> {
    return this.context.secrets.get(secretKey(name));
  }

  async list(): Promise<TokenSummary[]> {
    const active = this.activeName();
    const out: TokenSummary[] = [];
    for (const name of this.names()) {
      const v = await this.value(name);
      out.push({ name, masked: maskToken(v), active: name === active });
    }
    return out;
  }

  async add(name: string, value: string, makeActive = true): Promise<void> {
    await this.context.secrets.store(secretKey(name), value.trim());
    const names = this.names();
    if (!names.includes(name)) await this.context.globalState.update(NAMES_KEY, [...names, name]);
    if (makeActive || !this.activeName()) await this.context.globalState.update(ACTIVE_KEY, name);
    await this.refresh();
    this.changed.fire();
  }

  async setActive(name: string): Promise<void> {
    if (!this.names().includes(name)) throw new Error(vscode.l10n.t('No token named "{0}".', name));
    await this.context.globalState.update(ACTIVE_KEY, name);
    await this.refresh();
    this.changed.fire();
  }

  async remove(name: string): Promise<void> {
    await this.context.secrets.delete(secretKey(name));
    const names = this.names().filter((n) => n !== name);
    await this.context.globalState.update(NAMES_KEY, names);
    if (this.context.globalState.get<string>(ACTIVE_KEY) === name)
      await this.context.globalState.update(ACTIVE_KEY, names[0]);
    await this.refresh();
    this.changed.fire();
  }
}
