/** The simulator's /v1/responses over real HTTP: OpenAI's refusals for broken stateless input, and new-api's framing. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import { makePng, type Profile, type Simulator } from './server';
import { useBothProfiles } from './profiles';

const sims = useBothProfiles();

/** Wire JSON under test: read freely, the assertions check it. */
type Json = Record<string, any>;

async function post(sim: Simulator, body: Json, path = '/v1/responses') {
  const r = await request(`${sim.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${sim.tokens.production}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4o-mini', ...body }),
  });
  return { status: r.statusCode, text: await r.body.text() };
}

async function refused(sim: Simulator, body: Json, status: number, fragment: string, code?: string) {
  const r = await post(sim, body);
  assert.equal(r.status, status, r.text);
  const e = JSON.parse(r.text).error;
  assert.ok(String(e.message).includes(fragment), `${e.message}\n  should contain: ${fragment}`);
  if (code !== undefined) assert.equal(e.code, code);
}

const call = { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{}' };
const tool = { type: 'function', name: 'get_weather', parameters: { type: 'object', properties: {} }, strict: false };

for (const profile of ['strict', 'real'] as Profile[]) {
  const sim = () => sims.of(profile);

  test(`${profile} responses: a function_call needs its output before the next user message`, async () => {
    await refused(
      sim(),
      { input: [{ role: 'user', content: 'hi' }, call, { role: 'user', content: 'next' }] },
      400,
      'No tool output found for function call call_1.',
    );
    await refused(
      sim(),
      {
        input: [
          { role: 'user', content: 'hi' },
          { type: 'function_call_output', call_id: 'call_9', output: 'x' },
        ],
      },
      400,
      'No tool call found for function call output with call_id call_9.',
    );
  });

  test(`${profile} responses: echoed item ids and reasoning without encrypted content are not found under store false`, async () => {
    await refused(
      sim(),
      {
        input: [
          { role: 'user', content: 'hi' },
          { ...call, id: 'fc_1' },
        ],
      },
      404,
      "Item with id 'fc_1' not found. Items are not persisted when `store` is set to false.",
    );
    await refused(
      sim(),
      { input: [{ role: 'user', content: 'hi' }, { type: 'reasoning', id: 'rs_1', summary: [] }, call] },
      404,
      "Item with id 'rs_1' not found.",
    );
  });

  test(`${profile} responses: encrypted content is verified, and a reasoning item needs its following item`, async () => {
    await refused(
      sim(),
      {
        input: [
          { role: 'user', content: 'hi' },
          { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'gAAAAAnope' },
          call,
        ],
      },
      400,
      'The encrypted content for item rs_1 could not be verified.',
      'invalid_encrypted_content',
    );
    const first = JSON.parse(
      (await post(sim(), { model: 'o3-pro', input: 'hi', include: ['reasoning.encrypted_content'] })).text,
    );
    const [reasoning, message] = first.output;
    assert.equal(reasoning.type, 'reasoning');
    assert.equal(message.type, 'message');
    const replay = (items: Json[]) =>
      post(sim(), {
        model: 'o3-pro',
        input: [{ role: 'user', content: 'hi' }, ...items, { role: 'user', content: 'more' }],
      });
    assert.equal((await replay([reasoning, { role: 'assistant', content: 'Echo: hi' }])).status, 200);
    await refused(
      sim(),
      { model: 'o3-pro', input: [{ role: 'user', content: 'hi' }, reasoning, { role: 'user', content: 'more' }] },
      400,
      `Item '${reasoning.id}' of type 'reasoning' was provided without its required following item.`,
    );
    const noInclude = JSON.parse((await post(sim(), { model: 'o3-pro', input: 'hi' })).text);
    assert.equal(noInclude.output[0].encrypted_content, undefined, 'encrypted content only when included');
  });

  test(`${profile} responses: chat-shaped tools and bad image data URLs are refused`, async () => {
    await refused(
      sim(),
      { input: 'hi', tools: [{ type: 'function', function: { name: 'get_weather' } }] },
      400,
      "Missing required parameter: 'tools[0].name'.",
    );
    await refused(
      sim(),
      {
        input: [
          { role: 'user', content: [{ type: 'input_image', image_url: 'data:image/png;base64,@@@', detail: 'auto' }] },
        ],
      },
      400,
      "Invalid 'input[0].content[0].image_url'.",
    );
    const png = makePng('r').toString('base64');
    const ok = await post(sim(), {
      input: [
        { role: 'user', content: [{ type: 'input_image', image_url: `data:image/png;base64,${png}`, detail: 'auto' }] },
      ],
    });
    assert.equal(ok.status, 200);
    assert.match(JSON.parse(ok.text).output[0].content[0].text, /^I see 1 image \(image\/png/);
  });

  test(`${profile} responses: Codex's tool list (custom with a grammar, web_search, local_shell) is accepted; unknown types refused`, async () => {
    const codexTools = [
      { type: 'function', name: 'shell', parameters: { type: 'object', properties: {} }, strict: false },
      {
        type: 'custom',
        name: 'apply_patch',
        description: 'Use the `apply_patch` tool to edit files.',
        format: { type: 'grammar', syntax: 'lark', definition: 'start: begin_patch hunk+ end_patch' },
      },
      { type: 'web_search' },
      { type: 'local_shell' },
    ];
    const ok = await post(sim(), {
      model: 'gpt-5.5-codex',
      instructions: 'You are Codex.',
      input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'say ok' }] }],
      tools: codexTools,
      tool_choice: 'auto',
      parallel_tool_calls: false,
      store: false,
      stream: true,
      include: ['reasoning.encrypted_content'],
      reasoning: { effort: 'low', summary: 'auto' },
    });
    assert.equal(ok.status, 200, ok.text);
    assert.match(ok.text, /response\.completed/);
    // A custom tool's call replayed with its output is a valid turn.
    const replay = await post(sim(), {
      input: [
        { role: 'user', content: 'patch it' },
        { type: 'custom_tool_call', call_id: 'call_9', name: 'apply_patch', input: '*** Begin Patch' },
        { type: 'custom_tool_call_output', call_id: 'call_9', output: 'Done!' },
      ],
      tools: codexTools,
    });
    assert.equal(replay.status, 200, replay.text);
    await refused(
      sim(),
      { input: 'hi', tools: [{ type: 'browser' }] },
      400,
      "Invalid value: 'browser'. Supported values are: 'function', 'custom',",
    );
    await refused(
      sim(),
      {
        input: 'hi',
        tools: [{ type: 'custom', name: 'x', format: { type: 'grammar', syntax: 'ebnf', definition: 'a' } }],
      },
      400,
      "Invalid value: 'ebnf'. Supported values are: 'lark' and 'regex'.",
    );
  });

  test(`${profile} responses: a tool is called, and the stream is typed events framed by their type, without [DONE]`, async () => {
    const r = await post(sim(), { input: 'get_weather now', tools: [tool], stream: true });
    assert.equal(r.status, 200);
    const frames = r.text.split('\n\n').filter(Boolean);
    assert.ok(!r.text.includes('[DONE]'));
    const events = frames.map((f) => {
      const [event, data] = f.split('\n');
      const json = JSON.parse(data.slice(6));
      assert.equal(event, `event: ${json.type}`);
      return json;
    });
    assert.deepEqual(
      events.map((e) => e.sequence_number),
      events.map((_, i) => i),
    );
    assert.equal(events.at(-1)!.type, 'response.completed');
    const done = events.find((e) => e.type === 'response.function_call_arguments.done');
    assert.equal(done.arguments, '{}');
    assert.equal(events.at(-1)!.response.output[0].type, 'function_call');
  });

  test(`${profile} responses: Codex's turn — a custom tool, hosted tools and a namespace beside functions; its call replayed whole with the issued id`, async () => {
    const codexTools = [
      tool,
      { type: 'custom', name: 'apply_patch', description: 'patch', format: { type: 'text' } },
      { type: 'tool_search' },
      { type: 'namespace', name: 'mcp', tools: [] },
      { type: 'web_search', external_web_access: false },
    ];
    const first = await post(sim(), { input: 'get_weather now', tools: codexTools });
    assert.equal(first.status, 200, first.text);
    const issued = JSON.parse(first.text).output.find((o: Json) => o.type === 'function_call');
    assert.equal(issued.name, 'get_weather', 'only a function tool is called');
    const { id, call_id, name, arguments: args } = issued;
    const second = await post(sim(), {
      input: [
        { role: 'user', content: 'get_weather now' },
        { type: 'function_call', id, call_id, name, arguments: args },
        { type: 'function_call_output', call_id, output: 'sunny' },
      ],
      tools: codexTools,
    });
    assert.equal(second.status, 200, second.text);
    assert.match(JSON.parse(second.text).output[0].content[0].text, /^Tool get_weather returned: sunny/);
    await refused(
      sim(),
      { input: 'hi', tools: [{ type: 'computer' }] },
      400,
      "Invalid value: 'computer'. Supported values are:",
    );
  });

  test(`${profile} responses: a model without reasoning refuses encrypted reasoning content`, async () => {
    await refused(
      sim(),
      { input: 'hi', include: ['reasoning.encrypted_content'] },
      400,
      'Encrypted content is not supported with this model.',
    );
  });

  test(`${profile} responses: previous_response_id is not found (nothing is stored)`, async () => {
    await refused(
      sim(),
      { input: 'hi', previous_response_id: 'resp_1' },
      400,
      "Previous response with id 'resp_1' not found.",
    );
  });

  test(`${profile} responses: responses-only models refuse /v1/chat/completions with OpenAI's body`, async () => {
    const r = await post(
      sim(),
      { model: 'gpt-5.5-codex', messages: [{ role: 'user', content: 'x' }] },
      '/v1/chat/completions',
    );
    assert.equal(r.status, 404, 'provider-constraints.md §1a: 404');
    const e = JSON.parse(r.text).error;
    assert.ok(e.message.startsWith('This model is only supported in v1/responses and not in v1/chat/completions.'));
    assert.equal(e.type, 'invalid_request_error');
    assert.equal(e.param, 'model');
    assert.equal(e.code, null);
  });
}

test('real: model list endpoint types: gpt-5.5-codex says only "openai", o3-pro "openai-response"; a Claude model cannot convert', async () => {
  const r = await request(`${sims.real.url}/v1/models`, {
    headers: { authorization: `Bearer ${sims.real.tokens.production}` },
  });
  const data = ((await r.body.json()) as Json).data as Json[];
  const types = (id: string) => data.find((m) => m.id === id)?.supported_endpoint_types;
  assert.deepEqual(types('gpt-5.5-codex'), ['openai']);
  assert.deepEqual(types('o3-pro'), ['openai-response']);
  const claude = await post(sims.real, { model: 'claude-sonnet-4-5', input: 'hi' });
  assert.equal(claude.status, 500);
  const e = JSON.parse(claude.text).error;
  assert.match(e.message, /^not implemented \(request id: .+\)$/);
  assert.equal(e.type, 'new_api_error');
  assert.equal(e.code, 'convert_request_failed');
});
