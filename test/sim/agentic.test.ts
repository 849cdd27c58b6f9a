/** Tools, images and reasoning on both chat surfaces, over real HTTP: the strict upstream's 400s and the replies. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import { makePng, type Profile, type Simulator } from './server';
import { useBothProfiles } from './profiles';

const sims = useBothProfiles();

/** Wire JSON under test: read freely, the assertions check it. */
type Json = Record<string, any>;

async function post(sim: Simulator, path: string, body: Json) {
  const headers =
    path === '/v1/messages'
      ? { 'x-api-key': sim.tokens.production, 'native-version': '2023-06-01' }
      : { authorization: `Bearer ${sim.tokens.production}` };
  const r = await request(`${sim.url}${path}`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: r.statusCode, text: await r.body.text() };
}
const compat = (sim: Simulator, body: Json) => post(sim, '/v1/chat/completions', { model: 'gpt-4o-mini', ...body });
const native = (sim: Simulator, body: Json) =>
  post(sim, '/v1/messages', { model: 'claude-sonnet-4-5', max_tokens: 256, ...body });

/** The `data:` payloads of an SSE body (either surface), without `[DONE]`. */
const sseData = (text: string): Json[] =>
  text
    .split('\n\n')
    .flatMap((f) => f.split('\n').filter((l) => l.startsWith('data: ') && l !== 'data: [DONE]'))
    .map((l) => JSON.parse(l.slice(6)) as Json);

/** A 400 whose message (either error shape, either profile) contains `fragment`. */
async function assert400(call: Promise<{ status: number; text: string }>, fragment: string) {
  const r = await call;
  assert.equal(r.status, 400, r.text);
  const message = String(JSON.parse(r.text).error.message);
  assert.ok(message.includes(fragment), `${message}\n  should contain: ${fragment}`);
}

const weather = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
const oaTools = [
  {
    type: 'function',
    function: {
      name: 'get_time',
      description: 'The time',
      parameters: { type: 'object', properties: { zone: { type: 'string' } } },
    },
  },
  { type: 'function', function: { name: 'get_weather', description: 'Weather for a city', parameters: weather } },
];
const antTools = oaTools.map((t) => ({
  name: t.function.name,
  description: t.function.description,
  input_schema: t.function.parameters,
}));
const png = makePng('agentic');
const dataUrl = `data:image/png;base64,${png.toString('base64')}`;

