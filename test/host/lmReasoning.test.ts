/**
 * Reasoning replay in VS Code-shaped tool loops, over real HTTP against the simulator's reasoning
 * models (shared/reference/reasoning-replay.md): VS Code's messages → lmToChatRequest (the reasoning
 * cache re-attaches each reply's reasoning in front of its tool calls) → the core → the gateway.
 * DeepSeek V4 and Kimi K2 thinking refuse a tool loop without `reasoning_content`, legacy R1 refuses
 * one with it, a GPT model never sees the field.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compatibleSurface, type ChatEvent, type ChatRequest, type ToolCall } from '../../src/gateway';
import { lmToChatRequest, type LmMessage } from '../../src/host/lm/lmRequest';
import type { ModelProfile } from '../../src/host/lm/modelProfile';
import { ThinkingCache, replyReasoning } from '../../src/host/lm/thinkingCache';
import { useBothProfiles } from '../sim/profiles';
import type { Simulator } from '../sim/server';
import { collect, makeClient } from '../gateway/helpers';

const sims = useBothProfiles();
const tools = [
  {
    name: 'get_weather',
    description: 'Weather for a city',
    inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
];
const ask: LmMessage = { role: 1, content: [{ kind: 'text', value: 'What is the weather in Paris?' }] };
const profile = (replayReasoning?: boolean): ModelProfile => ({
  surface: 'compatible',
  surfaceLearnt: false,
  maxInputTokens: 100_000,
  maxOutputTokens: 1000,
  toolCalling: true,
  imageInput: false,
  thinkingBudget: undefined,
  ...(replayReasoning !== undefined ? { replayReasoning } : {}),
});

/** The assistant messages' reasoning_content as the core puts the request on the wire. */
const wireReasoning = (req: Omit<ChatRequest, 'signal'>) =>
  (compatibleSurface.toRequest({ ...req }, { maxTokens: 1000 }).messages as Array<Record<string, unknown>>)
    .filter((m) => m.role === 'assistant')
    .map((m) => m.reasoning_content);

/** One request as VS Code's chat makes it, through the provider's path; the reply is remembered as the provider does. */
async function turn(sim: Simulator, model: string, p: ModelProfile, messages: LmMessage[], cache: ThinkingCache) {
  const { client } = makeClient(sim);
  const req = lmToChatRequest(model, p, messages, { tools }, cache);
  const events = await collect<ChatEvent>(client.chatStream(req));
  const done = events.find((e) => e.type === 'done');
  if (done?.type === 'done') cache.rememberReply(model, done.result);
  return {
    req,
    calls: events.flatMap((e) => (e.type === 'tool_call' ? [e.call] : [])),
    text: events.flatMap((e) => (e.type === 'text' ? [e.text] : [])).join(''),
    reasoning: events.flatMap((e) => (e.type === 'reasoning' ? [e.text] : [])).join(''),
  };
}

const followUp = (call: ToolCall, said: LmMessage[] = []): LmMessage[] => [
  ask,
  {
    role: 2,
    content: [
      ...said.flatMap((m) => m.content),
      { kind: 'toolCall', callId: call.id, name: call.name, input: call.input },
    ],
  },
  { role: 1, content: [{ kind: 'toolResult', callId: call.id, content: [{ kind: 'text', value: '18°C and sunny' }] }] },
];
const statuses = (sim: Simulator) => sim.log.filter((r) => r.path === '/v1/chat/completions').map((r) => r.status);

