/**
 * The one resend rule (src/gateway/http/retryPolicy.ts `deliveryOf` / `mayResend`) and every layer that
 * asks it: a call that may have been billed is never sent again on its own — not by a transport retry,
 * a backup domain, another gateway, a surface move or a reasoning resend — unless it provably never
 * reached the gateway or the gateway refused the work in its own words.
 *
 * The rule as a table; the two reproductions over real HTTP (a proxy's HTML 504 after reading
 * the request, a reset after the body was read: one request in all, across retries, a backup domain and
 * a fallback gateway); the resends the rule still allows; and the layers composed: scripted faults, one
 * per request, drive each combination, and the simulators count the requests that may have been billed
 * (a 2xx answer, or a request whose whole body the gateway took but whose answer was lost): never more
 * than one per user action, and none sent after it.
 */
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import {
  DEFAULT_RETRY,
  GatewayError,
  GatewaySet,
  chatAcross,
  chatStreamAcross,
  deliveryOf,
  errorFromNetwork,
  errorFromResponse,
  failoverWorthy,
  mayResend,
  routesFor,
  shouldRetry,
  type ChatMessage,
  type ChatRequest,
  type Delivery,
  type RequestRecord,
  type ToolSpec,
} from '../../src/gateway';
import { MAX_SENDS_PER_ACTION } from '../../src/gateway/http/action';
import { failsOver } from '../../src/gateway/http/retryPolicy';
import { startSimulator, type Fault, type Simulator, type UsageRecord } from '../sim/server';
import { collect, deadPort, makeClient } from './helpers';

// ---- the rule, as a table ----

const answer = (status: number, body = '', headers: Record<string, string> = {}) =>
  errorFromResponse({ status, headers, body, context: { surface: 'compatible', model: 'gpt-4o-mini' } });
const openAiError = (message: string, type = 'new_api_error', code = '') =>
  JSON.stringify({
    error: { message: `${message} (request id: 2026112712000012345678901a2b3c4dAbCdEfGh)`, type, code },
  });
const anthropicError = JSON.stringify({ type: 'error', error: { type: 'new_api_error', message: 'upstream error' } });
const nginx504 =
  '<html>\r\n<head><title>504 Gateway Time-out</title></head>\r\n<body>\r\n<center><h1>504 Gateway Time-out</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n';
const cdnPage = (status: number) =>
  `<!DOCTYPE html><html><head><title>${status}: A timeout occurred</title></head></html>`;
const socketError = (bytesWritten: number) =>
  Object.assign(new Error('other side closed'), {
    code: 'UND_ERR_SOCKET',
    socket: { localAddress: '127.0.0.1', bytesWritten, bytesRead: 0 },
  });
const net = (e: unknown, opts: { timedOut?: boolean } = {}) =>
  errorFromNetwork(e, { url: 'https://gw.example.com/v1/chat/completions' }, opts);

