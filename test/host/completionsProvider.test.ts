/**
 * Inline suggestions, run: the built extension (dist/extension.js and dist/main.js, needs `npm run
 * build`) with the recording fake of the `vscode` API (test/fakes/vscode.ts), its gateway the
 * simulator serving deepseek-chat on POST /v1/completions. The provider is registered only while
 * suggestions are on; a document's snapshot reaches the engine and its answer comes back as an item
 * on the cursor's line (typed text + suggestion, so typing into it keeps it) whose command counts the
 * acceptance; an excluded file, a document that changed meanwhile and an untrusted workspace get
 * nothing and send nothing; the status bar item names the model and counts the hour.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fakeContext, fakeVscode, loadWithFake } from '../fakes/vscode';
import { startSimulator, type Simulator } from '../sim/server';

const root = resolve(__dirname, '../../..');
const entry = resolve(root, 'dist/extension.js');
const MIDDLE = ' + b;';

let sim: Simulator;
before(async () => {
  sim = await startSimulator({ profile: 'real', completions: { latencyMs: 5, text: MIDDLE } });
});
after(() => sim.close());

class Position {
  constructor(
    readonly line: number,
    readonly character: number,
  ) {}
}
class Range {
  readonly start: Position;
  readonly end: Position;
  // vscode.Range's two forms: (start, end) positions or four numbers
  constructor(a: number | Position, b: number | Position, c?: number, d?: number) {
    this.start = typeof a === 'number' ? new Position(a, b as number) : a;
    this.end = typeof b === 'number' ? new Position(c!, d!) : b;
  }
}
class InlineCompletionItem {
  constructor(
    readonly insertText: string,
    readonly range: Range,
    readonly command: { command: string; arguments: unknown[] },
  ) {}
}

/** A TextDocument over `text` at `path` in the workspace /ws. */
function doc(path: string, text: string, languageId = 'typescript', version = 1) {
  const lines = text.split('\n');
  const offsetAt = (p: Position) =>
    lines.slice(0, p.line).reduce((n, l) => n + l.length + 1, 0) + Math.min(p.character, lines[p.line].length);
  return {
    uri: { scheme: 'file', path, toString: () => `file://${path}` },
    fileName: path,
    languageId,
    version,
    lineCount: lines.length,
    lineAt: (n: number) => ({ text: lines[n], range: { end: new Position(n, lines[n].length) } }),
    offsetAt,
    positionAt: (offset: number) => {
      let line = 0;
      while (line < lines.length - 1 && offset > lines[line].length) offset -= lines[line++].length + 1;
      return new Position(line, offset);
    },
    /** every read, by its length: the glue reads a window of a large document, never all of it */
    reads: [] as number[],
    getText(range?: Range) {
      const got = range ? text.slice(offsetAt(range.start), offsetAt(range.end)) : text;
      this.reads.push(got.length);
      return got;
    },
  };
}

const token = () => ({ isCancellationRequested: false, onCancellationRequested: () => ({ dispose() {} }) });
const ctx = { triggerKind: 1, selectedCompletionInfo: undefined };

type Provider = {
  provideInlineCompletionItems(
    d: unknown,
    p: Position,
    c: unknown,
    t: unknown,
  ): Promise<InlineCompletionItem[] | undefined>;
};

async function activated(settings: Record<string, unknown>, trusted = true) {
  process.env.MODEL_RELAY_SEED_TOKEN = sim.tokens.production;
  const fake = fakeVscode({ 'modelRelay.baseUrl': sim.url, ...settings });
  const providers: Provider[] = [];
  const items: Array<Record<string, unknown>> = [];
  Object.assign(fake.module, {
    Position,
    Range,
    InlineCompletionItem,
    InlineCompletionTriggerKind: { Invoke: 0, Automatic: 1 },
  });
  fake.module.languages = {
    registerInlineCompletionItemProvider: (_selector: unknown, p: Provider) => {
      providers.push(p);
      return { dispose: () => providers.splice(providers.indexOf(p), 1) };
    },
  };
  const w = fake.module.window as Record<string, unknown>;
  w.createStatusBarItem = () => {
    const item: Record<string, unknown> = { show: () => undefined, hide: () => undefined, dispose: () => undefined };
    items.push(item);
    return item;
  };
  w.activeTextEditor = undefined;
  const ws = fake.module.workspace as Record<string, unknown>;
  ws.isTrusted = trusted;
  ws.getWorkspaceFolder = (uri: { path: string }) =>
    uri.path.startsWith('/ws/') ? { uri: { path: '/ws' } } : undefined;
  const context = fakeContext(root);
  const ext = loadWithFake<{ activate(c: unknown): { ready(): Promise<unknown> } }>(entry, fake);
  await ext.activate(context).ready();
  delete process.env.MODEL_RELAY_SEED_TOKEN;
  const command = (id: string) => fake.registrations.find((r) => r.kind === 'command' && r.id === id)?.impl;
  const bar = () => items.find((i) => i.name === 'Model Relay inline suggestions');
  const done = () => {
    for (const d of context.subscriptions.splice(0).reverse()) d.dispose();
  };
  return { providers, command, bar, done };
}

