/**
 * The one mechanism for "refused before a reply → adjust and send once more"
 * (src/gateway/chat/refusals.ts), as pure functions and a loop over a fake send: the refusal texts
 * (the surface, the parameters: shared/reference/provider-constraints.md's exact words), what counts
 * as a refusal before any reply, the cap, what is learnt and remembered (modelMemory.ts, bounded),
 * and the explanation of a gateway too old for the Responses API. Over HTTP: refusals-http.test.ts,
 * surface-learning-http.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  GatewayError,
  MAX_ADJUSTED_RESENDS,
  ModelMemory,
  adjustmentWords,
  explainSurfaceRefusal,
  parameterLesson,
  saysResponsesOnly,
  type ChatRequest,
  type ChatResult,
  type Learnt,
  type RequestAdjustment,
  type SurfaceMove,
} from '../../src/gateway';
import { chatAdjusting, type Attempt } from '../../src/gateway/chat/refusals';

/** The responses-only model of the simulator (listed with endpoint types ["openai"]). */
const CODEX = 'gpt-5.5-codex';

const refusal = (message: string, status = 400, code?: string, gatewayJson = true) =>
  new GatewayError({
    kind: status >= 500 ? 'server_error' : 'bad_request',
    status,
    message: `HTTP ${status}`,
    reason: 'r',
    fix: 'f',
    gatewayMessage: message,
    gatewayCode: code,
    // said in the gateway's own JSON error (a 5xx that is not may have been billed)
    gatewayJson,
    context: { surface: 'compatible', model: CODEX, url: 'http://x/v1/chat/completions' },
  });

test('the refusal texts of OpenAI, sub2api, new-api Codex channels and Azure say "responses only"; others do not', () => {
  for (const said of [
    'This model is only supported in v1/responses and not in v1/chat/completions.',
    '/v1/chat/completions is not supported. Please use /v1/responses',
    'codex channel: /v1/chat/completions endpoint not supported',
    'codex channel: /v1/messages endpoint not supported (request id: 2026112416)',
    'The chatCompletion operation does not work with the specified model, gpt-5-codex. Please choose different model and try again.',
    'THIS MODEL IS ONLY SUPPORTED IN V1/RESPONSES',
    'Function tools with reasoning_effort are not supported for gpt-5.4 in /v1/chat/completions. Please use /v1/responses instead.',
  ])
    assert.equal(saysResponsesOnly(said), true, said);
  for (const said of [
    'model not found',
    'The model does not support tools',
    'Invalid URL (POST /v1/responses)',
    undefined,
  ])
    assert.equal(saysResponsesOnly(said), false, String(said));
});

test('a responses request answered "Invalid URL (POST /v1/responses)" says the gateway is too old for the Responses API', () => {
  const old = new GatewayError({
    kind: 'not_found',
    status: 404,
    message: 'HTTP 404 not found: /v1/responses.',
    reason: 'The path or the model does not exist',
    fix: 'Check the base URL',
    gatewayMessage: 'Invalid URL (POST /v1/responses)',
    requestId: 'r1',
    context: {
      surface: 'responses',
      model: CODEX,
      url: 'http://x/v1/responses',
      token: 'sk-abcdefghijklmnopqrstuvwxyz',
    },
  });
  const e = explainSurfaceRefusal(old);
  assert.match(e.reason, /too old for the Responses API/);
  assert.match(e.fix, /compatible surface/);
  assert.equal(e.status, 404);
  assert.equal(e.requestId, 'r1');
  assert.equal(e.maskedToken, old.maskedToken);
  assert.equal(e.gatewayMessage, old.gatewayMessage);
  // The same words on another surface, or another 404, are left as they are.
  assert.equal(explainSurfaceRefusal(refusal('model not found', 404)).reason, 'r');
});

