/**
 * Token counting at agent scale (host/lm/tokenCounter.ts, countCache.ts): counts kept by content
 * and bounded, a turn with one new message tokenizing only that message, long texts estimated on
 * the caller's path and counted exactly in background slices, all within 10 % of o200k.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { countTokens } from 'gpt-tokenizer/cjs/encoding/o200k_base';
import { CountCache, contentKey } from '../../src/host/lm/countCache';
import type { LmPart } from '../../src/host/lm/lmRequest';
import {
  EXACT_NOW_LIMIT,
  IMAGE_TOKENS,
  QUEUE_CHARS,
  SLICE_CHARS,
  TokenCounter,
  countableText,
  sliceEnd,
} from '../../src/host/lm/tokenCounter';
import { estimateTokens } from '../../src/host/lm/tokenEstimate';
import { countTokens as bundled } from '../../src/host/lm/tokenizer';

const corpusDir = resolve(__dirname, '../../../test/fixtures/tokens');
const fixture = (prefix: string) =>
  readFileSync(
    join(
      corpusDir,
      readdirSync(corpusDir).find((f) => f.startsWith(prefix))!,
    ),
    'utf8',
  );

/** A counter whose deferred work runs when the test says, with the tokenizer's calls and characters counted. */
function harness(cache?: CountCache) {
  const queue: Array<() => void> = [];
  const calls = { n: 0, chars: 0 };
  const counter = new TokenCounter(
    () => (text: string) => {
      calls.n++;
      calls.chars += text.length;
      return countTokens(text);
    },
    (fn) => queue.push(fn),
    cache,
  );
  /** Runs one deferred turn; returns the tokenizer's characters in it. */
  const turn = () => {
    const before = calls.chars;
    queue.shift()?.();
    return calls.chars - before;
  };
  const drain = () => {
    const perTurn: number[] = [];
    while (queue.length) perTurn.push(turn());
    return perTurn;
  };
  return { counter, calls, drain };
}

/** `n` different texts of about `size` characters each, cut from the fixtures. */
function texts(n: number, size: number): string[] {
  const base = [fixture('en'), fixture('code-ts'), fixture('zh'), fixture('code-py')].join('\n');
  return Array.from({ length: n }, (_, i) => {
    let s = `message ${i}\n`;
    while (s.length < size) s += base;
    return s.slice(0, size);
  });
}

test('a text counted once is answered from the cache: the tokenizer runs once, the count is the same', () => {
  const { counter, calls, drain } = harness();
  counter.count('warm up'); // starts the load
  drain();
  const t = fixture('en');
  const first = counter.count(t);
  assert.equal(first, countTokens(t));
  const n = calls.n;
  assert.equal(counter.count(t), first);
  assert.equal(counter.count(`${t}`.slice(0)), first, 'a different string object with the same text');
  assert.equal(calls.n, n, 'no tokenizer call for a cached text');
});

test('the cache is bounded: the least recently used count goes first', () => {
  const cache = new CountCache(3);
  const keys = ['a', 'b', 'c', 'd'].map(contentKey);
  cache.set(keys[0], { tokens: 1, exact: true });
  cache.set(keys[1], { tokens: 2, exact: true });
  cache.set(keys[2], { tokens: 3, exact: true });
  assert.equal(cache.get(keys[0])?.tokens, 1); // a is now the most recently used
  cache.set(keys[3], { tokens: 4, exact: true });
  assert.equal(cache.size, 3);
  assert.equal(cache.has(keys[1]), false, 'b, the least recently used, was evicted');
  assert.ok(cache.has(keys[0]) && cache.has(keys[2]) && cache.has(keys[3]));
  cache.settle(keys[1], 9); // an evicted key stays out
  assert.equal(cache.has(keys[1]), false);

  const { counter, calls, drain } = harness(new CountCache(2));
  counter.count('x');
  drain();
  counter.count('one');
  counter.count('two');
  counter.count('three');
  const n = calls.n;
  counter.count('one');
  assert.equal(calls.n, n + 1, 'an evicted text is counted again');
});

test('keys differ for texts of one length and the same for equal texts; nothing of the text is in the key', () => {
  assert.notEqual(contentKey('abc'), contentKey('abd'));
  assert.equal(contentKey('中文 text'), contentKey(['中文', ' text'].join('')));
  assert.ok(!contentKey('secret words here').includes('secret'));
});

