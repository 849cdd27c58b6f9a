/**
 * The client never sends what is refused, over real HTTP (issue 38 §2): the simulator behind a strict
 * upstream that refuses with the reference's exact bodies (refusingUpstream.ts;
 * shared/reference/provider-constraints.md §1b). The reproductions of the issue — temperature on
 * /v1/responses for a codex model, encrypted reasoning asked of a model without reasoning on every
 * request — and the one loop's composition, memory and cap, streamed and not.
 */
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import type { ChatEvent, ChatRequest, ChatResult } from '../../src/gateway';
import { useSimulator } from '../sim/profiles';
import { collect, makeClient, thrown } from './helpers';
import { openAiError, startRefusingUpstream, type RefusingUpstream } from './refusingUpstream';

const sim = useSimulator();
let up: RefusingUpstream;
before(async () => {
  up = await startRefusingUpstream(sim);
});
after(() => up.close());
beforeEach(() => up.reset());

type Json = Record<string, any>;
/** §1b: the reasoning family refuses a temperature other than 1 on /v1/responses. */
const reasoningFamily = (model: unknown) => /^(o\d|gpt-5)|codex/i.test(String(model));
const TEMPERATURE_REFUSED = openAiError(
  "Unsupported parameter: 'temperature' is not supported with this model.",
  'temperature',
);
const refuseTemperature = (when: (b: Json) => boolean = (b) => reasoningFamily(b.model)) =>
  up.refuse({
    path: '/v1/responses',
    when: (b) => when(b) && 'temperature' in b && b.temperature !== 1,
    status: 400,
    body: TEMPERATURE_REFUSED,
  });
const client = () => makeClient(sim(), { baseUrl: up.url }).client;
const calls = () => up.received.filter((r) => r.path !== '/v1/models');
const done = (events: ChatEvent[]): ChatResult => {
  const last = events.at(-1);
  assert.ok(last?.type === 'done');
  return last.result;
};

for (const temperature of [0.7, 0]) {
  test(`issue 38: temperature ${temperature} (the chat panel's, inline suggestions') is never sent to gpt-5.5-codex on /v1/responses`, async () => {
    refuseTemperature();
    const c = client();
    const req: ChatRequest = {
      surface: 'responses',
      model: 'gpt-5.5-codex',
      temperature,
      messages: [{ role: 'user', content: 'hi' }],
    };
    const r = await c.chat(req);
    assert.match(r.text, /hi/);
    const streamed = done(await collect(c.chatStream(req)));
    assert.match(streamed.text, /hi/);
    // From the chat panel's surface: refused there (responses only), moved, still without temperature.
    await c.chat({ ...req, surface: 'compatible' });
    assert.deepEqual(
      calls().map((x) => [x.path, 'temperature' in x.body, x.refused]),
      [
        ['/v1/responses', false, false],
        ['/v1/responses', false, false],
        ['/v1/chat/completions', false, false],
        ['/v1/responses', false, false],
      ],
    );
    assert.deepEqual(r.adjustments, [
      { model: 'gpt-5.5-codex', param: 'temperature', change: 'not_sent', source: 'known' },
    ]);
  });
}

test('issue 38: encrypted reasoning is not asked of gpt-4o-mini on any request (no refusal, no second round trip)', async () => {
  const c = client();
  for (let i = 0; i < 3; i++)
    await c.chat({ surface: 'responses', model: 'gpt-4o-mini', messages: [{ role: 'user', content: `n${i}` }] });
  assert.deepEqual(
    calls().map((x) => ('include' in x.body ? 'include' : 'none')),
    ['none', 'none', 'none'],
  );
  assert.deepEqual(
    sim()
      .log.filter((x) => x.path === '/v1/responses')
      .map((x) => x.status),
    [200, 200, 200],
  );
});

/**
 * A model that answers only on /v1/responses (as gpt-5.5-codex does) for the test's length: one that
 * reasons (the simulator gives it encrypted reasoning) and whose sampling the table does not know.
 */
function responsesOnly(t: { after: (fn: () => void) => void }, id = 'deepseek-reasoner'): string {
  const m = sim().config.models.find((x) => x.id === id)!;
  const caps = m.capabilities;
  m.capabilities = ['responses'];
  t.after(() => void (m.capabilities = caps));
  return id;
}

