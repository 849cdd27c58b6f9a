/**
 * The simulator's reasoning models hold the reasoning of tool-call turns to their vendors' rules
 * (shared/reference/reasoning-replay.md §1), in both profiles, with the vendors' exact texts; and
 * the core's one retry on those refusals, non-streamed as well as streamed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import { useBothProfiles } from '../sim/profiles';
import type { Simulator } from '../sim/server';
import { makeClient } from './helpers';

const sims = useBothProfiles();
type Json = Record<string, any>;

async function compat(sim: Simulator, body: Json) {
  const r = await request(`${sim.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${sim.tokens.production}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await r.body.text();
  return { status: r.statusCode, json: JSON.parse(text) as Json };
}

const tools = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }];
const callMsg = (extra: Json = {}) => ({
  role: 'assistant',
  content: null,
  tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{}' } }],
  ...extra,
});
/** system, user, assistant(call), tool, assistant(answer), user, assistant(call), tool */
const loop = (first: Json, answer: Json, second: Json) => [
  { role: 'system', content: 'Be brief.' },
  { role: 'user', content: 'Paris?' },
  callMsg(first),
  { role: 'tool', tool_call_id: 'call_1', content: '18°C' },
  { role: 'assistant', content: 'It is 18°C.', ...answer },
  { role: 'user', content: 'Rome?' },
  {
    ...callMsg(second),
    tool_calls: [{ id: 'call_2', type: 'function', function: { name: 'get_weather', arguments: '{}' } }],
  },
  { role: 'tool', tool_call_id: 'call_2', content: '20°C' },
];
const R = { reasoning_content: 'thought' };

for (const profile of ['strict', 'real'] as const) {
  test(`${profile} deepseek-v4-pro: every assistant message of a tool-using turn needs reasoning_content (DeepSeek's text and index)`, async () => {
    const sim = sims.of(profile);
    const missingAnswer = await compat(sim, { model: 'deepseek-v4-pro', tools, messages: loop(R, {}, R) });
    assert.equal(missingAnswer.status, 400);
    assert.match(
      missingAnswer.json.error.message,
      /^Missing `reasoning_content` field in the assistant message at message index 4\. For more information, please refer to https:\/\/api-docs\.deepseek\.com\/guides\/thinking_mode#tool-calls/,
    );
    const missingCall = await compat(sim, { model: 'deepseek-v4-pro', tools, messages: loop(R, R, {}) });
    assert.match(missingCall.json.error.message, /at message index 6\./);
    const empty = { reasoning_content: '' };
    const ok = await compat(sim, { model: 'deepseek-v4-pro', tools, messages: loop(empty, empty, R) });
    assert.equal(ok.status, 200, JSON.stringify(ok.json));
    assert.equal(ok.json.choices[0].message.reasoning_content, 'Let me think about this.');
  });

  test(`${profile} kimi-k2-thinking: only tool-call messages need it (Kimi's text and index)`, async () => {
    const sim = sims.of(profile);
    const ok = await compat(sim, { model: 'kimi-k2-thinking', tools, messages: loop(R, {}, R) });
    assert.equal(ok.status, 200, JSON.stringify(ok.json));
    const missing = await compat(sim, { model: 'kimi-k2-thinking', tools, messages: loop(R, {}, {}) });
    assert.equal(missing.status, 400);
    assert.match(
      missing.json.error.message,
      /^thinking is enabled but reasoning_content is missing in assistant tool call message at index 6/,
    );
  });

  test(`${profile} deepseek-r1: refuses reasoning_content anywhere (the legacy text); answers without it`, async () => {
    const sim = sims.of(profile);
    const sent = await compat(sim, { model: 'deepseek-r1', tools, messages: loop({ reasoning_content: '' }, {}, {}) });
    assert.equal(sent.status, 400);
    assert.match(sent.json.error.message, /^The reasoning_content is an intermediate result for display purposes only/);
    const ok = await compat(sim, { model: 'deepseek-r1', tools, messages: loop({}, {}, {}) });
    assert.equal(ok.status, 200);
    assert.equal(ok.json.choices[0].message.reasoning_content, 'Let me think about this.');
  });

  test(`${profile} the reasoning models are listed${profile === 'real' ? ' with endpoint types ["openai"]' : ''}`, async () => {
    const sim = sims.of(profile);
    const r = await request(`${sim.url}/v1/models`, { headers: { authorization: `Bearer ${sim.tokens.production}` } });
    const data = ((await r.body.json()) as { data: Json[] }).data;
    for (const id of ['deepseek-v4-pro', 'kimi-k2-thinking', 'deepseek-r1']) {
      const m = data.find((x) => x.id === id);
      assert.ok(m, id);
      if (profile === 'real') assert.deepEqual(m.supported_endpoint_types, ['openai']);
    }
  });

  test(`${profile} non-streamed: a refusal for the missing field is retried once with it`, async () => {
    const sim = sims.of(profile);
    const { client } = makeClient(sim);
    const messages = [
      { role: 'user' as const, content: 'Paris?' },
      {
        role: 'assistant' as const,
        content: [{ type: 'tool_call' as const, id: 'call_1', name: 'get_weather', input: {} }],
      },
      {
        role: 'user' as const,
        content: [
          { type: 'tool_result' as const, callId: 'call_1', content: [{ type: 'text' as const, text: '18°C' }] },
        ],
      },
    ];
    const tools = [{ name: 'get_weather', inputSchema: { type: 'object' } }];
    const r = await client.chat({
      surface: 'compatible',
      model: 'deepseek-v4-pro',
      messages,
      tools,
      replayReasoning: false,
    });
    assert.match(r.text, /Tool get_weather returned: 18°C/);
    assert.deepEqual(
      sim.log.map((x) => x.status),
      [400, 200],
    );
  });
}
