/**
 * Reasoning replay on the compatible surface, as pure functions: the family table's replay column
 * (modelRules.ts), the body the surface builds from it (where `reasoning_content` goes, empty where
 * nothing is known), and which 400s earn the one adjusted resend, remembered per model
 * (refusals.ts; shared/reference/reasoning-replay.md §1, §9).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GatewayError } from '../../src/gateway/errors/gatewayError';
import { replayRule } from '../../src/gateway/chat/reasoningReplay';
import { chatAdjusting, replayRefusal, type Attempt } from '../../src/gateway/chat/refusals';
import { ModelMemory } from '../../src/gateway/chat/modelMemory';
import { compatibleRequest } from '../../src/gateway/chat/surfaces/compatibleRequest';
import type { ChatMessage, ChatRequest, ChatResult } from '../../src/gateway';

test('the family table: which models take reasoning back, and how', () => {
  const rows: Array<[string, string, string, boolean]> = [
    ['deepseek-v4-pro', 'deepseek-thinking', 'tool_turns', true],
    ['deepseek-v4-flash', 'deepseek-thinking', 'tool_turns', true],
    ['deepseek-reasoner', 'deepseek-thinking', 'tool_turns', true],
    ['deepseek-v3.2-thinking', 'deepseek-thinking', 'tool_turns', true],
    ['deepseek-r1', 'deepseek-r1', 'none', false],
    ['deepseek-r1-0528', 'deepseek-r1', 'none', false],
    ['deepseek-ai/DeepSeek-R1', 'deepseek-r1', 'none', false],
    ['deepseek-chat', 'deepseek-chat', 'none', false],
    ['kimi-k2-thinking', 'kimi-k2-thinking', 'tool_calls', true],
    ['kimi-k2-thinking-turbo', 'kimi-k2-thinking', 'tool_calls', true],
    ['moonshotai/kimi-k2.5', 'kimi-k2.5+', 'tool_calls', true],
    ['kimi-k2.6', 'kimi-k2.5+', 'tool_calls', true],
    ['kimi-k2-0905-preview', 'other', 'none', false],
    ['glm-4.5', 'glm-thinking', 'all', false],
    ['glm-5.1', 'glm-thinking', 'all', false],
    ['glm-4-plus', 'glm', 'none', false],
    ['qwen3-max', 'qwen3', 'current_loop', false],
    ['Qwen/Qwen3-235B-A22B-Thinking-2507', 'qwen-thinking', 'current_loop', false],
    ['MiniMax-M2.1', 'minimax-m2', 'think_tags', false],
    ['gpt-4o-mini', 'openai-chat', 'none', false],
    ['claude-sonnet-4-5', 'claude-4.5', 'none', false],
  ];
  for (const [model, family, scope, fillEmpty] of rows)
    assert.deepEqual(replayRule(model), { family, scope, fillEmpty }, model);
});

test("new-api's -none suffix turns a V4 model's thinking off: no field", () => {
  assert.equal(replayRule('deepseek-v4-pro-none').scope, 'none');
  assert.equal(replayRule('deepseek-v4-pro-max').scope, 'tool_turns');
});

test('the override settles it: off never sends the field; on sends it where the family does, else as DeepSeek does, empty where unknown', () => {
  assert.equal(replayRule('deepseek-v4-pro', false).scope, 'none');
  assert.deepEqual(replayRule('kimi-k2-thinking', true), {
    family: 'kimi-k2-thinking',
    scope: 'tool_calls',
    fillEmpty: true,
  });
  assert.deepEqual(replayRule('glm-4.6', true), { family: 'glm-thinking', scope: 'all', fillEmpty: true });
  assert.deepEqual(replayRule('my-alias', true), { family: 'other', scope: 'tool_turns', fillEmpty: true });
  assert.deepEqual(replayRule('deepseek-r1', true), { family: 'deepseek-r1', scope: 'tool_turns', fillEmpty: true });
  assert.deepEqual(replayRule('MiniMax-M2', true), { family: 'minimax-m2', scope: 'tool_turns', fillEmpty: true });
});

const call = (id: string) => ({ type: 'tool_call' as const, id, name: 'get_weather', input: { city: 'Paris' } });
const result = (id: string) => ({
  type: 'tool_result' as const,
  callId: id,
  content: [{ type: 'text' as const, text: '18°C' }],
});
/** Two user turns: the first used a tool (reasoning known for its call, not for its answer); the second is a tool loop under way. */
const history: ChatMessage[] = [
  { role: 'user', content: 'Weather in Paris?' },
  { role: 'assistant', content: [{ type: 'reasoning', text: 'call the tool' }, call('call_1')] },
  { role: 'user', content: [result('call_1')] },
  { role: 'assistant', content: 'It is 18°C.' },
  { role: 'user', content: 'Thanks. And in Rome?' },
  { role: 'assistant', content: [call('call_2')] },
  { role: 'user', content: [result('call_2')] },
];
const wire = (model: string, extra: Partial<ChatRequest> = {}) =>
  (
    compatibleRequest({ surface: 'compatible', model, system: 'Be brief.', messages: history, ...extra }) as {
      messages: Array<Record<string, unknown>>;
    }
  ).messages;
