/**
 * VS Code's language-model requests through src/host/lm: roles (Copilot's system role 3), tools,
 * images only for models that take them, Copilot's internal data parts dropped, signed thinking
 * replayed in front of its tool calls; model profiles; token counts against a real tokenizer.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { countTokens } from 'gpt-tokenizer/cjs/encoding/o200k_base';
import { compatibleSurface, nativeSurface, type ModelInfo } from '../../src/gateway';
import { lmToChatRequest, type LmMessage } from '../../src/host/lm/lmRequest';
import { modelProfile, surfaceOf, type ModelProfile } from '../../src/host/lm/modelProfile';
import { ThinkingCache } from '../../src/host/lm/thinkingCache';
import { TokenCounter } from '../../src/host/lm/tokenCounter';
import { estimateTokens } from '../../src/host/lm/tokenEstimate';

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);
const profile = (over: Partial<ModelProfile> = {}): ModelProfile => ({
  surface: 'compatible',
  surfaceLearnt: false,
  maxInputTokens: 100_000,
  maxOutputTokens: 1000,
  toolCalling: true,
  imageInput: true,
  thinkingBudget: undefined,
  ...over,
});
const text = (value: string) => ({ kind: 'text' as const, value });
const settings = { defaultSurface: 'compatible' as const, nativeModel: '', maxTokens: 4096, overrides: {} };

test('roles: system (3) becomes the system prompt, same-role turns merge, the conversation starts with a user turn', () => {
  const messages: LmMessage[] = [
    { role: 3, content: [text('Be brief.')] },
    { role: 2, content: [text('Earlier answer')] },
    { role: 1, content: [text('one')] },
    { role: 1, content: [text('two')] },
    { role: 3, content: [text('Use English.')] },
    { role: 2, content: [text('')] },
  ];
  const r = lmToChatRequest('claude-sonnet-4-5', profile({ surface: 'native' }), messages, {}, new ThinkingCache());
  assert.equal(r.system, 'Be brief.\n\nUse English.');
  assert.deepEqual(r.messages, [
    { role: 'user', content: '(continue)' },
    { role: 'assistant', content: 'Earlier answer' },
    { role: 'user', content: 'one\n\ntwo' },
  ]);
  assert.equal(r.maxTokens, 1000);
  assert.equal(r.tools, undefined);
});

test("tools and a tool loop: tools and toolMode pass, Copilot's markers and non-image data parts are not forwarded", () => {
  const messages: LmMessage[] = [
    {
      role: 1,
      content: [
        text('Weather in Paris?'),
        { kind: 'data', mimeType: 'cache_control', data: new TextEncoder().encode('ephemeral') },
        { kind: 'other' },
      ],
    },
    {
      role: 2,
      content: [text(''), { kind: 'toolCall', callId: 'toolu_01A', name: 'get_weather', input: { city: 'Paris' } }],
    },
    {
      role: 1,
      content: [
        {
          kind: 'toolResult',
          callId: 'toolu_01A',
          content: [
            text('18°C'),
            { kind: 'data', mimeType: 'application/json', data: new TextEncoder().encode('{"wind":3}') },
            { kind: 'data', mimeType: 'stateful_marker', data: new Uint8Array([1]) },
          ],
        },
      ],
    },
  ];
  const tools = [
    {
      name: 'get_weather',
      description: 'Weather for a city',
      inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
  ];
  const r = lmToChatRequest('gpt-4o', profile(), messages, { tools, toolMode: 2 }, new ThinkingCache());
  assert.equal(r.toolMode, 'required');
  assert.deepEqual(r.tools, [
    { name: 'get_weather', description: 'Weather for a city', inputSchema: tools[0].inputSchema },
  ]);
  assert.deepEqual(r.messages[0], { role: 'user', content: 'Weather in Paris?' });
  assert.deepEqual(r.messages[1], {
    role: 'assistant',
    content: [
      { type: 'text', text: '' },
      { type: 'tool_call', id: 'toolu_01A', name: 'get_weather', input: { city: 'Paris' } },
    ],
  });
  assert.deepEqual(r.messages[2], {
    role: 'user',
    content: [
      {
        type: 'tool_result',
        callId: 'toolu_01A',
        content: [
          { type: 'text', text: '18°C' },
          { type: 'text', text: '{"wind":3}' },
        ],
      },
    ],
  });
  const wire = JSON.stringify(compatibleSurface.toRequest({ ...r, stream: true }, { maxTokens: 4096 }));
  assert.ok(!wire.includes('ephemeral') && !wire.includes('stateful'), wire);
  assert.match(wire, /"tool_choice":"required"/);
  // a model without tool calling gets no tools
  assert.equal(
    lmToChatRequest('m', profile({ toolCalling: false }), messages, { tools }, new ThinkingCache()).tools,
    undefined,
  );
});

test('images go to models that accept them, and are replaced by a note for those that do not', () => {
  const messages: LmMessage[] = [
    { role: 1, content: [text('What is this?'), { kind: 'data', mimeType: 'image/png', data: PNG }] },
  ];
  const withImages = lmToChatRequest('gpt-4o', profile(), messages, {}, new ThinkingCache());
  assert.deepEqual(withImages.messages[0].content, [
    { type: 'text', text: 'What is this?' },
    { type: 'image', mimeType: 'image/png', data: Buffer.from(PNG).toString('base64') },
  ]);
  const without = lmToChatRequest('deepseek-chat', profile({ imageInput: false }), messages, {}, new ThinkingCache());
  assert.match(
    String(without.messages[0].content),
    /What is this\?\[an image was left out: this model does not accept images\]/,
  );
});

test('signed thinking from our own reply goes back in front of its tool calls on the native surface (once per reply)', () => {
  const cache = new ThinkingCache();
  const block = { type: 'thinking' as const, text: 'Need both tools.', signature: 'sig_1' };
  cache.remember('claude-sonnet-4-5', ['toolu_A', 'toolu_B'], [block]);
  const messages: LmMessage[] = [
    { role: 1, content: [text('go')] },
    {
      role: 2,
      content: [
        { kind: 'toolCall', callId: 'toolu_A', name: 'a', input: {} },
        { kind: 'toolCall', callId: 'toolu_B', name: 'b', input: {} },
      ],
    },
    { role: 1, content: [{ kind: 'toolResult', callId: 'toolu_A', content: [text('1')] }] },
    { role: 1, content: [{ kind: 'toolResult', callId: 'toolu_B', content: [text('2')] }] },
  ];
  const r = lmToChatRequest(
    'claude-sonnet-4-5',
    profile({ surface: 'native', thinkingBudget: 2048 }),
    messages,
    {},
    cache,
  );
  assert.deepEqual(r.thinking, { budgetTokens: 2048 });
  const body = nativeSurface.toRequest(r, { maxTokens: 1000 }) as {
    messages: Array<{ role: string; content: Array<{ type: string }> }>;
    max_tokens: number;
    thinking: unknown;
  };
  assert.deepEqual(
    body.messages[1].content.map((b) => b.type),
    ['thinking', 'tool_use', 'tool_use'],
  );
  // the two tool-result user messages merge into one user turn, results first
  assert.equal(body.messages.length, 3);
  assert.deepEqual(
    body.messages[2].content.map((b) => b.type),
    ['tool_result', 'tool_result'],
  );
  assert.ok(body.max_tokens > 2048, 'max_tokens exceeds the thinking budget');
  // the compatible surface never receives thinking blocks
  const compat = lmToChatRequest('gpt-4o', profile(), messages, {}, cache);
  assert.ok(!JSON.stringify(compat.messages).includes('sig_1'));
});

test('the thinking cache is bounded', () => {
  const cache = new ThinkingCache(3);
  for (let i = 0; i < 10; i++) cache.remember('m', [`c${i}`], [{ type: 'redacted_thinking', data: String(i) }]);
  assert.equal(cache.size, 3);
  assert.deepEqual(cache.get('m', 'c0'), []);
  assert.deepEqual(cache.get('m', 'c9'), [{ type: 'redacted_thinking', data: '9' }]);
});

test('model profiles: surface from endpoint types, family limits, overrides', () => {
  const m = (id: string, capabilities?: ModelInfo['capabilities']): ModelInfo => ({ id, capabilities });
  assert.equal(surfaceOf(m('claude-x', ['native']), settings), 'native');
  assert.equal(surfaceOf(m('gpt-4o', ['chat']), settings), 'compatible');
  assert.equal(
    surfaceOf(m('claude-sonnet-4-5', ['chat', 'native']), { ...settings, defaultSurface: 'native' }),
    'native',
  );
  assert.equal(surfaceOf(m('claude-sonnet-4-5'), { ...settings, nativeModel: 'claude-sonnet-4-5' }), 'native');
  assert.equal(surfaceOf(m('claude-sonnet-4-5'), settings), 'compatible');
  const claude = modelProfile(m('claude-sonnet-4-5', ['native']), settings);
  assert.deepEqual(claude, {
    surface: 'native',
    surfaceLearnt: false,
    maxInputTokens: 200_000 - 4096,
    maxOutputTokens: 4096,
    toolCalling: true,
    imageInput: true,
    thinkingBudget: undefined,
  });
  assert.equal(modelProfile(m('gpt-4.1-mini'), settings).maxInputTokens, 1_047_576 - 4096);
  assert.equal(modelProfile(m('deepseek-chat'), settings).imageInput, false);
  assert.equal(modelProfile(m('some-new-model'), settings).maxInputTokens, 128_000 - 4096);
  const over = modelProfile(m('deepseek-chat', ['chat']), {
    ...settings,
    overrides: {
      'deepseek-chat': {
        surface: 'native',
        imageInput: true,
        maxInputTokens: 64_000,
        toolCalling: false,
        thinkingBudget: 2048,
      },
    },
  });
  assert.deepEqual(over, {
    surface: 'native',
    surfaceLearnt: false,
    maxInputTokens: 64_000,
    maxOutputTokens: 4096,
    toolCalling: false,
    imageInput: true,
    thinkingBudget: 2048,
  });
});

const corpusDir = resolve(__dirname, '../../../test/fixtures/tokens');
const corpus = readdirSync(corpusDir).map((f) => ({ name: f, text: readFileSync(join(corpusDir, f), 'utf8') }));

test('the token estimate is within 12 % of o200k on Chinese, English, code and a mix (chars/4 is not)', () => {
  assert.ok(corpus.length >= 5);
  const rows = corpus.map(({ name, text: t }) => ({
    name,
    exact: countTokens(t),
    estimate: estimateTokens(t),
    naive: Math.ceil(t.length / 4),
  }));
  for (const r of rows)
    assert.ok(Math.abs(r.estimate / r.exact - 1) <= 0.12, `${r.name}: estimate ${r.estimate}, o200k ${r.exact}`);
  const zh = rows.find((r) => r.name.startsWith('zh'))!;
  assert.ok(zh.naive / zh.exact < 0.5, 'chars/4 counts Chinese at well under half its tokens');
});

test('the token counter answers with the estimate until the tokenizer is loaded, then exactly; a failed load keeps the estimate', () => {
  let run: (() => void) | undefined;
  const counter = new TokenCounter(
    () => countTokens,
    (fn) => (run = fn),
  );
  const t = corpus.find((c) => c.name.startsWith('mixed'))!.text;
  assert.equal(counter.count(t), estimateTokens(t));
  assert.equal(counter.ready, false);
  run!();
  assert.equal(counter.ready, true);
  assert.equal(counter.count(t), countTokens(t));
  assert.equal(counter.count(''), 0);
  const broken = new TokenCounter(
    () => {
      throw new Error('missing');
    },
    (fn) => fn(),
  );
  assert.equal(broken.count(t), estimateTokens(t));
  assert.equal(broken.count(t), estimateTokens(t));
});
