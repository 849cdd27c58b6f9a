/**
 * The one table of model families (src/gateway/chat/modelRules.ts) and the bodies the three request
 * builders make from it: per family and surface, only what the model accepts
 * (shared/reference/provider-constraints.md §6 "For the client's request builder"), and what is
 * sent otherwise than asked reported as an adjustment.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  compatibleSurface,
  nativeSurface,
  responsesSurface,
  ruleOf,
  wirePlan,
  type ChatRequest,
  type Learnt,
  type SurfaceAdapter,
} from '../../src/gateway';
import { clampEffort } from '../../src/gateway/chat/modelRules';

type Json = Record<string, any>;
const ADAPTERS: Record<ChatRequest['surface'], SurfaceAdapter> = {
  compatible: compatibleSurface,
  responses: responsesSurface,
  native: nativeSurface,
};
const body = (req: Omit<ChatRequest, 'messages'> & { messages?: ChatRequest['messages'] }, learnt?: Learnt): Json =>
  ADAPTERS[req.surface].toRequest(
    { messages: [{ role: 'user', content: 'hi' }], ...req },
    { maxTokens: 4096, ...(learnt ? { learnt } : {}) },
  );
/** The knobs of a body that the table decides. */
const KNOBS = [
  'temperature',
  'max_tokens',
  'max_completion_tokens',
  'max_output_tokens',
  'reasoning_effort',
  'reasoning',
  'include',
  'tool_choice',
  'thinking',
  'output_config',
] as const;
const knobs = (b: Json) => Object.fromEntries(KNOBS.filter((k) => k in b).map((k) => [k, b[k]]));

test('first match wins: each model name finds its family', () => {
  const rows: Array<[string, string]> = [
    ['gpt-5.5', 'gpt-5.2+'],
    ['gpt-5.2', 'gpt-5.2+'],
    ['openai/gpt-5.4-mini', 'gpt-5.2+'],
    ['gpt-5.1', 'gpt-5.1'],
    ['gpt-5.1-2025-11-13', 'gpt-5.1'],
    ['gpt-5', 'gpt-5'],
    ['gpt-5-mini', 'gpt-5'],
    ['gpt-5-nano-2025-08-07', 'gpt-5'],
    ['gpt-5-chat-latest', 'gpt-5-chat'],
    ['gpt-5.1-chat-latest', 'gpt-5-chat'],
    ['gpt-5-codex', 'openai-codex'],
    ['gpt-5.1-codex-mini', 'openai-codex'],
    ['codex-mini-latest', 'openai-codex'],
    ['gpt-5.1-codex-max', 'openai-codex-xhigh'],
    ['gpt-5.5-codex', 'openai-codex-xhigh'],
    ['gpt-5-pro', 'gpt-5-pro'],
    ['gpt-5.2-pro', 'gpt-5.x-pro'],
    ['o3', 'o-series'],
    ['o3-pro', 'o-series'],
    ['o4-mini', 'o-series'],
    ['o1', 'o-series'],
    ['gpt-4o-mini', 'openai-chat'],
    ['gpt-4.1', 'openai-chat'],
    ['claude-opus-4-7', 'claude-adaptive'],
    ['claude-opus-4.8', 'claude-adaptive'],
    ['claude-sonnet-5', 'claude-adaptive'],
    ['claude-opus-4-6', 'claude-4.6'],
    ['claude-sonnet-4-6', 'claude-4.6'],
    ['claude-sonnet-4-5', 'claude-4.5'],
    ['claude-sonnet-4-5-20250929', 'claude-4.5'],
    ['claude-haiku-4-5', 'claude-4.5'],
    ['claude-opus-4-1-20250805', 'claude-opus-4'],
    ['claude-opus-4-20250514', 'claude-opus-4'],
    ['claude-sonnet-4-20250514', 'claude-sonnet-4'],
    ['claude-3-7-sonnet-latest', 'claude-sonnet-4'],
    ['claude-3-5-haiku', 'claude-3.5'],
    ['claude-3-opus-20240229', 'claude-3'],
    ['deepseek-v4-pro', 'deepseek-thinking'],
    ['deepseek-v4-pro-none', 'deepseek-no-thinking'],
    ['deepseek-reasoner', 'deepseek-thinking'],
    ['deepseek-r1', 'deepseek-r1'],
    ['deepseek-chat', 'deepseek-chat'],
    ['kimi-k2.5', 'kimi-k2.5+'],
    ['kimi-for-coding', 'kimi-k2.5+'],
    ['kimi-k2-thinking', 'kimi-k2-thinking'],
    ['kimi-k3', 'kimi-k3'],
    ['kimi-k2-0905-preview', 'other'],
    ['qwen3.5-plus', 'qwen-thinking'],
    ['qwen3-max', 'qwen3'],
    ['glm-4.6', 'glm-thinking'],
    ['glm-4-plus', 'glm'],
    ['MiniMax-M2.1', 'minimax-m2'],
    ['gemini-2.5-flash', 'other'],
    ['my-own-model', 'other'],
  ];
  for (const [model, family] of rows) assert.equal(ruleOf(model).family, family, model);
});