const fieldOf = (model: string, extra: Partial<ChatRequest> = {}) =>
  wire(model, extra)
    .filter((m) => m.role === 'assistant')
    .map((m) => m.reasoning_content);

test('DeepSeek thinking: every assistant message of a tool-using turn carries reasoning_content, the known one or ""', () => {
  assert.deepEqual(fieldOf('deepseek-v4-pro'), ['call the tool', '', '']);
  // Indexes on the wire: system, user, assistant(1 known)…
  assert.equal(wire('deepseek-v4-pro')[2].reasoning_content, 'call the tool');
});

test('DeepSeek thinking: a turn without tools gets nothing unless its reasoning is known (ignored, harmless)', () => {
  const plain: ChatMessage[] = [
    { role: 'user', content: 'hi' },
    { role: 'assistant', content: 'hello' },
    { role: 'user', content: 'bye' },
  ];
  const body = compatibleRequest({ surface: 'compatible', model: 'deepseek-v4-pro', messages: plain }) as {
    messages: Array<Record<string, unknown>>;
  };
  assert.ok(body.messages.every((m) => !('reasoning_content' in m)));
});

test('Kimi thinking: only assistant messages with tool calls, known or ""', () => {
  assert.deepEqual(fieldOf('kimi-k2-thinking'), ['call the tool', undefined, '']);
});

test('GLM sends what is known on every assistant message; Qwen3 only inside the current tool loop', () => {
  assert.deepEqual(fieldOf('glm-4.6'), ['call the tool', undefined, undefined]);
  assert.deepEqual(fieldOf('qwen3-max'), [undefined, undefined, undefined]);
  const loop: ChatMessage[] = [
    { role: 'user', content: 'Rome?' },
    { role: 'assistant', content: [{ type: 'reasoning', text: 'look it up' }, call('call_3')] },
    { role: 'user', content: [result('call_3')] },
  ];
  const body = compatibleRequest({ surface: 'compatible', model: 'qwen3-max', messages: loop }) as {
    messages: Array<Record<string, unknown>>;
  };
  assert.equal(body.messages[1].reasoning_content, 'look it up');
});

test('MiniMax M2: the reasoning goes back inside content as <think>…</think>, never as a field', () => {
  const m = wire('MiniMax-M2').filter((x) => x.role === 'assistant');
  assert.equal(m[0].content, '<think>\ncall the tool\n</think>\n\n');
  assert.ok(m.every((x) => !('reasoning_content' in x)));
});

test('legacy R1, GPT and Claude never get the field, even with reasoning known', () => {
  for (const model of ['deepseek-r1', 'gpt-4o-mini', 'gpt-5', 'claude-sonnet-4-5'])
    assert.ok(
      wire(model).every((m) => !('reasoning_content' in m)),
      model,
    );
  assert.ok(wire('deepseek-v4-pro', { replayReasoning: false }).every((m) => !('reasoning_content' in m)));
});

const refused = (message: string, status = 400) =>
  new GatewayError({ kind: 'bad_request', message, reason: '', fix: '', gatewayMessage: message, status });
const DEEPSEEK_MISSING =
  'Missing `reasoning_content` field in the assistant message at message index 2. For more information, please refer to https://api-docs.deepseek.com/guides/thinking_mode#tool-calls';
