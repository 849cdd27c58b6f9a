import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compatibleBase, nativeBase, nativeMessagesUrl, normalizeBaseUrl } from '../../src/gateway';

const codes = (input: string) => normalizeBaseUrl(input).findings.map((f) => f.code);

test('a clean root address passes unchanged', () => {
  const n = normalizeBaseUrl('https://gw.example.com');
  assert.equal(n.base, 'https://gw.example.com');
  assert.deepEqual(n.findings, []);
  assert.equal(compatibleBase(n.base), 'https://gw.example.com/v1');
  assert.equal(nativeBase(n.base), 'https://gw.example.com');
  assert.equal(nativeMessagesUrl(n.base), 'https://gw.example.com/v1/messages');
});

test('normalisation table', () => {
  const table: Array<[string, string | undefined, string[]]> = [
    ['  https://gw.example.com  ', 'https://gw.example.com', ['whitespace']],
    ['https://gw.example.com/', 'https://gw.example.com', ['trailing-slash']],
    ['https://gw.example.com///', 'https://gw.example.com', ['trailing-slash']],
    ['https://gw.example.com/v1', 'https://gw.example.com', ['trailing-v1']],
    ['https://gw.example.com/v1/', 'https://gw.example.com', ['trailing-slash', 'trailing-v1']],
    ['https://gw.example.com/v1/chat/completions', 'https://gw.example.com', ['full-endpoint']],
    ['https://gw.example.com/v1/messages', 'https://gw.example.com', ['full-endpoint']],
    ['https://gw.example.com/relay/v1', 'https://gw.example.com/relay', ['trailing-v1']],
    ['gw.example.com', 'https://gw.example.com', ['missing-scheme']],
    ['ftp://gw.example.com', undefined, ['bad-scheme']],
    ['', undefined, ['empty']],
    ['   ', undefined, ['empty']],
    ['http://gw.example.com', 'http://gw.example.com', ['http-public-host']],
    ['http://127.0.0.1:8787', 'http://127.0.0.1:8787', []],
    ['http://localhost:3000/', 'http://localhost:3000', ['trailing-slash']],
    ['https://gw.example.com/?x=1', 'https://gw.example.com', ['query-or-fragment', 'trailing-slash']],
    ['https://', undefined, ['invalid-url']],
  ];
  for (const [input, base, expected] of table) {
    const n = normalizeBaseUrl(input);
    assert.equal(n.base, base, `base for ${JSON.stringify(input)}`);
    assert.deepEqual(
      n.findings.map((f) => f.code).sort(),
      [...expected].sort(),
      `findings for ${JSON.stringify(input)}`,
    );
  }
});

test('findings explain the /v1/v1/messages 404 and give the fix', () => {
  const f = normalizeBaseUrl('https://gw.example.com/v1').findings[0];
  assert.match(f.message, /\/v1\/v1\/messages/);
  assert.match(f.message, /404/);
  assert.match(f.fix, /https:\/\/gw\.example\.com/);
  assert.deepEqual(codes('https://GW.example.com/V1'), ['trailing-v1']);
});
