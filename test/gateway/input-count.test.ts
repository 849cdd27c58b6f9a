/**
 * The local count of what a chat sent (economy/inputCount.ts), for its receipt's input check: which models
 * are counted, what counts as plain input, the cookbook's framing, and the request record that waits for its
 * count (bounded) before it is written.
 */
import { test, mock } from 'node:test';
import assert from 'node:assert/strict';
import { countTokens } from 'gpt-tokenizer/cjs/encoding/o200k_base';
import { localInputCount, tokenizerOf, type ChatRequest, type CountText, type RequestRecord } from '../../src/gateway';
import { COUNT_WAIT_MS, recordAttempt, type AttemptFacts, type LocalCount } from '../../src/gateway/requestLog';
import { startSimulator } from '../sim/server';
import { makeClient } from './helpers';

const o200k: CountText = (s) => Promise.resolve(countTokens(s));

test('the tokenizer is o200k_base for current OpenAI models only (a vendor prefix ignored)', () => {
  for (const m of [
    'gpt-4o',
    'gpt-4o-mini',
    'GPT-4o-2024-08-06',
    'chatgpt-4o-latest',
    'gpt-4.1-nano',
    'gpt-4.5-preview',
    'gpt-5',
    'gpt-5.5',
    'gpt-5-mini',
    'gpt-5.5-codex',
    'o1',
    'o1-mini',
    'o3-pro',
    'o4-mini',
    'openai/gpt-4o',
  ])
    assert.equal(tokenizerOf(m), 'o200k_base', m);
  // cl100k (gpt-4, gpt-3.5), harmony (gpt-oss), unpublished (Claude) or not bundled (the rest)
  for (const m of [
    'gpt-4',
    'gpt-4-turbo',
    'gpt-3.5-turbo',
    'gpt-oss-120b',
    'gpt-50',
    'o10',
    'claude-sonnet-4-5',
    'deepseek-chat',
    'qwen3-coder-30b-a3b-instruct',
    'gemini-2.5-flash',
    'kimi-k2.5',
  ])
    assert.equal(tokenizerOf(m), undefined, m);
});

test("the cookbook's framing: 3 per message with its role's tokens, 3 priming the reply; the system prompt is a message", async () => {
  const one: ChatRequest = { surface: 'compatible', model: 'gpt-4o', messages: [{ role: 'user', content: 'hello' }] };
  // what the OpenAI API bills for [{role: user, content: hello}]: 3 + 1 ("user") + 1 ("hello") + 3
  assert.deepEqual(await localInputCount(one, o200k), { tokens: 8, tokenizer: 'o200k_base' });
  const req: ChatRequest = {
    surface: 'native',
    model: 'gpt-5.5',
    system: 'Be brief.',
    messages: [
      { role: 'user', content: '你好，世界' },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Hello' },
          { type: 'text', text: ' there' },
        ],
      },
      { role: 'user', content: 'const x = await fetch(url);\n' },
    ],
  };
  const pieces = [
    ['system', 'Be brief.'],
    ['user', '你好，世界'],
    ['assistant', 'Hello there'],
    ['user', 'const x = await fetch(url);\n'],
  ];
  const expected = 3 + pieces.reduce((n, [role, text]) => n + 3 + countTokens(role) + countTokens(text), 0);
  assert.deepEqual(await localInputCount(req, o200k), { tokens: expected, tokenizer: 'o200k_base' });
});

test('not counted: tool definitions, images, tool calls and results, replayed reasoning, a model without a bundled tokenizer, a text the tokenizer cannot count', async () => {
  const base: ChatRequest = { surface: 'compatible', model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] };
  const cases: Array<[string, ChatRequest]> = [
    ['tools', { ...base, tools: [{ name: 'read_file' }] }],
    [
      'an image',
      {
        ...base,
        messages: [{ role: 'user', content: [{ type: 'image', mimeType: 'image/png', data: 'iVBORw0KGgo=' }] }],
      },
    ],
    [
      'a tool call',
      { ...base, messages: [{ role: 'assistant', content: [{ type: 'tool_call', id: 'c1', name: 'f', input: {} }] }] },
    ],
    [
      'a tool result',
      {
        ...base,
        messages: [
          { role: 'user', content: [{ type: 'tool_result', callId: 'c1', content: [{ type: 'text', text: 'x' }] }] },
        ],
      },
    ],
    ['reasoning', { ...base, messages: [{ role: 'assistant', content: [{ type: 'reasoning', text: 'hmm' }] }] }],
    ['claude', { ...base, model: 'claude-sonnet-4-5' }],
  ];
  for (const [what, req] of cases) assert.equal(await localInputCount(req, o200k), undefined, what);
  assert.equal(await localInputCount(base, () => Promise.resolve(undefined)), undefined, 'no tokenizer loaded');
});