test('efforts are clamped to the nearest the model accepts (a tie goes up), and pass as asked where none is known', () => {
  assert.equal(clampEffort('minimal', ['none', 'low', 'medium', 'high']), 'low');
  assert.equal(clampEffort('none', ['low', 'medium', 'high']), 'low');
  assert.equal(clampEffort('xhigh', ['minimal', 'low', 'medium', 'high']), 'high');
  assert.equal(clampEffort('max', ['medium', 'high', 'xhigh']), 'xhigh');
  assert.equal(clampEffort('low', ['high']), 'high');
  assert.equal(clampEffort('medium', undefined), 'medium');
});

/** A request asking for what users set: a temperature, a small output budget, an effort. */
const asked = { temperature: 0.7, maxTokens: 8, effort: 'minimal' as const };

test('the bodies per family on each surface: sampling, the output budget and its field, the effort, encrypted reasoning', () => {
  const cases: Array<[string, ChatRequest['surface'], Json]> = [
    // OpenAI reasoning family (ref §1): no temperature, max_completion_tokens on Chat, ≥ 16 on Responses, effort clamped
    ['gpt-5.5', 'compatible', { max_completion_tokens: 8, reasoning_effort: 'low' }],
    [
      'gpt-5.5',
      'responses',
      { max_output_tokens: 16, reasoning: { effort: 'low' }, include: ['reasoning.encrypted_content'] },
    ],
    ['gpt-5.5', 'native', { max_tokens: 8 }],
    ['o3', 'compatible', { max_completion_tokens: 8, reasoning_effort: 'low' }],
    [
      'o3',
      'responses',
      { max_output_tokens: 16, reasoning: { effort: 'low' }, include: ['reasoning.encrypted_content'] },
    ],
    ['gpt-5.5-codex', 'compatible', { max_completion_tokens: 8, reasoning_effort: 'low' }],
    [
      'gpt-5.5-codex',
      'responses',
      { max_output_tokens: 16, reasoning: { effort: 'low' }, include: ['reasoning.encrypted_content'] },
    ],
    // Not a reasoning model: temperature as asked, no effort, no encrypted reasoning (ref §1a, §1b)
    ['gpt-4o-mini', 'compatible', { temperature: 0.7, max_tokens: 8 }],
    ['gpt-4o-mini', 'responses', { temperature: 0.7, max_output_tokens: 16 }],
    // Claude 4.5 (ref §2a): temperature (never with top_p, which is never sent); an effort on Chat means thinking (new-api)
    ['claude-sonnet-4-5', 'native', { temperature: 0.7, max_tokens: 8 }],
    ['claude-sonnet-4-5', 'compatible', { max_tokens: 8, reasoning_effort: 'minimal' }],
    // Opus 4.7+ (ref §2a): no temperature at all
    ['claude-opus-4-7', 'native', { max_tokens: 8 }],
    // (and no effort on Chat: new-api would turn it into the thinking "enabled" they refuse, ref §5c)
    ['claude-opus-4-7', 'compatible', { max_tokens: 8 }],
    // DeepSeek V4 (ref §3): sampling accepted (ignored while thinking), max_tokens
    ['deepseek-v4-pro', 'compatible', { temperature: 0.7, max_tokens: 8, reasoning_effort: 'minimal' }],
    // Kimi k2.5+ (ref §3): its temperature is fixed, so none is sent
    ['kimi-k2.5', 'compatible', { max_tokens: 8, reasoning_effort: 'minimal' }],
    // GLM (ref §3): max_tokens only
    ['glm-4.6', 'compatible', { temperature: 0.7, max_tokens: 8, reasoning_effort: 'minimal' }],
    // Unknown: as asked (today's behaviour), the Responses floor for every model
    [
      'my-own-model',
      'responses',
      {
        temperature: 0.7,
        max_output_tokens: 16,
        reasoning: { effort: 'minimal' },
        include: ['reasoning.encrypted_content'],
      },
    ],
  ];
  for (const [model, surface, want] of cases)
    assert.deepEqual(knobs(body({ surface, model, ...asked })), want, `${model} on ${surface}`);
});

