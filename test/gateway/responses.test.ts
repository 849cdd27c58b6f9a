/**
 * The Responses surface through the core, over real HTTP against both simulator profiles: text
 * streaming, a tool loop, images, reasoning items kept and replayed (the simulator verifies their
 * encrypted content), the one retry without them when they are refused, in-stream failures, a
 * stream cut off before its terminal event, and new-api's convert_request_failed explained.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  chat,
  responsesSurface,
  type ChatEvent,
  type ChatMessage,
  type ChatRequest,
  type ChatResult,
  type ContentPart,
  type ReasoningItemPart,
} from '../../src/gateway';
import { makePng, startSimulator, type Profile, type Simulator } from '../sim/server';
import { useBothProfiles } from '../sim/profiles';
import { collect, makeClient, thrown } from './helpers';

const sims = useBothProfiles();

const weather = {
  name: 'get_weather',
  description: 'Weather for a city',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};
const png = makePng('responses');

const done = (events: ChatEvent[]): ChatResult => {
  const last = events.at(-1);
  assert.ok(last?.type === 'done', 'the stream ends with done');
  return last.result;
};
const responsesCalls = (sim: Simulator) => sim.log.filter((r) => r.path === '/v1/responses');

/** The assistant turn to send back: the reply's reasoning items, then its text and calls. */
const turnOf = (r: ChatResult): ChatMessage => ({
  role: 'assistant',
  content: [
    ...r.thinking,
    ...(r.text ? [{ type: 'text' as const, text: r.text }] : []),
    ...r.toolCalls.map((c): ContentPart => ({ type: 'tool_call', id: c.id, name: c.name, input: c.input })),
  ],
});

