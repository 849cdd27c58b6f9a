/**
 * Errors keep their meaning wherever the gateway says them (issue 21, review D2): an error event
 * inside a 200 stream (OpenAI-shaped `{"error":…}` chunk, Anthropic `event: error`) and an error
 * object in a 200 body are classified exactly as the same error answered as an HTTP status; only a
 * stream that broke off is `stream_interrupted`. 408/409 are retried like 429 and `x-should-retry`
 * is honoured, never re-sending a billed call; a body that cannot be built never counts as sent;
 * `cause` is ES2022's.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { inspect } from 'node:util';
import { startSimulator, type Simulator } from '../sim/server';
import { collect, makeClient, thrown } from './helpers';
import { DEFAULT_RETRY, deliveryOf, errorFromResponse, GatewayError, shouldRetry, Transport } from '../../src/gateway';
import type { Surface } from '../../src/gateway';

let strict: Simulator;
before(async () => {
  strict = await startSimulator({ profile: 'strict' });
});
after(() => strict.close());

const model = (s: Surface) => (s === 'native' ? 'claude-sonnet-4-5' : 'gpt-4o-mini');
const hello = (surface: Surface) => ({
  surface,
  model: model(surface),
  messages: [{ role: 'user' as const, content: 'a b c d e f g' }],
});

/** What the gateway says, the HTTP status that says the same, and what it must mean. */
const SAID: Array<{
  name: string;
  errorType: string;
  code?: string;
  message: string;
  status: number;
  kind: string;
  detail?: string;
}> = [
  {
    name: 'context too long (OpenAI)',
    errorType: 'invalid_request_error',
    code: 'context_length_exceeded',
    message: "This model's maximum context length is 128000 tokens. However, your messages resulted in 130001 tokens.",
    status: 400,
    kind: 'bad_request',
    detail: 'context_too_long',
  },
  {
    name: 'context too long (Anthropic)',
    errorType: 'invalid_request_error',
    message: 'prompt is too long: 200001 tokens > 200000 maximum',
    status: 400,
    kind: 'bad_request',
    detail: 'context_too_long',
  },
  {
    name: 'quota (OpenAI insufficient_quota)',
    errorType: 'insufficient_quota',
    code: 'insufficient_quota',
    message: 'You exceeded your current quota, please check your plan and billing details.',
    status: 403,
    kind: 'forbidden',
    detail: 'insufficient_quota',
  },
  {
    name: 'quota (new-api, 额度)',
    errorType: 'new_api_error',
    code: 'insufficient_user_quota',
    message: '用户额度不足, 剩余额度: ＄0.000000',
    status: 403,
    kind: 'forbidden',
    detail: 'wallet_empty',
  },
  {
    name: 'invalid key',
    errorType: 'authentication_error',
    message: 'invalid x-api-key',
    status: 401,
    kind: 'unauthorized',
  },
  {
    name: 'rate limit',
    errorType: 'rate_limit_error',
    message: 'Number of request tokens has exceeded your per-minute rate limit',
    status: 429,
    kind: 'rate_limited',
  },
  { name: 'overloaded', errorType: 'overloaded_error', message: 'Overloaded', status: 500, kind: 'server_error' },
  {
    name: 'upstream (new-api)',
    errorType: 'new_api_error',
    code: 'upstream_error',
    message: 'upstream error: do request failed',
    status: 502,
    kind: 'server_error',
  },
];

/** The same words as an HTTP status answer. */
function asStatus(s: (typeof SAID)[number], surface: Surface): GatewayError {
  return errorFromResponse({
    status: s.status,
    headers: {},
    body: JSON.stringify({ error: { message: s.message, type: s.errorType, code: s.code } }),
    context: { surface, model: model(surface) },
  });
}

for (const surface of ['compatible', 'native'] as const) {
  for (const s of SAID) {
    test(`${surface}: "${s.name}" inside a 200 stream means what it means as HTTP ${s.status} (${s.kind})`, async () => {
      const { client } = makeClient(strict);
      strict.reset();
      strict.fault({
        kind: 'midStreamError',
        afterEvents: 3,
        message: s.message,
        errorType: s.errorType,
        code: s.code,
      });
      const err = (await thrown(() => collect(client.chatStream(hello(surface))))) as GatewayError;
      const same = asStatus(s, surface);
      assert.equal(err.kind, s.kind, err.message);
      assert.notEqual(err.kind, 'stream_interrupted');
      assert.equal(err.detail, s.detail ?? 'stream_error_event');
      assert.equal(err.kind, same.kind);
      assert.equal(err.reason, same.reason, 'the same reason as the HTTP status');
      assert.equal(err.fix, same.fix, 'the same fix as the HTTP status');
      assert.equal(err.gatewayMessage, s.message);
      assert.match(err.message, /stream carried an error/);
    });
  }
}

