import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  DEFAULT_CLI_VARIABLES,
  applyCliEnvironment,
  editUploadLimit,
  mediaFileName,
  nativeCliEnvironment,
  slugify,
} from '../../src/gateway';

test('native CLI environment: root address, never /v1, configurable names', () => {
  const token = 'sk-abcdefghijklmnopqrstuvwxyz0123456789';
  assert.deepEqual(nativeCliEnvironment('https://gw.example.com/v1/', token), {
    ANTHROPIC_BASE_URL: 'https://gw.example.com',
    ANTHROPIC_AUTH_TOKEN: token,
  });
  assert.deepEqual(
    nativeCliEnvironment('https://gw.example.com/v1/messages', token, { baseUrl: 'X_BASE', token: 'X_TOKEN' }),
    { X_BASE: 'https://gw.example.com', X_TOKEN: token },
  );
  assert.equal(DEFAULT_CLI_VARIABLES.baseUrl, 'ANTHROPIC_BASE_URL');
  assert.throws(() => nativeCliEnvironment('', token));
  assert.throws(() => nativeCliEnvironment('https://gw.example.com', token, { baseUrl: 'BAD NAME', token: 'T' }));
});

test('media file names: time stamp and prompt slug', () => {
  const d = new Date(2026, 10, 22, 16, 31, 2);
  assert.equal(mediaFileName('A lighthouse at dusk!', '.png', d), '20261122-163102-a-lighthouse-at-dusk.png');
  assert.equal(mediaFileName('???', 'mp4', d), '20261122-163102-untitled.mp4');
  assert.equal(slugify('Crème brûlée / 日本'), 'creme-brulee');
  assert.ok(slugify('x'.repeat(100)).length <= 40);
});

test('the CLI environment goes into new terminals replaced and never persisted', () => {
  const calls: string[] = [];
  const coll = {
    persistent: true,
    description: undefined as unknown,
    clear: () => calls.push('clear'),
    replace: (k: string, v: string) => calls.push(`${k}=${v.length}`),
  };
  applyCliEnvironment(coll, nativeCliEnvironment('https://gw.example.com/v1', 'sk-abcdefghijklmnopqrstuvwxyz'), 'desc');
  assert.equal(coll.persistent, false, 'the token is not written to disk by VS Code');
  assert.deepEqual(calls, ['clear', 'ANTHROPIC_BASE_URL=22', 'ANTHROPIC_AUTH_TOKEN=29']);
  assert.equal(coll.description, 'desc');
});

test('image edit upload limit: the setting, lowered to a known per-model limit', () => {
  const MB = 1024 * 1024;
  assert.deepEqual(editUploadLimit('dall-e-2', 20 * MB), {
    bytes: 4 * MB,
    note: 'dall-e-2 edits take a square PNG under 4 MB',
  });
  assert.deepEqual(editUploadLimit('gpt-image-1', 20 * MB), { bytes: 20 * MB });
  assert.equal(editUploadLimit('gpt-image-1', 80 * MB).bytes, 50 * MB);
  assert.deepEqual(editUploadLimit('some-new-model', 20 * MB), { bytes: 20 * MB });
});