for (const profile of ['strict', 'real'] as Profile[]) {
  const sim = () => sims.of(profile);

  // ---------------- compatible: validation ----------------

  test(`${profile} compatible: a tool message must answer a preceding tool_calls id`, async () => {
    const expected =
      "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.";
    await assert400(
      compat(sim(), {
        messages: [
          { role: 'user', content: 'hi' },
          { role: 'tool', tool_call_id: 'call_x', content: 'r' },
        ],
      }),
      expected,
    );
    const call = { id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{}' } };
    await assert400(
      compat(sim(), {
        messages: [
          { role: 'user', content: 'hi' },
          { role: 'assistant', content: null, tool_calls: [call] },
          { role: 'tool', tool_call_id: 'call_other', content: 'r' },
        ],
      }),
      expected,
    );
  });

  test(`${profile} compatible: images only in user messages; bad image data`, async () => {
    const call = { id: 'call_a', type: 'function', function: { name: 'shot', arguments: '{}' } };
    const tool = {
      role: 'tool',
      tool_call_id: 'call_a',
      content: [{ type: 'image_url', image_url: { url: dataUrl } }],
    };
    await assert400(
      compat(sim(), {
        messages: [{ role: 'user', content: 'x' }, { role: 'assistant', content: null, tool_calls: [call] }, tool],
      }),
      "Image URLs are only allowed for messages with role 'user', but this message with role 'tool' contains an image URL.",
    );
    for (const url of ['data:image/png;base64,***not base64***', 'data:image/png,abc', 'https://example.com/a.png']) {
      await assert400(
        compat(sim(), {
          messages: [
            {
              role: 'user',
              content: [
                { type: 'text', text: 'see' },
                { type: 'image_url', image_url: { url } },
              ],
            },
          ],
        }),
        'Invalid image data',
      );
    }
  });

  test(`${profile} compatible: every tool_calls id needs a tool message right after`, async () => {
    const calls = ['call_a', 'call_b'].map((id) => ({
      id,
      type: 'function',
      function: { name: 'get_weather', arguments: '{}' },
    }));
    const prefix =
      "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ";
    await assert400(
      compat(sim(), {
        messages: [
          { role: 'user', content: 'x' },
          { role: 'assistant', content: null, tool_calls: calls },
          { role: 'tool', tool_call_id: 'call_a', content: 'r' },
        ],
      }),
      `${prefix}call_b`,
    );
    await assert400(
      compat(sim(), {
        messages: [
          { role: 'user', content: 'x' },
          { role: 'assistant', content: null, tool_calls: calls },
          { role: 'user', content: 'y' },
        ],
      }),
      `${prefix}call_a, call_b`,
    );
  });

  test(`${profile} compatible: tools must be well-formed functions`, async () => {
    const msgs = [{ role: 'user', content: 'x' }];
    await assert400(
      compat(sim(), { messages: msgs, tools: [{ type: 'function', function: { name: 'bad name!' } }] }),
      "Invalid 'tools[0].function.name'",
    );
    await assert400(
      compat(sim(), { messages: msgs, tools: [{ type: 'function', function: { name: 'x'.repeat(65) } }] }),
      "Invalid 'tools[0].function.name': string too long. Expected a string with maximum length 64, but got 65 instead.",
    );
    await assert400(
      compat(sim(), { messages: msgs, tools: [{ type: 'function' }] }),
      "Missing required parameter: 'tools[0].function'.",
    );
    await assert400(
      compat(sim(), { messages: msgs, tools: [{ name: 'get_weather' }] }),
      "Missing required parameter: 'tools[0].type'.",
    );
    await assert400(
      compat(sim(), { messages: msgs, tools: [{ type: 'retrieval', function: { name: 'a' } }] }),
      "Invalid value: 'retrieval'. Supported values are: 'function' and 'custom'.",
    );
    await assert400(
      compat(sim(), {
        messages: msgs,
        tools: [...oaTools, { type: 'function', function: { name: 'p', parameters: 'x' } }],
      }),
      "Invalid type for 'tools[2].function.parameters'",
    );
    await assert400(compat(sim(), { messages: msgs, tools: [] }), "Invalid 'tools': empty array.");
  });

  test(`${profile} compatible: custom (free-form) tools are accepted as OpenAI takes them, malformed ones refused`, async () => {
    const msgs = [{ role: 'user', content: 'get_weather in Paris' }];
    // Copilot CLI's apply_patch, as it sends it: a custom tool with a Lark grammar, beside functions
    const applyPatch = {
      type: 'custom',
      custom: {
        name: 'apply_patch',
        description: 'Use the `apply_patch` tool to edit files.',
        format: { type: 'grammar', grammar: { syntax: 'lark', definition: 'start: begin_patch hunk+ end_patch' } },
      },
    };
    const text = { type: 'custom', custom: { name: 'notes', format: { type: 'text' } } };
    const ok = await compat(sim(), {
      messages: msgs,
      tools: [applyPatch, text, { type: 'custom', custom: { name: 'bare' } }, ...oaTools],
    });
    assert.equal(ok.status, 200, ok.text);
    const call = JSON.parse(ok.text).choices[0].message.tool_calls[0];
    assert.equal(call.function.name, 'get_weather', 'only a function tool is called');
    const custom = (c: Json) => compat(sim(), { messages: msgs, tools: [{ type: 'custom', custom: c }] });
    await assert400(
      compat(sim(), { messages: msgs, tools: [{ type: 'custom' }] }),
      "Missing required parameter: 'tools[0].custom'.",
    );
    // the Responses shape (name at the top) is not the Chat Completions one
    await assert400(
      compat(sim(), { messages: msgs, tools: [{ type: 'custom', name: 'apply_patch' }] }),
      "Missing required parameter: 'tools[0].custom'.",
    );
    await assert400(custom({ description: 'x' }), "Missing required parameter: 'tools[0].custom.name'.");
    await assert400(custom({ name: 'apply patch' }), "Invalid 'tools[0].custom.name': string does not match pattern.");
    await assert400(
      custom({ name: 'p', format: { type: 'json' } }),
      "Invalid value: 'json'. Supported values are: 'text' and 'grammar'.",
    );
    // the Responses' flat grammar is not the Chat Completions' nested one
    await assert400(
      custom({ name: 'p', format: { type: 'grammar', syntax: 'lark', definition: 'start: "a"' } }),
      "Missing required parameter: 'tools[0].custom.format.grammar'.",
    );
    await assert400(
      custom({ name: 'p', format: { type: 'grammar', grammar: { syntax: 'ebnf', definition: 'a' } } }),
      "Invalid value: 'ebnf'. Supported values are: 'lark' and 'regex'.",
    );
    await assert400(
      custom({ name: 'p', format: { type: 'grammar', grammar: { syntax: 'regex' } } }),
      "Missing required parameter: 'tools[0].custom.format.grammar.definition'.",
    );
    // a custom tool's call replayed with its tool message is a valid turn, answered by name
    const replay = await compat(sim(), {
      tools: [applyPatch, ...oaTools],
      messages: [
        { role: 'user', content: 'patch it' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_9', type: 'custom', custom: { name: 'apply_patch', input: '*** Begin Patch' } }],
        },
        { role: 'tool', tool_call_id: 'call_9', content: 'Done!' },
      ],
    });
    assert.equal(replay.status, 200, replay.text);
    assert.equal(JSON.parse(replay.text).choices[0].message.content, 'Tool apply_patch returned: Done!');
  });

  // ---------------- compatible: replies ----------------

  test(`${profile} compatible: a tool call for the named tool, non-streamed`, async () => {
    const r = await compat(sim(), {
      tools: oaTools,
      messages: [{ role: 'user', content: '  Use get_weather for Paris please  ' }],
    });
    assert.equal(r.status, 200, r.text);
    const choice = JSON.parse(r.text).choices[0];
    assert.equal(choice.finish_reason, 'tool_calls');
    assert.equal(choice.message.content, null);
    const [call] = choice.message.tool_calls;
    assert.match(call.id, /^call_[0-9a-f]{24}$/);
    assert.equal(call.type, 'function');
    assert.equal(call.function.name, 'get_weather');
    assert.deepEqual(JSON.parse(call.function.arguments), { city: 'Use get_weather for Paris please' });
  });

  test(`${profile} compatible: a tool call streamed as a header and three argument fragments`, async () => {
    const r = await compat(sim(), {
      stream: true,
      tools: oaTools,
      messages: [{ role: 'user', content: 'Use get_weather for Paris' }],
    });
    const chunks = sseData(r.text).filter((c) => c.choices.length);
    const deltas = chunks.map((c) => c.choices[0].delta);
    const calls = deltas.filter((d) => d.tool_calls).map((d) => d.tool_calls[0]);
    assert.equal(calls.length, 4, 'the header, then three fragments');
    assert.deepEqual(
      { ...calls[0], id: 'x' },
      { index: 0, id: 'x', type: 'function', function: { name: 'get_weather', arguments: '' } },
    );
    assert.ok(calls.slice(1).every((c) => c.index === 0 && !c.id && c.function.arguments));
    assert.deepEqual(JSON.parse(calls.map((c) => c.function.arguments).join('')), {
      city: 'Use get_weather for Paris',
    });
    assert.equal(chunks.at(-1)!.choices[0].finish_reason, 'tool_calls');
  });

  test(`${profile} compatible: the first tool when none is named; arguments by schema type; tool_choice none`, async () => {
    const typed = {
      type: 'function',
      function: {
        name: 'set',
        parameters: {
          type: 'object',
          properties: {
            n: { type: 'integer' },
            on: { type: ['boolean', 'null'] },
            x: { type: 'number' },
            list: { type: 'array' },
          },
          required: ['n', 'on', 'list'],
        },
      },
    };
    const r = JSON.parse(
      (await compat(sim(), { tools: [typed, ...oaTools], messages: [{ role: 'user', content: 'do it' }] })).text,
    );
    assert.equal(r.choices[0].message.tool_calls[0].function.name, 'set');
    assert.deepEqual(JSON.parse(r.choices[0].message.tool_calls[0].function.arguments), { n: 1, on: true });
    const first = JSON.parse(
      (await compat(sim(), { tools: oaTools, messages: [{ role: 'user', content: 'what time' }] })).text,
    );
    assert.deepEqual(
      JSON.parse(first.choices[0].message.tool_calls[0].function.arguments),
      { zone: 'what time' },
      'no required: the first property',
    );
    const none = JSON.parse(
      (await compat(sim(), { tools: oaTools, tool_choice: 'none', messages: [{ role: 'user', content: 'hi' }] })).text,
    );
    assert.equal(none.choices[0].message.content, 'Echo: hi');
  });

  test(`${profile} compatible: tool results are answered with text, streamed and not`, async () => {
    const call = { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } };
    const messages = [
      { role: 'user', content: 'weather?' },
      { role: 'assistant', content: null, tool_calls: [call] },
      { role: 'tool', tool_call_id: 'call_1', content: '18°C, sunny' },
    ];
    const r = JSON.parse((await compat(sim(), { tools: oaTools, messages })).text);
    assert.equal(r.choices[0].message.content, 'Tool get_weather returned: 18°C, sunny');
    assert.equal(r.choices[0].finish_reason, 'stop');
    const s = await compat(sim(), { stream: true, tools: oaTools, messages });
    assert.equal(
      sseData(s.text)
        .map((c) => c.choices[0]?.delta?.content ?? '')
        .join(''),
      'Tool get_weather returned: 18°C, sunny',
    );
  });

  test(`${profile} compatible: images in the last user turn are described`, async () => {
    const one = JSON.parse(
      (
        await compat(sim(), {
          messages: [
            {
              role: 'user',
              content: [
                { type: 'text', text: 'what is this?' },
                { type: 'image_url', image_url: { url: dataUrl } },
              ],
            },
          ],
        })
      ).text,
    );
    assert.equal(one.choices[0].message.content, `I see 1 image (image/png, ${png.length} bytes). Echo: what is this?`);
    // Copilot sends the images as a user message of their own, after the text.
    const jpeg = `data:image/jpeg;base64,${Buffer.from([0xff, 0xd8, 0xff]).toString('base64')}`;
    const two = await compat(sim(), {
      stream: true,
      messages: [
        { role: 'user', content: 'both' },
        {
          role: 'user',
          content: [
            { type: 'image_url', image_url: { url: dataUrl } },
            { type: 'image_url', image_url: { url: jpeg } },
          ],
        },
      ],
    });
    assert.match(
      sseData(two.text)
        .map((c) => c.choices[0]?.delta?.content ?? '')
        .join(''),
      new RegExp(`^I see 2 images \\(image/png, ${png.length} bytes; image/jpeg, 3 bytes\\)\\.`),
    );
  });

  test(`${profile} compatible: a reasoning model streams reasoning_content before the answer`, async () => {
    const r = JSON.parse(
      (await compat(sim(), { model: 'deepseek-reasoner', messages: [{ role: 'user', content: 'why' }] })).text,
    );
    assert.equal(r.choices[0].message.reasoning_content, 'Let me think about this.');
    assert.equal(r.choices[0].message.content, 'Echo: why');
    const s = sseData(
      (await compat(sim(), { model: 'deepseek-reasoner', stream: true, messages: [{ role: 'user', content: 'why' }] }))
        .text,
    );
    const deltas = s.filter((c) => c.choices.length).map((c) => c.choices[0].delta);
    const firstContent = deltas.findIndex((d) => d.content);
    assert.equal(deltas.filter((d) => d.reasoning_content).length, 5, 'fragments');
    assert.equal(
      deltas
        .slice(0, firstContent)
        .map((d) => d.reasoning_content ?? '')
        .join(''),
      'Let me think about this.',
    );
    assert.equal(deltas.map((d) => d.content ?? '').join(''), 'Echo: why');
    const plain = JSON.parse((await compat(sim(), { messages: [{ role: 'user', content: 'why' }] })).text);
    assert.equal(plain.choices[0].message.reasoning_content, undefined, 'other models do not reason');
  });

  test(`${profile}: a reasoning model spends max_tokens on reasoning first, on both surfaces`, async () => {
    const ask = { model: 'deepseek-reasoner', messages: [{ role: 'user', content: 'why' }] };
    const c = JSON.parse((await compat(sim(), { ...ask, max_tokens: 1 })).text);
    assert.deepEqual(
      [c.choices[0].message.reasoning_content, c.choices[0].message.content, c.choices[0].finish_reason],
      ['Let', '', 'length'],
    );
    assert.equal(c.usage.completion_tokens, 1);
    const n = JSON.parse((await native(sim(), { ...ask, max_tokens: 1 })).text);
    assert.deepEqual(
      n.content.map((b: Json) => b.type),
      ['thinking'],
      'no text block: the budget went on thinking',
    );
    assert.equal(n.stop_reason, 'max_tokens');
    const streamed = sseData((await native(sim(), { ...ask, max_tokens: 1, stream: true })).text);
    assert.ok(!streamed.some((e) => e.content_block?.type === 'text'));
    assert.equal(streamed.find((e) => e.type === 'message_delta')?.delta.stop_reason, 'max_tokens');
    const room = JSON.parse((await native(sim(), { ...ask, max_tokens: 64 })).text);
    assert.deepEqual(
      room.content.map((b: Json) => [b.type, b.thinking ?? b.text]),
      [
        ['thinking', 'Let me think about this.'],
        ['text', 'Echo: why'],
      ],
    );
    assert.equal(room.stop_reason, 'end_turn');
  });

  // ---------------- native: validation ----------------

  test(`${profile} native: empty text blocks and non-alternating roles`, async () => {
    await assert400(
      native(sim(), { messages: [{ role: 'user', content: [{ type: 'text', text: '' }] }] }),
      'messages: text content blocks must be non-empty',
    );
    await assert400(
      native(sim(), { messages: [{ role: 'user', content: [{ type: 'text', text: '  \n ' }] }] }),
      'messages: text content blocks must contain non-whitespace text',
    );
    await assert400(
      native(sim(), {
        messages: [
          { role: 'user', content: 'a' },
          { role: 'user', content: 'b' },
        ],
      }),
      'messages: roles must alternate between "user" and "assistant"',
    );
  });

  test(`${profile} native: tool_result must answer the previous message's tool_use, and every tool_use be answered`, async () => {
    const use = {
      role: 'assistant',
      content: [{ type: 'tool_use', id: 'toolu_a', name: 'get_weather', input: { city: 'Paris' } }],
    };
    const result = (id: string) => ({
      type: 'tool_result',
      tool_use_id: id,
      content: [{ type: 'text', text: 'sunny' }],
    });
    await assert400(
      native(sim(), {
        messages: [
          { role: 'user', content: 'w' },
          use,
          { role: 'user', content: [result('toolu_a')] },
          { role: 'assistant', content: 'ok' },
          { role: 'user', content: [result('toolu_a')] },
        ],
      }),
      'messages.4.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_a. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.',
    );
    await assert400(
      native(sim(), { messages: [{ role: 'user', content: 'w' }, use, { role: 'user', content: 'no results' }] }),
      'messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_a. Each `tool_use` block must have a corresponding `tool_result` block in the next message.',
    );
  });

  test(`${profile} native: thinking needs the signed thinking block replayed, and no forced tool_choice`, async () => {
    // max_tokens above the budget (§2b): the thinking tests ask for 2048
    const thinking = { type: 'enabled', budget_tokens: 1024 };
    const max_tokens = 2048;
    const messages: Json[] = [
      { role: 'user', content: 'w' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_a', name: 'get_weather', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_a', content: 'sunny' }] },
    ];
    const expected =
      'messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`. When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks).';
    await assert400(native(sim(), { max_tokens, thinking, tools: antTools, messages }), expected);
    const unsigned = structuredClone(messages);
    unsigned[1].content = [{ type: 'thinking', thinking: 'hm', signature: '' }, ...messages[1].content];
    await assert400(
      native(sim(), { max_tokens, thinking, tools: antTools, messages: unsigned }),
      'Expected `thinking` or `redacted_thinking`',
    );
    assert.equal(
      (await native(sim(), { tools: antTools, messages })).status,
      200,
      'without thinking the same history is fine',
    );
    for (const tool_choice of [{ type: 'any' }, { type: 'tool', name: 'get_weather' }]) {
      await assert400(
        native(sim(), {
          max_tokens,
          thinking,
          tools: antTools,
          tool_choice,
          messages: [{ role: 'user', content: 'w' }],
        }),
        'Thinking may not be enabled when tool_choice forces tool use.',
      );
    }
  });

  test(`${profile} native: tools need a name and an object input_schema; bad image data`, async () => {
    const msgs = [{ role: 'user', content: 'x' }];
    await assert400(
      native(sim(), { messages: msgs, tools: [{ input_schema: weather }] }),
      'tools.0.custom.name: Field required',
    );
    await assert400(
      native(sim(), { messages: msgs, tools: [...antTools, { name: 'a' }] }),
      'tools.2.custom.input_schema: Field required',
    );
    await assert400(
      native(sim(), { messages: msgs, tools: [{ name: 'a', input_schema: { type: 'string' } }] }),
      "tools.0.custom.input_schema.type: Input should be 'object'",
    );
    await assert400(
      native(sim(), { messages: msgs, tools: [{ name: 'a b', input_schema: weather }] }),
      'tools.0.custom.name: String should match pattern',
    );
    const bad = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'not*base64' } };
    await assert400(
      native(sim(), { messages: [{ role: 'user', content: [bad, { type: 'text', text: 'see' }] }] }),
      'Invalid image data',
    );
  });

  // ---------------- native: replies ----------------

  test(`${profile} native: a tool_use block, non-streamed and streamed`, async () => {
    const messages = [{ role: 'user', content: 'get_weather in Rome' }];
    const r = JSON.parse((await native(sim(), { tools: antTools, messages })).text);
    assert.equal(r.stop_reason, 'tool_use');
    assert.equal(r.content.length, 1);
    assert.match(r.content[0].id, /^toolu_[0-9a-f]{24}$/);
    assert.deepEqual(
      { ...r.content[0], id: 'x' },
      { type: 'tool_use', id: 'x', name: 'get_weather', input: { city: 'get_weather in Rome' } },
    );
    const events = sseData((await native(sim(), { stream: true, tools: antTools, messages })).text);
    const start = events.find((e) => e.type === 'content_block_start')!;
    assert.deepEqual(
      { ...start.content_block, id: 'x' },
      { type: 'tool_use', id: 'x', name: 'get_weather', input: {} },
    );
    const partial = events.filter((e) => e.delta?.type === 'input_json_delta').map((e) => e.delta.partial_json);
    assert.equal(partial.length, 3);
    assert.deepEqual(JSON.parse(partial.join('')), { city: 'get_weather in Rome' });
    assert.equal(events.find((e) => e.type === 'message_delta')!.delta.stop_reason, 'tool_use');
    assert.deepEqual(events.map((e) => e.type).slice(-4), [
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
  });

  test(`${profile} native: tool results and images are answered with text`, async () => {
    const messages = [
      { role: 'user', content: 'w' },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Checking.' },
          { type: 'tool_use', id: 'toolu_a', name: 'get_weather', input: { city: 'Paris' } },
        ],
      },
      {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: 'toolu_a',
            content: [
              { type: 'text', text: '18°C,' },
              { type: 'text', text: 'sunny' },
            ],
          },
        ],
      },
    ];
    const r = JSON.parse((await native(sim(), { tools: antTools, messages })).text);
    assert.deepEqual(r.content, [{ type: 'text', text: 'Tool get_weather returned: 18°C, sunny' }]);
    assert.equal(r.stop_reason, 'end_turn');
    const image = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png.toString('base64') } };
    const s = sseData(
      (
        await native(sim(), {
          stream: true,
          messages: [{ role: 'user', content: [{ type: 'text', text: 'describe' }, image] }],
        })
      ).text,
    );
    assert.equal(
      s
        .filter((e) => e.delta?.type === 'text_delta')
        .map((e) => e.delta.text)
        .join(''),
      `I see 1 image (image/png, ${png.length} bytes). Echo: describe`,
    );
  });

  test(`${profile} native: thinking first (signed), then the answer at the next index`, async () => {
    const thinking = { type: 'enabled', budget_tokens: 1024 };
    const max_tokens = 2048; // above the budget (§2b)
    const r = JSON.parse(
      (await native(sim(), { max_tokens, thinking, messages: [{ role: 'user', content: 'ponder' }] })).text,
    );
    assert.equal(r.content[0].type, 'thinking');
    assert.equal(r.content[0].thinking, 'Let me think about this.');
    assert.match(r.content[0].signature, /^sig_[A-Za-z0-9+/]+=*$/);
    assert.deepEqual(r.content[1], { type: 'text', text: 'Echo: ponder' });
    const events = sseData(
      (
        await native(sim(), {
          stream: true,
          max_tokens,
          thinking,
          tools: antTools,
          messages: [{ role: 'user', content: 'get_weather Oslo' }],
        })
      ).text,
    );
    const starts = events.filter((e) => e.type === 'content_block_start');
    assert.deepEqual(
      starts.map((e) => [e.index, e.content_block.type]),
      [
        [0, 'thinking'],
        [1, 'tool_use'],
      ],
    );
    assert.deepEqual(starts[0].content_block, { type: 'thinking', thinking: '', signature: '' });
    const at0 = events.filter((e) => e.index === 0 && e.type === 'content_block_delta').map((e) => e.delta);
    assert.equal(
      at0
        .filter((d) => d.type === 'thinking_delta')
        .map((d) => d.thinking)
        .join(''),
      'Let me think about this.',
    );
    assert.deepEqual(
      at0.at(-1),
      { type: 'signature_delta', signature: r.content[0].signature },
      'the signature belongs to the thinking text',
    );
    assert.ok(events.some((e) => e.type === 'content_block_stop' && e.index === 1));
  });
}

