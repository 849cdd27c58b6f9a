/**
 * When Model Relay offers Chat: Manage Language Models: VS Code's chat lists our models but its
 * built-in chat extension is still off (no Copilot sign-in, setup not completed), AI features are not
 * turned off on purpose, and the command exists; the Status view's row that runs it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GatewayClient } from '../../src/gateway';
import { MANAGE_LANGUAGE_MODELS, chatNeedsEnabling, type ChatSetupFacts } from '../../src/host/lm/chatSetup';
import { statusRows, type StatusFacts, type StatusRow } from '../../src/host/status/statusRows';
import { statusTree, type GatewayFacts } from '../../src/host/status/statusTree';

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

test("the Status view: a row that runs Chat: Manage Language Models while VS Code's chat needs enabling, flat and with several gateways", () => {
  const endpoints = new GatewayClient({ baseUrl: 'https://gateway.example.com', token: () => undefined }).endpoints();
  const facts: StatusFacts = {
    endpoints,
    tokenName: 'work',
    masked: 'sk-abc...wxyz',
    quota: undefined,
    warnBelow: 1,
    now: Date.now(),
    last: undefined,
    modelCount: 3,
    proxy: { source: 'none', display: undefined, noProxy: undefined, strictSSL: true },
  };
  const row = (rows: StatusRow[]) => rows.find((r) => r.id === 'vscode-chat');
  assert.equal(row(statusRows(facts)), undefined);
  const flat = row(statusRows({ ...facts, chatNeedsEnabling: true }));
  assert.deepEqual(flat?.command, { command: 'workbench.action.chat.manage', title: 'Manage Language Models' });
  assert.equal(flat?.command?.command, MANAGE_LANGUAGE_MODELS);
  assert.deepEqual(statusRows({ ...facts, chatNeedsEnabling: true })[0], flat, 'first, where it is seen');
  const gateway = (id: string): GatewayFacts => ({
    profile: { id, name: id },
    endpoints,
    tokens: [],
    quota: undefined,
    last: undefined,
  });
  const tree = { ...facts, gateways: [gateway('a'), gateway('b')], activeId: 'a' };
  assert.equal(row(statusTree(tree)), undefined);
  assert.deepEqual(statusTree({ ...tree, chatNeedsEnabling: true })[0], flat);
});
