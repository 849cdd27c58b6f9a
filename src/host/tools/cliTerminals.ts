/**
 * The native command-line tool's variables in new terminals, kept true: set up with one stored
 * token, they follow it — its value replaced or the base URL changed: updated; the token removed:
 * cleared at once (new terminals no longer get it). Plain Node: VS Code's environment variable
 * collection is handed in structurally.
 */
import {
  applyCliEnvironment,
  nativeCliEnvironment,
  type CliVariableNames,
  type EnvCollection,
} from '../../gateway/cliEnv';
import { t } from '../../gateway/l10n';
import { maskToken } from '../../gateway/mask';

/** Where the variables come from: the base URL the extension calls, the variable names, the stored tokens. */
export interface CliSource {
  base(): string | undefined;
  /** whether the base is used as typed (Configure Base URL's "Keep what I typed") */
  verbatim?(): boolean;
  names(): CliVariableNames;
  value(tokenName: string): PromiseLike<string | undefined>;
}

export class CliTerminals {
  /** the token the terminals were set up with (none: nothing to follow) */
  private tokenName: string | undefined;
  /** what the collection holds now, as JSON (to update only on a real change) */
  private applied: string | undefined;
  /** the base URL and variable names it was made from */
  private appliedSettings: string | undefined;

  constructor(
    private readonly collection: EnvCollection,
    private readonly source: CliSource,
  ) {}

  /** The token the terminals follow, if any. */
  get following(): string | undefined {
    return this.tokenName;
  }

  /** Puts the variables for `tokenName` into new terminals and follows that token from now on. */
  async setUp(tokenName: string): Promise<Record<string, string> | undefined> {
    const value = await this.source.value(tokenName);
    const base = this.source.base();
    if (!value || !base) return undefined;
    const env = this.write(base, value);
    this.tokenName = tokenName;
    return env;
  }

  /** New terminals get none of the variables; nothing is followed any more. */
  clear(): void {
    this.tokenName = undefined;
    this.applied = undefined;
    this.appliedSettings = undefined;
    this.collection.clear();
  }

  /** After any change of the service: follows only when the base URL or the variable names changed (no secret read otherwise). */
  async followSettings(): Promise<void> {
    if (this.tokenName && this.settingsKey() !== this.appliedSettings) await this.follow();
  }

  /**
   * After the tokens or the settings changed: the followed token gone (or no base URL any more) →
   * cleared; its value, the base URL or the variable names changed → updated; else untouched.
   */
  async follow(): Promise<void> {
    const name = this.tokenName;
    if (!name) return;
    const value = await this.source.value(name);
    const base = this.source.base();
    if (name !== this.tokenName) return; // set up again or cleared meanwhile
    if (!value || !base) return this.clear();
    if (JSON.stringify(this.environment(base, value)) !== this.applied) this.write(base, value);
    else this.appliedSettings = this.settingsKey();
  }

  private environment(base: string, value: string): Record<string, string> {
    return nativeCliEnvironment(base, value, this.source.names(), { verbatim: this.source.verbatim?.() ?? false });
  }

  private write(base: string, value: string): Record<string, string> {
    const names = this.source.names();
    const env = this.environment(base, value);
    applyCliEnvironment(
      this.collection,
      env,
      t(
        'Model Relay: {0}={1} and {2} ({3}) for the native command-line tool',
        names.baseUrl,
        String(env[names.baseUrl]),
        names.token,
        maskToken(value),
      ),
    );
    this.applied = JSON.stringify(env);
    this.appliedSettings = this.settingsKey();
    return env;
  }

  private settingsKey(): string {
    return JSON.stringify([this.source.base(), this.source.verbatim?.() ?? false, this.source.names()]);
  }
}
