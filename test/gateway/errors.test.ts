import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBothProfiles } from '../sim/profiles';
import { collect, makeClient, thrown } from './helpers';

const sims = useBothProfiles();

const hi = [{ role: 'user' as const, content: 'hi' }];

for (const profile of ['strict', 'real'] as const) {
  const sim = () => (profile === 'strict' ? sims.strict : sims.real);

  test(`${profile}: 401 for a wrong, disabled or missing token, on both surfaces`, async () => {
    for (const surface of ['compatible', 'native'] as const) {
      const m = surface === 'native' ? 'claude-sonnet-4-5' : 'gpt-4o-mini';
      const wrong = makeClient(sim(), { token: () => 'sk-' + 'x'.repeat(48) });
      const e1 = await thrown(() => wrong.client.chat({ surface, model: m, messages: hi }));
      assert.equal(e1.kind, 'unauthorized');
      assert.equal(e1.status, 401);
      assert.match(e1.reason, surface === 'native' ? /x-api-key/ : /Bearer/);
      assert.match(e1.fix, /token/i);
      const disabled = makeClient(sim(), { tokenName: 'disabled' });
      assert.equal(
        (await thrown(() => disabled.client.chat({ surface, model: m, messages: hi }))).kind,
        'unauthorized',
      );
      const none = makeClient(sim(), { token: () => undefined });
      const e3 = await thrown(() => none.client.chat({ surface, model: m, messages: hi }));
      assert.equal(e3.kind, 'unauthorized');
      assert.equal(e3.notSent, true);
      assert.equal(wrong.records.filter((r) => r.capability !== 'account').length, 1, '401 is never retried');
    }
    if (profile === 'real') {
      const wrong = makeClient(sim(), { token: () => 'sk-' + 'x'.repeat(48) });
      const e = await thrown(() => wrong.client.chat({ surface: 'native', model: 'claude-sonnet-4-5', messages: hi }));
      assert.ok(e.requestId, 'request id parsed from new-api message or header');
      assert.doesNotMatch(e.gatewayMessage, /request id/);
    }
  });

  test(`${profile}: a group that cannot use the model is explained as the 403 case and never retried`, async () => {
    const { client, records } = makeClient(sim());
    const e = await thrown(() => client.chat({ surface: 'compatible', model: 'gpt-4o', messages: hi }));
    assert.equal(e.kind, 'forbidden');
    assert.equal(e.status, profile === 'strict' ? 403 : 503);
    if (profile === 'real') assert.equal(e.detail, 'model_not_found_503');
    assert.match(e.reason, /group/);
    assert.equal(records.length, 1, 'not retried');
    const ids = await client.listModelIds();
    assert.ok(ids.includes('gpt-4o'), 'the model is listed, yet generation is refused (spec 7 rule 1)');
  });

  test(`${profile}: the chat-only group cannot reach the native model`, async () => {
    const { client } = makeClient(sim(), { tokenName: 'test' });
    const e = await thrown(() => client.chat({ surface: 'native', model: 'claude-sonnet-4-5', messages: hi }));
    assert.ok(['forbidden', 'not_found'].includes(e.kind), e.kind);
  });

  test(`${profile}: 404 for an unknown model`, async () => {
    const { client } = makeClient(sim());
    const e = await thrown(() => client.chat({ surface: 'compatible', model: 'no-such-model', messages: hi }));
    assert.ok(['not_found', 'forbidden'].includes(e.kind), e.kind);
    assert.ok(e.fix);
  });

  test(`${profile}: /v1/v1/messages gives 404 explained as an extra /v1`, async () => {
    const { client } = makeClient(sim());
    const e = await thrown(() =>
      client.transport.json({
        method: 'POST',
        path: '/v1/v1/messages',
        surface: 'native',
        capability: 'chat',
        model: 'claude-sonnet-4-5',
        body: '{}',
        json: true,
        timeoutMs: 5000,
      }),
    );
    assert.equal(e.kind, 'not_found');
    assert.equal(e.detail, 'double_v1');
    assert.match(e.reason, /\/v1\/v1\/messages/);
    assert.match(e.fix, /without \/v1/);
  });

  test(`${profile}: 413 for a body over the limit, never retried`, async () => {
    const { client, records } = makeClient(sim());
    const e = await thrown(() =>
      client.chat({
        surface: 'compatible',
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: 'x'.repeat(1_200_000) }],
      }),
    );
    assert.equal(e.kind, 'payload_too_large');
    assert.match(e.fix, /Shorten the context|reduce the image/);
    assert.equal(records.length, 1);
  });

  test(`${profile}: a chat model sent to the image endpoint is a 400 capability mismatch`, async () => {
    const { client } = makeClient(sim());
    const e = await thrown(() => client.generateImage({ model: 'gpt-4o-mini', prompt: 'a cat' }));
    assert.equal(e.kind, 'bad_request');
    assert.equal(e.detail, 'capability_mismatch');
  });
}