for (const profileName of ['strict', 'real'] as const) {
  for (const model of ['deepseek-v4-pro', 'kimi-k2-thinking']) {
    test(`${profileName} ${model}: a two-step tool loop sends the call's own reasoning back and is answered`, async () => {
      const sim = sims.of(profileName);
      const cache = new ThinkingCache();
      const first = await turn(sim, model, profile(), [ask], cache);
      assert.equal(first.calls.length, 1);
      assert.ok(first.reasoning, 'reasoning streamed before the call');
      const second = await turn(sim, model, profile(), followUp(first.calls[0]), cache);
      assert.match(second.text, /Tool get_weather returned: 18°C and sunny/);
      assert.deepEqual(wireReasoning(second.req), [first.reasoning]);
      assert.deepEqual(statuses(sim), [200, 200], 'no refusal, no retry');
    });

    test(`${profileName} ${model}: after a restart (nothing kept) the call goes back with an empty reasoning_content and is answered`, async () => {
      const sim = sims.of(profileName);
      const first = await turn(sim, model, profile(), [ask], new ThinkingCache());
      const second = await turn(sim, model, profile(), followUp(first.calls[0]), new ThinkingCache());
      assert.match(second.text, /Tool get_weather returned/);
      assert.deepEqual(wireReasoning(second.req), ['']);
      assert.deepEqual(statuses(sim), [200, 200]);
    });

    test(`${profileName} ${model}: with replayReasoning off the gateway refuses once, and the one retry with the field is answered`, async () => {
      const sim = sims.of(profileName);
      const cache = new ThinkingCache();
      const first = await turn(sim, model, profile(false), [ask], cache);
      const second = await turn(sim, model, profile(false), followUp(first.calls[0]), cache);
      assert.deepEqual(wireReasoning(second.req), [undefined], 'off: not sent at first');
      assert.match(second.text, /Tool get_weather returned/);
      assert.deepEqual(statuses(sim), [200, 400, 200], 'one refusal (not billed), one retry');
    });
  }

  test(`${profileName} deepseek-v4-pro: a later user turn still carries the reasoning of the earlier tool-using turn, its answer's as ""`, async () => {
    const sim = sims.of(profileName);
    const cache = new ThinkingCache();
    const first = await turn(sim, 'deepseek-v4-pro', profile(), [ask], cache);
    const second = await turn(sim, 'deepseek-v4-pro', profile(), followUp(first.calls[0]), cache);
    const next: LmMessage[] = [
      ...followUp(first.calls[0]),
      { role: 2, content: [{ kind: 'text', value: second.text }] },
      { role: 1, content: [{ kind: 'text', value: 'And tomorrow, without tools?' }] },
    ];
    const third = await turn(sim, 'deepseek-v4-pro', profile(), next, cache);
    assert.deepEqual(wireReasoning(third.req), [first.reasoning, '']);
    assert.deepEqual(statuses(sim), [200, 200, 200]);
  });

  test(`${profileName} kimi-k2-thinking: reasoning VS Code hands back as a thinking part goes back without the cache`, async () => {
    const sim = sims.of(profileName);
    const first = await turn(sim, 'kimi-k2-thinking', profile(), [ask], new ThinkingCache());
    const said: LmMessage[] = [{ role: 2, content: [{ kind: 'thinking', value: first.reasoning }] }];
    const second = await turn(sim, 'kimi-k2-thinking', profile(), followUp(first.calls[0], said), new ThinkingCache());
    assert.deepEqual(wireReasoning(second.req), [first.reasoning]);
    assert.match(second.text, /Tool get_weather returned/);
  });

  test(`${profileName} deepseek-r1: the field is never sent, and the tool loop is answered without a refusal`, async () => {
    const sim = sims.of(profileName);
    const cache = new ThinkingCache();
    const first = await turn(sim, 'deepseek-r1', profile(), [ask], cache);
    assert.ok(first.reasoning, 'R1 streams reasoning');
    assert.equal(cache.size, 1, 'kept (another model of the family may take it)');
    const second = await turn(sim, 'deepseek-r1', profile(), followUp(first.calls[0]), cache);
    assert.deepEqual(wireReasoning(second.req), [undefined]);
    assert.match(second.text, /Tool get_weather returned/);
    assert.deepEqual(statuses(sim), [200, 200]);
  });

  test(`${profileName} deepseek-r1 with replayReasoning on: its "intermediate result" refusal is retried once without the field`, async () => {
    const sim = sims.of(profileName);
    const cache = new ThinkingCache();
    const first = await turn(sim, 'deepseek-r1', profile(true), [ask], cache);
    const second = await turn(sim, 'deepseek-r1', profile(true), followUp(first.calls[0]), cache);
    assert.deepEqual(wireReasoning(second.req), [first.reasoning]);
    assert.match(second.text, /Tool get_weather returned/);
    assert.deepEqual(statuses(sim), [200, 400, 200]);
  });

  test(`${profileName} gpt-4o-mini: never gets the field, even with reasoning kept for its call`, async () => {
    const sim = sims.of(profileName);
    const cache = new ThinkingCache();
    const first = await turn(sim, 'gpt-4o-mini', profile(), [ask], cache);
    cache.remember('gpt-4o-mini', [first.calls[0].id], [{ type: 'reasoning', text: 'kept' }]);
    const second = await turn(sim, 'gpt-4o-mini', profile(), followUp(first.calls[0]), cache);
    assert.deepEqual(wireReasoning(second.req), [undefined]);
    assert.match(second.text, /Tool get_weather returned/);
  });
}