test('gpt-5.1+ take temperature only with effort none; gpt-5 and the codex models never', () => {
  assert.equal(body({ surface: 'responses', model: 'gpt-5.5', temperature: 0.3, effort: 'none' }).temperature, 0.3);
  assert.equal(body({ surface: 'responses', model: 'gpt-5.1', temperature: 0.3, effort: 'none' }).temperature, 0.3);
  // effort unset: the model's default may not be none, so no temperature
  assert.equal(body({ surface: 'responses', model: 'gpt-5.5', temperature: 0.3 }).temperature, undefined);
  assert.equal(body({ surface: 'responses', model: 'gpt-5', temperature: 0.3, effort: 'none' }).temperature, undefined);
  const codex = body({ surface: 'responses', model: 'gpt-5.5-codex', temperature: 0, effort: 'none' });
  assert.equal(codex.temperature, undefined);
  assert.deepEqual(codex.reasoning, { effort: 'low' }, 'codex has no effort none');
});

test('with tools on Chat, gpt-5.2+ get effort none (function tools with another effort are refused there)', () => {
  const tools = [{ name: 'get_weather', inputSchema: { type: 'object' } }];
  const b = body({ surface: 'compatible', model: 'gpt-5.5', tools, effort: 'high', temperature: 0.2 });
  assert.equal(b.reasoning_effort, 'none');
  assert.equal(b.temperature, 0.2, 'with effort none its temperature is accepted');
  assert.equal(body({ surface: 'compatible', model: 'o3', tools, effort: 'high' }).reasoning_effort, 'high');
  assert.equal(body({ surface: 'responses', model: 'gpt-5.5', tools, effort: 'high' }).reasoning.effort, 'high');
});

test('a forced tool choice: refused by the thinking families (sent as auto), by native thinking, kept elsewhere', () => {
  const tools = [{ name: 'get_weather', inputSchema: { type: 'object' } }];
  const choice = (model: string, surface: ChatRequest['surface'], extra: Partial<ChatRequest> = {}) =>
    body({ surface, model, tools, toolMode: 'required', ...extra }).tool_choice;
  assert.equal(choice('deepseek-v4-pro', 'compatible'), undefined);
  assert.equal(choice('deepseek-v4-pro-none', 'compatible'), 'required', 'thinking off by its -none suffix');
  assert.equal(choice('kimi-k2.5', 'compatible'), undefined);
  assert.equal(choice('kimi-k2-thinking', 'compatible'), undefined);
  assert.equal(choice('kimi-k3', 'compatible'), 'required');
  assert.equal(choice('qwen3.5-plus', 'compatible'), undefined);
  assert.equal(choice('glm-4.6', 'compatible'), 'required');
  assert.equal(choice('gpt-4o-mini', 'compatible'), 'required');
  assert.equal(choice('deepseek-v4-pro', 'responses'), 'auto');
  assert.deepEqual(choice('claude-sonnet-4-5', 'native'), { type: 'any' });
  assert.equal(choice('claude-sonnet-4-5', 'native', { thinking: { budgetTokens: 2000 } }), undefined);
  assert.equal(choice('claude-opus-4-7', 'native', { thinking: { budgetTokens: 2000 } }), undefined);
  const plan = wirePlan(
    { surface: 'compatible', model: 'deepseek-v4-pro', tools, toolMode: 'required', messages: [] },
    'compatible',
    undefined,
    4096,
  );
  assert.deepEqual(plan.adjustments, [
    { model: 'deepseek-v4-pro', param: 'tool_choice', change: 'set', to: 'auto', source: 'known' },
  ]);
});

test('Anthropic: max_tokens capped per model; thinking a budget ≥ 1024 below max_tokens, adaptive on Opus 4.7+; no temperature with thinking', () => {
  assert.equal(body({ surface: 'native', model: 'claude-sonnet-4-5', maxTokens: 200_000 }).max_tokens, 64_000);
  assert.equal(body({ surface: 'native', model: 'claude-opus-4-1', maxTokens: 200_000 }).max_tokens, 32_000);
  assert.equal(body({ surface: 'native', model: 'claude-opus-4-7', maxTokens: 200_000 }).max_tokens, 128_000);
  assert.equal(body({ surface: 'native', model: 'claude-3-opus' }).max_tokens, 4096);
  assert.equal(body({ surface: 'native', model: 'claude-3-5-haiku', maxTokens: 10_000 }).max_tokens, 8192);
  assert.equal(body({ surface: 'compatible', model: 'claude-sonnet-4-5', maxTokens: 100_000 }).max_tokens, 64_000);

  const enabled = body({
    surface: 'native',
    model: 'claude-sonnet-4-5',
    temperature: 0.5,
    thinking: { budgetTokens: 500 },
  });
  assert.deepEqual(enabled.thinking, { type: 'enabled', budget_tokens: 1024 });
  assert.ok(enabled.max_tokens > 1024);
  assert.equal(enabled.temperature, undefined);
  const big = body({ surface: 'native', model: 'claude-3-5-haiku', thinking: { budgetTokens: 50_000 } });
  assert.ok(big.thinking.budget_tokens >= 1024 && big.thinking.budget_tokens < big.max_tokens, JSON.stringify(big));
  assert.equal(big.max_tokens, 8192);

  const adaptive = body({ surface: 'native', model: 'claude-opus-4-7', thinking: { budgetTokens: 20_000 } });
  assert.deepEqual(knobs(adaptive), {
    max_tokens: 4096,
    thinking: { type: 'adaptive' },
    output_config: { effort: 'high' },
  });
  const asKnown = body(
    { surface: 'native', model: 'my-claude', thinking: { budgetTokens: 2000 } },
    { adaptiveThinking: true },
  );
  assert.deepEqual(asKnown.thinking, { type: 'adaptive' });
  assert.deepEqual(asKnown.output_config, { effort: 'low' });
  // An unknown model on the native surface: thinking still takes no temperature (today's rule)
  assert.equal(
    body({ surface: 'native', model: 'x', temperature: 0.5, thinking: { budgetTokens: 2000 } }).temperature,
    undefined,
  );
});

