/**
 * The request body's bytes (http/jsonBody.ts): exactly Buffer.from(JSON.stringify(value)) for plain
 * data, long strings (kept between requests) included, on every chat surface's wire body.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { clearJsonBytesCache, JSON_BYTES_CACHE, jsonBytes, keptJsonBytes } from '../../src/gateway/http/jsonBody';
import { compatibleSurface, nativeSurface, type ChatRequest } from '../../src/gateway';

const same = (v: unknown, what: string) => assert.ok(jsonBytes(v).equals(Buffer.from(JSON.stringify(v))), what);
const long = (s: string, n = 3000) => s.repeat(Math.ceil(n / s.length));

test('plain data: the bytes of JSON.stringify, whatever JSON leaves out or rewrites', () => {
  same({}, 'empty object');
  same([], 'empty array');
  same('x', 'a string');
  same(0, 'zero');
  same(null, 'null');
  same({ a: 1, b: 'two', c: [true, false, null], d: { e: -0, f: 1.5e-7, g: 2 ** 60 } }, 'nested');
  same({ u: undefined, f: () => 1, s: Symbol('x'), n: NaN, i: -Infinity, keep: 1 }, 'left out and null');
  same([undefined, () => 1, Symbol('y'), 3], 'array members JSON writes as null');
  same({ 2: 'b', 1: 'a', z: 'z', '\u0000': 'nul', 'q"k': '\\' }, 'key order and escaped keys');
  same({ when: new Date(0), nested: { toJSON: (k: string) => `key ${k}` } }, 'toJSON');
  same({ text: 'short "quoted"\n\t中文 😀 \ud800 lone' }, 'escapes in a short string');
  same({ text: '\u0000' }, 'a string that is one NUL');
  assert.throws(() => jsonBytes({ n: 1n }), TypeError);
});

test('long strings: escaped, any script, kept and found again by content', () => {
  clearJsonBytesCache();
  const texts = [
    long('plain ascii words '),
    long('code("quoted", \\back\\slash)\n\ttabbed\r\n'),
    long('中文的文字，标点。'),
    long('emoji 😀 and a lone \ud83d surrogate '),
    long('\u0001\u001f control '),
    long('é latin-1 ÿ'),
  ];
  const body = { messages: texts.map((t, i) => ({ role: 'tool', content: t, i })), tail: texts[0] };
  same(body, 'first time');
  same(body, 'from the kept bytes');
  // The same texts as new strings (as each request carries them).
  same(JSON.parse(JSON.stringify(body)) as unknown, 'new strings with the same text');
  same({ messages: [...body.messages, { role: 'user', content: `${texts[2]}!` }] }, 'one new long text');
  clearJsonBytesCache();
  same(body, 'after the cache was cleared');
});

test('the kept strings and their bytes together stay within JSON_BYTES_CACHE', () => {
  clearJsonBytesCache();
  // Chinese: 600,000 characters are 1.2 MB as a (two-byte) string and 1.8 MB as UTF-8; ten of them.
  for (let i = 0; i < 10; i++) same({ content: `${i}${'中'.repeat(600_000)}` }, `text ${i}`);
  const { chars, bytes } = keptJsonBytes();
  assert.ok(chars >= 600_000, 'the latest texts are kept');
  assert.ok(bytes + 2 * chars <= JSON_BYTES_CACHE, `kept ${bytes} bytes for ${chars} characters`);
  clearJsonBytesCache();
});

test("every surface's wire body of a long tool conversation is sent as JSON.stringify's bytes", () => {
  const req: ChatRequest = {
    surface: 'compatible',
    model: 'm',
    system: long('You are a coding agent. '),
    messages: [
      { role: 'user', content: 'Fix the tests.' },
      { role: 'assistant', content: [{ type: 'tool_call', id: 'c1', name: 'read', input: { path: 'a.ts' } }] },
      {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            callId: 'c1',
            content: [
              { type: 'text', text: long('const x = "中文";\n') },
              { type: 'image', mimeType: 'image/png', data: Buffer.alloc(40_000, 7).toString('base64') },
            ],
          },
        ],
      },
    ],
    tools: [{ name: 'read', description: 'Reads a file.', inputSchema: { type: 'object', properties: {} } }],
    stream: true,
  };
  for (const [name, adapter] of [
    ['compatible', compatibleSurface],
    ['native', nativeSurface],
  ] as const) {
    const body = adapter.toRequest({ ...req, surface: name }, { maxTokens: 4096 });
    same(body, name);
  }
});