for (const profile of ['strict', 'real'] as Profile[]) {
  const sim = () => sims.of(profile);

  test(`${profile}: text streams on /v1/responses with instructions, usage and a stop finish`, async () => {
    const { client, records } = makeClient(sim());
    const events = await collect(
      client.chatStream({
        surface: 'responses',
        model: 'gpt-4o-mini',
        system: 'Be terse.',
        messages: [{ role: 'user', content: 'hello responses' }],
      }),
    );
    const text = events.flatMap((e) => (e.type === 'text' ? [e.text] : [])).join('');
    assert.equal(text, 'Echo: hello responses');
    assert.ok(events.filter((e) => e.type === 'text').length > 1, 'streamed in pieces');
    const r = done(events);
    assert.equal(r.text, 'Echo: hello responses');
    assert.equal(r.finishReason, 'stop');
    assert.ok(r.usage?.inputTokens && r.usage.outputTokens, 'usage from response.completed');
    assert.match(r.id ?? '', /^resp_/);
    assert.deepEqual(r.thinking, [], 'a non-reasoning model has no reasoning items');
    assert.equal(records.at(-1)?.path, '/v1/responses');
    assert.equal(responsesCalls(sim())[0].headers.authorization?.startsWith('Bearer '), true, 'Bearer auth');
  });

  test(`${profile}: a tool loop through chatStream: the call, then its result sent back and answered`, async () => {
    const { client } = makeClient(sim());
    const req: ChatRequest = {
      surface: 'responses',
      model: 'gpt-4o-mini',
      tools: [weather],
      messages: [{ role: 'user', content: 'get_weather for Paris' }],
    };
    const first = done(await collect(client.chatStream(req)));
    assert.equal(first.finishReason, 'tool_calls');
    const [call] = first.toolCalls;
    assert.equal(call.name, 'get_weather');
    assert.deepEqual(call.input, { city: 'get_weather for Paris' });
    const second = done(
      await collect(
        client.chatStream({
          ...req,
          messages: [
            ...req.messages,
            turnOf(first),
            {
              role: 'user',
              content: [{ type: 'tool_result', callId: call.id, content: [{ type: 'text', text: '18°C' }] }],
            },
          ],
        }),
      ),
    );
    assert.equal(second.text, 'Tool get_weather returned: 18°C');
    assert.equal(second.finishReason, 'stop');
  });

  test(`${profile}: images in, from the user and from a tool result, reach the model`, async () => {
    const { client } = makeClient(sim());
    const image = { type: 'image' as const, mimeType: 'image/png', data: png.toString('base64') };
    const r = await client.chat({
      surface: 'responses',
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'what is this' }, image] }],
    });
    assert.equal(r.text, `I see 1 image (image/png, ${png.length} bytes). Echo: what is this`);
    const call = { type: 'tool_call' as const, id: 'call_shot', name: 'screenshot', input: {} };
    const fromTool = await client.chat({
      surface: 'responses',
      model: 'gpt-4o-mini',
      messages: [
        { role: 'user', content: 'take a screenshot' },
        { role: 'assistant', content: [call] },
        {
          role: 'user',
          content: [{ type: 'tool_result', callId: 'call_shot', content: [{ type: 'text', text: 'done' }, image] }],
        },
      ],
    });
    assert.equal(fromTool.text, `I see 1 image (image/png, ${png.length} bytes). Tool screenshot returned: done`);
  });

  test(`${profile}: a reasoning model's reasoning streams as thinking, its items are kept in the result and replayed`, async () => {
    const { client } = makeClient(sim());
    const req: ChatRequest = {
      surface: 'responses',
      model: 'gpt-5.5-codex',
      tools: [weather],
      messages: [{ role: 'user', content: 'get_weather for Oslo' }],
    };
    const events = await collect(client.chatStream(req));
    const reasoning = events.flatMap((e) => (e.type === 'reasoning' ? [e.text] : [])).join('');
    assert.equal(reasoning, 'Let me think about this.');
    const first = done(events);
    const [item] = first.thinking as ReasoningItemPart[];
    assert.equal(item.type, 'reasoning_item');
    assert.match(item.id, /^rs_/);
    assert.deepEqual(item.summary, ['Let me think about this.']);
    assert.match(item.encryptedContent ?? '', /^gAAAAA/);
    const kinds = events.map((e) => e.type);
    assert.ok(
      kinds.indexOf('thinking_block') < kinds.indexOf('tool_call'),
      'the item comes before the call it preceded',
    );
    // The next turn replays it: the simulator verifies the encrypted content, or refuses the request.
    const second = await client.chat({
      ...req,
      messages: [
        ...req.messages,
        turnOf(first),
        {
          role: 'user',
          content: [{ type: 'tool_result', callId: first.toolCalls[0].id, content: [{ type: 'text', text: '3°C' }] }],
        },
      ],
    });
    assert.equal(second.text, 'Tool get_weather returned: 3°C');
    assert.equal(responsesCalls(sim()).length, 2, 'accepted as it was: no retry');
    assert.equal(second.thinking.length, 1, 'a non-streamed reply keeps its reasoning item too');
  });

  test(`${profile}: refused reasoning items (another upstream account's) are dropped and the request sent again exactly once`, async () => {
    // Another simulator is another upstream account: its encrypted content does not verify here.
    const other = await startSimulator({ profile });
    try {
      const req: ChatRequest = {
        surface: 'responses',
        model: 'o3-pro',
        tools: [weather],
        messages: [{ role: 'user', content: 'get_weather for Rome' }],
      };
      const first = await makeClient(other).client.chat(req);
      assert.equal(first.thinking.length, 1);
      const next: ChatRequest = {
        ...req,
        messages: [
          ...req.messages,
          turnOf(first),
          {
            role: 'user',
            content: [
              { type: 'tool_result', callId: first.toolCalls[0].id, content: [{ type: 'text', text: 'sunny' }] },
            ],
          },
        ],
      };
      const { client } = makeClient(sim());
      const streamed = done(await collect(client.chatStream(next)));
      assert.equal(streamed.text, 'Tool get_weather returned: sunny');
      assert.deepEqual(
        responsesCalls(sim()).map((r) => r.status),
        [400, 200],
        'the refused request, then one retry without the reasoning items',
      );
      sim().log.length = 0;
      const plain = await client.chat(next);
      assert.equal(plain.text, 'Tool get_weather returned: sunny');
      assert.deepEqual(
        responsesCalls(sim()).map((r) => r.status),
        [400, 200],
      );
    } finally {
      await other.close();
    }
  });

  test(`${profile}: a refusal that is not about reasoning items, or a request without them, is not sent again`, async () => {
    const { client } = makeClient(sim());
    const e = await thrown(() =>
      client.chat({
        surface: 'responses',
        model: 'gpt-4o-mini',
        encryptedReasoning: false,
        messages: [
          { role: 'user', content: 'hi' },
          { role: 'assistant', content: [{ type: 'tool_call', id: 'call_open', name: 'get_weather', input: {} }] },
          { role: 'user', content: 'and now?' },
        ],
      }),
    );
    assert.equal(e.kind, 'bad_request');
    assert.match(e.gatewayMessage, /No tool output found for function call call_open/);
    assert.equal(responsesCalls(sim()).length, 1);
  });

  test(`${profile}: encrypted reasoning is never asked of a model known not to reason; an unknown one that refuses it is asked again once, and remembered`, async (t) => {
    const { client } = makeClient(sim());
    const r = await client.chat({
      surface: 'responses',
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'plain model' }],
    });
    assert.equal(r.text, 'Echo: plain model');
    assert.deepEqual(
      responsesCalls(sim()).map((c) => c.status),
      [200],
      'not asked of gpt-4o-mini at all',
    );
    sim().log.length = 0;
    // The table does not know this one (served on /v1/responses here): asked, refused in OpenAI's
    // words (the simulator's), asked again without it.
    const gemini = sim().config.models.find((m) => m.id === 'gemini-2.5-flash')!;
    const caps = gemini.capabilities;
    gemini.capabilities = [...caps, 'responses'];
    t.after(() => void (gemini.capabilities = caps));
    const ask = {
      surface: 'responses' as const,
      model: 'gemini-2.5-flash',
      messages: [{ role: 'user' as const, content: 'unknown' }],
    };
    const first = await client.chat(ask);
    assert.equal(first.text, 'Echo: unknown');
    assert.deepEqual(
      responsesCalls(sim()).map((c) => c.status),
      [400, 200],
    );
    assert.deepEqual(first.adjustments, [
      { model: 'gemini-2.5-flash', param: 'include', change: 'not_sent', source: 'learnt', learntNow: true },
    ]);
    sim().log.length = 0;
    const second = done(await collect(client.chatStream(ask)));
    assert.equal(second.text, 'Echo: unknown');
    assert.deepEqual(
      responsesCalls(sim()).map((c) => c.status),
      [200],
      'remembered: the next request (streamed this time) is built right the first time',
    );
    assert.equal(second.adjustments?.[0].learntNow, undefined);
  });

  for (const [code, kind] of [
    ['server_error', 'server_error'],
    ['rate_limit_exceeded', 'rate_limited'],
  ] as const) {
    test(`${profile}: response.failed (${code}) mid-stream is classified as its code says`, async () => {
      sim().fault({ kind: 'midStreamError', afterEvents: 5, code, message: 'Something went wrong.', count: 1 });
      const { client } = makeClient(sim());
      const seen: ChatEvent[] = [];
      const e = await thrown(async () => {
        for await (const ev of client.chatStream({
          surface: 'responses',
          model: 'gpt-4o-mini',
          encryptedReasoning: false,
          messages: [{ role: 'user', content: 'one two three four five six' }],
        }))
          seen.push(ev);
      });
      assert.equal(e.kind, kind);
      assert.equal(e.detail, 'stream_error_event');
      assert.equal(e.gatewayCode, code);
      assert.equal(e.gatewayMessage, 'Something went wrong.');
      assert.ok(
        seen.some((ev) => ev.type === 'text'),
        'what came before the failure was delivered',
      );
      assert.equal(responsesCalls(sim()).length, 1, 'an answer that began is never sent again');
    });
  }

  test(`${profile}: a bare error event mid-stream is fatal and classified`, async () => {
    sim().fault({ kind: 'midStreamError', afterEvents: 4, event: 'error', code: 'server_error', count: 1 });
    const { client } = makeClient(sim());
    const e = await thrown(() =>
      collect(
        client.chatStream({
          surface: 'responses',
          model: 'gpt-4o-mini',
          encryptedReasoning: false,
          messages: [{ role: 'user', content: 'a b c d' }],
        }),
      ),
    );
    assert.equal(e.kind, 'server_error');
    assert.equal(e.gatewayCode, 'server_error');
  });

  test(`${profile}: a stream that ends without a terminal event is stream_interrupted`, async () => {
    sim().fault({ kind: 'truncate', afterEvents: 6, count: 1 });
    const { client } = makeClient(sim());
    const e = await thrown(() =>
      collect(
        client.chatStream({
          surface: 'responses',
          model: 'gpt-4o-mini',
          encryptedReasoning: false,
          messages: [{ role: 'user', content: 'one two three four five' }],
        }),
      ),
    );
    assert.equal(e.kind, 'stream_interrupted');
    assert.equal(e.detail, 'stream_truncated');
  });

  test(`${profile}: cut off at max output tokens is a length finish, never below the surface's minimum (16); reasoning spends it first`, async () => {
    const { client } = makeClient(sim());
    const words = Array.from({ length: 30 }, (_, i) => `w${i + 1}`);
    const cut = await client.chat({
      surface: 'responses',
      model: 'gpt-4o-mini',
      maxTokens: 2,
      messages: [{ role: 'user', content: words.join(' ') }],
    });
    // 16 pieces: "Echo:" and 15 words (2 is below the minimum every model refuses: raised, and said)
    assert.equal(cut.text, `Echo: ${words.slice(0, 15).join(' ')}`);
    assert.equal(cut.finishReason, 'length');
    assert.deepEqual(cut.adjustments, [
      { model: 'gpt-4o-mini', param: 'max_output_tokens', change: 'set', to: 16, source: 'known' },
    ]);
    const done = await collect(
      client.chatStream({
        surface: 'responses',
        model: 'o3-pro',
        maxTokens: 16,
        messages: [{ role: 'user', content: words.join(' ') }],
      }),
    );
    const reasoned = done.at(-1);
    assert.ok(reasoned?.type === 'done');
    assert.equal(reasoned.result.finishReason, 'length');
    assert.ok(reasoned.result.reasoning.length > 0);
    assert.ok(reasoned.result.text.length < cut.text.length, 'the reasoning took part of the budget');
  });
}