const requests = () => sim.log.filter((r) => r.path === '/v1/completions').length;

test('on: a typed line gets an item from /v1/completions on the cursor line; its command counts the acceptance', async () => {
  assert.ok(existsSync(entry), 'dist/ is missing: run "npm run build" first');
  const x = await activated({
    'modelRelay.completions.enabled': true,
    'modelRelay.completions.model': 'deepseek-chat',
  });
  try {
    assert.equal(x.providers.length, 1, 'registered while on');
    assert.match(String(x.bar()?.text), /deepseek-chat/);
    const before = requests();
    const d = doc('/ws/src/math.ts', 'export function add(a: number, b: number) {\n  return a\n}\n');
    const items = await x.providers[0].provideInlineCompletionItems(d, new Position(1, 10), ctx, token());
    assert.equal(requests(), before + 1, 'one request');
    assert.equal(items?.length, 1);
    const [item] = items!;
    assert.equal(item.insertText, `  return a${MIDDLE}`);
    assert.deepEqual([item.range.start, item.range.end], [new Position(1, 0), new Position(1, 10)]);
    const accept = x.command(item.command.command) as (...a: unknown[]) => void;
    accept(...item.command.arguments);
    assert.ok(
      (x.bar()?.tooltip as { value: string }).value.includes('1 suggestions accepted'),
      String((x.bar()?.tooltip as { value: string }).value),
    );
    // an answer for a document that changed meanwhile is not shown
    const moved = { ...doc('/ws/src/math.ts', 'let x = y\n', 'typescript', 5) };
    let version = 5;
    Object.defineProperty(moved, 'version', { get: () => version++ });
    assert.equal(await x.providers[0].provideInlineCompletionItems(moved, new Position(0, 9), ctx, token()), undefined);
  } finally {
    x.done();
  }
});

test('a large document: the glue reads only the text around the cursor, and the prompt still ends at the cursor', async () => {
  const own = await startSimulator({ profile: 'real', completions: { latencyMs: 5 } });
  const prev = sim;
  sim = own;
  const x = await activated({
    'modelRelay.completions.enabled': true,
    'modelRelay.completions.model': 'deepseek-chat',
    'modelRelay.completions.contextTokens': 256,
  });
  try {
    const filler = Array.from({ length: 6_000 }, (_, i) => `const value${i} = compute(${i});\n`).join('');
    const text = `${filler}function area(widget) {\n  \n}\n${filler}`;
    const line = filler.split('\n').length; // the empty line inside the function (0-based)
    const d = doc('/ws/src/big.ts', text);
    const items = await x.providers[0].provideInlineCompletionItems(d, new Position(line, 2), ctx, token());
    // the simulator's middle names the last name before the cursor: the prompt ended where the cursor is
    assert.equal(items?.[0]?.insertText, '  return widget');
    assert.ok(text.length > 300_000, `${text.length}`);
    assert.ok(d.reads.length > 0 && Math.max(...d.reads) <= 2 * 8_192, `reads ${d.reads.join(', ')}`);
  } finally {
    x.done();
    sim = prev;
    await own.close();
  }
});

test('excluded files and untrusted workspaces get nothing and send nothing; off: no provider at all', async () => {
  const on = { 'modelRelay.completions.enabled': true, 'modelRelay.completions.model': 'deepseek-chat' };
  const x = await activated(on);
  try {
    const before = requests();
    for (const path of ['/ws/.env', '/ws/config/.env.local', '/ws/certs/server.pem', '/ws/.git/COMMIT_EDITMSG'])
      assert.equal(
        await x.providers[0].provideInlineCompletionItems(
          doc(path, 'KEY=abc\n', 'plaintext'),
          new Position(0, 7),
          ctx,
          token(),
        ),
        undefined,
        path,
      );
    assert.equal(requests(), before, 'nothing sent for excluded files');
  } finally {
    x.done();
  }
  const untrusted = await activated(on, false);
  try {
    assert.equal(untrusted.providers.length, 0, 'untrusted: no provider');
    assert.match(String(untrusted.bar()?.text), /untrusted/);
  } finally {
    untrusted.done();
  }
  const off = await activated({});
  try {
    assert.equal(off.providers.length, 0, 'off: no provider');
    assert.match(String(off.bar()?.text), /off/);
  } finally {
    off.done();
  }
});
