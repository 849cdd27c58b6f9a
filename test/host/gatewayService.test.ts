/**
 * The extension's glue, run with the recording fake of `vscode` (test/fakes/vscode.ts) against two
 * simulators over real HTTP: today's base URL is the gateway `default`, `modelRelay.gateways` adds
 * `b`; the service's client and the consumers' token store follow the active gateway, and each
 * gateway's token goes only to that gateway (the simulators record every token they receive). The
 * service says what changed once, by kind: a request record wakes only what shows requests, and VS
 * Code's model list (the language-model provider) hears only what the lists hang on.
 * Needs `npm run build` (dist/extension.js, dist/main.js).
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fakeContext, fakeVscode, loadWithFake } from '../fakes/vscode';
import { startSimulator, type Simulator } from '../sim/server';
import type { RelayApi } from '../../src/extension/main';

const root = resolve(__dirname, '../../..');
const entry = resolve(root, 'dist/extension.js');
const sims: Simulator[] = [];
after(async () => {
  for (const s of sims) await s.close();
});

test('the active gateway: its client, its tokens; a token never reaches the other gateway', async () => {
  assert.ok(existsSync(entry), 'dist/ is missing: run "npm run build" first');
  const [a, b] = [await startSimulator(), await startSimulator()];
  sims.push(a, b);
  const fake = fakeVscode({
    'modelRelay.baseUrl': a.url,
    'modelRelay.gateways': [
      { id: 'b', name: 'Gateway B', baseUrl: b.url },
      { id: 'bad id', name: 'x', baseUrl: 'y' },
    ],
  });
  const context = fakeContext(root);
  const ext = loadWithFake<{ activate(c: unknown): { ready(): Promise<RelayApi> } }>(entry, fake);
  const { service, tokens } = await ext.activate(context).ready();
  try {
    assert.deepEqual(
      service.registry.gateways().map((g) => g.id),
      ['default', 'b'],
    );
    assert.equal(
      fake.logged.filter((l) => l.startsWith('warn:') && /gateway 2 was ignored/.test(l)).length,
      1,
      'the bad entry is logged once',
    );
    assert.equal(service.gateway?.id, 'default');
    assert.equal(service.client.endpoints().base, a.url);
    await tokens.add('production', a.tokens.production);
    await service.client.listModels();

    let events = 0;
    tokens.onDidChange(() => events++);
    await service.registry.setActive('b');
    await tokens.refresh();
    assert.equal(events, 1, 'one change for the switch');
    assert.equal(service.client.endpoints().base, b.url);
    assert.equal(service.current.baseUrl, b.url);
    assert.equal(tokens.activeName(), undefined, "b has no token: never a's");
    await assert.rejects(
      service.client.listModels(),
      'no token for b: the call is refused, not sent with a token of a',
    );
    await tokens.add('test', b.tokens.test);
    await service.client.listModels();

    await service.registry.setActive('default');
    assert.equal(tokens.activeName(), 'production');
    await service.client.listModels();

    const seen = (s: Simulator) => new Set(s.log.map((r) => r.tokenName).filter(Boolean));
    assert.deepEqual([...seen(a)], ['production'], 'gateway a saw only its own token');
    assert.deepEqual([...seen(b)], ['test'], 'gateway b saw only its own token');
    assert.equal(context.workspaceState.get('modelRelay.activeGateway'), 'default', 'remembered per window');
  } finally {
    for (const d of context.subscriptions.splice(0).reverse()) d.dispose();
  }
});

test("the other gateways' balances: each read with its own token, cached; the active one's by its tracker", async () => {
  const [a, b] = [await startSimulator({ profile: 'real' }), await startSimulator({ profile: 'real' })];
  sims.push(a, b);
  const fake = fakeVscode({
    'modelRelay.baseUrl': a.url,
    'modelRelay.gateways': [{ id: 'b', name: 'Gateway B', baseUrl: b.url }],
  });
  const context = fakeContext(root);
  const ext = loadWithFake<{ activate(c: unknown): { ready(): Promise<RelayApi> } }>(entry, fake);
  const { service, tokens } = await ext.activate(context).ready();
  try {
    await tokens.add('production', a.tokens.production);
    await service.registry.setActive('b');
    await tokens.add('test', b.tokens.test);
    await service.registry.setActive('default');
    assert.equal(service.quotaOf('b'), undefined, 'not read yet');
    let events = 0;
    service.onDidChangeAccount(() => events++);
    await service.readOtherBalances(5_000);
    assert.ok(service.quotaOf('b'), "gateway b's balance is known while a is active");
    assert.ok(events >= 1, 'the views hear of it');
    const usage = (s: Simulator) => s.log.filter((r) => r.path.startsWith('/api/') || r.path.includes('billing'));
    const readsAtB = usage(b).length;
    assert.ok(readsAtB > 0);
    assert.ok(
      usage(b).every((r) => r.tokenName === 'test' || r.tokenName === null),
      "b's balance was read with b's token only",
    );
    assert.ok(!usage(a).some((r) => r.tokenName === 'test'), "a never saw b's token");
    await service.readOtherBalances(5_000);
    assert.equal(usage(b).length, readsAtB, 'a second look within minutes reads nothing (cached)');
  } finally {
    for (const d of context.subscriptions.splice(0).reverse()) d.dispose();
  }
});

/** Resolves at the next firing of `event`. */
const next = (event: (l: () => void) => { dispose(): void }) =>
  new Promise<void>((resolve) => {
    const sub = event(() => {
      sub.dispose();
      resolve();
    });
  });
