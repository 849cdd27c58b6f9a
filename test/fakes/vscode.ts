/**
 * A thin recording fake of the `vscode` module, enough to run the extension's bundle
 * (dist/extension.js) and its `activate` in plain Node. The registration calls are recorded — the id,
 * what was registered, the disposable handed back — as are the log channel's lines; everything else
 * is a stand-in whose every member is callable and constructible and returns another stand-in (a
 * setting reads as unset, an awaited call as undefined). It proves what activation registers and
 * where the registrations go, not that the UI works: the e2e suite runs the real host for that.
 */
import Module from 'node:module';
import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { InMemoryMemento, InMemorySecretStorage } from './state';

export type Kind = 'command' | 'view' | 'languageModels' | 'participant' | 'tool';

export interface Registration {
  kind: Kind;
  id: string;
  /** the command's function, the view's provider, the tool, … */
  impl: unknown;
  /** what the registration call returned */
  disposable: { dispose(): void; disposed: boolean };
}

/** A stand-in: any member is another stand-in, it can be called and `new`ed; `await` on it gives undefined. */
export function stub(): any {
  return new Proxy(function () {}, {
    get: (_t, k) =>
      k === 'then'
        ? undefined
        : k === Symbol.toPrimitive
          ? () => ''
          : k === 'get' || k === 'inspect'
            ? () => undefined
            : stub(),
    set: () => true,
    apply: () => stub(),
    construct: () => stub(),
  });
}

/** `obj`, with a stand-in for every member it does not define. */
const withStubs = <T extends object>(obj: T): T =>
  new Proxy(obj, { get: (t, k) => (k in t ? (t as Record<string | symbol, unknown>)[k] : stub()) });

const format = (s: string, args: unknown[]) =>
  s.replace(/\{(\d+)\}/g, (m, i: string) => (args[Number(i)] === undefined ? m : String(args[Number(i)])));

class EventEmitter<T> {
  private readonly listeners = new Set<(e: T) => unknown>();
  readonly event = (listener: (e: T) => unknown) => {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  };
  fire(e: T): void {
    for (const l of [...this.listeners]) l(e);
  }
  dispose(): void {
    this.listeners.clear();
  }
}

class Disposable {
  constructor(private readonly fn: () => unknown) {}
  static from(...ds: Array<{ dispose(): unknown }>): Disposable {
    return new Disposable(() => ds.forEach((d) => d.dispose()));
  }
  dispose(): void {
    this.fn();
  }
}

class Uri {
  private constructor(
    readonly scheme: string,
    readonly path: string,
  ) {}
  static file(p: string): Uri {
    return new Uri('file', p);
  }
  static from(c: { scheme: string; path?: string }): Uri {
    return new Uri(c.scheme, c.path ?? '');
  }
  static parse(s: string): Uri {
    return new Uri(s.slice(0, s.indexOf(':')), s.slice(s.indexOf(':') + 1));
  }
  static joinPath(u: Uri, ...parts: string[]): Uri {
    return new Uri(u.scheme, [u.path, ...parts].join('/'));
  }
  get fsPath(): string {
    return this.path;
  }
  toString(): string {
    return `${this.scheme}://${this.path}`;
  }
}

export interface FakeVscode {
  /** the module object the bundle gets for `require('vscode')` */
  module: Record<string, unknown>;
  registrations: Registration[];
  /** the log channel's lines, as `level: message` */
  logged: string[];
}

/**
 * `settings`: user settings by full key (`modelRelay.baseUrl`), read by `getConfiguration(section)`'s
 * `get` and, as the user (global) value, `inspect`; every other key reads as unset.
 */