test('429 with Retry-After: waits exactly that long, then succeeds', async () => {
  const { client, sleeps, records } = makeClient(sims.strict);
  sims.strict.fault({ kind: 'status', status: 429, retryAfter: '3', count: 2 });
  const r = await client.chat({ surface: 'compatible', model: 'gpt-4o-mini', messages: hi });
  assert.equal(r.text, 'Echo: hi');
  assert.deepEqual(sleeps, [3000, 3000]);
  assert.deepEqual(
    records.map((x) => x.status),
    [429, 429, 200],
  );
});

test('429 with retry-after-ms wins over retry-after', async () => {
  const { client, sleeps } = makeClient(sims.strict);
  sims.strict.fault({ kind: 'status', status: 429, retryAfter: '9', retryAfterMs: '1200', count: 1 });
  await client.chat({ surface: 'compatible', model: 'gpt-4o-mini', messages: hi });
  assert.deepEqual(sleeps, [1200]);
});

test('429 without Retry-After and an empty body (new-api in-memory limiter): backoff with jitter, bounded', async () => {
  const { client, sleeps, records } = makeClient(sims.real);
  sims.real.fault({ kind: 'status', status: 429, body: 'empty' });
  const e = await thrown(() => client.chat({ surface: 'compatible', model: 'gpt-4o-mini', messages: hi }));
  assert.equal(e.kind, 'rate_limited');
  assert.equal(e.attempts, 3, 'first try + 2 retries');
  assert.equal(records.length, 3);
  assert.equal(sleeps.length, 2);
  assert.ok(
    sleeps.every((s) => s > 0),
    'never a retry without delay',
  );
  assert.ok(sleeps[1] >= sleeps[0], 'exponential');
});

test('per-token rate limit from the simulator gives 429 with Retry-After', async () => {
  sims.strict.config.rateLimit = { perToken: 2, windowMs: 60_000 };
  try {
    const { client } = makeClient(sims.strict, { retry: { maxRetries: 0 } });
    await client.chat({ surface: 'compatible', model: 'gpt-4o-mini', messages: hi });
    await client.chat({ surface: 'compatible', model: 'gpt-4o-mini', messages: hi });
    const e = await thrown(() => client.chat({ surface: 'compatible', model: 'gpt-4o-mini', messages: hi }));
    assert.equal(e.kind, 'rate_limited');
    assert.ok(e.retryAfterMs && e.retryAfterMs > 0);
  } finally {
    delete sims.strict.config.rateLimit;
  }
});

test('5xx burst: retried with backoff, then succeeds', async () => {
  const { client, sleeps, records } = makeClient(sims.strict);
  sims.strict.fault({ kind: 'status', status: 500, count: 2 });
  const r = await client.chat({ surface: 'native', model: 'claude-sonnet-4-5', messages: hi });
  assert.equal(r.text, 'Echo: hi');
  assert.equal(sleeps.length, 2);
  assert.deepEqual(
    records.map((x) => x.status),
    [500, 500, 200],
  );
});

test('maxRetries is configurable', async () => {
  const { client, records } = makeClient(sims.strict, { retry: { maxRetries: 0 } });
  sims.strict.fault({ kind: 'status', status: 502, count: 1 });
  const e = await thrown(() => client.chat({ surface: 'compatible', model: 'gpt-4o-mini', messages: hi }));
  assert.equal(e.kind, 'server_error');
  assert.equal(records.length, 1);
});

