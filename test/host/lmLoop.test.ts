/**
 * A tool loop as VS Code's agent drives it, over real HTTP against the simulator: VS Code-shaped
 * messages → lmToChatRequest → the core → the gateway, on all three surfaces; the native surface with
 * thinking on needs the signed thinking block back, and the responses surface replays its reasoning
 * items statelessly, both supplied by the ThinkingCache.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isGatewayError, type ChatEvent, type ToolCall } from '../../src/gateway';
import { lmToChatRequest, type LmMessage } from '../../src/host/lm/lmRequest';
import type { ModelProfile } from '../../src/host/lm/modelProfile';
import { ThinkingCache } from '../../src/host/lm/thinkingCache';
import { useBothProfiles } from '../sim/profiles';
import { collect, makeClient, thrown } from '../gateway/helpers';

const sims = useBothProfiles();
const tools = [
  {
    name: 'get_weather',
    description: 'Weather for a city',
    inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
];
const ask: LmMessage = { role: 1, content: [{ kind: 'text', value: 'What is the weather in Paris?' }] };
const profile = (surface: 'compatible' | 'native' | 'responses', thinkingBudget?: number): ModelProfile => ({
  surface,
  surfaceLearnt: false,
  maxInputTokens: 100_000,
  maxOutputTokens: 1000,
  toolCalling: true,
  imageInput: true,
  thinkingBudget,
});

async function turn(
  client: ReturnType<typeof makeClient>['client'],
  model: string,
  p: ModelProfile,
  messages: LmMessage[],
  cache: ThinkingCache,
  withTools = true,
) {
  const events = await collect<ChatEvent>(
    client.chatStream(lmToChatRequest(model, p, messages, withTools ? { tools } : {}, cache)),
  );
  const done = events.find((e) => e.type === 'done');
  if (done?.type === 'done') cache.rememberReply(model, done.result);
  return {
    events,
    calls: events.flatMap((e) => (e.type === 'tool_call' ? [e.call] : [])),
    text: events.flatMap((e) => (e.type === 'text' ? [e.text] : [])).join(''),
    reasoning: events.flatMap((e) => (e.type === 'reasoning' ? [e.text] : [])).join(''),
  };
}

const followUp = (call: ToolCall): LmMessage[] => [
  ask,
  { role: 2, content: [{ kind: 'toolCall', callId: call.id, name: call.name, input: call.input }] },
  { role: 1, content: [{ kind: 'toolResult', callId: call.id, content: [{ kind: 'text', value: '18°C and sunny' }] }] },
];

for (const profileName of ['strict', 'real'] as const) {
  for (const [surface, model] of [
    ['compatible', 'gpt-4o-mini'],
    ['native', 'claude-sonnet-4-5'],
    ['responses', 'o3-pro'],
  ] as const) {
    test(`${profileName} ${surface}: a two-turn tool loop (one complete call with parsed input, then the answer about its result)`, async () => {
      const { client } = makeClient(sims.of(profileName));
      const cache = new ThinkingCache();
      const first = await turn(client, model, profile(surface), [ask], cache);
      assert.equal(first.calls.length, 1);
      assert.equal(first.calls[0].name, 'get_weather');
      assert.equal(typeof first.calls[0].input.city, 'string');
      const second = await turn(client, model, profile(surface), followUp(first.calls[0]), cache);
      assert.equal(second.calls.length, 0);
      assert.match(second.text, /Tool get_weather returned: 18°C and sunny/);
    });
  }

  test(`${profileName} responses: the reasoning item of the call's turn goes back in front of it, and the gateway verifies it`, async () => {
    const sim = sims.of(profileName);
    const { client } = makeClient(sim);
    const cache = new ThinkingCache();
    const first = await turn(client, 'o3-pro', profile('responses'), [ask], cache);
    assert.equal(first.calls.length, 1);
    const sent = lmToChatRequest('o3-pro', profile('responses'), followUp(first.calls[0]), { tools }, cache);
    const replayed = sent.messages.flatMap((m) =>
      typeof m.content === 'string' ? [] : m.content.filter((p) => p.type === 'reasoning_item'),
    );
    assert.equal(replayed.length, 1, 'one reasoning item, from the cache');
    assert.ok(replayed[0].type === 'reasoning_item' && replayed[0].encryptedContent, 'with its encrypted content');
    const second = await turn(client, 'o3-pro', profile('responses'), followUp(first.calls[0]), cache);
    assert.match(second.text, /Tool get_weather returned: 18°C and sunny/);
    const last = sim.log.filter((r) => r.path === '/v1/responses').at(-1);
    assert.equal(last?.status, 200, 'the gateway took the replayed item');
  });

  test(`${profileName} native with thinking: the signed block goes back and the loop succeeds; without it the gateway refuses`, async () => {
    const { client } = makeClient(sims.of(profileName));
    const cache = new ThinkingCache();
    const p = profile('native', 2048);
    const first = await turn(client, 'claude-sonnet-4-5', p, [ask], cache);
    assert.ok(first.reasoning.length > 0, 'thinking streamed as reasoning');
    assert.equal(cache.size, 1);
    const second = await turn(client, 'claude-sonnet-4-5', p, followUp(first.calls[0]), cache);
    assert.match(second.text, /Tool get_weather returned/);
    const e = await thrown(() => turn(client, 'claude-sonnet-4-5', p, followUp(first.calls[0]), new ThinkingCache()));
    assert.ok(isGatewayError(e) && e.status === 400, String(e));
    assert.match(e.gatewayMessage ?? e.message, /thinking/);
  });

  test(`${profileName} compatible reasoning model: reasoning_content streams as reasoning before the answer`, async () => {
    const { client } = makeClient(sims.of(profileName));
    const r = await turn(
      client,
      'deepseek-reasoner',
      profile('compatible'),
      [{ role: 1, content: [{ kind: 'text', value: 'hello' }] }],
      new ThinkingCache(),
      false,
    );
    assert.equal(r.reasoning, 'Let me think about this.');
    const kinds = r.events.map((e) => e.type).filter((t) => t === 'reasoning' || t === 'text');
    assert.ok(kinds.indexOf('reasoning') < kinds.indexOf('text'));
  });
}