const settle = () => new Promise((r) => setTimeout(r, 150));

test('one change, one kind: a request wakes only what shows requests; the model list hears only what it hangs on', async () => {
  const a = await startSimulator({ profile: 'real' });
  sims.push(a);
  const fake = fakeVscode({ 'modelRelay.baseUrl': a.url });
  const context = fakeContext(root);
  const ext = loadWithFake<{ activate(c: unknown): { ready(): Promise<RelayApi> } }>(entry, fake);
  const { service, tokens } = await ext.activate(context).ready();
  try {
    const balance = next(service.onDidChangeAccount);
    await tokens.add('production', a.tokens.production);
    await balance; // the new token's balance, read at once
    // VS Code's view of the provider (the activation's stand-in, which forwards the provider's change event)
    const lm = fake.registrations.find((r) => r.kind === 'languageModels')?.impl as {
      onDidChangeLanguageModelChatInformation(l: () => void): { dispose(): void };
      provideLanguageModelChatInformation(o: unknown, t: unknown): Promise<Array<{ id: string }>>;
    };
    const never = { isCancellationRequested: false, onCancellationRequested: () => ({ dispose() {} }) };
    assert.ok((await lm.provideLanguageModelChatInformation({ silent: true }, never)).length > 3);
    await service.refreshPricing(); // the read started alongside (shared, then cached): its models event is past
    await settle();

    const heard = { configuration: 0, token: 0, account: 0, models: 0, request: 0, lm: 0, lmKeys: 0 };
    service.onDidChangeConfiguration(() => heard.configuration++);
    service.onDidChangeToken(() => heard.token++);
    service.onDidChangeAccount(() => heard.account++);
    service.onDidChangeModels(() => heard.models++);
    service.onDidRecordRequest(() => heard.request++);
    lm.onDidChangeLanguageModelChatInformation(() => heard.lm++);
    // The provider's list key reads the token's digest: counted, it shows the provider woke at all.
    const store = service.registry.tokensOf('default');
    const digest = store.activeFingerprint.bind(store);
    store.activeFingerprint = () => {
      heard.lmKeys++;
      return digest();
    };
    const take = () => {
      const now = { ...heard };
      for (const k of Object.keys(heard) as Array<keyof typeof heard>) heard[k] = 0;
      return now;
    };
    const none = { configuration: 0, token: 0, account: 0, models: 0, request: 0, lm: 0, lmKeys: 0 };

    await service.client.chat({
      surface: 'compatible',
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'hi' }],
    });
    await service.client.recordsWritten(); // its record waits for the count of its input (the tokenizer loads first)
    await settle();
    assert.deepEqual(
      take(),
      { ...none, request: 1 },
      'a request record: the request event only; the provider never woke',
    );

    await service.client.listModels();
    await settle();
    const list = take();
    assert.deepEqual(
      [list.request, list.models, list.lmKeys, list.lm, list.configuration, list.token],
      [1, 1, 1, 0, 0, 0],
      'a list read: a request and the models (the provider looks again); the same list changes nothing in VS Code',
    );

    service.reload();
    const settings = take();
    assert.equal(settings.configuration, 1, 'the settings read again');
    assert.deepEqual([settings.request, settings.lm], [0, 0], 'the same settings: no new model list');

    await tokens.add('test', a.tokens.test); // another token, made active
    await settle();
    const token = take();
    assert.equal(token.token, 1, 'one token event');
    assert.equal(token.lm, 1, "VS Code's model list changes once: the lists hang on the token");
    assert.deepEqual([token.request, token.models], [0, 0]);
  } finally {
    for (const d of context.subscriptions.splice(0).reverse()) d.dispose();
  }
});