const DEEPSEEK_PASS_BACK = 'The `reasoning_content` in the thinking mode must be passed back to the API.';
const KIMI_MISSING = 'thinking is enabled but reasoning_content is missing in assistant tool call message at index 3';
const R1_REFUSED =
  'The reasoning_content is an intermediate result for display purposes only and will not be included in the context for inference. Please remove the reasoning_content from your message to reduce network traffic.';

test("the vendors' 400s about the field are told apart; other 400s and other statuses are not", () => {
  assert.equal(replayRefusal(refused(DEEPSEEK_MISSING)), 'missing');
  assert.equal(replayRefusal(refused(DEEPSEEK_PASS_BACK)), 'missing');
  assert.equal(replayRefusal(refused(`${KIMI_MISSING} (request id: 2026)`)), 'missing');
  assert.equal(replayRefusal(refused(R1_REFUSED)), 'refused');
  assert.equal(replayRefusal(refused('Invalid value for messages')), undefined);
  assert.equal(replayRefusal(refused(DEEPSEEK_MISSING, 500)), undefined);
  assert.equal(replayRefusal(new Error(DEEPSEEK_MISSING)), undefined);
});

/** The adjusted resends of one call over a fake send that refuses as told, with the memory they leave. */
async function resends(req: ChatRequest, refusals: GatewayError[], memory = new ModelMemory()) {
  const sent: Attempt[] = [];
  const error = await chatAdjusting(req, { memory, maxTokens: 4096 }, async (at) => {
    sent.push(at);
    const e = refusals.shift();
    if (e) throw e;
    return { text: 'ok' } as ChatResult;
  }).then(
    () => undefined,
    (e: unknown) => e,
  );
  const replay = sent.map((a) => a.learnt?.replayReasoning ?? a.req.replayReasoning);
  return { sent, replay, error, memory };
}
const req = (model: string, replayReasoning?: boolean): ChatRequest => ({
  surface: 'compatible',
  model,
  messages: history,
  replayReasoning,
});

test('the resend: missing → the field filled in; refused → left out; none when it would send the same body; remembered', async () => {
  assert.deepEqual((await resends(req('deepseek-v4-pro', false), [refused(DEEPSEEK_MISSING)])).replay, [false, true]);
  assert.deepEqual((await resends(req('gpt-4o-mini'), [refused(KIMI_MISSING)])).replay, [undefined, true]);
  const r1 = await resends(req('deepseek-reasoner'), [refused(R1_REFUSED)]);
  assert.deepEqual(r1.replay, [undefined, false]);
  assert.deepEqual(r1.memory.of('deepseek-reasoner'), { replayReasoning: false });
  // The body the resend builds: the field left out where the first request had it.
  const wire = (at: Attempt) =>
    (compatibleRequest(at.req, { maxTokens: 4096, learnt: at.learnt }).messages as Array<Record<string, unknown>>).some(
      (m) => 'reasoning_content' in m,
    );
  assert.deepEqual(r1.sent.map(wire), [true, false]);
  // Already sent as the resend would: the same 400 again, so no resend.
  assert.equal((await resends(req('deepseek-v4-pro'), [refused(DEEPSEEK_MISSING)])).sent.length, 1);
  assert.equal((await resends(req('deepseek-r1'), [refused(R1_REFUSED)])).sent.length, 1);
  // Only the compatible surface has this field.
  assert.equal(
    (await resends({ ...req('deepseek-v4-pro', false), surface: 'native' }, [refused(DEEPSEEK_MISSING)])).sent.length,
    1,
  );
  // Remembered: the next request sends the field first time.
  const memory = new ModelMemory();
  await resends(req('my-thinker'), [refused(KIMI_MISSING)], memory);
  assert.deepEqual((await resends(req('my-thinker'), [], memory)).replay, [true]);
});

test('a gateway that keeps refusing gets one resend, then its error as it said it; other failures none', async () => {
  const keeps = await resends(req('kimi-k2-thinking', false), [refused(KIMI_MISSING), refused(KIMI_MISSING)]);
  assert.deepEqual(keeps.replay, [false, true]);
  assert.ok(keeps.error instanceof GatewayError && keeps.error.gatewayMessage === KIMI_MISSING);
  const other = await resends(req('kimi-k2-thinking', false), [refused('Invalid value for messages')]);
  assert.equal(other.sent.length, 1);
});
