import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  DEFAULT_RETRY,
  GatewayError,
  Limiter,
  errorFromResponse,
  isBurst,
  maskToken,
  parseErrorBody,
  parseProgress,
  phaseOf,
  pollDelayMs,
  redactSecrets,
  retryAfterFrom,
  retryDelayMs,
  shouldRetry,
  compatibleSurface,
  nativeSurface,
  storedTokenShapeProblems,
  tokenShapeProblem,
  tokenShapeWarning,
} from '../../src/gateway';

const TOKEN = 'sk-abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHwxyz';

test('maskToken: first 6, ..., last 4', () => {
  assert.equal(maskToken(TOKEN), 'sk-abc...wxyz');
  assert.equal(maskToken(undefined), '(none)');
  assert.ok(!maskToken('sk-short').includes('short'));
  assert.equal(redactSecrets(`key ${TOKEN} here`, [TOKEN]), 'key sk-abc...wxyz here');
  assert.equal(redactSecrets(`Incorrect API key provided: ${TOKEN}`, []), 'Incorrect API key provided: sk-abc...wxyz');
});

test('error bodies: OpenAI, Anthropic, new-api task, HTML, plain text', () => {
  assert.deepEqual(parseErrorBody('{"error":{"message":"m","type":"t","code":"c"}}'), {
    html: false,
    message: 'm',
    type: 't',
    code: 'c',
    envelope: true,
  });
  assert.deepEqual(parseErrorBody('{"type":"error","error":{"type":"not_found_error","message":"nf"}}'), {
    html: false,
    message: 'nf',
    type: 'not_found_error',
    code: undefined,
    envelope: true,
  });
  assert.deepEqual(parseErrorBody('{"code":"task_not_exist","message":"task_not_exist","data":null}'), {
    html: false,
    message: 'task_not_exist',
    code: 'task_not_exist',
    type: undefined,
  });
  assert.equal(parseErrorBody('<!DOCTYPE html><html><title>Console</title></html>').html, true);
  assert.equal(parseErrorBody('upstream connect error').message, 'upstream connect error');
});

test('status → kind, with cause and fix for each row of spec section 7', () => {
  const kinds: Array<[number, string, string]> = [
    [400, 'bad_request', '{"error":{"message":"bad"}}'],
    [401, 'unauthorized', '{"error":{"message":"Invalid token (request id: 2026X)","type":"new_api_error","code":""}}'],
    [403, 'forbidden', '{"error":{"message":"This token has no access to model m"}}'],
    [404, 'not_found', '{"error":{"message":"Invalid URL (POST /v1/v1/messages)"}}'],
    [413, 'payload_too_large', ''],
    [429, 'rate_limited', ''],
    [500, 'server_error', 'oops'],
    [529, 'server_error', '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}'],
  ];
  for (const [status, kind, body] of kinds) {
    const e = errorFromResponse({ status, headers: {}, body, context: { model: 'm' } });
    assert.equal(e.kind, kind, `status ${status}`);
    assert.ok(e.reason.length > 20 && e.fix.length > 10, `cause/fix for ${status}`);
  }
  const e401 = errorFromResponse({ status: 401, headers: {}, body: kinds[1][2], context: {} });
  assert.equal(e401.requestId, '2026X');
  assert.equal(e401.gatewayMessage, 'Invalid token');
  const e404 = errorFromResponse({
    status: 404,
    headers: {},
    body: '',
    context: { url: 'http://h/v1/v1/messages', surface: 'native' },
  });
  assert.equal(e404.detail, 'double_v1');
  assert.match(e404.reason, /\/v1\/v1\/messages/);
  const mnf = errorFromResponse({
    status: 503,
    headers: {},
    body: '{"error":{"message":"No available channel for model x under group g (distributor)","type":"new_api_error","code":"model_not_found"}}',
    context: { model: 'x' },
  });
  assert.equal(mnf.kind, 'forbidden');
  assert.equal(mnf.detail, 'model_not_found_503');
  const html = errorFromResponse({
    status: 200,
    headers: { 'content-type': 'text/html' },
    body: '<html><title>Console</title></html>',
    context: {},
  });
  assert.equal(html.kind, 'protocol');
  assert.match(html.message, /web page, not its API/);
  assert.doesNotMatch(html.message, /unexpected token/i);
});