export function fakeVscode(settings: Record<string, unknown> = {}): FakeVscode {
  const registrations: Registration[] = [];
  const logged: string[] = [];
  const record = (kind: Kind, id: string, impl: unknown) => {
    const disposable = {
      disposed: false,
      dispose() {
        disposable.disposed = true;
      },
    };
    registrations.push({ kind, id, impl, disposable });
    return disposable;
  };
  const line = (level: string) => (message: string) => void logged.push(`${level}: ${message}`);
  const log = withStubs({
    trace: line('trace'),
    debug: line('debug'),
    info: line('info'),
    warn: line('warn'),
    error: line('error'),
    appendLine: line('info'),
    dispose: () => undefined,
  });
  const names = { Left: 1, Right: 2, None: 0, Collapsed: 1, Expanded: 2, Global: 1, Workspace: 2 };
  const module: Record<string, unknown> = {
    version: '1.104.0',
    EventEmitter,
    Uri,
    TreeItem: class TreeItem {
      constructor(
        public label: unknown,
        public collapsibleState?: number,
      ) {}
    },
    ThemeIcon: class ThemeIcon {
      constructor(public id: string) {}
    },
    ThemeColor: class ThemeColor {
      constructor(public id: string) {}
    },
    MarkdownString: class MarkdownString {
      constructor(
        public value = '',
        public supportThemeIcons = false,
      ) {}
      appendText(text: string) {
        this.value += text;
        return this;
      }
      appendMarkdown(text: string) {
        this.value += text;
        return this;
      }
    },
    Disposable,
    StatusBarAlignment: names,
    TreeItemCollapsibleState: names,
    ConfigurationTarget: names,
    l10n: { t: (s: string | { message: string }, ...a: unknown[]) => format(typeof s === 'string' ? s : s.message, a) },
    commands: withStubs({
      registerCommand: (id: string, fn: unknown) => record('command', id, fn),
      executeCommand: () => Promise.resolve(undefined),
    }),
    window: withStubs({
      createTreeView: (id: string, o: { treeDataProvider: unknown }) => record('view', id, o.treeDataProvider),
      registerTreeDataProvider: (id: string, p: unknown) => record('view', id, p),
      registerWebviewViewProvider: (id: string, p: unknown) => record('view', id, p),
      createOutputChannel: () => log,
      createStatusBarItem: () => withStubs({ show: () => undefined, dispose: () => undefined }),
    }),
    lm: withStubs({
      registerLanguageModelChatProvider: (vendor: string, p: unknown) => record('languageModels', vendor, p),
      registerTool: (name: string, t: unknown) => record('tool', name, t),
    }),
    chat: withStubs({
      createChatParticipant: (id: string, handler: unknown) => record('participant', id, handler),
    }),
    workspace: withStubs({
      getConfiguration: (section?: string) => {
        const at = (k: string) => (section ? `${section}.${k}` : k);
        return withStubs({
          get: (k: string) => settings[at(k)],
          inspect: (k: string) => (at(k) in settings ? { globalValue: settings[at(k)] } : undefined),
        });
      },
      onDidChangeConfiguration: () => ({ dispose: () => undefined }),
      workspaceFolders: undefined,
    }),
    env: withStubs({ language: 'en', remoteName: undefined }),
  };
  // Every other namespace or class the bundle names: a stand-in (the bundle copies the module's own keys).
  for (const n of ['CancellationTokenSource', 'InputBoxValidationSeverity', 'ProgressLocation']) module[n] = stub();
  for (const n of ['QuickPickItemKind', 'ViewColumn', 'extensions', 'languages', 'LanguageModelTextPart'])
    module[n] = stub();
  for (const n of ['LanguageModelChatMessage', 'LanguageModelChatMessageRole', 'LanguageModelToolResult'])
    module[n] = stub();
  for (const n of ['LanguageModelToolCallPart', 'LanguageModelToolResultPart', 'LanguageModelDataPart'])
    module[n] = stub();
  return { module, registrations, logged };
}

/** An ExtensionContext over in-memory state, with `packageJSON` (the real one unless given). */
export function fakeContext(root: string, packageJSON?: unknown) {
  return {
    subscriptions: [] as Array<{ dispose(): unknown }>,
    globalState: new InMemoryMemento(),
    workspaceState: new InMemoryMemento(),
    secrets: new InMemorySecretStorage(),
    extension: {
      id: 'model-relay.model-relay',
      packageJSON: packageJSON ?? (JSON.parse(readFileSync(`${root}/package.json`, 'utf8')) as unknown),
    },
    extensionUri: Uri.file(root),
    extensionPath: root,
    globalStorageUri: Uri.file('/nonexistent/global-storage'),
    storageUri: undefined,
    environmentVariableCollection: stub(),
  };
}

let installed: FakeVscode | undefined;

/**
 * Makes `require('vscode')` give `fake.module` from now on in this process (a test file's own
 * process under `node --test`), and requires `bundle` afresh, with the other files of its folder
 * (the bundles it requires at run time) dropped from the cache too.
 */
export function loadWithFake<T>(bundle: string, fake: FakeVscode): T {
  if (!installed) {
    const m = Module as unknown as { _resolveFilename: (req: string, ...rest: unknown[]) => string };
    const original = m._resolveFilename;
    m._resolveFilename = function (req: string, ...rest: unknown[]) {
      return req === 'vscode' ? 'vscode' : original.call(this, req, ...rest);
    };
  }
  installed = fake;
  const cache = require.cache as Record<string, unknown>;
  cache.vscode = { id: 'vscode', filename: 'vscode', loaded: true, exports: fake.module };
  const folder = dirname(require.resolve(bundle));
  for (const k of Object.keys(cache)) if (dirname(k) === folder) delete cache[k];
  // A fresh load of a built bundle at a path known only at run time.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require(bundle) as T;
}

/** Whether `file` has been required (and not dropped by loadWithFake since). */
export const isLoaded = (file: string): boolean => file in require.cache;