test('an HTML page where JSON was expected: named as the web page, never "unexpected token"', async () => {
  const { client } = makeClient(sims.strict);
  sims.strict.fault({ kind: 'html' });
  const e = await thrown(() => client.chat({ surface: 'compatible', model: 'gpt-4o-mini', messages: hi }));
  assert.equal(e.kind, 'protocol');
  assert.equal(e.detail, 'html_page');
  assert.match(e.message, /web page, not its API/);
  assert.match(e.fix, /base URL/);
  assert.doesNotMatch(`${e.message} ${e.reason}`, /unexpected token/i);
  sims.strict.fault({ kind: 'html' });
  const e2 = await thrown(() =>
    collect(client.chatStream({ surface: 'native', model: 'claude-sonnet-4-5', messages: hi })),
  );
  assert.equal(e2.detail, 'html_page');
  sims.strict.clearFaults();
  sims.strict.fault({ kind: 'html' });
  assert.equal((await thrown(() => client.listModels())).detail, 'html_page');
});

test('invalid JSON and a 200 with empty choices are classified protocol errors', async () => {
  const { client } = makeClient(sims.strict);
  sims.strict.fault({ kind: 'invalidJson', count: 1 });
  const e1 = await thrown(() => client.chat({ surface: 'compatible', model: 'gpt-4o-mini', messages: hi }));
  assert.equal(e1.kind, 'protocol');
  assert.equal(e1.detail, 'invalid_json');
  sims.strict.fault({ kind: 'emptyChoices', count: 1 });
  const e2 = await thrown(() => client.chat({ surface: 'compatible', model: 'gpt-4o-mini', messages: hi }));
  assert.equal(e2.kind, 'protocol');
  assert.equal(e2.detail, 'empty_choices');
});

test('a connection reset before the answer is a network error; a chat is not re-sent (it may have arrived), a model list is', async () => {
  const { client, records } = makeClient(sims.strict);
  sims.strict.fault({ kind: 'reset', count: 1 });
  const e = await thrown(() => client.chat({ surface: 'compatible', model: 'gpt-4o-mini', messages: hi }));
  assert.equal(e.kind, 'network');
  assert.equal(e.mayHaveBeenBilled, true);
  assert.deepEqual(
    records.map((r) => r.errorKind),
    ['network'],
  );
  sims.strict.fault({ kind: 'reset', count: 1 });
  assert.ok((await client.listModelIds()).length > 0);
  assert.deepEqual(
    records.slice(1).map((r) => r.errorKind ?? r.status),
    ['network', 200],
  );
});

test('a slow gateway hits the chat timeout', async () => {
  const { client } = makeClient(sims.strict, { timeouts: { chatMs: 150 } });
  sims.strict.fault({ kind: 'latency', ms: 1000 });
  const e = await thrown(() => client.chat({ surface: 'compatible', model: 'gpt-4o-mini', messages: hi }));
  assert.equal(e.kind, 'timeout');
  assert.ok(e.reason && e.fix);
});

test('request ids are read from the headers of both profiles', async () => {
  for (const sim of [sims.strict, sims.real]) {
    const { client } = makeClient(sim);
    const e = await thrown(() => client.chat({ surface: 'compatible', model: 'no-such-model', messages: hi }));
    assert.ok(e.requestId, 'request id present');
    const rec = sim.log.at(-1)!;
    assert.equal(e.requestId, rec.requestId);
  }
});

test('onRetry fires where the transport waits: 429 twice gives two notices with the real delays', async () => {
  const { client, sleeps } = makeClient(sims.strict);
  sims.strict.fault({ kind: 'status', status: 429, retryAfter: '3', count: 2 });
  const notices: Array<{
    attempt: number;
    maxRetries: number;
    delayMs: number;
    kind: string;
    status: number | undefined;
  }> = [];
  const r = await client.chat({
    surface: 'compatible',
    model: 'gpt-4o-mini',
    messages: hi,
    onRetry: (n) =>
      notices.push({
        attempt: n.attempt,
        maxRetries: n.maxRetries,
        delayMs: n.delayMs,
        kind: n.error.kind,
        status: n.error.status,
      }),
  });
  assert.equal(r.text, 'Echo: hi');
  assert.deepEqual(notices, [
    { attempt: 1, maxRetries: 2, delayMs: 3000, kind: 'rate_limited', status: 429 },
    { attempt: 2, maxRetries: 2, delayMs: 3000, kind: 'rate_limited', status: 429 },
  ]);
  assert.deepEqual(sleeps, [3000, 3000], 'each notice is followed by exactly that wait');
});