test('plain text requests are unchanged by the agentic layer', async () => {
  const r = JSON.parse(
    (await compat(sims.strict, { messages: [{ role: 'user', content: [{ type: 'text', text: 'hello' }] }] })).text,
  );
  assert.deepEqual(r.choices[0].message, { role: 'assistant', content: 'Echo: hello', refusal: null });
  assert.equal(r.usage.completion_tokens, 2);
  const n = JSON.parse((await native(sims.strict, { messages: [{ role: 'user', content: 'hello' }] })).text);
  assert.deepEqual(n.content, [{ type: 'text', text: 'Echo: hello' }]);
  assert.equal(n.usage.output_tokens, 2);
});

test("Copilot's agent prompt: the tool and its arguments come from the <userRequest> block, not the context before it", async () => {
  const prompt = [
    '<environment_info>\nThe user is on Linux\n</environment_info>',
    '<reminderInstructions>\nWhen using the get_time tool, say so.\n</reminderInstructions>',
    '<userRequest>\nget_weather Oslo\n</userRequest>',
  ].join('\n');
  const r = JSON.parse(
    (await compat(sims.strict, { tools: oaTools, messages: [{ role: 'user', content: prompt }] })).text,
  );
  const call = r.choices[0].message.tool_calls[0];
  assert.equal(call.function.name, 'get_weather', 'the tool the request names, not one the reminders name');
  assert.deepEqual(JSON.parse(call.function.arguments), { city: 'get_weather Oslo' });
  const n = JSON.parse(
    (await native(sims.strict, { tools: antTools, messages: [{ role: 'user', content: prompt }] })).text,
  );
  assert.deepEqual(n.content[0].input, { city: 'get_weather Oslo' });
});