test("the parameter refusals in the providers' exact words teach what to send instead; other words teach nothing", () => {
  const rows: Array<[string, string, Learnt]> = [
    // OpenAI (provider-constraints.md §1a, §1b)
    ["Unsupported parameter: 'temperature' is not supported with this model.", 'temperature', { temperature: 'never' }],
    [
      "Unsupported value: 'temperature' does not support 0.7 with this model. Only the default (1) value is supported.",
      'temperature',
      { temperature: 'never' },
    ],
    [
      "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
      'max_tokens',
      { tokenField: 'max_completion_tokens' },
    ],
    [
      "Invalid 'max_output_tokens': integer below minimum value. Expected a value >= 16, but got 1 instead.",
      'max_output_tokens',
      { minOutputTokens: 16 },
    ],
    ['Unrecognized request argument supplied: reasoning_effort', 'reasoning_effort', { dropped: ['reasoning_effort'] }],
    [
      "Unsupported parameter: 'reasoning.effort' is not supported with this model.",
      'reasoning.effort',
      { dropped: ['reasoning_effort'] },
    ],
    ["Unknown parameter: 'store'.", 'store', { dropped: ['store'] }],
    [
      'Unrecognized request argument supplied: max_completion_tokens',
      'max_completion_tokens',
      { tokenField: 'max_tokens' },
    ],
    ['Encrypted content is not supported with this model.', 'include', { dropped: ['include'] }],
    [
      'Your organization must be verified to generate reasoning summaries.',
      'reasoning.summary',
      { dropped: ['reasoning.summary'] },
    ],
    [
      "Unsupported value: 'reasoning_effort' does not support 'minimal' with this model. Supported values are: 'none', 'low', 'medium', and 'high'.",
      'reasoning_effort',
      { efforts: ['none', 'low', 'medium', 'high'] },
    ],
    [
      "Unsupported value: 'minimal' is not supported with the 'gpt-5.1' model. Supported values are: 'none', 'low', 'medium', and 'high'.",
      'reasoning_effort',
      { efforts: ['none', 'low', 'medium', 'high'] },
    ],
    // Anthropic (§2a, §2b)
    ['`temperature` is deprecated for this model.', 'temperature', { temperature: 'never' }],
    [
      '`temperature` and `top_p` cannot both be specified for this model. Please use only one.',
      'temperature',
      { temperature: 'never' },
    ],
    [
      '`temperature` may only be set to 1 when thinking is enabled. Please consult our documentation at https://docs.anthropic.com/en/docs/build-with-claude/extended-thinking#important-considerations-when-using-extended-thinking',
      'temperature',
      { temperature: 'never' },
    ],
    [
      '"thinking.type.enabled" is not supported for this model. Use "thinking.type.adaptive" and "output_config.effort" to control thinking behavior.',
      'thinking',
      { adaptiveThinking: true },
    ],
    ['Thinking may not be enabled when tool_choice forces tool use.', 'tool_choice', { noForcedToolChoice: true }],
    [
      'This model does not support assistant message prefill. The conversation must end with a user message.',
      'prefill',
      { noPrefill: true },
    ],
    [
      'max_tokens: 64000 > 32000, which is the maximum allowed number of output tokens for claude-opus-4-1-20250805',
      'max_tokens',
      { outputCap: 32000 },
    ],
    // DeepSeek, Kimi, Qwen (§3)
    ['Invalid max_tokens value, the valid range of max_tokens is [1, 8192]', 'max_tokens', { outputCap: 8192 }],
    [
      '<400> InternalError.Algo.InvalidParameter: Range of max_tokens should be [1, 8192]',
      'max_tokens',
      { outputCap: 8192 },
    ],
    ['invalid temperature: only 1 is allowed for this model', 'temperature', { temperature: 1 }],
    ['invalid temperature: only 0.6 is allowed for this model', 'temperature', { temperature: 0.6 }],
    ['Thinking mode does not support this tool_choice', 'tool_choice', { noForcedToolChoice: true }],
    ["tool_choice 'required' is incompatible with thinking enabled", 'tool_choice', { noForcedToolChoice: true }],
    [
      '<400> InternalError.Algo.InvalidParameter: The tool_choice parameter does not support being set to required or object in thinking mode',
      'tool_choice',
      { noForcedToolChoice: true },
    ],
  ];
  for (const [said, param, lesson] of rows) assert.deepEqual(parameterLesson(said), { param, lesson }, said);
  for (const said of [
    "Unsupported parameter: 'top_p' is not supported with this model.", // never sent: nothing to leave out
    "Unsupported parameter: 'messages'. In the Responses API, this parameter has moved to 'input'.",
    "Unknown parameter: 'input[3].status'.",
    'Invalid value for messages',
    'model not found',
  ])
    assert.equal(parameterLesson(said), undefined, said);
});

