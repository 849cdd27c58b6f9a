/**
 * The chat panel and the three surfaces: the responses surface's models (by capability, or learnt
 * from the gateway's refusal), a learnt surface shown in the picker and on the reply that moved,
 * and a saved responses choice restored.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChatResult, GatewayProfile, ModelInfo } from '../../src/gateway';
import { ChatModels } from '../../src/host/chat/chatModels';
import { restoreOptions } from '../../src/host/chat/chatStore';
import { ReplyRun } from '../../src/host/chat/replyRun';
import type { ChatEntry, ModelGroup, ModelList } from '../../src/shared/chatProtocol';
import { modelsForSurface } from '../../src/shared/modelOrder';

const group = (items: ModelGroup['items'], defaults: ModelGroup['defaults']) => ({ items, defaults });

test('the responses surface lists the models that answer there: by capability, learnt, or unknown; the chat default next', () => {
  const g = group(
    [
      { id: 'gpt-4o-mini', capabilities: ['chat'] },
      { id: 'o3-pro', capabilities: ['responses'] },
      { id: 'gpt-5.5-codex', capabilities: ['chat'], learnt: 'responses' },
      { id: 'claude-x', capabilities: ['native'] },
      { id: 'mystery' },
    ],
    { compatible: 'gpt-4o-mini', native: 'claude-x', responses: '' },
  );
  assert.deepEqual(modelsForSurface(g, 'responses'), ['gpt-5.5-codex', 'mystery', 'o3-pro']);
  // A learnt model stays listed where its capabilities put it (the picker says where it answers).
  assert.deepEqual(modelsForSurface(g, 'compatible'), ['gpt-4o-mini', 'gpt-5.5-codex', 'mystery']);
  const withDefault = group(g.items, { compatible: 'o3-pro', native: 'claude-x', responses: 'o3-pro' });
  assert.equal(modelsForSurface(withDefault, 'responses')[0], 'o3-pro');
});

test('a surface learnt after the list was read is posted on the listed model (and forgotten the same way), nothing read again', async () => {
  const gateway: GatewayProfile = { id: 'g', name: 'Relay', baseUrl: 'https://relay.example.com' };
  let learnt: Array<{ model: string; surface: 'responses' }> = [];
  let reads = 0;
  const posted: ModelList[] = [];
  const models = new ChatModels(
    {
      gateways: () => [{ id: 'g', name: 'Relay', active: true, defaults: { compatible: '', native: '' } }],
      listModels: async () => {
        reads++;
        return [{ gateway, models: [{ id: 'gpt-5.5-codex', capabilities: ['chat'] } as ModelInfo] }];
      },
      learnt: () => learnt,
    },
    (m) => posted.push(m),
    () => true,
  );
  await models.load();
  const count = posted.length;
  models.surfacesLearnt();
  assert.equal(posted.length, count, 'nothing changed: nothing posted');
  learnt = [{ model: 'gpt-5.5-codex', surface: 'responses' }];
  models.surfacesLearnt();
  assert.equal(posted.at(-1)?.groups[0].items[0].learnt, 'responses');
  learnt = [];
  models.surfacesLearnt();
  assert.equal(posted.at(-1)?.groups[0].items[0].learnt, undefined);
  assert.equal(reads, 1);
});

test('a reply that moved to /v1/responses says so once and names the surface that answered', () => {
  const entry: ChatEntry = {
    id: 'a1',
    role: 'assistant',
    text: '',
    createdAt: 0,
    status: 'streaming',
    surface: 'compatible',
  };
  const result = (learntNow: boolean): ChatResult => ({
    text: 'hi',
    toolCalls: [],
    reasoning: '',
    thinking: [],
    finishReason: 'stop',
    usage: undefined,
    model: undefined,
    id: undefined,
    host: 'h',
    requestId: undefined,
    durationMs: 1,
    surfaceMove: { model: 'gpt-5.5-codex', from: 'compatible', to: 'responses', learntNow },
  });
  new ReplyRun(
    entry,
    () => 0,
    () => {},
  ).finish(result(true), undefined);
  assert.equal(entry.surface, 'responses');
  assert.equal(entry.notices?.length, 1);
  assert.equal(entry.notices?.[0].kind, 'surface');
  assert.match(entry.notices?.[0].text ?? '', /refused gpt-5\.5-codex on the compatible surface/);
  const later: ChatEntry = { ...entry, notices: undefined, surface: 'compatible' };
  new ReplyRun(
    later,
    () => 0,
    () => {},
  ).finish(result(false), undefined);
  assert.equal(later.surface, 'responses');
  assert.equal(later.notices, undefined, 'a remembered move is not said again');
});

test('a saved responses choice is restored (it used to fall back to the default surface)', () => {
  const s = {
    defaultSurface: 'compatible' as const,
    models: { chat: 'c', native: 'n' },
    temperature: 1,
    maxTokens: 100,
  };
  assert.equal(restoreOptions({ surface: 'responses', model: 'o3-pro' }, s).surface, 'responses');
  assert.equal(restoreOptions(undefined, { ...s, defaultSurface: 'responses' }).model, 'c');
});

test("the temperature is the user's: unset in the settings, none is sent (the model's own default); a cleared one stays cleared", () => {
  const s = { defaultSurface: 'compatible' as const, models: { chat: 'c', native: 'n' }, maxTokens: 100 };
  assert.equal(restoreOptions(undefined, { ...s, temperature: undefined }).temperature, null);
  assert.equal(restoreOptions(undefined, { ...s, temperature: 0.3 }).temperature, 0.3);
  assert.equal(restoreOptions({ temperature: null }, { ...s, temperature: 0.3 }).temperature, null);
  assert.equal(restoreOptions({ temperature: 0.9 }, { ...s, temperature: undefined }).temperature, 0.9);
  assert.equal(restoreOptions({ temperature: 7 }, { ...s, temperature: undefined }).temperature, null, 'out of range');
});