test('real: a Claude model on /v1/responses is new-api convert_request_failed, explained and not retried', async () => {
  const { client } = makeClient(sims.real);
  const e = await thrown(() =>
    client.chat({ surface: 'responses', model: 'claude-sonnet-4-5', messages: [{ role: 'user', content: 'hi' }] }),
  );
  assert.equal(e.status, 500);
  assert.equal(e.kind, 'bad_request');
  assert.equal(e.detail, 'convert_request_failed');
  assert.equal(e.gatewayCode, 'convert_request_failed');
  assert.match(e.reason, /cannot convert Responses requests \(Anthropic, DeepSeek, Moonshot… channels\)/);
  assert.match(e.fix, /use the compatible or native surface for this model/i);
  assert.equal(responsesCalls(sims.real).length, 1, 'not a fault to retry');
});

test('responses-only models refuse /v1/chat/completions with OpenAI words, and answer on /v1/responses', async () => {
  for (const model of ['gpt-5.5-codex', 'o3-pro']) {
    const { client } = makeClient(sims.strict);
    // (the core's chat on one surface: the client itself would move the refused request to /v1/responses)
    const e = await thrown(() =>
      chat(
        client.transport,
        { surface: 'compatible', model, messages: [{ role: 'user', content: 'hi' }] },
        { timeoutMs: 5_000, idleTimeoutMs: 5_000 },
      ),
    );
    assert.equal(e.status, 404);
    assert.equal(e.gatewayMessage, 'This model is only supported in v1/responses and not in v1/chat/completions.');
    const r = await client.chat({ surface: 'responses', model, messages: [{ role: 'user', content: 'hi' }] });
    assert.equal(r.text, 'Echo: hi');
  }
});

