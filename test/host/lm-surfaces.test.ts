/** Which surface VS Code's chat uses for a model: new-api's endpoint types, the override, what the gateway's refusals taught. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { capabilitiesFromEndpointTypes, canChat, type ModelInfo, type Surface } from '../../src/gateway';
import { lmToChatRequest } from '../../src/host/lm/lmRequest';
import { modelProfile, surfaceOf } from '../../src/host/lm/modelProfile';
import { ThinkingCache } from '../../src/host/lm/thinkingCache';

const listed = (id: string, types?: string[]): ModelInfo => ({
  id,
  endpointTypes: types,
  capabilities: capabilitiesFromEndpointTypes(types, id),
});
const settings = (defaultSurface: Surface = 'compatible') => ({ defaultSurface, nativeModel: 'claude-x' });

test('endpoint types: only openai-response → responses, only anthropic → native, openai → compatible, several → the default', () => {
  assert.deepEqual(capabilitiesFromEndpointTypes(['openai-response']), ['responses']);
  assert.equal(surfaceOf(listed('o3-pro', ['openai-response']), settings()), 'responses');
  assert.equal(surfaceOf(listed('claude-y', ['anthropic']), settings('responses')), 'native');
  assert.equal(surfaceOf(listed('gpt-5.5-codex', ['openai']), settings('responses')), 'compatible');
  const grok = listed('grok-4', ['openai', 'openai-response']);
  assert.equal(surfaceOf(grok, settings('responses')), 'responses');
  assert.equal(surfaceOf(grok, settings('compatible')), 'compatible');
  assert.equal(surfaceOf(grok, settings('native')), 'compatible', 'the default is not among them: the first that is');
  assert.equal(surfaceOf(listed('both', ['anthropic', 'openai-response']), settings('native')), 'native');
  assert.equal(surfaceOf(listed('claude-x'), settings()), 'native', 'unknown: the configured native model');
  assert.equal(surfaceOf(listed('mystery'), settings('responses')), 'compatible', 'unknown: compatible');
});

test('responses models are chat models everywhere a list keeps the chat-capable ones', () => {
  assert.equal(canChat(listed('o3-pro', ['openai-response'])), true);
  assert.equal(canChat(listed('claude-y', ['anthropic'])), true);
  assert.equal(canChat(listed('mystery')), true);
  assert.equal(canChat(listed('dall-e-3', ['image-generation'])), false);
});

test('the override may say responses; a surface the gateway taught wins over both and is marked as learnt', () => {
  const base = { defaultSurface: 'compatible' as const, nativeModel: '', maxTokens: 4096 };
  const codex = listed('gpt-5.5-codex', ['openai']);
  assert.equal(modelProfile(codex, { ...base, overrides: {} }).surface, 'compatible');
  const over = modelProfile(codex, { ...base, overrides: { 'gpt-5.5-codex': { surface: 'responses' } } });
  assert.deepEqual([over.surface, over.surfaceLearnt], ['responses', false]);
  const learnt = modelProfile(codex, { ...base, overrides: { 'gpt-5.5-codex': { surface: 'native' } } }, 'responses');
  assert.deepEqual([learnt.surface, learnt.surfaceLearnt], ['responses', true]);
});

test("VS Code's chat sends a responses model's request on the responses surface", () => {
  const profile = modelProfile(listed('o3-pro', ['openai-response']), {
    defaultSurface: 'compatible',
    nativeModel: '',
    maxTokens: 4096,
    overrides: {},
  });
  const req = lmToChatRequest(
    'o3-pro',
    profile,
    [{ role: 1, content: [{ kind: 'text', value: 'hi' }] }],
    {},
    new ThinkingCache(),
  );
  assert.equal(req.surface, 'responses');
});