/** A fake send: answers (or throws) in turn, and records what each attempt sent. */
function sender(outcomes: Array<GatewayError | 'ok'>) {
  const sent: Attempt[] = [];
  const send = async (at: Attempt): Promise<ChatResult> => {
    sent.push(at);
    const next = outcomes.shift() ?? 'ok';
    if (next !== 'ok') throw next;
    return {
      text: 'ok',
      toolCalls: [],
      reasoning: '',
      thinking: [],
      finishReason: 'stop',
      usage: undefined,
    } as unknown as ChatResult;
  };
  return { sent, send };
}
const ask = (extra: Partial<ChatRequest> = {}): ChatRequest => ({
  surface: 'compatible',
  model: 'my-model',
  temperature: 0.7,
  maxTokens: 4,
  messages: [{ role: 'user', content: 'hi' }],
  ...extra,
});
const RESPONSES_ONLY_404 = refusal('This model is only supported in v1/responses and not in v1/chat/completions.', 404);
const TEMPERATURE = refusal("Unsupported parameter: 'temperature' is not supported with this model.");
const FLOOR = refusal(
  "Invalid 'max_output_tokens': integer below minimum value. Expected a value >= 32, but got 16 instead.",
);

test('composition: refused for "responses only", then on /v1/responses for temperature, then answered; all remembered', async () => {
  const memory = new ModelMemory();
  const moves: SurfaceMove[] = [];
  const told: RequestAdjustment[] = [];
  const { sent, send } = sender([RESPONSES_ONLY_404, TEMPERATURE, 'ok']);
  const ctx = {
    memory,
    maxTokens: 4096,
    onMove: (m: SurfaceMove) => moves.push(m),
    onAdjustment: (a: RequestAdjustment) => told.push(a),
  };
  const r = await chatAdjusting(ask(), ctx, send);
  assert.deepEqual(
    sent.map((a) => [a.req.surface, a.learnt]),
    [
      ['compatible', undefined],
      ['responses', { surface: 'responses' }],
      ['responses', { surface: 'responses', temperature: 'never' }],
    ],
  );
  assert.deepEqual(r.surfaceMove, { model: 'my-model', from: 'compatible', to: 'responses', learntNow: true });
  assert.deepEqual(r.adjustments, [
    { model: 'my-model', param: 'temperature', change: 'not_sent', source: 'learnt', learntNow: true },
    { model: 'my-model', param: 'max_output_tokens', change: 'set', to: 16, source: 'known' },
  ]);
  assert.deepEqual(told, [r.adjustments![0]], 'the listener hears what the gateway taught');
  assert.match(
    adjustmentWords(r.adjustments![0]),
    /refused temperature for my-model: the request was sent again without it/,
  );
  assert.deepEqual(memory.of('my-model'), { surface: 'responses', temperature: 'never' });

  // The next request is built right the first time: on /v1/responses, without temperature.
  const next = sender(['ok']);
  const again = await chatAdjusting(ask(), ctx, next.send);
  assert.equal(next.sent.length, 1);
  assert.deepEqual(next.sent[0].req.surface, 'responses');
  assert.deepEqual(next.sent[0].learnt, { surface: 'responses', temperature: 'never' });
  assert.equal(again.surfaceMove?.learntNow, false);
  assert.equal(again.adjustments?.[0].learntNow, undefined, 'remembered, not learnt now');
  assert.match(
    adjustmentWords(again.adjustments![0]),
    /temperature was not sent: this gateway refused it for my-model earlier/,
  );
});

test(`the cap: at most ${MAX_ADJUSTED_RESENDS} adjusted resends per call; a third refusal is thrown as the gateway said it`, async () => {
  const memory = new ModelMemory();
  const { sent, send } = sender([RESPONSES_ONLY_404, TEMPERATURE, FLOOR, 'ok']);
  const e = await chatAdjusting(ask(), { memory, maxTokens: 4096 }, send).catch((x: unknown) => x);
  assert.equal(sent.length, 3);
  assert.ok(e instanceof GatewayError);
  assert.match(e.gatewayMessage ?? '', /Expected a value >= 32/);
  // What was learnt before the cap stays learnt; the third lesson was not taken.
  assert.deepEqual(memory.of('my-model'), { surface: 'responses', temperature: 'never' });
});