test('the request: instructions, input items in order, flat tools, store false, encrypted reasoning included', () => {
  const item: ReasoningItemPart = {
    type: 'reasoning_item',
    id: 'rs_1',
    summary: ['plan'],
    encryptedContent: 'gAAAAAx',
  };
  const body = responsesSurface.toRequest(
    {
      surface: 'responses',
      model: 'gpt-5.5-codex',
      system: 'sys',
      maxTokens: 100,
      stream: true,
      tools: [weather],
      toolMode: 'required',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'look' },
            { type: 'image', mimeType: 'image/png', data: 'AAAA' },
          ],
        },
        {
          role: 'assistant',
          content: [
            item,
            { type: 'text', text: 'reading' },
            { type: 'tool_call', id: 'call_1', name: 'get_weather', input: { city: 'x' } },
            // (cut off after its reasoning: nothing follows it, so it cannot be replayed)
            { type: 'reasoning_item', id: 'rs_2', summary: [], encryptedContent: 'gAAAAAy' },
          ],
        },
        { role: 'user', content: [{ type: 'tool_result', callId: 'call_1', content: [], isError: true }] },
        {
          role: 'assistant',
          content: [
            { type: 'reasoning_item', id: 'rs_3', summary: [] },
            { type: 'text', text: 'ok' },
          ],
        },
      ],
    },
    { maxTokens: 4096 },
  );
  assert.deepEqual(body, {
    model: 'gpt-5.5-codex',
    instructions: 'sys',
    input: [
      {
        role: 'user',
        content: [
          { type: 'input_text', text: 'look' },
          { type: 'input_image', image_url: 'data:image/png;base64,AAAA', detail: 'auto' },
        ],
      },
      {
        type: 'reasoning',
        id: 'rs_1',
        summary: [{ type: 'summary_text', text: 'plan' }],
        encrypted_content: 'gAAAAAx',
      },
      { role: 'assistant', content: 'reading' },
      { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"x"}' },
      { type: 'function_call_output', call_id: 'call_1', output: 'Error: ' },
      { role: 'assistant', content: 'ok' },
    ],
    tools: [
      {
        type: 'function',
        name: 'get_weather',
        description: 'Weather for a city',
        parameters: weather.inputSchema,
        strict: false,
      },
    ],
    tool_choice: 'required',
    max_output_tokens: 100,
    stream: true,
    store: false,
    include: ['reasoning.encrypted_content'],
  });
  assert.ok(!('previous_response_id' in body) && !('temperature' in body));
  const told = responsesSurface.toRequest(
    {
      surface: 'responses',
      model: 'gpt-4o-mini',
      encryptedReasoning: false,
      messages: [{ role: 'user', content: 'x' }],
    },
    { maxTokens: 1 },
  );
  assert.ok(!('include' in told), 'not asked of a model without reasoning');
  assert.equal(told.store, false);
  assert.equal(
    responsesSurface.toRequest(
      { surface: 'responses', model: 'm', temperature: 0.2, messages: [{ role: 'user', content: 'x' }] },
      { maxTokens: 1 },
    ).temperature,
    0.2,
  );
});

