/**
 * Activation, run: the extension's bundles (dist/extension.js and dist/main.js, needs `npm run build`)
 * are loaded with a thin recording fake of the `vscode` API (test/fakes/vscode.ts). `activate`
 * registers a stand-in for every id package.json contributes — command, view, language-model vendor,
 * chat participant, tool — into `context.subscriptions`, without loading the main part; once the
 * main part has loaded, a contributed id it does not implement is named as an error, and an id it
 * implements that package.json does not contribute fails the load (nothing is dropped silently).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { fakeContext, fakeVscode, isLoaded, loadWithFake, type FakeVscode } from '../fakes/vscode';

const root = resolve(__dirname, '../../..');
const entry = resolve(root, 'dist/extension.js');
const main = resolve(root, 'dist/main.js');
const pkg = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8')) as {
  contributes: {
    commands: Array<{ command: string }>;
    views: Record<string, Array<{ id: string; type?: string }>>;
    languageModelChatProviders: Array<{ vendor: string }>;
    chatParticipants: Array<{ id: string }>;
    languageModelTools: Array<{ name: string }>;
  };
};

/** package.json's contributions as `kind:id` */
function contributed(): string[] {
  const c = pkg.contributes;
  return [
    ...c.commands.map((x) => `command:${x.command}`),
    ...Object.values(c.views)
      .flat()
      .map((v) => `view:${v.id}`),
    ...c.languageModelChatProviders.map((x) => `languageModels:${x.vendor}`),
    ...c.chatParticipants.map((x) => `participant:${x.id}`),
    ...c.languageModelTools.map((x) => `tool:${x.name}`),
  ].sort();
}

interface Activated {
  fake: FakeVscode;
  context: ReturnType<typeof fakeContext>;
  ready(): Promise<unknown>;
}

function activate(packageJSON?: unknown): Activated {
  assert.ok(existsSync(entry) && existsSync(main), 'dist/ is missing: run "npm run build" first');
  const fake = fakeVscode();
  const context = fakeContext(root, packageJSON);
  const ext = loadWithFake<{ activate(c: unknown): { ready(): Promise<unknown> } }>(entry, fake);
  const api = ext.activate(context);
  return { fake, context, ready: () => api.ready() };
}

/** Disposes what activation subscribed (newest first, as VS Code does), so no timer outlives the test. */
function deactivate({ context }: Activated): void {
  for (const d of context.subscriptions.splice(0).reverse()) d.dispose();
}

const errors = (a: Activated) => a.fake.logged.filter((l) => l.startsWith('error'));

test('activation registers a stand-in for every contributed id, each once, without loading the main part', () => {
  const a = activate();
  try {
    assert.deepEqual(a.fake.registrations.map((r) => `${r.kind}:${r.id}`).sort(), contributed());
    assert.ok(!isLoaded(main), 'dist/main.js is loaded on first use, not at activation');
    assert.ok(statSync(entry).size < 150 * 1024, `dist/extension.js is ${statSync(entry).size} bytes`);
  } finally {
    deactivate(a);
  }
});

test('the main part implements every contributed id: none is reported unimplemented', async () => {
  const a = activate();
  try {
    await a.ready();
    assert.ok(isLoaded(main));
    assert.deepEqual(errors(a), []);
    assert.ok(a.fake.logged.some((l) => l.startsWith('info: Model Relay loaded')));
  } finally {
    deactivate(a);
  }
});

test('a command run before the rest has loaded loads it and reaches its implementation', async () => {
  const a = activate();
  try {
    const refresh = a.fake.registrations.find((r) => r.id === 'modelRelay.refreshStatus')!
      .impl as () => Promise<unknown>;
    assert.ok(!isLoaded(main));
    await refresh();
    assert.ok(isLoaded(main), 'the stand-in loaded dist/main.js');
    assert.deepEqual(errors(a), []);
  } finally {
    deactivate(a);
  }
});

test('each view shows its real provider: a tree answers with rows, a webview view resolves', async () => {
  const a = activate();
  try {
    await a.ready();
    const views = a.fake.registrations.filter((r) => r.kind === 'view');
    assert.equal(views.length, Object.values(pkg.contributes.views).flat().length);
    for (const r of views) {
      const p = r.impl as { getChildren?: () => Promise<unknown>; getParent?: unknown; resolveWebviewView?: unknown };
      if (p.getChildren) {
        assert.ok(Array.isArray(await p.getChildren()), `${r.id}: getChildren gives rows`);
        assert.equal(typeof p.getParent, 'function', `${r.id}: getParent is forwarded (TreeView.reveal needs it)`);
      } else assert.equal(typeof p.resolveWebviewView, 'function', `${r.id} is a webview view`);
    }
  } finally {
    deactivate(a);
  }
});

test('every registration goes into context.subscriptions and is disposed with it', async () => {
  const a = activate();
  await a.ready();
  deactivate(a);
  for (const r of a.fake.registrations) assert.ok(r.disposable.disposed, `${r.kind}:${r.id} is disposed`);
});

test('a contributed command that nothing implements is reported as an error', async () => {
  const extra = structuredClone(pkg);
  extra.contributes.commands.push({ command: 'modelRelay.nothingImplementsThis' });
  const a = activate(extra);
  try {
    await a.ready();
    assert.equal(errors(a).length, 1, a.fake.logged.join('\n'));
    assert.match(errors(a)[0], /command:modelRelay\.nothingImplementsThis/);
    // Run, it says so (test/e2e/contributions.e2e.test.mjs fails on this message).
    const run = a.fake.registrations.find((r) => r.id === 'modelRelay.nothingImplementsThis')!.impl as () => unknown;
    await assert.rejects(Promise.resolve(run()), /the command modelRelay\.nothingImplementsThis is not available/);
  } finally {
    deactivate(a);
  }
});

test('an implementation of a view package.json does not contribute fails the load (no silent drop)', async () => {
  const fewer = structuredClone(pkg);
  fewer.contributes.views = {
    modelRelay: fewer.contributes.views.modelRelay.filter((v) => v.id !== 'modelRelay.videoTasks'),
  };
  const a = activate(fewer);
  try {
    await assert.rejects(a.ready(), /view:modelRelay\.videoTasks is not contributed/);
  } finally {
    deactivate(a);
  }
});

test('a failed load leaves no unhandled rejection and is tried again on the next use', async () => {
  const unhandled: unknown[] = [];
  const onUnhandled = (e: unknown) => unhandled.push(e);
  process.on('unhandledRejection', onUnhandled);
  const a = activate();
  try {
    const window = a.fake.module.window as Record<string, unknown>;
    const createOutputChannel = window.createOutputChannel as () => unknown;
    window.createOutputChannel = () => {
      throw new Error('no output channel today');
    };
    const status = a.fake.registrations.find((r) => r.id === 'modelRelay.status')!.impl as {
      getChildren(): Promise<unknown[]>;
    };
    // A view asks for its rows while the load fails: no rows, no rejection, twice.
    assert.deepEqual(await status.getChildren(), []);
    assert.deepEqual(await status.getChildren(), []);
    await assert.rejects(a.ready(), /no output channel today/);
    window.createOutputChannel = createOutputChannel;
    await a.ready();
    assert.deepEqual(errors(a), []);
    assert.ok(Array.isArray(await status.getChildren()));
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(unhandled, []);
  } finally {
    process.off('unhandledRejection', onUnhandled);
    deactivate(a);
  }
});