for (const streamed of [false, true]) {
  test(`composition${streamed ? ' (streamed)' : ''}: refused for "responses only", then on /v1/responses for temperature, then answered; the next request is built right first time`, async (t) => {
    const model = responsesOnly(t);
    refuseTemperature((b) => b.model === model);
    const c = client();
    const req: ChatRequest = {
      surface: 'compatible',
      model,
      temperature: 0.4,
      messages: [{ role: 'user', content: 'compose' }],
    };
    const send = async () => (streamed ? done(await collect(c.chatStream(req))) : c.chat(req));
    const r = await send();
    assert.match(r.text, /compose/);
    assert.deepEqual(r.surfaceMove, { model, from: 'compatible', to: 'responses', learntNow: true });
    assert.deepEqual(r.adjustments, [
      { model, param: 'temperature', change: 'not_sent', source: 'learnt', learntNow: true },
    ]);
    assert.deepEqual(
      sim().log.map((x) => `${x.path} ${x.status}`),
      ['/v1/chat/completions 404', '/v1/responses 200'],
    );
    assert.deepEqual(
      calls().map((x) => `${x.path} ${x.refused ? 'refused' : 'passed'} ${'temperature' in x.body}`),
      ['/v1/chat/completions passed true', '/v1/responses refused true', '/v1/responses passed false'],
    );
    up.received.length = 0;
    const again = await send();
    assert.equal(again.surfaceMove?.learntNow, false);
    assert.deepEqual(
      calls().map((x) => `${x.path} ${'temperature' in x.body}`),
      ['/v1/responses false'],
      'remembered per gateway and model: straight to /v1/responses, without temperature',
    );
  });
}

test('the cap: a third refusal in one call is thrown (two adjusted resends at most), and what was learnt stays', async (t) => {
  const model = responsesOnly(t);
  refuseTemperature((b) => b.model === model);
  up.refuse({
    path: '/v1/responses',
    when: (b) => b.model === model && b.max_output_tokens < 64,
    status: 400,
    body: openAiError(
      `Invalid 'max_output_tokens': integer below minimum value. Expected a value >= 64, but got 16 instead.`,
      'max_output_tokens',
      'integer_below_min_value',
    ),
  });
  const c = client();
  const req: ChatRequest = {
    surface: 'compatible',
    model,
    temperature: 0.4,
    maxTokens: 16,
    messages: [{ role: 'user', content: 'cap' }],
  };
  const e = await thrown(() => c.chat(req));
  assert.equal(e.status, 400);
  assert.match(e.gatewayMessage, /Expected a value >= 64/);
  assert.deepEqual(
    calls().map((x) => `${x.path} ${x.refused ? 'refused' : 'passed'}`),
    ['/v1/chat/completions passed', '/v1/responses refused', '/v1/responses refused'],
  );
  assert.equal(c.learntSurface(model), 'responses');
  // The next call starts from what was learnt, and has its own cap: the floor is learnt now.
  up.received.length = 0;
  const r = await c.chat(req);
  assert.match(r.text, /cap/);
  assert.deepEqual(
    calls().map((x) => [x.refused, x.body.max_output_tokens, 'temperature' in x.body]),
    [
      [true, 16, false],
      [false, 64, false],
    ],
  );
});

test('never sent again: a refusal inside an answer that began (a 200 stream), or a 5xx page that may have been billed', async (t) => {
  const model = responsesOnly(t);
  const c = client();
  const req: ChatRequest = { surface: 'responses', model, messages: [{ role: 'user', content: 'one two three four' }] };
  sim().fault({
    kind: 'midStreamError',
    afterEvents: 3,
    message: "Unsupported parameter: 'temperature' is not supported with this model.",
    errorType: 'invalid_request_error',
    count: 1,
  });
  const inStream = await thrown(() => collect(c.chatStream({ ...req, temperature: 0.2 })));
  assert.equal(inStream.detail, 'stream_error_event');
  sim().fault({ kind: 'proxyPage', status: 504, count: 1 });
  const page = await thrown(() => c.chat({ ...req, temperature: 0.2 }));
  assert.equal(page.status, 504);
  assert.equal(page.mayHaveBeenBilled, true);
  assert.deepEqual(
    sim().log.map((x) => x.path),
    ['/v1/responses', '/v1/responses'],
    'one request each',
  );
  assert.equal(c.learntFor(model), undefined, 'nothing learnt from either');
});