test('onRetry never fires for what is not retried: 503 model_not_found, 401, and the last failed attempt', async () => {
  const notices: number[] = [];
  const onRetry = (n: { attempt: number }) => notices.push(n.attempt);
  const { client } = makeClient(sims.real);
  assert.equal(
    (await thrown(() => client.chat({ surface: 'compatible', model: 'gpt-4o', messages: hi, onRetry }))).detail,
    'model_not_found_503',
  );
  const wrong = makeClient(sims.real, { token: () => 'sk-' + 'x'.repeat(48) });
  assert.equal(
    (await thrown(() => wrong.client.chat({ surface: 'compatible', model: 'gpt-4o-mini', messages: hi, onRetry })))
      .kind,
    'unauthorized',
  );
  assert.deepEqual(notices, []);
  sims.strict.fault({ kind: 'status', status: 500, count: 3 });
  const e = await thrown(() =>
    makeClient(sims.strict).client.chat({ surface: 'compatible', model: 'gpt-4o-mini', messages: hi, onRetry }),
  );
  assert.equal(e.kind, 'server_error');
  assert.deepEqual(notices, [1, 2], 'two retries announced; the third failure is final and announced as the error');
});

test('a throwing onRetry listener does not break the request', async () => {
  const { client } = makeClient(sims.strict);
  sims.strict.fault({ kind: 'status', status: 429, retryAfter: '1', count: 1 });
  const r = await client.chat({
    surface: 'compatible',
    model: 'gpt-4o-mini',
    messages: hi,
    onRetry: () => {
      throw new Error('listener broke');
    },
  });
  assert.equal(r.text, 'Echo: hi');
});

test('3xx: classified as a redirect naming the target host; never followed, never retried', async () => {
  const { client, records } = makeClient(sims.strict);
  sims.strict.fault({
    kind: 'redirect',
    status: 307,
    location: 'https://elsewhere.example.com/v1/chat/completions',
    count: 1,
  });
  const e = await thrown(() => client.chat({ surface: 'compatible', model: 'gpt-4o-mini', messages: hi }));
  assert.equal(e.kind, 'protocol');
  assert.equal(e.detail, 'redirect');
  assert.equal(e.status, 307);
  assert.match(e.message, /redirects \/v1\/chat\/completions to elsewhere\.example\.com/);
  assert.match(e.fix, /https:\/\/elsewhere\.example\.com/);
  assert.doesNotMatch(e.fix, /elsewhere\.example\.com\/v1/, 'the fix names the root address only');
  assert.equal(records.length, 1, 'not retried');
  assert.equal(sims.strict.log.length, 1);
  const host = new URL(sims.strict.url).host;
  sims.strict.fault({ kind: 'redirect', status: 301, location: `https://${host}/v1/models`, count: 1 });
  const e2 = await thrown(() => client.listModels());
  assert.match(e2.reason, /https only/);
});

test('an error body is read up to its cap and the connection closed: a 200 MB error page is never read whole', async () => {
  const { client } = makeClient(sims.strict, { retry: { maxRetries: 2 } });
  sims.strict.fault({ kind: 'hugeError', bytes: 200 * 1024 * 1024, status: 502, count: 3 });
  // (a model list: a proxy's 502 page is retried for it, never for a chat that may have been billed)
  const e = await thrown(() => client.listModels());
  assert.equal(e.kind, 'server_error');
  const pages = sims.strict.log.filter((l) => l.status === 502);
  assert.equal(pages.length, 3, 'three attempts');
  await new Promise((r) => setTimeout(r, 50));
  for (const p of pages) assert.ok((p.bytesSent ?? 0) < 20 * 1024 * 1024, `read ${p.bytesSent} bytes of 200 MB`);
});

test('extra headers with a line break are a configuration error: never sent, never retried or failed over', async () => {
  const { client, records } = makeClient(sims.strict, {
    extraHeaders: { 'X-Team': 'a\r\nX-Injected: 1' },
    backupUrls: [sims.real.url],
  });
  const e = await thrown(() => client.chat({ surface: 'compatible', model: 'gpt-4o-mini', messages: hi }));
  assert.equal(e.kind, 'bad_request');
  assert.equal(e.notSent, true);
  assert.match(e.message, /X-Team contains a line break/);
  assert.match(e.fix, /modelRelay\.extraHeaders/);
  assert.equal(records.length, 0);
  assert.equal(sims.strict.log.length + sims.real.log.length, 0, 'nothing reached either host');
  const badName = makeClient(sims.strict, { extraHeaders: { 'X Team': 'a' } });
  assert.match((await thrown(() => badName.client.listModels())).message, /not a valid HTTP header name/);
});