test('a 300-message conversation counted again with one new message tokenizes only the new message', () => {
  const { counter, calls, drain } = harness();
  // small messages counted exactly at once, large ones estimated then counted in the background
  const conversation = [...texts(250, 1000), ...texts(50, 12_000).map((t) => `large ${t}`)];
  counter.count('load');
  drain();
  const first = conversation.map((t) => counter.count(t));
  drain();
  assert.equal(counter.pending, 0);
  const exact = conversation.map((t) => counter.count(t));
  assert.ok(
    exact.every((n, i) => Math.abs(n / countTokens(conversation[i]) - 1) < 0.01),
    'after the background count',
  );
  assert.ok(first.every((n, i) => Math.abs(n / countTokens(conversation[i]) - 1) <= 0.1));

  const before = { ...calls };
  const small = 'one new message: what does the test say?';
  const again = [...conversation, small].map((t) => counter.count(t));
  assert.equal(calls.n - before.n, 1, 'one tokenizer call: the new message');
  assert.equal(calls.chars - before.chars, small.length);
  assert.deepEqual(again.slice(0, -1), exact);

  // A large new message: no tokenizer call on the caller's path, its slices in the background.
  const large = `new tool output\n${texts(1, 40_000)[0]}`;
  const mid = { ...calls };
  [...conversation, small, large].forEach((t) => counter.count(t));
  assert.equal(calls.n - mid.n, 0, 'nothing tokenized on the path');
  const perTurn = drain();
  assert.equal(calls.chars - mid.chars, large.length, 'the background counted the new text once, whole');
  assert.ok(perTurn.every((c) => c <= 2 * SLICE_CHARS));
  assert.ok(Math.abs(counter.count(large) / countTokens(large) - 1) < 0.005);
});

test('long texts: the estimate at once, the exact count (in slices of a turn each) replaces it in the cache', () => {
  const { counter, drain } = harness();
  counter.count('load');
  drain();
  for (const prefix of ['en', 'code-ts', 'zh']) {
    let t = '';
    while (t.length < 200_000) t += `${fixture(prefix)}\n`;
    assert.ok(t.length > EXACT_NOW_LIMIT);
    const now = counter.count(t);
    assert.equal(now, estimateTokens(t));
    const turns = drain().length;
    assert.ok(turns >= Math.floor(t.length / (2 * SLICE_CHARS)), `${prefix}: ${turns} turns`);
    const exact = countTokens(t);
    assert.ok(Math.abs(now / exact - 1) <= 0.1, `${prefix}: estimate ${now}, o200k ${exact}`);
    assert.ok(Math.abs(counter.count(t) / exact - 1) <= 0.002, `${prefix}: sliced ${counter.count(t)}, o200k ${exact}`);
  }
});

test('texts beyond the background queue keep their estimate; a failed load drops the queue', () => {
  const { counter, drain } = harness();
  counter.count('load');
  drain();
  const huge = 'word '.repeat(QUEUE_CHARS / 5 + 1);
  assert.equal(counter.count(huge), estimateTokens(huge));
  assert.equal(counter.pending, 0);

  const broken = new TokenCounter(
    () => {
      throw new Error('missing');
    },
    (fn) => fn(),
  );
  const t = texts(1, 10_000)[0];
  assert.equal(broken.count(t), estimateTokens(t));
  assert.equal(broken.pending, 0);
  assert.equal(broken.count(t), estimateTokens(t));
});

test('a background slice ends after a line, else before a space, never inside a surrogate pair', () => {
  assert.equal(sliceEnd('abc', 0, 10), 3);
  const lines = `${'a'.repeat(70)}\n${'b'.repeat(50)}`;
  assert.equal(sliceEnd(lines, 0, 100), 71);
  const words = `${'a'.repeat(70)} ${'b'.repeat(50)}`;
  assert.equal(sliceEnd(words, 0, 100), 70);
  const emoji = '😀'.repeat(100);
  const end = sliceEnd(emoji, 0, 101);
  assert.equal(end % 2, 0);
  assert.equal(sliceEnd(emoji, 0, 100), 100);
});

