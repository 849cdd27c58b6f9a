/**
 * In-memory stand-ins for the state VS Code hands an extension (Memento, SecretStorage), shaped like
 * the real interfaces so plain-Node code in src/host that takes them structurally runs under
 * `node --test` (the way vscode-pull-request-github tests its glue with `inMemoryMemento`).
 * No `vscode` import: each class matches the part of the API the host code uses.
 */
import { EventEmitter } from 'node:events';

/** `vscode.Memento`: workspaceState / globalState. Values are stored as JSON, as VS Code does. */
export class InMemoryMemento {
  private readonly values = new Map<string, string>();
  /** how many times update() ran (a test can assert that state is not rewritten needlessly) */
  writes = 0;

  keys(): readonly string[] {
    return [...this.values.keys()];
  }

  get<T>(key: string): T | undefined;
  get<T>(key: string, defaultValue: T): T;
  get<T>(key: string, defaultValue?: T): T | undefined {
    const raw = this.values.get(key);
    return raw === undefined ? defaultValue : (JSON.parse(raw) as T);
  }

  update(key: string, value: unknown): Promise<void> {
    this.writes++;
    if (value === undefined) this.values.delete(key);
    else this.values.set(key, JSON.stringify(value));
    return Promise.resolve();
  }

  /** the stored size of one key in characters (what VS Code would write to disk) */
  sizeOf(key: string): number {
    return this.values.get(key)?.length ?? 0;
  }
}

/** `vscode.SecretStorage`, with `onDidChange` fired on store and delete like the real one. */
export class InMemorySecretStorage {
  private readonly values = new Map<string, string>();
  private readonly events = new EventEmitter();

  get(key: string): Promise<string | undefined> {
    return Promise.resolve(this.values.get(key));
  }

  keys(): Promise<string[]> {
    return Promise.resolve([...this.values.keys()]);
  }

  store(key: string, value: string): Promise<void> {
    this.values.set(key, value);
    this.events.emit('change', { key });
    return Promise.resolve();
  }

  delete(key: string): Promise<void> {
    if (this.values.delete(key)) this.events.emit('change', { key });
    return Promise.resolve();
  }

  readonly onDidChange = (listener: (e: { key: string }) => unknown): { dispose(): void } => {
    this.events.on('change', listener);
    return { dispose: () => this.events.off('change', listener) };
  };
}