for (const s of SAID) {
  test(`"${s.name}" in a 200 JSON body is classified by what it says (${s.kind}), not as a bad request`, async () => {
    const { client } = makeClient(strict);
    strict.reset();
    strict.fault({ kind: 'okJson', message: s.message, errorType: s.errorType, code: s.code ?? '', count: 1 });
    const err = (await thrown(() => client.chat(hello('compatible')))) as GatewayError;
    const same = asStatus(s, 'compatible');
    assert.equal(err.kind, s.kind, err.message);
    assert.equal(err.status, 200);
    assert.equal(err.reason, same.reason);
    assert.equal(err.fix, same.fix);
    assert.match(err.message, /^HTTP 200 carrying an error/);
  });
}

test('an OpenAI-style 429 insufficient_quota is a quota refusal: not a rate limit, never retried', async () => {
  const e = errorFromResponse({
    status: 429,
    headers: {},
    body: JSON.stringify({ error: { message: 'You exceeded your current quota', type: 'insufficient_quota' } }),
    context: {},
  });
  assert.equal(e.kind, 'forbidden');
  assert.equal(e.detail, 'insufficient_quota');
  assert.equal(shouldRetry(e, 0, DEFAULT_RETRY), false);
});

test("new-api's 500 convert_request_failed is no fault on any surface: explained per surface, never retried", () => {
  const body = JSON.stringify({
    error: { message: 'not implemented', type: 'new_api_error', code: 'convert_request_failed' },
  });
  for (const surface of ['compatible', 'native', 'responses'] as const) {
    const e = errorFromResponse({ status: 500, headers: {}, body, context: { surface, model: 'gpt-5.5-codex' } });
    assert.equal(e.kind, 'bad_request', surface);
    assert.equal(e.detail, 'convert_request_failed', surface);
    assert.equal(shouldRetry(e, 0, DEFAULT_RETRY), false, surface);
    assert.match(e.reason, /channel/, surface);
  }
});

test('a stream that broke off stays stream_interrupted (truncated, reset, idle), on both surfaces', async () => {
  for (const surface of ['compatible', 'native'] as const) {
    for (const fault of [
      { kind: 'truncate' as const, afterEvents: 3 },
      { kind: 'reset' as const, afterEvents: 3 },
    ]) {
      strict.reset();
      strict.fault(fault);
      const { client } = makeClient(strict, { retry: { maxRetries: 0 } });
      const err = (await thrown(() => collect(client.chatStream(hello(surface))))) as GatewayError;
      assert.equal(err.kind, 'stream_interrupted', `${surface} ${fault.kind}`);
    }
  }
});

test('an event that is not JSON is a protocol error naming the path, not a gateway-said error', async () => {
  const { compatibleSurface } = await import('../../src/gateway/chat/surfaces/compatible');
  assert.deepEqual(compatibleSurface.parseEvent({ data: '<html>' }), [{ type: 'garbled', data: '<html>' }]);
});

// ---- retry: 408 / 409 / x-should-retry (a pure function, as a table) ----

function httpError(status: number, headers: Record<string, string> = {}, body = '') {
  return errorFromResponse({ status, headers, body, context: {}, now: 0 });
}

test('retry table: 408 and 409 like 429 for what cannot be billed, x-should-retry steers, a call that may be billed is re-sent only as the rule allows', () => {
  const o = DEFAULT_RETRY;
  const ownJson = '{"error":{"message":"upstream error","type":"new_api_error","code":""}}';
  const rows: Array<[string, GatewayError, boolean, boolean, boolean]> = [
    // [what, error, retried when free (a GET), when billed (chat), when billed per call (an image)]
    ['408', httpError(408), true, false, false],
    ['409', httpError(409), true, false, false],
    ['408 with Retry-After 2', httpError(408, { 'retry-after': '2' }), true, false, false],
    ['409 with Retry-After beyond the limit', httpError(409, { 'retry-after': '3600' }), false, false, false],
    ['429', httpError(429), true, true, true],
    ['429, x-should-retry: false', httpError(429, { 'x-should-retry': 'false' }), false, false, false],
    ['500, x-should-retry: false', httpError(500, { 'x-should-retry': 'false' }), false, false, false],
    ['400, x-should-retry: true', httpError(400, { 'x-should-retry': 'true' }), true, true, false],
    ['500 (no body), x-should-retry: true', httpError(500, { 'x-should-retry': 'true' }), true, false, false],
    [
      "500 (the gateway's JSON), x-should-retry: true",
      httpError(500, { 'x-should-retry': 'true' }, ownJson),
      true,
      true,
      false,
    ],
    [
      '503 model_not_found',
      httpError(503, {}, '{"error":{"code":"model_not_found","message":"x"}}'),
      false,
      false,
      false,
    ],
    ['400', httpError(400), false, false, false],
  ];
  for (const [what, e, free, billed, perCall] of rows) {
    assert.equal(shouldRetry(e, 0, o, 'free'), free, `${what}: free`);
    assert.equal(shouldRetry(e, 0, o, 'billed'), billed, `${what}: billed`);
    assert.equal(shouldRetry(e, 0, o, 'per_call'), perCall, `${what}: billed per call`);
  }
  assert.equal(httpError(408, { 'retry-after': '2' }).retryAfterMs, 2000);
  assert.equal(deliveryOf(httpError(408)), 'may_be_billed', 'a 408 may have run');
});