test("a message's countable text: text, tool calls and results, images counted apart", () => {
  const parts: LmPart[] = [
    { kind: 'text', value: 'look: ' },
    { kind: 'toolCall', callId: 'c1', name: 'read', input: { path: 'a.ts' } },
    {
      kind: 'toolResult',
      callId: 'c1',
      content: [
        { kind: 'text', value: 'const a = 1;' },
        { kind: 'data', mimeType: 'image/png', data: new Uint8Array(4) },
      ],
    },
    { kind: 'data', mimeType: 'cache_control', data: new Uint8Array(1) },
    { kind: 'other' },
  ];
  assert.deepEqual(countableText(parts), { text: 'look: read{"path":"a.ts"}const a = 1;', images: 1 });
  const { counter, drain } = harness();
  counter.count('load');
  drain();
  assert.equal(counter.countParts(parts), countTokens('look: read{"path":"a.ts"}const a = 1;') + IMAGE_TOKENS);
});

test("a receipt's exact count: never the estimate; waits for the load and the slices, shares the queue and the cache", async () => {
  const { counter, calls, drain } = harness();
  const short = 'the gateway bills what it counted';
  let long = '';
  while (long.length < 100_000) long += `${fixture('zh')}\n`;
  let settled: number | undefined;
  const early = counter.exactly(short);
  const waiting = counter.exactly(long).then((n) => (settled = n));
  assert.equal(counter.count(long), estimateTokens(long), 'count() answers the estimate meanwhile');
  await Promise.resolve();
  assert.equal(settled, undefined, 'no answer before the tokenizer has counted');
  drain();
  assert.equal(await early, countTokens(short));
  const exact = (await waiting)!;
  assert.ok(Math.abs(exact / countTokens(long) - 1) <= 0.002, `sliced ${exact}, o200k ${countTokens(long)}`);
  assert.equal(counter.count(long), exact, 'the one job settled the shared cache');
  const n = calls.chars;
  assert.equal(await counter.exactly(long), exact, 'known: answered from the cache');
  assert.equal(calls.chars, n);
  assert.equal(await counter.exactly(''), 0);
});

test("a receipt's exact count is none when it cannot be made: past the queue, or the tokenizer failed to load", async () => {
  const { counter, drain } = harness();
  await Promise.all([counter.exactly('load'), Promise.resolve().then(drain)]);
  assert.equal(await counter.exactly('word '.repeat(QUEUE_CHARS / 5 + 1)), undefined);
  const queue: Array<() => void> = [];
  const broken = new TokenCounter(
    () => {
      throw new Error('missing');
    },
    (fn) => queue.push(fn),
  );
  const waiting = broken.exactly(texts(1, 10_000)[0]);
  while (queue.length) queue.shift()!();
  assert.equal(await waiting, undefined, 'a waiting count is let go');
  assert.equal(await broken.exactly('later'), undefined);
});

test("a special token's text in a message (a pasted document) is counted as text, as the API does; a tokenizer that refuses a text never throws later", async () => {
  const pasted = `The model stops at <|endoftext|> and <|im_start|>. ${'More text. '.repeat(800)}`;
  // the bundled tokenizer (dist/tokenizer.js)
  assert.equal(bundled('<|endoftext|>'), countTokens('<|endoftext|>', { disallowedSpecial: new Set() }));
  assert.ok(bundled('<|endoftext|>') > 1, 'as text, not as the one special token');
  const { counter, drain } = harness();
  counter.count('load');
  drain();
  assert.throws(() => countTokens(pasted), /special token/, 'the default refuses it');
  // a refusing tokenizer: the estimate answers, the exact count is none, nothing throws on a later turn
  const queue: Array<() => void> = [];
  const refusing = new TokenCounter(
    () => (text: string) => countTokens(text),
    (fn) => queue.push(fn),
  );
  assert.equal(refusing.count(pasted), estimateTokens(pasted));
  const exact = refusing.exactly(pasted);
  while (queue.length) queue.shift()!();
  assert.equal(await exact, undefined);
  assert.equal(await refusing.exactly('<|endoftext|>'), undefined);
  assert.equal(refusing.count('<|endoftext|>'), estimateTokens('<|endoftext|>'));
  while (queue.length) queue.shift()!();
  assert.equal(refusing.pending, 0, 'the refused text is let go');
});