test('retry-after parsing: retry-after-ms, seconds, HTTP date', () => {
  assert.equal(retryAfterFrom({ 'retry-after-ms': '1500', 'retry-after': '9' }), 1500);
  assert.equal(retryAfterFrom({ 'retry-after': '3' }), 3000);
  const now = Date.parse('2026-11-22T10:00:00Z');
  assert.equal(retryAfterFrom({ 'retry-after': 'Sun, 22 Nov 2026 10:00:05 GMT' }, now), 5000);
  assert.equal(retryAfterFrom({}), undefined);
  assert.equal(retryAfterFrom({ 'retry-after': 'soon' }), undefined);
});

test('shouldRetry table', () => {
  const mk = (status: number, extra: Partial<{ code: string; notSent: boolean; retryAfter: string }> = {}) =>
    errorFromResponse({
      status,
      headers: extra.retryAfter ? { 'retry-after': extra.retryAfter } : {},
      body: extra.code ? JSON.stringify({ error: { message: 'x', code: extra.code } }) : '',
      context: {},
    });
  const o = DEFAULT_RETRY;
  for (const s of [400, 401, 403, 404, 413]) assert.equal(shouldRetry(mk(s), 0, o), false, `never retry ${s}`);
  for (const s of [429, 500, 502, 503, 504, 529]) assert.equal(shouldRetry(mk(s), 0, o), true, `retry ${s}`);
  assert.equal(shouldRetry(mk(503, { code: 'model_not_found' }), 0, o), false, '503 model_not_found is final');
  assert.equal(shouldRetry(mk(429), 2, o), false, 'bounded by maxRetries');
  assert.equal(shouldRetry(mk(429, { retryAfter: '3600' }), 0, o), false, 'a Retry-After beyond the limit is final');
  const refused = new GatewayError({ kind: 'network', message: 'x', reason: 'x', fix: 'x', notSent: true });
  const reset = new GatewayError({ kind: 'network', message: 'x', reason: 'x', fix: 'x', notSent: false });
  assert.equal(shouldRetry(refused, 0, o, 'per_call'), true, 'side-effecting: retried when never sent');
  assert.equal(shouldRetry(reset, 0, o, 'per_call'), false, 'side-effecting: not retried when it may have arrived');
  assert.equal(shouldRetry(mk(500), 0, o, 'per_call'), false, 'side-effecting: never on 5xx');
});

test('retryDelayMs: Retry-After wins, else full jitter within an exponential cap, never zero', () => {
  assert.equal(retryDelayMs(0, 2000, DEFAULT_RETRY), 2000);
  assert.equal(retryDelayMs(0, 0, DEFAULT_RETRY), 50);
  for (let a = 0; a < 6; a++) {
    const cap = Math.min(DEFAULT_RETRY.maxDelayMs, DEFAULT_RETRY.baseDelayMs * 2 ** a);
    assert.ok(retryDelayMs(a, undefined, DEFAULT_RETRY, () => 0) >= 100);
    assert.equal(
      retryDelayMs(a, undefined, DEFAULT_RETRY, () => 1),
      cap,
    );
  }
});

test('video status and progress normalisation', () => {
  assert.equal(phaseOf('queued'), 'queued');
  assert.equal(phaseOf('in_progress'), 'in_progress');
  assert.equal(phaseOf('completed'), 'completed');
  assert.equal(phaseOf('failed'), 'failed');
  assert.equal(phaseOf('unknown'), 'in_progress');
  assert.equal(phaseOf('some_new_state'), 'in_progress');
  assert.equal(phaseOf('running'), 'in_progress', 'one name per state');
  assert.equal(parseProgress('30%'), 30);
  assert.equal(parseProgress(45), 45);
  assert.equal(parseProgress('n/a'), undefined);
  assert.ok(pollDelayMs(0, undefined, { random: () => 0 }) >= 1000, 'never high-frequency');
  assert.ok(pollDelayMs(10, undefined, { random: () => 1 }) <= 30000);
  assert.equal(pollDelayMs(0, 9000, { random: () => 0 }), 9000, 'server hint honoured');
});

test('burst detection', () => {
  assert.equal(isBurst([600, 601, 601, 602, 602], 605), true, 'all at the end after a wait');
  assert.equal(isBurst([50, 150, 250, 350, 450], 460), false, 'spread out');
  assert.equal(isBurst([1, 1, 2, 2, 2], 3), false, 'fast but no wait: a fast local stream');
  assert.equal(isBurst([900, 901], 902), false, 'too few events to judge');
});

