/**
 * The stream's event parser (src/gateway/chat/deltaShape.ts) answers learned text-delta shapes
 * without JSON.parse. Whatever the events, it must return exactly what the surface's own parseEvent
 * returns, event for event: checked on generated streams that mix plain deltas with strings that
 * need escaping, control characters, quotes, other ids and models, tool calls, usage, finish
 * reasons, errors, keep-alives, whitespace, other event names and text that also appears elsewhere.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { compatibleSurface, nativeSurface } from '../../src/gateway';
import { streamEventParser } from '../../src/gateway/chat/deltaShape';
import type { SurfaceAdapter } from '../../src/gateway/chat/types';

type Ev = { event?: string | undefined; data: string };

/** Strings a delta may hold: mostly plain words, sometimes anything (quotes, backslashes, controls, unicode). */
const text = fc.oneof(
  { weight: 6, arbitrary: fc.stringMatching(/^ ?[A-Za-z0-9.,!?-]{1,8}$/) },
  { weight: 1, arbitrary: fc.string({ maxLength: 20 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 30 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '',
      'x',
      'y',
      '"',
      '\\',
      '\n',
      'a"b',
      'c1',
      'gpt-4o-mini',
      'chatcmpl-1',
      'w'.repeat(40),
      '\u2028',
      '\ud800',
    ),
  },
);

const compatEvent: fc.Arbitrary<Ev> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.tuple(text, fc.constantFrom('c1', 'c2'), fc.constantFrom('m', 'x')).map(([t, id, model]) => ({
      data: JSON.stringify({
        id,
        object: 'chat.completion.chunk',
        created: 1,
        model,
        choices: [{ index: 0, delta: { content: t }, finish_reason: null }],
        usage: null,
      }),
    })),
  },
  {
    weight: 1,
    arbitrary: text.map((t) => ({
      data: JSON.stringify({
        id: 'c1',
        model: 'm',
        choices: [{ index: 0, delta: { content: t }, finish_reason: null }],
        x: { content: t },
      }),
    })),
  },
  {
    weight: 1,
    arbitrary: text.map((t) => ({ data: ` ${JSON.stringify({ id: 'c1', choices: [{ delta: { content: t } }] })} ` })),
  },
  // the text also written elsewhere, compactly, while the content itself has a space after its colon
  {
    weight: 3,
    arbitrary: fc
      .tuple(fc.constantFrom('ab', 'cd'), fc.constantFrom('ab', 'cd', 'ef'))
      .map(([c, x]) => ({ data: `{"id":"c1","choices":[{"delta":{"content": "${c}"}}],"x":"${x}"}` })),
  },
  {
    weight: 1,
    arbitrary: text.map((t) => ({
      data: JSON.stringify({
        id: 'c1',
        model: 'm',
        choices: [{ index: 0, delta: { content: t, reasoning_content: 'r' } }],
      }),
    })),
  },
  {
    weight: 1,
    arbitrary: text.map((t) => ({
      data: JSON.stringify({
        id: 'c1',
        model: 'm',
        choices: [
          { index: 0, delta: { tool_calls: [{ index: 0, id: 'call_1', function: { name: 'f', arguments: t } }] } },
        ],
      }),
    })),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom<Ev>(
      { data: '[DONE]' },
      { data: '' },
      { data: '{"id":"c1","choices":[{"delta":{},"finish_reason":"stop"}]}' },
      { data: '{"id":"c1","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":5}}' },
      { data: '{"error":{"message":"boom"}}' },
      { data: '{"id": "c1", "choices": [{"delta": {"content": "spaced"}}]}' },
      { data: '{"id":"c1","choices":[{"delta":{"content":"dup","content":"last"}}]}' },
      { data: '{"id":' },
    ),
  },
);