test('the rule: not sent, refused in the gateway’s own words, or may have been billed', () => {
  const rows: Array<[string, GatewayError, Delivery]> = [
    ['connection refused', net(Object.assign(new Error('connect'), { code: 'ECONNREFUSED' })), 'not_sent'],
    ['DNS', net(Object.assign(new Error('dns'), { code: 'ENOTFOUND' })), 'not_sent'],
    ['a socket closed before a byte was written', net(socketError(0)), 'not_sent'],
    ['a socket closed after the request was written', net(socketError(138)), 'may_be_billed'],
    ['ECONNRESET', net(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' })), 'may_be_billed'],
    ['our own timeout', net(new Error('t'), { timedOut: true }), 'may_be_billed'],
    ['429 (new-api, empty body)', answer(429), 'refused'],
    ['429 (JSON)', answer(429, openAiError('rate limited')), 'refused'],
    ['400', answer(400, openAiError('bad')), 'refused'],
    ['401', answer(401, openAiError('Invalid token')), 'refused'],
    ['403 (a WAF page)', answer(403, '<html><title>403 Forbidden</title></html>'), 'refused'],
    ['404', answer(404, openAiError('Invalid URL (POST /v1/x)')), 'refused'],
    ['413 (nginx page)', answer(413, '<html><title>413 Request Entity Too Large</title></html>'), 'refused'],
    [
      '503 model_not_found',
      answer(503, openAiError('No available channel', 'new_api_error', 'model_not_found')),
      'refused',
    ],
    ['500 new-api envelope', answer(500, openAiError('do request failed')), 'refused'],
    ['502 new-api envelope', answer(502, openAiError('bad response status code 502', 'upstream_error')), 'refused'],
    ['504 new-api envelope', answer(504, openAiError('upstream timeout')), 'refused'],
    ['500 Anthropic-shaped envelope (/v1/messages)', answer(500, anthropicError), 'refused'],
    ['408', answer(408, openAiError('timeout')), 'may_be_billed'],
    ['409', answer(409, openAiError('conflict')), 'may_be_billed'],
    ['504 nginx page', answer(504, nginx504, { 'content-type': 'text/html' }), 'may_be_billed'],
    ['502 nginx page', answer(502, '<html><title>502 Bad Gateway</title></html>'), 'may_be_billed'],
    ...[520, 521, 522, 523, 524].map((s): [string, GatewayError, Delivery] => [
      `${s} CDN page`,
      answer(s, cdnPage(s)),
      'may_be_billed',
    ]),
    ['502 empty body', answer(502), 'may_be_billed'],
    ['502 plain text', answer(502, 'Bad Gateway'), 'may_be_billed'],
    [
      '502 another JSON (a proxy’s {"message"})',
      answer(502, '{"message":"An invalid response was received from the upstream server"}'),
      'may_be_billed',
    ],
    [
      'an error inside a 200 stream',
      errorFromResponse({ status: 200, headers: {}, body: openAiError('overloaded'), context: {}, origin: 'stream' }),
      'may_be_billed',
    ],
    ['a web page answered 200 (no API there)', answer(200, '<!doctype html><title>Console</title>'), 'refused'],
  ];
  for (const [what, err, want] of rows) {
    assert.equal(deliveryOf(err), want, what);
    assert.equal(mayResend(err), want !== 'may_be_billed', what);
  }
});

test('every layer asks the rule: a retry, a backup domain, another gateway', () => {
  const o = DEFAULT_RETRY;
  // [what, error, chat retried, chat to a backup, image retried, model list retried, another gateway]
  const rows: Array<[string, GatewayError, boolean, boolean, boolean, boolean, boolean]> = [
    ['refused', net(Object.assign(new Error('c'), { code: 'ECONNREFUSED' })), true, true, true, true, true],
    ['reset after writing', net(socketError(512)), false, false, false, true, false],
    ['429', answer(429), true, false, true, true, true],
    ['new-api 500', answer(500, openAiError('x')), true, false, false, true, false],
    ['new-api 503', answer(503, openAiError('x')), true, true, false, true, true],
    ['new-api 504', answer(504, openAiError('x')), true, true, false, true, true],
    ['nginx 504 page', answer(504, nginx504), false, false, false, true, false],
    ['CDN 524 page', answer(524, cdnPage(524)), false, false, false, true, false],
    ['408', answer(408), false, false, false, true, false],
    [
      '503 model_not_found',
      answer(503, openAiError('x', 'new_api_error', 'model_not_found')),
      false,
      false,
      false,
      false,
      true,
    ],
  ];
  for (const [what, e, chat, backup, image, list, gateway] of rows) {
    assert.equal(shouldRetry(e, 0, o, 'billed'), chat, `${what}: chat retried`);
    assert.equal(failsOver(e, 'billed'), backup, `${what}: chat to a backup domain`);
    assert.equal(shouldRetry(e, 0, o, 'per_call'), image, `${what}: image retried`);
    assert.equal(shouldRetry(e, 0, o, 'free'), list, `${what}: model list retried`);
    assert.equal(failoverWorthy(e), gateway, `${what}: another gateway`);
  }
});

// ---- over HTTP: gateway A (a primary and a backup domain: one simulator, two hosts), fallback B ----

let a: Simulator;
let b: Simulator;
before(async () => {
  [a, b] = await Promise.all([startSimulator({ hosts: 2 }), startSimulator()]);
  // A model without reasoning on /v1/responses that the client's table does not know: asked for
  // encrypted reasoning, it refuses it (OpenAI's words), and the client resends without it.
  for (const s of [a, b]) {
    const m = s.config.models.find((x) => x.id === 'gemini-2.5-flash')!;
    m.capabilities = [...m.capabilities, 'responses'];
  }
});
after(() => Promise.all([a.close(), b.close()]));
beforeEach(() => {
  a.reset();
  b.reset();
});

const CHAT_PATHS = /^\/v1\/(chat\/completions|messages|responses)$/;
const posts = (s: Simulator) => s.log.filter((l) => l.method === 'POST' && CHAT_PATHS.test(l.path));
/** A request the gateway may have billed: answered 2xx, or taken whole with its answer lost. */
const mayBill = (l: UsageRecord) => (l.status >= 200 && l.status < 300) || l.answerLost === true;
/** Every chat request both gateways received, in the order they came. */
const received = () => [...posts(a), ...posts(b)].sort((x, y) => x.time - y.time);
const where = (l: UsageRecord) =>
  `${l.path.replace('/v1/', '')} ${l.answerLost ? 'lost' : l.status} @${b.log.includes(l) ? 'B' : l.host === 0 ? 'A' : 'A-backup'}`;

interface Rig {
  set: GatewaySet;
  records: RequestRecord[];
}

/**
 * Gateway A (`primaryDead`: its base URL a port where nothing listens) with A's second host as its
 * backup domain, gateway B as the fallback. `script`: the fault for each chat request in turn (null:
 * none), installed on both simulators as the request before it ends; without one, the faults the test
 * set stay as they are.
 */
async function rig(script?: ReadonlyArray<Fault | null>, primaryDead = false): Promise<Rig> {
  const records: RequestRecord[] = [];
  const steps = script && [...script];
  const next = () => {
    if (!steps) return;
    for (const s of [a, b]) s.clearFaults();
    const f = steps.shift();
    if (f) for (const s of [a, b]) s.fault(f);
  };
  next();
  const primary = primaryDead ? `http://127.0.0.1:${await deadPort()}` : a.urls[0];
  const set = new GatewaySet(
    [
      { id: 'a', name: 'Alpha', baseUrl: primary, backupUrls: [a.urls[1]] },
      { id: 'b', name: 'Beta', baseUrl: b.url },
    ],
    {
      token: () => a.tokens.production,
      onRequest: (r) => {
        records.push(r);
        if (r.method === 'POST') next();
      },
      sleep: async (_ms, signal) => {
        if (signal?.aborted) throw new Error('aborted');
      },
      random: () => 0.5,
    },
  );
  return { set, records };
}

const hi: ChatMessage[] = [{ role: 'user', content: 'hi' }];

/** One user action: a chat over A then B, streamed or not; the error it ended with, if any. */
async function act(
  r: Rig,
  streamed: boolean,
  req: Partial<ChatRequest> & { model: string },
): Promise<GatewayError | undefined> {
  const { model, ...rest } = req;
  const routes = routesFor({ gateway: 'a', model }, { [model]: [{ gateway: 'b', model }] }, r.set);
  const ask = { surface: 'compatible' as const, messages: hi, ...rest };
  try {
    if (streamed) await collect(chatStreamAcross(r.set, routes, ask));
    else await chatAcross(r.set, routes, ask);
    return undefined;
  } catch (e) {
    assert.ok(e instanceof GatewayError, String(e));
    return e;
  }
}

/** At most one request that may have been billed, and nothing sent after it. */
function assertOneBilledAtMost(what: string): void {
  const all = received();
  const first = all.findIndex(mayBill);
  assert.ok(all.filter(mayBill).length <= 1, `${what}: ${all.map(where).join(', ')}`);
  if (first >= 0) assert.equal(first, all.length - 1, `${what}: nothing after it (${all.map(where).join(', ')})`);
}

for (const [name, fault] of [
  ['a proxy’s HTML 504 after reading the whole request', { kind: 'proxyPage' }],
  ['a connection reset after the request body was read', { kind: 'resetAfterBody' }],
] as const) {
  for (const streamed of [true, false]) {
    test(`the issue’s reproduction, ${streamed ? 'streamed' : 'not streamed'}: ${name} → one request in all, and the error says it may have been billed`, async () => {
      // On every host of A (the primary and its backup domain); B is healthy.
      a.fault(fault);
      const r = await rig();
      const e = await act(r, streamed, { model: 'gpt-4o-mini' });
      assert.ok(e, 'it fails');
      assert.deepEqual(received().map(where), ['chat/completions lost @A']);
      assert.equal(posts(b).length, 0, 'no fallback gateway');
      assert.equal(e.mayHaveBeenBilled, true);
      assert.match(e.billingNote() ?? '', /may have reached the gateway and been charged.*not sent again/);
      if (fault.kind === 'proxyPage') {
        assert.equal(e.status, 504);
        assert.equal(e.detail, 'html_page');
      } else assert.equal(e.kind, 'network');
      assert.equal(e.attempts, 1);
    });
  }
}

test('a request that cannot be billed (a model list) is still retried after a proxy’s 504 page or a reset', async () => {
  for (const fault of [{ kind: 'proxyPage' }, { kind: 'resetAfterBody' }] as const) {
    a.reset();
    a.fault({ ...fault, path: '/v1/models', count: 1 });
    const { client } = makeClient(a);
    assert.ok((await client.listModelIds()).length > 0, fault.kind);
    assert.equal(a.log.filter((l) => l.path === '/v1/models').length, 2, `${fault.kind}: retried once`);
  }
});

test('still allowed: connection refused → the backup domain; all of A refused → gateway B', async () => {
  const r = await rig(undefined, true);
  assert.equal(await act(r, true, { model: 'gpt-4o-mini' }), undefined);
  assert.deepEqual(received().map(where), ['chat/completions 200 @A-backup']);
  assert.deepEqual(
    r.records.filter((x) => x.method === 'POST').map((x) => [x.gateway, x.errorKind ?? x.status]),
    [
      ['Alpha', 'network'],
      ['Alpha', 200],
    ],
  );

  a.reset();
  const dead = `http://127.0.0.1:${await deadPort()}`;
  const set = new GatewaySet(
    [
      { id: 'a', name: 'Alpha', baseUrl: dead, backupUrls: [`http://127.0.0.1:${await deadPort()}`] },
      { id: 'b', name: 'Beta', baseUrl: b.url },
    ],
    { token: () => a.tokens.production, sleep: async () => undefined },
  );
  assert.equal(await act({ set, records: [] }, false, { model: 'gpt-4o-mini' }), undefined);
  assert.deepEqual(received().map(where), ['chat/completions 200 @B']);
});

test('still allowed: a 429 is retried; the gateway’s own JSON 500 is retried; its own JSON 503 moves to the backup', async () => {
  for (const [fault, want] of [
    [{ kind: 'status', status: 429, count: 1 }, ['chat/completions 429 @A', 'chat/completions 200 @A']],
    [{ kind: 'status', status: 500, body: 'json', count: 1 }, ['chat/completions 500 @A', 'chat/completions 200 @A']],
    [{ kind: 'status', status: 503, host: 0, count: 1 }, ['chat/completions 503 @A', 'chat/completions 200 @A-backup']],
  ] as const) {
    a.reset();
    b.reset();
    a.fault(fault);
    const r = await rig();
    assert.equal(await act(r, false, { model: 'gpt-4o-mini' }), undefined, JSON.stringify(fault));
    assert.deepEqual(received().map(where), want, JSON.stringify(fault));
    assertOneBilledAtMost(JSON.stringify(fault));
  }
});

test('new-api’s own JSON 500 (real profile) is retried: refunded there, so not billed', async () => {
  const real = await startSimulator({ profile: 'real' });
  try {
    real.fault({ kind: 'status', status: 500, count: 1 });
    const { client } = makeClient(real);
    const r = await client.chat({ surface: 'compatible', model: 'gpt-4o-mini', messages: hi });
    assert.match(r.text, /Echo/);
    assert.deepEqual(
      real.log.map((l) => l.status),
      [500, 200],
    );
  } finally {
    await real.close();
  }
});

// ---- the layers composed: one user action, at most one request that may have been billed ----

/** A DeepSeek thinking model's tool-using turn sent without its reasoning: refused once for it (400), resent with it. */
const toolTurn: ChatMessage[] = [
  { role: 'user', content: 'Paris?' },
  { role: 'assistant', content: [{ type: 'tool_call', id: 'call_1', name: 'get_weather', input: {} }] },
  { role: 'user', content: [{ type: 'tool_result', callId: 'call_1', content: [{ type: 'text', text: '18°C' }] }] },
];
const weather: ToolSpec[] = [{ name: 'get_weather', inputSchema: { type: 'object' } }];

const PROXY_504: Fault = { kind: 'proxyPage' };
const RESET: Fault = { kind: 'resetAfterBody' };

interface Combo {
  name: string;
  req: Partial<ChatRequest> & { model: string };
  script: Array<Fault | null>;
  primaryDead?: boolean;
  /** what the gateways received, in order */
  want: string[];
  /** the action fails, saying it may have been billed (else it succeeds) */
  billedError: boolean;
}

const COMBOS: Combo[] = [
  {
    name: 'surface refusal → move to /v1/responses → reset after the body',
    req: { model: 'gpt-5.5-codex' },
    script: [null, RESET],
    want: ['chat/completions 404 @A', 'responses lost @A'],
    billedError: true,
  },
  {
    name: 'surface refusal → move → 429 → retry → proxy 504',
    req: { model: 'gpt-5.5-codex' },
    script: [null, { kind: 'status', status: 429 }, PROXY_504],
    want: ['chat/completions 404 @A', 'responses 429 @A', 'responses lost @A'],
    billedError: true,
  },
  {
    name: 'reasoning refusal (reasoning_content missing) → resend → proxy 504',
    req: { model: 'deepseek-v4-pro', messages: toolTurn, tools: weather, replayReasoning: false },
    script: [null, PROXY_504],
    want: ['chat/completions 400 @A', 'chat/completions lost @A'],
    billedError: true,
  },
  {
    name: 'encrypted-reasoning refusal → resend without it → reset after the body',
    req: { model: 'gemini-2.5-flash', surface: 'responses' },
    script: [null, RESET],
    want: ['responses 400 @A', 'responses lost @A'],
    billedError: true,
  },
  {
    name: '429 → retry → proxy 504: no further retry, no backup, no fallback',
    req: { model: 'gpt-4o-mini' },
    script: [{ kind: 'status', status: 429 }, PROXY_504],
    want: ['chat/completions 429 @A', 'chat/completions lost @A'],
    billedError: true,
  },
  {
    name: 'connection refused → backup domain → HTML 504 there: no failover',
    req: { model: 'gpt-4o-mini' },
    primaryDead: true,
    script: [null, PROXY_504],
    want: ['chat/completions lost @A-backup'],
    billedError: true,
  },
  {
    name: 'the gateway’s own 503 → backup domain → reset after the body: no retry, no failover',
    req: { model: 'gpt-4o-mini' },
    script: [{ kind: 'status', status: 503 }, RESET],
    want: ['chat/completions 503 @A', 'chat/completions lost @A-backup'],
    billedError: true,
  },
  {
    name: '503 model_not_found → gateway B → 429 → retry → reset after the body',
    req: { model: 'gpt-4o-mini' },
    script: [{ kind: 'status', status: 503, code: 'model_not_found' }, { kind: 'status', status: 429 }, RESET],
    want: ['chat/completions 503 @A', 'chat/completions 429 @B', 'chat/completions lost @B'],
    billedError: true,
  },
  {
    name: 'surface refusal → move → the gateway’s own JSON 500 → retry → answered',
    req: { model: 'gpt-5.5-codex' },
    script: [null, { kind: 'status', status: 500, body: 'json' }, null],
    want: ['chat/completions 404 @A', 'responses 500 @A', 'responses 200 @A'],
    billedError: false,
  },
];

for (const c of COMBOS) {
  for (const streamed of [true, false]) {
    test(`composed, ${streamed ? 'streamed' : 'not streamed'}: ${c.name}`, async () => {
      const r = await rig(c.script, c.primaryDead);
      const e = await act(r, streamed, c.req);
      assert.deepEqual(received().map(where), c.want);
      assertOneBilledAtMost(c.name);
      assert.equal(received().filter(mayBill).length, 1, 'exactly one request may have been billed');
      if (c.billedError) {
        assert.ok(e, 'it fails');
        assert.equal(e.mayHaveBeenBilled, true, e.message);
      } else assert.equal(e, undefined, e?.message);
    });
  }
}

// ---- the one cap: however the layers stack, one user action sends at most MAX_SENDS_PER_ACTION ----

test('the one cap over every layer: the gateway’s own JSON 503s everywhere (each one a resend the rule allows) end after MAX_SENDS_PER_ACTION requests, streamed and not, across backups and gateways', async () => {
  for (const streamed of [false, true]) {
    a.reset();
    b.reset();
    // Refused in the gateway's own words on every host: each failure alone would allow another try.
    for (const s of [a, b]) s.fault({ kind: 'status', status: 503, body: 'json', count: 1000 });
    const set = new GatewaySet(
      [
        { id: 'a', name: 'Alpha', baseUrl: a.urls[0], backupUrls: [a.urls[1]] },
        { id: 'b', name: 'Beta', baseUrl: b.url },
      ],
      {
        token: () => a.tokens.production,
        retry: { maxRetries: 8 },
        sleep: async () => {},
        random: () => 0.5,
      },
    );
    const routes = routesFor(
      { gateway: 'a', model: 'gpt-4o-mini' },
      { 'gpt-4o-mini': [{ gateway: 'b', model: 'gpt-4o-mini' }] },
      set,
    );
    const ask = { surface: 'compatible' as const, messages: hi };
    const e = await (streamed ? collect(chatStreamAcross(set, routes, ask)) : chatAcross(set, routes, ask)).then(
      () => undefined,
      (x: unknown) => x,
    );
    assert.ok(e instanceof GatewayError && e.status === 503, `the gateway's own error ends it: ${String(e)}`);
    // Without the cap: 9 rounds over A's two hosts (each 503 moves to the backup), then 9 at B: 27 requests.
    assert.equal(received().length, MAX_SENDS_PER_ACTION, received().map(where).join(', '));
    assert.equal(received().filter(mayBill).length, 0, 'none of them may have been billed');
  }
  // Outside a chat action (a direct client call) the same cap holds for the client's own stream.
  a.reset();
  a.fault({ kind: 'status', status: 500, body: 'json', count: 1000 });
  const { client } = makeClient(a, { retry: { maxRetries: 20 }, sleep: async () => {} });
  await assert.rejects(collect(client.chatStream({ surface: 'compatible', model: 'gpt-4o-mini', messages: hi })));
  assert.equal(posts(a).length, MAX_SENDS_PER_ACTION);
});
