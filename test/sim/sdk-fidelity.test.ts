/**
 * Proof of fidelity: the official `openai` and `@anthropic-ai/sdk` clients parse the simulator's
 * answers, streamed and not, and raise their own error classes for its errors.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import type { Simulator } from './server';
import { useBothProfiles } from './profiles';

const sims = useBothProfiles();

const openai = (sim: Simulator, apiKey = sim.tokens.production) =>
  new OpenAI({ baseURL: `${sim.url}/v1`, apiKey, maxRetries: 0, timeout: 10_000 });
const anthropic = (sim: Simulator, apiKey = sim.tokens.production) =>
  new Anthropic({
    baseURL: sim.url,
    apiKey,
    maxRetries: 0,
    timeout: 10_000,
    defaultHeaders: { 'native-version': '2023-06-01' },
  });

for (const profile of ['strict', 'real'] as const) {
  const sim = () => (profile === 'strict' ? sims.strict : sims.real);

  test(`${profile}: openai chat.completions non-stream and stream`, async () => {
    const client = openai(sim());
    const r = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [
        { role: 'system', content: 'terse' },
        { role: 'user', content: 'hello sdk' },
      ],
    });
    assert.equal(r.choices[0].message.content, 'Echo: hello sdk');
    assert.equal(r.choices[0].finish_reason, 'stop');
    assert.ok(r.usage!.total_tokens > 0);
    const stream = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'hello sdk stream' }],
    });
    let text = '';
    let usage: unknown;
    let chunks = 0;
    for await (const chunk of stream) {
      chunks++;
      text += chunk.choices[0]?.delta?.content ?? '';
      if (chunk.usage) usage = chunk.usage;
    }
    assert.equal(text, 'Echo: hello sdk stream');
    assert.ok(chunks > 3);
    assert.ok(usage, 'usage chunk parsed');
  });

  test(`${profile}: openai models, images, videos`, async () => {
    const client = openai(sim());
    const models = [];
    for await (const m of client.models.list()) models.push(m.id);
    assert.ok(models.includes('gpt-4o-mini') && models.includes('sora-2'));
    const img = await client.images.generate({ model: 'gpt-image-1', prompt: 'a lighthouse', size: '1024x1024' });
    assert.ok(Buffer.from(img.data![0].b64_json!, 'base64').subarray(1, 4).toString('latin1') === 'PNG');
    const url = await client.images.generate({ model: 'dall-e-3', prompt: 'a lighthouse' });
    assert.match(url.data![0].url!, /^http:\/\/127\.0\.0\.1:\d+\/files\//);
    const video = await client.videos.create({ model: 'sora-2', prompt: 'waves', seconds: '4' });
    assert.ok(video.id);
    assert.equal(video.status, 'queued');
    let v = await client.videos.retrieve(video.id);
    for (let i = 0; i < 5 && v.status !== 'completed'; i++) v = await client.videos.retrieve(video.id);
    assert.equal(v.status, 'completed');
    const content = await client.videos.downloadContent(video.id);
    const bytes = Buffer.from(await content.arrayBuffer());
    assert.equal(bytes.subarray(4, 8).toString('latin1'), 'ftyp');
  });

  test(`${profile}: openai error classes for 401, 404 and the group case`, async () => {
    await assert.rejects(
      openai(sim(), 'sk-' + 'x'.repeat(48)).chat.completions.create({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: 'x' }],
      }),
      OpenAI.AuthenticationError,
    );
    const bad = new OpenAI({ baseURL: `${sim().url}/v1/v1`, apiKey: sim().tokens.production, maxRetries: 0 });
    await assert.rejects(
      bad.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x' }] }),
      OpenAI.NotFoundError,
    );
    const group = openai(sim()).chat.completions.create({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'x' }],
    });
    if (profile === 'strict') await assert.rejects(group, OpenAI.PermissionDeniedError);
    else
      await assert.rejects(
        group,
        (e: unknown) =>
          e instanceof OpenAI.InternalServerError &&
          e.status === 503 &&
          (e as { code?: string }).code === 'model_not_found',
      );
  });

  test(`${profile}: openai stream with an error data line raises an APIError`, async () => {
    sim().fault({ kind: 'midStreamError', afterEvents: 2, count: 1 });
    const stream = await openai(sim()).chat.completions.create({
      model: 'gpt-4o-mini',
      stream: true,
      messages: [{ role: 'user', content: 'a b c d e' }],
    });
    await assert.rejects(async () => {
      for await (const _ of stream) void _;
    }, OpenAI.APIError);
  });

  test(`${profile}: anthropic messages non-stream and stream`, async () => {
    const client = anthropic(sim());
    const r = await client.messages.create({
      model: 'claude-sonnet-4-5',
      max_tokens: 64,
      system: 'terse',
      messages: [{ role: 'user', content: 'hello native' }],
    });
    assert.equal(r.content[0].type, 'text');
    assert.equal((r.content[0] as { text: string }).text, 'Echo: hello native');
    assert.equal(r.stop_reason, 'end_turn');
    const stream = client.messages.stream({
      model: 'claude-sonnet-4-5',
      max_tokens: 64,
      messages: [{ role: 'user', content: 'hello native stream' }],
    });
    const types = new Set<string>();
    stream.on('streamEvent', (e) => types.add(e.type));
    const final = await stream.finalMessage();
    assert.equal((final.content[0] as { text: string }).text, 'Echo: hello native stream');
    assert.equal(final.usage.output_tokens, 4);
    for (const t of [
      'message_start',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ])
      assert.ok(types.has(t), t);
    const cut = await client.messages.create({
      model: 'claude-sonnet-4-5',
      max_tokens: 2,
      messages: [{ role: 'user', content: 'one two three four' }],
    });
    assert.equal(cut.stop_reason, 'max_tokens');
  });

  test(`${profile}: openai stream helper accumulates a tool call (a custom tool beside it); the tool result round-trips`, async () => {
    const client = openai(sim());
    const tools: OpenAI.ChatCompletionTool[] = [
      {
        type: 'function',
        function: {
          name: 'get_weather',
          description: 'Weather for a city',
          parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        },
      },
      // a custom (free-form) tool in the SDK's own type, as Copilot CLI sends its apply_patch
      {
        type: 'custom',
        custom: {
          name: 'apply_patch',
          description: 'Edit files with a patch.',
          format: { type: 'grammar', grammar: { syntax: 'lark', definition: 'start: "*** Begin Patch" /(.|\\n)*/' } },
        },
      },
    ];
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'get_weather for Paris' }];
    const first = await client.chat.completions.stream({ model: 'gpt-4o-mini', tools, messages }).finalChatCompletion();
    const choice = first.choices[0];
    assert.equal(choice.finish_reason, 'tool_calls');
    const call = choice.message.tool_calls![0];
    assert.ok(call.type === 'function');
    assert.equal(call.function.name, 'get_weather');
    assert.deepEqual(JSON.parse(call.function.arguments), { city: 'get_weather for Paris' });
    messages.push(
      { role: 'assistant', content: null, tool_calls: [call] },
      { role: 'tool', tool_call_id: call.id, content: '18°C, sunny' },
    );
    const second = await client.chat.completions
      .stream({ model: 'gpt-4o-mini', tools, messages })
      .finalChatCompletion();
    assert.equal(second.choices[0].message.content, 'Tool get_weather returned: 18°C, sunny');
    assert.equal(second.choices[0].finish_reason, 'stop');
  });

  test(`${profile}: anthropic stream helper parses tool_use input and a signed thinking block; the tool result round-trips`, async () => {
    const client = anthropic(sim());
    const tools: Anthropic.Tool[] = [
      {
        name: 'get_weather',
        description: 'Weather for a city',
        input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      },
    ];
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'get_weather for Paris' }];
    const plain = await client.messages
      .stream({ model: 'claude-sonnet-4-5', max_tokens: 2048, tools, messages })
      .finalMessage();
    assert.equal(plain.stop_reason, 'tool_use');
    const use = plain.content.find((b): b is Anthropic.ToolUseBlock => b.type === 'tool_use')!;
    assert.equal(use.name, 'get_weather');
    assert.deepEqual(use.input, { city: 'get_weather for Paris' });
    const thinking = { type: 'enabled', budget_tokens: 1024 } as const;
    const final = await client.messages
      .stream({ model: 'claude-sonnet-4-5', max_tokens: 2048, thinking, tools, messages })
      .finalMessage();
    const [think, call] = final.content;
    assert.ok(
      think?.type === 'thinking' && think.thinking.length > 0 && think.signature.startsWith('sig_'),
      'a signed thinking block first',
    );
    assert.ok(call?.type === 'tool_use');
    assert.deepEqual(call.input, { city: 'get_weather for Paris' });
    // The second turn replays the assistant content (thinking included) and answers the call.
    messages.push(
      { role: 'assistant', content: final.content },
      {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: call.id, content: [{ type: 'text', text: '18°C, sunny' }] }],
      },
    );
    const second = await client.messages
      .stream({ model: 'claude-sonnet-4-5', max_tokens: 2048, thinking, tools, messages })
      .finalMessage();
    const text = second.content.find((b): b is Anthropic.TextBlock => b.type === 'text')!;
    assert.equal(text.text, 'Tool get_weather returned: 18°C, sunny');
    assert.equal(second.stop_reason, 'end_turn');
    // Dropping the thinking block from the replayed turn is the upstream's 400.
    const stripped: Anthropic.MessageParam[] = [messages[0], { role: 'assistant', content: [call] }, messages[2]];
    await assert.rejects(
      client.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 2048, thinking, tools, messages: stripped }),
      Anthropic.BadRequestError,
    );
  });

  test(`${profile}: anthropic error classes (401, mid-stream error event)`, async () => {
    await assert.rejects(
      anthropic(sim(), 'sk-' + 'y'.repeat(48)).messages.create({
        model: 'claude-sonnet-4-5',
        max_tokens: 8,
        messages: [{ role: 'user', content: 'x' }],
      }),
      Anthropic.AuthenticationError,
    );
    sim().fault({ kind: 'midStreamError', afterEvents: 3, count: 1 });
    const stream = anthropic(sim()).messages.stream({
      model: 'claude-sonnet-4-5',
      max_tokens: 64,
      messages: [{ role: 'user', content: 'a b c d e f' }],
    });
    await assert.rejects(stream.finalMessage(), Anthropic.APIError);
  });
}