test('408 and 409: a model list is retried after the Retry-After wait; a chat is not (the work may still run)', async () => {
  for (const status of [408, 409]) {
    strict.reset();
    strict.fault({ kind: 'status', status, retryAfter: '1', count: 1 });
    const { client, sleeps } = makeClient(strict);
    assert.ok((await client.listModelIds()).length > 0);
    assert.deepEqual(sleeps, [1000], `HTTP ${status}: one retry after Retry-After`);
    strict.reset();
    strict.fault({ kind: 'status', status, retryAfter: '1', count: 1 });
    const chat = makeClient(strict);
    const err = (await thrown(() => chat.client.chat(hello('compatible')))) as GatewayError;
    assert.equal(err.status, status);
    assert.equal(strict.log.length, 1, `HTTP ${status}: a chat is sent once`);
    assert.equal(err.mayHaveBeenBilled, true);
    assert.deepEqual(chat.sleeps, []);
  }
});

test('a billed call answered 408 is not re-sent and is flagged as possibly billed', async () => {
  strict.reset();
  strict.fault({ kind: 'status', status: 408, retryAfter: '0', path: '/v1/images' });
  const { client } = makeClient(strict);
  const err = (await thrown(() => client.generateImage({ model: 'gpt-image-1', prompt: 'a square' }))) as GatewayError;
  assert.equal(err.status, 408);
  assert.equal(strict.log.filter((l) => l.path.startsWith('/v1/images')).length, 1, 'sent once');
  assert.equal(err.mayHaveBeenBilled, true);
});

test('x-should-retry: false from the server stops a retry the policy would make', async () => {
  strict.reset();
  strict.fault({ kind: 'status', status: 503, shouldRetry: 'false', count: 1 });
  const { client } = makeClient(strict);
  const err = (await thrown(() => client.chat(hello('compatible')))) as GatewayError;
  assert.equal(err.status, 503);
  assert.equal(err.serverShouldRetry, false);
  assert.equal(strict.log.length, 1);
});

// ---- a body that could not be built never left the machine ----

test('a failure while building the request body is not a network error and not possibly billed', async () => {
  strict.reset();
  const transport = new Transport({ baseUrl: strict.url, token: () => strict.tokens.production });
  const err = (await thrown(() =>
    transport.open({
      method: 'POST',
      path: '/v1/images/edits',
      surface: 'compatible',
      capability: 'image-edit',
      sideEffecting: true,
      timeoutMs: 5000,
      body: () => {
        throw Object.assign(new Error("ENOENT: no such file or directory, open '/gone.png'"), { code: 'ENOENT' });
      },
    }),
  )) as GatewayError;
  assert.notEqual(err.kind, 'network');
  assert.equal(err.detail, 'request_not_built');
  assert.equal(err.notSent, true);
  assert.equal(err.mayHaveBeenBilled, false);
  assert.equal(err.billingNote(), undefined);
  assert.equal(strict.log.length, 0, 'nothing reached the gateway');
  assert.match(String(err.cause), /ENOENT/);
});

// ---- cause is ES2022's ----

test('GatewayError.cause is the underlying Error (util.inspect shows it); the sentence is `reason`', async () => {
  const { deadPort } = await import('./helpers');
  const port = await deadPort();
  const { client } = makeClient(strict, { baseUrl: `http://127.0.0.1:${port}`, retry: { maxRetries: 0 } });
  const err = (await thrown(() => client.chat(hello('compatible')))) as GatewayError;
  assert.equal(err.kind, 'network');
  assert.ok(err.cause instanceof Error, 'cause is an Error');
  assert.equal(typeof err.reason, 'string');
  assert.match(err.reason, /connections|ECONNREFUSED/);
  assert.match(inspect(err), /\[cause\]/);
  const chained = new Error('outer', { cause: err });
  assert.equal(chained.cause, err);
  assert.equal(err.toJSON().reason, err.reason);
});

test('a token in the underlying error never reaches `cause`', () => {
  const token = 'sk-abcdefghijklmnopqrstuvwxyz0123456789';
  const e = new GatewayError({
    kind: 'network',
    message: 'x',
    reason: 'r',
    fix: 'f',
    context: { token },
    cause: new Error(`connect failed for Bearer ${token}`),
  });
  assert.ok(e.cause instanceof Error);
  assert.doesNotMatch(inspect(e, { depth: 4 }), new RegExp(token.slice(3)));
});
