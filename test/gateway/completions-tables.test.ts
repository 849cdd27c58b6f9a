/**
 * Code completions as tables (no gateway): which model families fill in the middle, which refusals
 * send a completion the chat way, how a chat model's answer is cleaned to the insertion, the chat
 * prompt, and the bounded memory of refusals.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  CHAT_COMPLETION_SYSTEM,
  FimRefusals,
  errorFromResponse,
  cleanChatAnswer,
  completionModeOf,
  fimByFamily,
  fimRefused,
} from '../../src/gateway';
import { chatCompletionPrompt, chatCompletionRequest } from '../../src/gateway/completions/chatMode';

test('fim family table: FIM-capable families by name; thinking DeepSeek, Codestral and chat families are not', () => {
  const table: Array<[string, boolean]> = [
    ['deepseek-chat', true],
    ['deepseek-coder', true],
    ['deepseek-v3', true],
    ['deepseek-ai/DeepSeek-V3', true],
    ['DeepSeek-V2.5', true],
    ['deepseek-reasoner', false],
    ['deepseek-r1', false],
    ['deepseek-ai/DeepSeek-R1', false],
    ['deepseek-v3.1-think', false],
    ['qwen2.5-coder-32b-instruct', true],
    ['Qwen/Qwen2.5-Coder-7B-Instruct', true],
    ['qwen3-coder-plus', true],
    ['qwen-coder-turbo', true],
    ['qwen3-max', false],
    ['bigcode/starcoder2-15b', true],
    ['codegemma-7b', true],
    ['codellama-13b', true],
    ['codestral-latest', false],
    ['gpt-4o-mini', false],
    ['gpt-4o', false],
    ['claude-sonnet-4-5', false],
    ['glm-4.6', false],
    ['kimi-k2', false],
    ['', false],
  ];
  for (const [model, fim] of table) assert.equal(fimByFamily(model), fim, model);
});

test('the override wins over the family, both ways; unset keeps the family', () => {
  assert.equal(completionModeOf('gpt-4o-mini', true), 'fim');
  assert.equal(completionModeOf('deepseek-chat', false), 'chat');
  assert.equal(completionModeOf('deepseek-chat', undefined), 'fim');
  assert.equal(completionModeOf('my-own-coder', undefined), 'chat');
});

const refusal = (status: number, message: string) =>
  errorFromResponse({
    status,
    headers: {},
    body: JSON.stringify({ error: { message, type: 'invalid_request_error', param: null, code: null } }),
    context: { surface: 'compatible', model: 'm' },
  });

test('fimRefused: only a 400/404 whose words refuse FIM itself', () => {
  const table: Array<[Error, boolean]> = [
    [
      refusal(
        404,
        'This is a chat model and not supported in the v1/completions endpoint. Did you mean to use v1/chat/completions? (request id: 2025)',
      ),
      true,
    ],
    [refusal(400, 'suffix is not currently supported'), true],
    [refusal(400, 'The model does not support suffix'), true],
    [refusal(404, 'Invalid URL (POST /v1/completions)'), true],
    [refusal(400, 'field prompt is required'), false],
    [refusal(404, "The model 'x' does not exist or you do not have access to it."), false],
    [refusal(401, 'suffix is not currently supported'), false],
    [refusal(500, 'suffix is not currently supported'), false],
    [new Error('suffix is not currently supported'), false],
  ];
  for (const [e, want] of table) assert.equal(fimRefused(e), want, e.message);
});

test('cleanChatAnswer: fences, a repeated cursor line, the suffix overlap and reasoning are removed', () => {
  // [prefix, suffix, reply, expected insertion]
  const table: Array<[string, string, string, string]> = [
    ['def fib(a):\n    ', '\n', 'return a', 'return a'],
    ['def fib(a):\n    ', '\n', '```python\nreturn a\n```', 'return a'],
    ['def fib(a):\n    ', '\n', '```\n    return a\n```\n', 'return a'],
    ['def fib(a):\n    ', '\n', 'Here you go:\n```py\nreturn a\n```\nThis returns a.', 'return a'],
    ['const total = sum(', ');\n', 'const total = sum(a, b);', 'a, b'],
    ['  const total = sum(', ')', 'const total = sum(a, b)', 'a, b'],
    ['  if (x) {', '\n  }', '  if (x) {\n    run();\n  }', '\n    run();'],
    ['let x = ', ';', '42;', '42'],
    ['let x = ', '', '<cursor>42', '42'],
    ['foo(', ')', 'bar', 'bar'],
    ['let name = "', '";', 'Ada";', 'Ada'],
    ['x = ', '\nprint(x)', '<think>the user wants a number</think>\n1\n', '1'],
    ['a = 1 + ', '', '1\r\n', '1'],
    ['total = ', ' + tax', 'price', 'price'],
    ['value = ', '1 + 2', 'x1', 'x1'],
    ['', 'fn main() {}', '// entry point\n', '// entry point'],
    ['def fib(a):\n    ', '\n', 'def fib(a):\n    return a', 'return a'],
    [
      'import os\n\ndef fib(a):\n    if a < 2:\n        ',
      '',
      '```python\ndef fib(a):\n    if a < 2:\n        return a\n```',
      'return a',
    ],
    ['x = 1\ny = ', '', 'x = 1\ny = 2', '2'],
    ['x = 1\ny = ', '', 'y = 2', '2'],
    ['x = 1\n', '', 'x = 1 is set; now:\nz = 3', 'x = 1 is set; now:\nz = 3'],
  ];
  for (const [prefix, suffix, reply, want] of table)
    assert.equal(cleanChatAnswer(reply, prefix, suffix), want, JSON.stringify(reply));
});

test('the chat prompt names the file and language and marks the cursor; the system prompt asks for the insertion only', () => {
  const p = chatCompletionPrompt({ prefix: 'a = ', suffix: '\nb', languageId: 'python', fileName: 'src/m.py' });
  assert.equal(p, 'File: src/m.py (language: python)\n<file>\na = <cursor>\nb\n</file>');
  assert.match(CHAT_COMPLETION_SYSTEM, /only the text to insert at <cursor>/);
  assert.match(CHAT_COMPLETION_SYSTEM, /no code fences, no explanation/);
});

test("the chat way asks temperature 0 where we may choose it; never on the responses surface (not the user's choice)", () => {
  const req = { model: 'm', prefix: 'a', suffix: 'b', languageId: 'ts', fileName: 'x.ts' };
  assert.equal(chatCompletionRequest(req, 'compatible', 64).temperature, 0);
  assert.equal(chatCompletionRequest(req, 'native', 64).temperature, 0);
  assert.ok(!('temperature' in chatCompletionRequest(req, 'responses', 64)));
});

test('FimRefusals: bounded (oldest forgotten), forgotten by another model list, not by the same one', () => {
  const m = new FimRefusals(2);
  m.learn('a');
  m.learn('b');
  m.learn('c');
  assert.deepEqual(m.models(), ['b', 'c']);
  m.listed([{ id: 'x' }, { id: 'y' }]);
  m.listed([{ id: 'y' }, { id: 'x' }]);
  assert.ok(m.has('c'), 'the same list in another order keeps what was learnt');
  m.listed([{ id: 'x' }]);
  assert.equal(m.has('c'), false);
  m.learn('d');
  m.forget();
  assert.deepEqual(m.models(), []);
});