test('stream events: dispatched on data.type (not the event line), [DONE] tolerated, unknown types ignored', () => {
  const ev = (data: unknown, event?: string) => responsesSurface.parseEvent({ event, data: JSON.stringify(data) });
  assert.deepEqual(ev({ type: 'response.output_text.delta', delta: 'hi' }, 'message'), [{ type: 'text', text: 'hi' }]);
  assert.deepEqual(responsesSurface.parseEvent({ data: '[DONE]' }), [], '[DONE] is not the end of this surface');
  assert.deepEqual(ev({ type: 'response.web_search_call.searching', item_id: 'ws_1' }), []);
  assert.deepEqual(ev({ type: 'response.reasoning_text.delta', delta: 'raw' }), [{ type: 'reasoning', text: 'raw' }]);
  assert.deepEqual(ev({ type: 'response.reasoning_summary_part.added', summary_index: 1 }), [
    { type: 'reasoning', text: '\n\n' },
  ]);
  assert.deepEqual(
    ev({
      type: 'response.incomplete',
      response: { status: 'incomplete', incomplete_details: { reason: 'content_filter' } },
    }),
    [{ type: 'finish', reason: 'content_filter' }, { type: 'end' }],
  );
});

test('HTTP errors on /v1/responses keep their classification: 401, 503 model_not_found, 429', async () => {
  const bad = makeClient(sims.real, { token: () => 'sk-' + 'z'.repeat(48) }).client;
  const unauthorized = await thrown(() =>
    bad.chat({ surface: 'responses', model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
  );
  assert.equal(unauthorized.kind, 'unauthorized');
  assert.equal(unauthorized.surface, 'responses');
  const { client } = makeClient(sims.real);
  const group = await thrown(() =>
    client.chat({ surface: 'responses', model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }),
  );
  assert.equal(group.kind, 'forbidden');
  assert.equal(group.detail, 'model_not_found_503');
  sims.strict.fault({ kind: 'status', status: 429, path: '/v1/responses' });
  const limited = await thrown(() =>
    makeClient(sims.strict, { retry: { maxRetries: 0 } }).client.chat({
      surface: 'responses',
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'hi' }],
    }),
  );
  assert.equal(limited.kind, 'rate_limited');
});