for (const profile of ['strict', 'real'] as const) {
  const sim = () => (profile === 'strict' ? sims.strict : sims.real);
  const tools: OpenAI.Responses.FunctionTool[] = [
    {
      type: 'function',
      name: 'get_weather',
      description: 'Weather for a city',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      strict: false,
    },
  ];

  test(`${profile}: openai responses.create non-stream and stream: true`, async () => {
    const client = openai(sim());
    const r = await client.responses.create({
      model: 'gpt-4o-mini',
      instructions: 'terse',
      input: 'hello responses',
      store: false,
    });
    assert.equal(r.output_text, 'Echo: hello responses');
    assert.equal(r.status, 'completed');
    assert.ok(r.usage!.total_tokens > 0);
    const stream = await client.responses.create({
      model: 'gpt-4o-mini',
      input: [{ role: 'user', content: [{ type: 'input_text', text: 'hello responses stream' }] }],
      stream: true,
    });
    let text = '';
    const types = new Set<string>();
    let last = -1;
    for await (const event of stream) {
      types.add(event.type);
      assert.ok(event.sequence_number > last, 'sequence numbers increase');
      last = event.sequence_number;
      if (event.type === 'response.output_text.delta') text += event.delta;
    }
    assert.equal(text, 'Echo: hello responses stream');
    for (const t of [
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.done',
      'response.output_item.done',
      'response.completed',
    ])
      assert.ok(types.has(t), t);
  });

  test(`${profile}: openai responses.stream finalResponse: a tool call, its output round-trips with the reasoning item replayed`, async () => {
    const client = openai(sim());
    const input: OpenAI.Responses.ResponseInput = [{ role: 'user', content: 'get_weather for Paris' }];
    const params = {
      model: 'gpt-5.5-codex',
      tools,
      store: false,
      include: ['reasoning.encrypted_content'] as OpenAI.Responses.ResponseIncludable[],
    };
    const first = await client.responses.stream({ ...params, input }).finalResponse();
    const [reasoning, call] = first.output;
    assert.ok(
      reasoning?.type === 'reasoning' && reasoning.encrypted_content,
      'a reasoning item with encrypted content',
    );
    assert.equal(reasoning.summary[0]?.text, 'Let me think about this.');
    assert.ok(call?.type === 'function_call');
    assert.equal(call.name, 'get_weather');
    assert.deepEqual(JSON.parse(call.arguments), { city: 'get_weather for Paris' });
    // Stateless: every output item back (the call without its id), then the call's output.
    input.push(
      {
        type: 'reasoning',
        id: reasoning.id,
        summary: reasoning.summary,
        encrypted_content: reasoning.encrypted_content,
      },
      { type: 'function_call', call_id: call.call_id, name: call.name, arguments: call.arguments },
      { type: 'function_call_output', call_id: call.call_id, output: '18°C, sunny' },
    );
    const second = await client.responses.create({ ...params, input });
    assert.equal(second.output_text, 'Tool get_weather returned: 18°C, sunny');
    // Encrypted content this upstream did not make is refused with its code.
    const forged = input.map((item) =>
      'type' in item && item.type === 'reasoning' ? { ...item, encrypted_content: 'gAAAAAforged' } : item,
    );
    await assert.rejects(
      client.responses.create({ ...params, input: forged }),
      (e: unknown) => e instanceof OpenAI.BadRequestError && e.code === 'invalid_encrypted_content',
    );
    // A call without its output before the next user message is OpenAI's 400.
    await assert.rejects(
      client.responses.create({ ...params, input: [...input.slice(0, 3), { role: 'user', content: 'and?' }] }),
      (e: unknown) => e instanceof OpenAI.BadRequestError && /No tool output found for function call/.test(e.message),
    );
  });

  test(`${profile}: openai responses stream failures arrive as the SDK's response.failed and error events`, async () => {
    // (the SDK raises only on a top-level `error` key, which neither event has: a client must treat them as fatal)
    sim().fault({ kind: 'midStreamError', afterEvents: 4, code: 'rate_limit_exceeded', count: 1 });
    const failed: OpenAI.Responses.ResponseStreamEvent[] = [];
    for await (const e of await openai(sim()).responses.create({
      model: 'gpt-4o-mini',
      input: 'a b c d',
      stream: true,
    }))
      failed.push(e);
    const last = failed.at(-1);
    assert.ok(last?.type === 'response.failed', 'the last event is response.failed');
    assert.equal(last.response.status, 'failed');
    assert.equal(last.response.error?.code, 'rate_limit_exceeded');
    assert.equal(last.sequence_number, 4);
    sim().fault({ kind: 'midStreamError', afterEvents: 4, event: 'error', code: 'server_error', count: 1 });
    const errored: OpenAI.Responses.ResponseStreamEvent[] = [];
    for await (const e of await openai(sim()).responses.create({
      model: 'gpt-4o-mini',
      input: 'a b c d',
      stream: true,
    }))
      errored.push(e);
    const bare = errored.at(-1);
    assert.ok(bare?.type === 'error');
    assert.equal(bare.code, 'server_error');
    assert.ok(bare.message);
  });

  test(`${profile}: a responses-only model on chat.completions is the SDK's NotFoundError (404, provider-constraints §1a)`, async () => {
    await assert.rejects(
      openai(sim()).chat.completions.create({ model: 'o3-pro', messages: [{ role: 'user', content: 'x' }] }),
      (e: unknown) =>
        e instanceof OpenAI.NotFoundError &&
        /only supported in v1\/responses and not in v1\/chat\/completions/.test(e.message) &&
        e.param === 'model',
    );
  });

  test(`${profile}: every envelope of the rule table (constraints/) is the SDKs' error, with its fields`, async () => {
    const said = (
      cls: abstract new (...args: never[]) => Error,
      words: RegExp,
      fields: Record<string, unknown> = {},
    ) => {
      return (e: unknown) => {
        assert.ok(e instanceof cls, String(e));
        assert.match(e.message, words);
        for (const [k, v] of Object.entries(fields)) assert.equal((e as unknown as Record<string, unknown>)[k], v, k);
        return true;
      };
    };
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'x' }];
    // OpenAI's envelope, on both surfaces
    await assert.rejects(
      openai(sim()).chat.completions.create({ model: 'gpt-5-mini', messages, stop: ['END'] }),
      said(OpenAI.BadRequestError, /'stop' is not supported/, { param: 'stop', code: 'unsupported_parameter' }),
    );
    await assert.rejects(
      openai(sim()).responses.create({ model: 'gpt-4o-mini', input: 'x', max_output_tokens: 1 }),
      said(OpenAI.BadRequestError, /integer below minimum value/, { code: 'integer_below_min_value' }),
    );
    // DeepSeek's (param null, code invalid_request_error) and Kimi's (neither)
    await assert.rejects(
      openai(sim()).chat.completions.create({ model: 'deepseek-chat', messages, max_tokens: 8193 }),
      said(OpenAI.BadRequestError, /valid range of max_tokens is \[1, 8192\]/, { code: 'invalid_request_error' }),
    );
    await assert.rejects(
      openai(sim()).chat.completions.create({ model: 'kimi-k2.5', messages, temperature: 0.7 }),
      said(OpenAI.BadRequestError, /only 1 is allowed/),
    );
    // Anthropic's, natively and converted from Chat Completions
    await assert.rejects(
      anthropic(sim()).messages.create({
        model: 'claude-opus-4-7',
        max_tokens: 16,
        temperature: 0.5,
        messages: [{ role: 'user', content: 'x' }],
      }),
      (e: unknown) => e instanceof Anthropic.BadRequestError && /`temperature` is deprecated/.test(e.message),
    );
    await assert.rejects(
      openai(sim()).chat.completions.create({ model: 'claude-opus-4-7', messages, temperature: 0.5 }),
      said(OpenAI.BadRequestError, /`temperature` is deprecated/),
    );
    // new-api's own 500 (real): the SDK's InternalServerError, with new-api's code
    if (profile === 'real')
      await assert.rejects(
        openai(sim()).chat.completions.create({ model: 'gpt-4o-mini', messages: [] }),
        said(OpenAI.InternalServerError, /field messages is required/, { code: 'invalid_request' }),
      );
  });
}

test('strict: the native surface without native-version is a 400 the SDK reports', async () => {
  const client = new Anthropic({ baseURL: sims.strict.url, apiKey: sims.strict.tokens.production, maxRetries: 0 });
  await assert.rejects(
    client.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 8, messages: [{ role: 'user', content: 'x' }] }),
    Anthropic.BadRequestError,
  );
});