test("the cache hands a reply's reasoning to the same model only, in its surface's shape", () => {
  const cache = new ThinkingCache();
  cache.rememberReply('deepseek-v4-pro', {
    toolCalls: [{ id: 'call_1', name: 'get_weather', input: {} }],
    thinking: [],
    reasoning: 'use the tool',
  });
  const history: LmMessage[] = [
    ask,
    { role: 2, content: [{ kind: 'toolCall', callId: 'call_1', name: 'get_weather', input: {} }] },
    { role: 1, content: [{ kind: 'toolResult', callId: 'call_1', content: [{ kind: 'text', value: '18°C' }] }] },
  ];
  const same = lmToChatRequest('deepseek-v4-pro', profile(), history, { tools }, cache);
  assert.deepEqual(same.messages[1].content, [
    { type: 'reasoning', text: 'use the tool' },
    { type: 'tool_call', id: 'call_1', name: 'get_weather', input: {} },
  ]);
  // The user switched models: the other model's reasoning is not sent (the empty field stands in).
  const other = lmToChatRequest('kimi-k2-thinking', profile(), history, { tools }, cache);
  assert.deepEqual(wireReasoning(other), ['']);
  // The native surface takes only signed thinking; a responses model only its reasoning items.
  const native = lmToChatRequest('deepseek-v4-pro', { ...profile(), surface: 'native' }, history, { tools }, cache);
  assert.ok((native.messages[1].content as Array<{ type: string }>).every((p) => p.type !== 'reasoning'));
  cache.rememberReply('gpt-5-codex', {
    toolCalls: [{ id: 'call_1', name: 'get_weather', input: {} }],
    thinking: [{ type: 'reasoning_item', id: 'rs_1', summary: ['s'], encryptedContent: 'enc' }] as never,
    reasoning: 's',
  });
  const responses = lmToChatRequest('gpt-5-codex', { ...profile(), surface: 'responses' }, history, { tools }, cache);
  assert.deepEqual(
    (responses.messages[1].content as Array<{ type: string }>).map((p) => p.type),
    ['reasoning_item', 'tool_call'],
  );
});

test('what of a reply is kept: signed thinking or reasoning items when there are any, else the reasoning text', () => {
  const block = { type: 'thinking' as const, text: 't', signature: 'sig' };
  assert.deepEqual(replyReasoning({ thinking: [block], reasoning: 't' }), [block]);
  assert.deepEqual(replyReasoning({ thinking: [], reasoning: 'r' }), [{ type: 'reasoning', text: 'r' }]);
  assert.deepEqual(replyReasoning({ thinking: [], reasoning: '' }), []);
});

test('the cache is bounded in characters as well as entries: the oldest go first, an oversized reply is not kept', () => {
  const cache = new ThinkingCache(100, 1000);
  for (let i = 0; i < 5; i++) cache.remember('m', [`c${i}`], [{ type: 'reasoning', text: 'x'.repeat(300) }]);
  assert.equal(cache.size, 3);
  assert.deepEqual(cache.get('m', 'c1'), []);
  assert.equal(cache.get('m', 'c4').length, 1);
  cache.remember('m', ['big'], [{ type: 'reasoning', text: 'x'.repeat(1001) }]);
  assert.deepEqual(cache.get('m', 'big'), []);
  assert.equal(cache.size, 3);
});