const FACTS: AttemptFacts = {
  surface: 'compatible',
  capability: 'chat',
  host: '127.0.0.1',
  method: 'POST',
  path: '/v1/chat/completions',
  model: 'gpt-4o',
  token: 'sk-abcdefghijklmnopqrstuvwxyz',
  attempt: 1,
  stream: false,
};

test('a count that never comes does not hold the record: it is written without one after COUNT_WAIT_MS; a failed count at once', async () => {
  mock.timers.enable({ apis: ['setTimeout'] });
  try {
    const got: RequestRecord[] = [];
    const waiting: Array<Promise<void>> = [];
    const record = (rid: string, localInput: Promise<LocalCount | undefined>) =>
      recordAttempt(
        (r) => got.push(r),
        FACTS,
        () => 0,
        (w) => waiting.push(w),
      )(200, rid, { localInput });
    record('rid-1', new Promise(() => {}));
    assert.equal(waiting.length, 1, 'the writing is handed over');
    await Promise.resolve();
    assert.equal(got.length, 0, 'waiting for the count');
    mock.timers.tick(COUNT_WAIT_MS);
    await waiting[0];
    assert.equal(got.length, 1);
    assert.equal(got[0].localInput, undefined);
    assert.equal(got[0].requestId, 'rid-1');
    record('rid-2', Promise.reject(new Error('tokenizer missing')));
    await waiting[1];
    assert.equal(got.length, 2);
    assert.equal(got[1].localInput, undefined);
  } finally {
    mock.timers.reset();
  }
});

test("a chat's record carries the count of what it sent, written once the count is made; a failed call is recorded at once, uncounted", async () => {
  const sim = await startSimulator({ profile: 'real' });
  try {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const counted: string[] = [];
    const slow: CountText = async (s) => {
      counted.push(s);
      await gate;
      return countTokens(s);
    };
    const tc = makeClient(sim, { countText: slow });
    await tc.client.chat({
      surface: 'compatible',
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'hello' }],
    });
    assert.equal(tc.records.length, 0, 'the record waits for its count');
    release();
    await tc.client.recordsWritten();
    assert.deepEqual(
      tc.records.map((r) => r.localInput),
      [{ tokens: 8, tokenizer: 'o200k_base' }],
    );
    const stream = tc.client.chatStream({
      surface: 'responses',
      model: 'gpt-5.5',
      system: 'Be brief.',
      messages: [{ role: 'user', content: 'hello' }],
    });
    for await (const e of stream) void e;
    await tc.client.recordsWritten();
    assert.equal(tc.records[1].localInput?.tokens, 8 + 3 + 1 + countTokens('Be brief.'));
    // a model whose tokenizer is not bundled: the tokenizer is not even asked
    const asked = counted.length;
    await tc.client.chat({
      surface: 'native',
      model: 'claude-sonnet-4-5',
      messages: [{ role: 'user', content: 'hi' }],
    });
    await tc.client.recordsWritten();
    assert.equal(tc.records[2].localInput, undefined);
    assert.equal(counted.length, asked);
    // refused before any reply: nothing billed, nothing counted, recorded at once
    sim.fault({ kind: 'status', status: 503, count: 10 });
    const err = await tc.client
      .chat({ surface: 'compatible', model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    assert.ok(err instanceof Error);
    assert.ok(tc.records.length > 3, 'each attempt recorded at once');
    assert.ok(tc.records.slice(3).every((r) => r.status === 503 && r.localInput === undefined));
    assert.equal(counted.length, asked);
  } finally {
    await sim.close();
  }
});
