/**
 * Record HTTP Archive, run: the built extension (dist/extension.js and dist/main.js, needs `npm run
 * build`) with the recording fake of the `vscode` API (test/fakes/vscode.ts), its gateway the
 * simulator. The command asks N and the bodies tick, the status bar item counts the requests of the
 * extension's own clients, and when the N-th has finished the save dialog's file is a HAR 1.2
 * archive without the token; the stop command saves what it has.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fakeContext, fakeVscode, loadWithFake } from '../fakes/vscode';
import { startSimulator, type Simulator } from '../sim/server';
import { assertHar12 } from '../gateway/harSchema';

const root = resolve(__dirname, '../../..');
const entry = resolve(root, 'dist/extension.js');

let sim: Simulator;
before(async () => {
  sim = await startSimulator({ profile: 'real' });
});
after(() => sim.close());

interface Item {
  name?: string;
  text?: string;
  shown: boolean;
}

interface Api {
  service: { client: { listModels(): Promise<unknown[]> } };
}

/** The extension activated against the simulator, with the dialogs answered as `answers` says. */
async function activated(answers: { count: string; bodies: boolean; saveTo: string }) {
  process.env.MODEL_RELAY_SEED_TOKEN = sim.tokens.production;
  const fake = fakeVscode({ 'modelRelay.baseUrl': sim.url });
  const items: Item[] = [];
  const saved: string[] = [];
  const shown: string[] = [];
  const w = fake.module.window as Record<string, unknown>;
  w.createStatusBarItem = () => {
    const item: Item & Record<string, unknown> = {
      shown: false,
      show: () => void (item.shown = true),
      hide: () => void (item.shown = false),
      dispose: () => undefined,
    };
    items.push(item);
    return item;
  };
  w.showInputBox = (o: { validateInput(v: string): string | undefined }) => {
    assert.ok(o.validateInput('0'), 'a count of 0 is refused');
    return Promise.resolve(answers.count);
  };
  w.showQuickPick = (list: unknown[], o: { canPickMany?: boolean }) =>
    Promise.resolve(o.canPickMany ? (answers.bodies ? list : []) : undefined);
  w.showSaveDialog = (o: { defaultUri: { fsPath: string } }) => {
    assert.match(o.defaultUri.fsPath, /model-relay-[\d-]+T[\d-]+\.har$/);
    return Promise.resolve({ fsPath: answers.saveTo, path: answers.saveTo });
  };
  const say = (m: string) => {
    shown.push(m);
    return Promise.resolve(undefined);
  };
  w.showInformationMessage = say;
  w.showWarningMessage = say;
  w.showErrorMessage = say;
  (fake.module.workspace as Record<string, unknown>).fs = {
    writeFile: (uri: { fsPath: string }, bytes: Uint8Array) => {
      writeFileSync(uri.fsPath, bytes);
      saved.push(uri.fsPath);
      return Promise.resolve();
    },
  };
  const context = fakeContext(root);
  const ext = loadWithFake<{ activate(c: unknown): { ready(): Promise<Api> } }>(entry, fake);
  const api = await ext.activate(context).ready();
  delete process.env.MODEL_RELAY_SEED_TOKEN;
  // The extension reads the balance on its own after loading (those requests are recorded too): let it settle.
  await quiet();
  const command = (id: string) =>
    fake.registrations.find((r) => r.kind === 'command' && r.id === id)!.impl as () => Promise<unknown>;
  const harItem = () => items.find((i) => i.name === 'Model Relay: HTTP Archive recording');
  const done = () => {
    for (const d of context.subscriptions.splice(0).reverse()) d.dispose();
  };
  return { api, command, harItem, saved, shown, done };
}

/** Until the simulator has heard no request for 300 ms. */
async function quiet(): Promise<void> {
  let seen = -1;
  while (seen !== sim.log.length) {
    seen = sim.log.length;
    await new Promise((r) => setTimeout(r, 300));
  }
}

/** Until `cond` holds (the save runs after the last request's body has ended). */
async function until(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !cond(); i++) await new Promise((r) => setTimeout(r, 10));
  assert.ok(cond());
}

test('record the next 2 requests: the status bar counts them, then the chosen file holds the archive', async () => {
  assert.ok(existsSync(entry), 'dist/ is missing: run "npm run build" first');
  const file = join(mkdtempSync(join(tmpdir(), 'har-')), 'out.har');
  const x = await activated({ count: '2', bodies: true, saveTo: file });
  try {
    await x.command('modelRelay.recordHttpArchive')();
    assert.equal(x.harItem()?.shown, true);
    assert.equal(x.harItem()?.text, '$(record) HAR 0/2');
    await x.api.service.client.listModels();
    assert.equal(x.harItem()?.text, '$(record) HAR 1/2');
    await x.api.service.client.listModels();
    await until(() => x.saved.length === 1);
    assert.equal(x.harItem()?.shown, false, 'the item goes once the recording is over');
    const text = readFileSync(file, 'utf8');
    assert.ok(!text.includes(sim.tokens.production), 'no token in the file');
    const har = assertHar12(JSON.parse(text));
    assert.equal(har.log.entries.length, 2);
    assert.equal(har.log.creator.name, 'Model Relay');
    assert.match(har.log.entries[0].response.content.text ?? '', /gpt-4o-mini/, 'bodies, as ticked');
    assert.ok(x.shown.some((m) => /saved the HTTP Archive of 2 requests/.test(m)));
  } finally {
    x.done();
  }
});

test('stop early saves what was recorded; stop with nothing on says so', async () => {
  const file = join(mkdtempSync(join(tmpdir(), 'har-')), 'stopped.har');
  const x = await activated({ count: '50', bodies: false, saveTo: file });
  try {
    await x.command('modelRelay.stopHttpArchive')();
    assert.ok(x.shown.some((m) => /not recording/.test(m)));
    await x.command('modelRelay.recordHttpArchive')();
    await x.api.service.client.listModels();
    await x.command('modelRelay.stopHttpArchive')();
    assert.deepEqual(x.saved, [file]);
    const har = assertHar12(JSON.parse(readFileSync(file, 'utf8')));
    assert.equal(har.log.entries.length, 1);
    assert.equal(har.log.entries[0].response.content.text, undefined, 'no bodies unless ticked');
    assert.equal(x.harItem()?.shown, false);
  } finally {
    x.done();
  }
});