test('each adjustment at most once: the same refusal after its adjustment is final', async () => {
  const { sent, send } = sender([TEMPERATURE, TEMPERATURE, 'ok']);
  const e = await chatAdjusting(ask(), { memory: new ModelMemory(), maxTokens: 4096 }, send).catch((x: unknown) => x);
  assert.equal(sent.length, 2);
  assert.ok(e instanceof GatewayError);
});

test('never sent again: a refusal after any reply byte (a 200), a 5xx that may have been billed, other words, or a resend that would send the same body', async () => {
  for (const [why, e] of [
    [
      'said inside a reply that began',
      refusal("Unsupported parameter: 'temperature' is not supported with this model.", 200),
    ],
    [
      'a 502 page: may have been billed',
      refusal('This model is only supported in v1/responses', 502, undefined, false),
    ],
    [
      'a 500 in the gateway JSON that is not a conversion failure',
      refusal('This model is only supported in v1/responses', 500),
    ],
    ['another refusal', refusal('model not found', 404)],
    ['top_p is never sent', refusal("Unsupported parameter: 'top_p' is not supported with this model.")],
  ] as const) {
    const { sent, send } = sender([e, 'ok']);
    await chatAdjusting(ask(), { memory: new ModelMemory(), maxTokens: 4096 }, send).catch(() => undefined);
    assert.equal(sent.length, 1, why);
  }
  // Already sent without temperature: that refusal cannot be helped by leaving it out.
  const { sent, send } = sender([TEMPERATURE, 'ok']);
  await chatAdjusting(ask({ temperature: undefined }), { memory: new ModelMemory(), maxTokens: 4096 }, send).catch(
    () => undefined,
  );
  assert.equal(sent.length, 1);
  // new-api's conversion failure (a 500 before anything went upstream) moves a responses-only model.
  const codex = sender([
    refusal('codex channel: /v1/chat/completions endpoint not supported', 500, 'convert_request_failed'),
    'ok',
  ]);
  await chatAdjusting(ask(), { memory: new ModelMemory(), maxTokens: 4096 }, codex.send);
  assert.deepEqual(
    codex.sent.map((a) => a.req.surface),
    ['compatible', 'responses'],
  );
});

test('a request already on /v1/responses is never moved; a request asking for the responses surface keeps it', async () => {
  const { sent, send } = sender([RESPONSES_ONLY_404, 'ok']);
  await chatAdjusting(ask({ surface: 'responses' }), { memory: new ModelMemory(), maxTokens: 4096 }, send).catch(
    () => undefined,
  );
  assert.equal(sent.length, 1);
});

test('the memory is bounded (the oldest learnt goes first), lessons add up, and a changed model list forgets it; the same list keeps it', () => {
  const memory = new ModelMemory(3);
  const list = [{ id: 'a', endpointTypes: ['openai'] }, { id: 'b' }];
  memory.listed(list);
  for (const m of ['m1', 'm2', 'm3', 'm4']) memory.learn(m, { surface: 'responses' });
  assert.deepEqual(
    memory.entries().map((e) => e.model),
    ['m2', 'm3', 'm4'],
  );
  memory.learn('m2', { dropped: ['include'] });
  memory.learn('m2', { dropped: ['store'], temperature: 'never' });
  assert.deepEqual(memory.of('m2'), { surface: 'responses', dropped: ['include', 'store'], temperature: 'never' });
  assert.deepEqual(
    memory.surfaces().map((e) => e.model),
    ['m3', 'm4', 'm2'],
    'a lesson makes the model the newest',
  );
  memory.listed([...list].reverse());
  assert.equal(memory.size, 3, 'the same list in another order');
  memory.listed([{ id: 'a', endpointTypes: ['openai', 'openai-response'] }, { id: 'b' }]);
  assert.equal(memory.size, 0, 'an endpoint type changed');
  memory.learn('m1', { surface: 'responses' });
  memory.listed([{ id: 'a', endpointTypes: ['openai', 'openai-response'] }]);
  assert.equal(memory.of('m1'), undefined, 'a model left the list');
});
