/**
 * Tools, images and reasoning on the wire of both surfaces: what the core sends (ids, schemas,
 * image placement, block order, thinking rules) and that an empty reply is an error, never silence.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  compatibleSurface,
  isGatewayError,
  nativeSurface,
  normalizeToolSchema,
  portableCallId,
  type ChatRequest,
} from '../../src/gateway';
import { useBothProfiles } from '../sim/profiles';
import { collect, makeClient, thrown } from './helpers';

const B64 = Buffer.from('not really a png').toString('base64');
const LONG_ID = 'functions.get_weather:0|a-very-long-id-from-another-provider-with-odd-characters';

const loop = (surface: ChatRequest['surface']): ChatRequest => ({
  surface,
  model: 'm',
  system: 'sys',
  tools: [
    {
      name: 'get_weather',
      description: 'Weather',
      inputSchema: {
        $schema: 'http://json-schema.org/draft-07/schema#',
        type: 'object',
        properties: { city: { type: 'string' } },
        required: ['city', 'ghost'],
        anyOf: [{}],
      },
    },
  ],
  messages: [
    {
      role: 'user',
      content: [
        { type: 'text', text: 'Weather?' },
        { type: 'image', mimeType: 'image/png', data: B64 },
      ],
    },
    {
      role: 'assistant',
      content: [
        { type: 'text', text: '' },
        { type: 'tool_call', id: LONG_ID, name: 'get_weather', input: { city: 'Paris' } },
      ],
    },
    {
      role: 'user',
      content: [
        {
          type: 'tool_result',
          callId: LONG_ID,
          content: [
            { type: 'text', text: '18°C' },
            { type: 'image', mimeType: 'image/png', data: B64 },
          ],
        },
      ],
    },
    { role: 'user', content: [{ type: 'text', text: '  ' }] },
  ],
});

test('call ids: portable ones pass unchanged, others map to one stable id both surfaces accept', () => {
  assert.equal(portableCallId('call_abc123'), 'call_abc123');
  assert.equal(portableCallId('toolu_01A'), 'toolu_01A');
  const p = portableCallId(LONG_ID);
  assert.match(p, /^[A-Za-z0-9_-]{1,40}$/);
  assert.equal(portableCallId(LONG_ID), p, 'deterministic');
  assert.notEqual(portableCallId(`${LONG_ID}x`), p);
});

test('tool schemas: an object schema with properties, no $schema or top-level combinators, required ⊆ properties', () => {
  assert.deepEqual(normalizeToolSchema(undefined), { type: 'object', properties: {} });
  assert.deepEqual(
    normalizeToolSchema({
      $schema: 'x',
      oneOf: [],
      type: 'object',
      properties: { a: { type: 'string' } },
      required: ['a', 'b'],
    }),
    { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
  );
  assert.deepEqual(normalizeToolSchema({ required: ['z'], properties: [] as unknown as object }), {
    type: 'object',
    properties: {},
  });
});

test('compatible wire: tool_calls with portable ids, tool messages, tool-result images moved to a user message', () => {
  const body = compatibleSurface.toRequest({ ...loop('compatible'), toolMode: 'required' }, { maxTokens: 100 }) as {
    messages: Array<Record<string, any>>;
    tools: unknown[];
    tool_choice: unknown;
  };
  const id = portableCallId(LONG_ID);
  assert.deepEqual(body.tools, [
    {
      type: 'function',
      function: {
        name: 'get_weather',
        description: 'Weather',
        parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      },
    },
  ]);
  assert.equal(body.tool_choice, 'required');
  assert.deepEqual(
    body.messages.map((m) => m.role),
    ['system', 'user', 'assistant', 'tool', 'user'],
  );
  assert.deepEqual(body.messages[1].content, [
    { type: 'text', text: 'Weather?' },
    { type: 'image_url', image_url: { url: `data:image/png;base64,${B64}` } },
  ]);
  assert.deepEqual(body.messages[2], {
    role: 'assistant',
    content: null,
    tool_calls: [{ id, type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
  });
  assert.equal(body.messages[3].tool_call_id, id);
  assert.equal(typeof body.messages[3].content, 'string', 'no image inside a tool message');
  assert.match(body.messages[3].content, /18°C\n\[1 image attached in the next message\]/);
  assert.deepEqual(body.messages[4].content[1], {
    type: 'image_url',
    image_url: { url: `data:image/png;base64,${B64}` },
  });
  const auto = compatibleSurface.toRequest({ ...loop('compatible'), toolMode: 'auto' }, { maxTokens: 100 });
  assert.equal(auto.tool_choice, undefined);
  assert.equal(
    compatibleSurface.toRequest(
      { surface: 'compatible', model: 'm', messages: [{ role: 'user', content: 'hi' }], tools: [] },
      { maxTokens: 1 },
    ).tools,
    undefined,
    'never tools: []',
  );
});

test('native wire: blocks, empty text dropped, tool results lead the merged user turn, tool_choice any; thinking rules', () => {
  const body = nativeSurface.toRequest(
    { ...loop('native'), toolMode: 'required', temperature: 0.2 },
    { maxTokens: 100 },
  ) as {
    messages: Array<{ role: string; content: Array<Record<string, any>> }>;
    tools: unknown[];
    tool_choice: unknown;
    temperature?: number;
    system: string;
  };
  const id = portableCallId(LONG_ID);
  assert.equal(body.system, 'sys');
  assert.deepEqual(body.tools, [
    {
      name: 'get_weather',
      description: 'Weather',
      input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
  ]);
  assert.deepEqual(body.tool_choice, { type: 'any' });
  assert.equal(body.temperature, 0.2);
  assert.deepEqual(
    body.messages.map((m) => m.role),
    ['user', 'assistant', 'user'],
  );
  assert.deepEqual(body.messages[0].content[1], {
    type: 'image',
    source: { type: 'base64', media_type: 'image/png', data: B64 },
  });
  assert.deepEqual(
    body.messages[1].content,
    [{ type: 'tool_use', id, name: 'get_weather', input: { city: 'Paris' } }],
    'the empty text block is dropped',
  );
  assert.equal(body.messages[2].content.length, 1, 'the whitespace-only user message adds nothing');
  assert.deepEqual(body.messages[2].content[0], {
    type: 'tool_result',
    tool_use_id: id,
    content: [
      { type: 'text', text: '18°C' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: B64 } },
    ],
  });
  const thinking = nativeSurface.toRequest(
    { ...loop('native'), toolMode: 'required', temperature: 0.2, thinking: { budgetTokens: 2048 } },
    { maxTokens: 100 },
  );
  assert.deepEqual(thinking.thinking, { type: 'enabled', budget_tokens: 2048 });
  assert.equal(thinking.tool_choice, undefined, 'forced tool use is refused with thinking on');
  assert.equal(thinking.temperature, undefined);
  assert.ok((thinking.max_tokens as number) > 2048);
  // plain text turns stay strings, merged with a blank line
  const plain = nativeSurface.toRequest(
    {
      surface: 'native',
      model: 'm',
      messages: [
        { role: 'user', content: 'a' },
        { role: 'user', content: 'b' },
      ],
    },
    { maxTokens: 10 },
  );
  assert.deepEqual(plain.messages, [{ role: 'user', content: 'a\n\nb' }]);
});

test('a tool name neither surface accepts is refused before sending', async () => {
  const { client } = makeClient({ url: 'http://127.0.0.1:9', tokens: { production: 'sk-x' } } as never);
  const e = await thrown(() =>
    client.chat({
      surface: 'compatible',
      model: 'm',
      messages: [{ role: 'user', content: 'hi' }],
      tools: [{ name: 'bad name!' }],
    }),
  );
  assert.equal(e.kind, 'bad_request');
  assert.equal(e.mayHaveBeenBilled, false);
  assert.match(e.message, /"bad name!"/);
});

const sims = useBothProfiles();
for (const profile of ['strict', 'real'] as const) {
  for (const surface of ['compatible', 'native'] as const) {
    test(`${profile} ${surface}: a reply with neither text nor a tool call is an error with cause and fix (streamed and not)`, async () => {
      const sim = sims.of(profile);
      sim.config.replyText = '';
      const { client } = makeClient(sim);
      const model = surface === 'native' ? 'claude-sonnet-4-5' : 'gpt-4o-mini';
      const req: ChatRequest = { surface, model, messages: [{ role: 'user', content: 'hi' }] };
      for (const run of [() => client.chat(req), () => collect(client.chatStream(req))]) {
        const e = await thrown(run);
        assert.ok(isGatewayError(e), String(e));
        assert.equal(e.detail, 'empty_reply');
        assert.match(e.message, /neither text nor a tool call/);
        assert.ok(e.reason && e.fix);
      }
      sim.config.replyText = undefined;
    });
  }
}