test('surface translation: system prompt and max_tokens', () => {
  const req = {
    surface: 'compatible' as const,
    model: 'm',
    system: 'be brief',
    messages: [{ role: 'user' as const, content: 'hi' }],
    temperature: 0.2,
  };
  const c = compatibleSurface.toRequest(req, { maxTokens: 4096 });
  assert.deepEqual(c.messages, [
    { role: 'system', content: 'be brief' },
    { role: 'user', content: 'hi' },
  ]);
  assert.equal(c.max_tokens, undefined);
  const n = nativeSurface.toRequest({ ...req, surface: 'native' }, { maxTokens: 4096 });
  assert.equal(n.system, 'be brief');
  assert.deepEqual(n.messages, [{ role: 'user', content: 'hi' }]);
  assert.equal(n.max_tokens, 4096, 'native always sends max_tokens');
  assert.equal(
    nativeSurface.toRequest({ ...req, surface: 'native', maxTokens: 10 }, { maxTokens: 4096 }).max_tokens,
    10,
  );
  assert.deepEqual(nativeSurface.parseEvent({ event: 'ping', data: '{"type":"ping"}' }), []);
  assert.deepEqual(nativeSurface.parseEvent({ event: 'future_event', data: '{"type":"future_event"}' }), []);
  assert.deepEqual(compatibleSurface.parseEvent({ data: '[DONE]' }), [{ type: 'end' }]);
  assert.equal(
    compatibleSurface.parseEvent({ data: '{"error":{"message":"boom","type":"server_error"}}' })[0].type,
    'error',
  );
});

test('Limiter caps concurrency and queues in order', async () => {
  const lim = new Limiter(2);
  let running = 0;
  let peak = 0;
  const order: number[] = [];
  const job = (i: number) =>
    lim.run(async () => {
      running++;
      peak = Math.max(peak, running);
      await new Promise((r) => setTimeout(r, 5));
      order.push(i);
      running--;
    });
  await Promise.all([0, 1, 2, 3, 4].map(job));
  assert.equal(peak, 2);
  assert.deepEqual(order.slice(0, 2).sort(), [0, 1]);
  const ac = new AbortController();
  const blocker = lim.run(() => new Promise((r) => setTimeout(r, 20)));
  const blocker2 = lim.run(() => new Promise((r) => setTimeout(r, 20)));
  const queued = lim.run(async () => 'never', ac.signal);
  ac.abort();
  await assert.rejects(queued);
  await Promise.all([blocker, blocker2]);
  assert.equal(lim.running, 0);
});

test('token shape: one rule set, for the input box and for the diagnosis', () => {
  const table: Array<[string, string | undefined]> = [
    ['', 'empty'],
    ['   ', 'empty'],
    ['Bearer sk-abcdefghijklmnopqrstuvwxyz', 'bearer'],
    ['bearer sk-abcdefghijklmnopqrstuvwxyz', 'bearer'],
    ['"sk-abcdefghijklmnopqrstuvwxyz"', 'quoted'],
    ["sk-abcdefghijklmnopqrstuvwxyz'", 'quoted'],
    ['sk-abcdefghij klmnopqrstuvwxyz', 'whitespace'],
    ['sk-abcdefghij\nklmnopqrstuvwxyz', 'lines'],
    ['sk-abcdefghijklmnopqrstuvwxyz\r\nsk-zyxwvutsrqponmlkjihgfedcba', 'lines'],
    ['sk-abcdefghij\u0000klmnopqrstuvwxyz', 'characters'],
    ['sk-abcdefghij令牌klmnopqrstuvwxyz', 'characters'],
    ['sk-abcdefghij\tklmnopqrstuvwxyz', 'whitespace'],
    ['abcdefghijklmnopqrstuvwxyz0123', 'prefix'],
    ['sk-short', 'short'],
    ['  sk-abcdefghijklmnopqrstuvwxyz  ', undefined],
    ['sk-abcdefghijklmnopqrstuvwxyz', undefined],
  ];
  for (const [value, problem] of table) assert.equal(tokenShapeProblem(value), problem, JSON.stringify(value));
  assert.match(tokenShapeWarning('Bearer sk-abcdefghijklmnopqrstuvwxyz')!, /without "Bearer "/);
  assert.equal(tokenShapeWarning('sk-abcdefghijklmnopqrstuvwxyz'), undefined);
  assert.match(storedTokenShapeProblems('Bearer sk-abcdefghijklmnopqrstuvwxyz')[0], /Bearer Bearer/);
  assert.deepEqual(storedTokenShapeProblems('sk-abcdefghijklmnopqrstuvwxyz'), []);
});
