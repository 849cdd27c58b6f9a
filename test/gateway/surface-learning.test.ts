/**
 * Which surface a model answers on, learnt from the gateway's refusals (src/gateway/chat/surfaceLearning.ts):
 * the refusal texts, what counts as a refusal before any reply, the explanation of a gateway too old
 * for the Responses API, and the bounded memory. Over HTTP: surface-learning-http.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  GatewayError,
  SurfaceMemory,
  explainSurfaceRefusal,
  refusedForResponses,
  saysResponsesOnly,
} from '../../src/gateway';

/** The responses-only model of the simulator (listed with endpoint types ["openai"]). */
const CODEX = 'gpt-5.5-codex';

const refusal = (message: string, status = 400, code?: string) =>
  new GatewayError({
    kind: status >= 500 ? 'server_error' : 'bad_request',
    status,
    message: `HTTP ${status}`,
    reason: 'r',
    fix: 'f',
    gatewayMessage: message,
    gatewayCode: code,
    // said in the gateway's own JSON error, as every refusal here is
    gatewayJson: true,
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

test('only a refusal before any reply moves a request: a 4xx or a conversion failure, never a 200 stream error or a request already on responses', () => {
  const said = 'This model is only supported in v1/responses and not in v1/chat/completions.';
  assert.equal(refusedForResponses(refusal(said), 'compatible'), true);
  assert.equal(refusedForResponses(refusal(said), 'native'), true);
  assert.equal(refusedForResponses(refusal(said), 'responses'), false, 'already there');
  assert.equal(refusedForResponses(refusal(said, 200), 'compatible'), false, 'said inside a reply that began');
  assert.equal(refusedForResponses(refusal(said, 502), 'compatible'), false, 'a fault, not a refusal');
  const codex = 'codex channel: /v1/chat/completions endpoint not supported';
  assert.equal(refusedForResponses(refusal(codex, 500, 'convert_request_failed'), 'compatible'), true);
  assert.equal(refusedForResponses(refusal('model not found', 404), 'compatible'), false);
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

test('the memory is bounded (the oldest learnt goes first) and a changed model list forgets it; the same list keeps it', () => {
  const memory = new SurfaceMemory(3);
  const list = [{ id: 'a', endpointTypes: ['openai'] }, { id: 'b' }];
  memory.listed(list);
  for (const m of ['m1', 'm2', 'm3', 'm4']) memory.learn(m, 'responses');
  assert.deepEqual(
    memory.entries().map((e) => e.model),
    ['m2', 'm3', 'm4'],
  );
  memory.listed([...list].reverse());
  assert.equal(memory.size, 3, 'the same list in another order');
  memory.listed([{ id: 'a', endpointTypes: ['openai', 'openai-response'] }, { id: 'b' }]);
  assert.equal(memory.size, 0, 'an endpoint type changed');
  memory.learn('m1', 'responses');
  memory.listed([{ id: 'a', endpointTypes: ['openai', 'openai-response'] }]);
  assert.equal(memory.of('m1'), undefined, 'a model left the list');
});
