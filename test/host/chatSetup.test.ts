/**
 * When Model Relay offers Chat: Manage Language Models: VS Code's chat lists our models but its
 * built-in chat extension is still off (no Copilot sign-in, setup not completed), AI features are not
 * turned off on purpose, and the command exists; the Status view's row that runs it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GatewayClient } from '../../src/gateway';
import { MANAGE_LANGUAGE_MODELS, chatNeedsEnabling, type ChatSetupFacts } from '../../src/host/lm/chatSetup';
import { statusRows, type GatewayFacts, type StatusFacts, type StatusRow } from '../../src/host/status/statusRows';

const fresh: ChatSetupFacts = {
  manageCommand: true,
  chatExtensionEnabled: false,
  aiFeaturesDisabled: false,
  vendor: 'model-relay',
  vendors: ['model-relay', 'model-relay'],
};

test('a fresh profile with only our models: the chat needs enabling once', () => {
  assert.equal(chatNeedsEnabling(fresh), true);
  // another extension's models beside ours change nothing: the chat extension is still off
  assert.equal(chatNeedsEnabling({ ...fresh, vendors: ['model-relay', 'other-byok'] }), true);
});

test('nothing to offer: the chat extension runs, Copilot models are there, AI is off on purpose, no command, no models of ours', () => {
  assert.equal(chatNeedsEnabling({ ...fresh, chatExtensionEnabled: true }), false);
  assert.equal(chatNeedsEnabling({ ...fresh, vendors: ['model-relay', 'copilot'] }), false);
  assert.equal(chatNeedsEnabling({ ...fresh, aiFeaturesDisabled: true }), false);
  assert.equal(chatNeedsEnabling({ ...fresh, manageCommand: false }), false);
  assert.equal(chatNeedsEnabling({ ...fresh, vendors: [] }), false);
});

test("the Status view: a row that runs Chat: Manage Language Models while VS Code's chat needs enabling, with one gateway and with several", () => {
  const endpoints = new GatewayClient({ baseUrl: 'https://gateway.example.com', token: () => undefined }).endpoints();
  const gateway = (id: string): GatewayFacts => ({
    profile: { id, name: id },
    endpoints,
    tokens: [{ name: 'work', masked: 'sk-abc...wxyz', active: true }],
    quota: undefined,
    last: undefined,
  });
  const facts: StatusFacts = {
    gateways: [gateway('a')],
    activeId: 'a',
    warnBelow: 1,
    now: Date.now(),
    modelCount: 3,
    proxy: { source: 'none', display: undefined, noProxy: undefined, strictSSL: true },
  };
  const row = (rows: StatusRow[]) => rows.find((r) => r.id === 'vscode-chat');
  assert.equal(row(statusRows(facts)), undefined);
  const one = row(statusRows({ ...facts, chatNeedsEnabling: true }));
  assert.deepEqual(one?.command, { command: 'workbench.action.chat.manage', title: 'Manage Language Models' });
  assert.equal(one?.command?.command, MANAGE_LANGUAGE_MODELS);
  assert.deepEqual(statusRows({ ...facts, chatNeedsEnabling: true })[0], one, 'first, where it is seen');
  const tree = { ...facts, gateways: [gateway('a'), gateway('b')] };
  assert.equal(row(statusRows(tree)), undefined);
  assert.deepEqual(statusRows({ ...tree, chatNeedsEnabling: true })[0], one);
});