test('Claude 4.6+ never end on an assistant turn: a user turn follows it; older models keep the prefill', () => {
  const messages: ChatRequest['messages'] = [
    { role: 'user', content: 'Write a haiku.' },
    { role: 'assistant', content: 'Autumn' },
  ];
  const last = (b: Json) => b.messages.at(-1);
  assert.deepEqual(last(body({ surface: 'native', model: 'claude-opus-4-7', messages })), {
    role: 'user',
    content: 'Continue.',
  });
  assert.deepEqual(last(body({ surface: 'compatible', model: 'claude-sonnet-4-6', messages })), {
    role: 'user',
    content: 'Continue.',
  });
  assert.deepEqual(last(body({ surface: 'native', model: 'claude-sonnet-4-5', messages })), {
    role: 'assistant',
    content: 'Autumn',
  });
  assert.deepEqual(last(body({ surface: 'native', model: 'claude-opus-4-7' })), { role: 'user', content: 'hi' });
});

test('effort and reasoning are never sent to a model without reasoning; reasoning_effort is never null', () => {
  for (const surface of ['compatible', 'responses'] as const) {
    const b = body({ surface, model: 'gpt-4o-mini', effort: 'high', thinking: { budgetTokens: 2000 } });
    assert.ok(!('reasoning_effort' in b) && !('reasoning' in b) && !('include' in b), surface);
  }
  const none = body({ surface: 'compatible', model: 'o3' });
  assert.ok(!('reasoning_effort' in none), 'no effort asked: none sent (never null)');
  assert.deepEqual(body({ surface: 'responses', model: 'o3', thinking: { budgetTokens: 1 } }).reasoning, {
    summary: 'auto',
  });
});

test('what was sent otherwise than asked is reported, as known from the table or learnt from a refusal', () => {
  const req: ChatRequest = {
    surface: 'responses',
    model: 'gpt-5.5-codex',
    temperature: 0.7,
    maxTokens: 1,
    messages: [{ role: 'user', content: 'hi' }],
  };
  assert.deepEqual(wirePlan(req, 'responses', undefined, 4096).adjustments, [
    { model: 'gpt-5.5-codex', param: 'temperature', change: 'not_sent', source: 'known' },
    { model: 'gpt-5.5-codex', param: 'max_output_tokens', change: 'set', to: 16, source: 'known' },
  ]);
  const unknown = { ...req, model: 'my-model' };
  assert.deepEqual(
    wirePlan(unknown, 'responses', { temperature: 'never', minOutputTokens: 32, dropped: ['include'] }, 4096)
      .adjustments,
    [
      { model: 'my-model', param: 'temperature', change: 'not_sent', source: 'learnt' },
      { model: 'my-model', param: 'max_output_tokens', change: 'set', to: 32, source: 'learnt' },
      { model: 'my-model', param: 'include', change: 'not_sent', source: 'learnt' },
    ],
  );
  assert.deepEqual(
    wirePlan({ ...unknown, surface: 'compatible' }, 'compatible', { tokenField: 'max_completion_tokens' }, 4096)
      .adjustments,
    [{ model: 'my-model', param: 'max_tokens', change: 'set', to: 'max_completion_tokens', source: 'learnt' }],
  );
  assert.deepEqual(wirePlan({ ...req, model: 'gpt-4o-mini' }, 'responses', undefined, 4096).adjustments, [
    { model: 'gpt-4o-mini', param: 'max_output_tokens', change: 'set', to: 16, source: 'known' },
  ]);
});
