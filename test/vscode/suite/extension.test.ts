import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { startSimulator, type Simulator } from '../../sim/server';
import type { LazyRelayApi } from '../../../src/extension/extension';
import type { RelayApi } from '../../../src/extension/main';

suite('Model Relay in the extension host', () => {
  let sim: Simulator;
  let api: RelayApi;

  suiteSetup(async () => {
    sim = await startSimulator();
    const ext = vscode.extensions.getExtension<LazyRelayApi>('model-relay.model-relay');
    assert.ok(ext, 'extension present');
    api = await (await ext.activate()).ready();
  });
  suiteTeardown(() => sim.close());

  test('every command package.json contributes is registered (test/e2e/contributions runs each one)', async () => {
    const ext = vscode.extensions.getExtension('model-relay.model-relay')!;
    const contributed = (ext.packageJSON as { contributes: { commands: Array<{ command: string }> } }).contributes
      .commands;
    const all = new Set(await vscode.commands.getCommands(true));
    assert.ok(contributed.length > 20);
    for (const { command } of contributed) assert.ok(all.has(command), command);
  });

  test('a workspace baseUrl is ignored; the user setting is used', async () => {
    await vscode.workspace.getConfiguration('modelRelay').update('baseUrl', sim.url, vscode.ConfigurationTarget.Global);
    api.service.reload();
    assert.equal(api.service.client.endpoints().base, sim.url);
  });

  test('tokens live in SecretStorage and requests use the active one', async () => {
    await api.tokens.add('production', sim.tokens.production, true);
    const models = await api.service.refreshModels();
    assert.ok(models.some((m) => m.id === 'gpt-4o-mini'));
    assert.equal(sim.log.at(-1)!.host, 0);
    const list = await api.tokens.list();
    assert.ok(list.every((t) => !t.masked.includes(sim.tokens.production.slice(6, -4))));
  });

  test('switching the token applies to the next request', async () => {
    await api.tokens.add('test', sim.tokens.test, true);
    const models = await api.service.refreshModels();
    assert.deepEqual(
      models.map((m) => m.id),
      ['gpt-4o-mini'],
    );
  });
});