const nativeEvent: fc.Arbitrary<Ev> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc
      .tuple(text, fc.constantFrom(0, 1), fc.constantFrom('content_block_delta', undefined, 'message', 'ping'))
      .map(([t, index, event]) => ({
        event,
        data: JSON.stringify({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: t } }),
      })),
  },
  {
    weight: 1,
    arbitrary: text.map((t) => ({
      event: 'content_block_delta',
      data: JSON.stringify({ type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: t } }),
    })),
  },
  {
    weight: 1,
    arbitrary: text.map((t) => ({
      event: 'content_block_delta',
      data: JSON.stringify({
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'input_json_delta', partial_json: t },
      }),
    })),
  },
  {
    weight: 1,
    arbitrary: text.map((t) => ({
      event: 'content_block_start',
      data: JSON.stringify({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: t } }),
    })),
  },
  {
    weight: 3,
    arbitrary: fc.tuple(fc.constantFrom('ab', 'cd'), fc.constantFrom('ab', 'cd', 'ef')).map(([c, x]) => ({
      event: 'content_block_delta',
      data: `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text": "${c}"},"x":"${x}"}`,
    })),
  },
  {
    weight: 1,
    arbitrary: text.map((t) => ({
      event: 'error',
      data: JSON.stringify({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: t } }),
    })),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom<Ev>(
      { event: 'ping', data: '{"type":"ping"}' },
      { event: 'message_stop', data: '{"type":"message_stop"}' },
      { data: '[DONE]' },
      {
        event: 'message_delta',
        data: '{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":9}}',
      },
      {
        event: 'content_block_delta',
        data: '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a"}} ',
      },
    ),
  },
);

function sameAsSurface(adapter: SurfaceAdapter, events: Ev[]): void {
  const parse = streamEventParser(adapter);
  for (const ev of events) assert.deepStrictEqual(parse(ev), adapter.parseEvent(ev), JSON.stringify(ev));
}

test('compatible: the stream parser returns what parseEvent returns, for any events', () => {
  fc.assert(
    fc.property(fc.array(compatEvent, { maxLength: 60 }), (events) => sameAsSurface(compatibleSurface, events)),
    { numRuns: 400 },
  );
});

test('native: the stream parser returns what parseEvent returns, for any events', () => {
  fc.assert(
    fc.property(fc.array(nativeEvent, { maxLength: 60 }), (events) => sameAsSurface(nativeSurface, events)),
    { numRuns: 400 },
  );
});

test('a learned shape answers later deltas without the surface; other events still reach it', () => {
  let calls = 0;
  const counting: SurfaceAdapter = {
    ...compatibleSurface,
    parseEvent: (ev) => (calls++, compatibleSurface.parseEvent(ev)),
  };
  const parse = streamEventParser(counting);
  const chunk = (t: string) => ({
    data: JSON.stringify({ id: 'c1', model: 'm', choices: [{ index: 0, delta: { content: t }, finish_reason: null }] }),
  });
  const long = 'a longer delta of several words';
  const out = ['Hel', 'lo', ' there', long].map((t) => parse(chunk(t)));
  assert.deepEqual(out.at(-1), [
    { type: 'meta', id: 'c1', model: 'm' },
    { type: 'text', text: long },
  ]);
  assert.equal(calls, 2, 'the first chunk and the probe');
  parse(chunk('needs "escaping"'));
  parse({ data: '[DONE]' });
  assert.equal(calls, 4);
});

test('a shape that changes every chunk stops being learned', () => {
  let calls = 0;
  const counting: SurfaceAdapter = {
    ...compatibleSurface,
    parseEvent: (ev) => (calls++, compatibleSurface.parseEvent(ev)),
  };
  const parse = streamEventParser(counting);
  for (let i = 0; i < 100; i++)
    parse({
      data: JSON.stringify({
        id: 'c1',
        model: 'm',
        choices: [{ index: 0, delta: { content: 'w' } }],
        obfuscation: `r${i}`,
      }),
    });
  assert.ok(calls <= 100 + 3, `${calls} surface calls: at most a few probes`);
});
