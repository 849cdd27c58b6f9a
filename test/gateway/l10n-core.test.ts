/**
 * The core speaks Chinese when the Chinese bundle is in use: real errors from the simulator (a 401
 * invalid token, a 404 model, a quota refusal, an expired token, an empty reply) carry Chinese
 * cause and fix, with no English sentence left; the balance and base-URL words too. Without a
 * bundle the same errors are English again. Each test returns to English (other tests expect it).
 */
import { test, before, after, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  describeQuota,
  normalizeBaseUrl,
  useTranslations,
  type ChatRequest,
  type Translations,
} from '../../src/gateway';
import { startSimulator, type Simulator } from '../sim/server';
import { makeClient, thrown } from './helpers';

const root = resolve(__dirname, '../../..');
/** This part's Chinese, read as the build merges it into the bundle. */
const chinese = JSON.parse(readFileSync(join(root, 'l10n/zh-cn/core.json'), 'utf8')) as Translations;

const hanzi = /[\u4e00-\u9fff]/;
/** Four English words in a row: an untranslated sentence (ids, paths and quoted gateway words are shorter). */
const englishSentence = /\b[A-Za-z]+ [a-z]+ [a-z]+ [a-z]+\b/;

function assertChinese(label: string, text: string | undefined): void {
  assert.ok(text, `${label} is empty`);
  assert.match(text, hanzi, `${label} is not Chinese: ${text}`);
  assert.doesNotMatch(text, englishSentence, `${label} still holds English: ${text}`);
}

const sims = {} as { strict: Simulator; newApi: Simulator };
before(async () => {
  sims.strict = await startSimulator({ profile: 'strict' });
  sims.newApi = await startSimulator({ profile: 'real' });
});
after(async () => {
  useTranslations(undefined);
  await sims.strict?.close();
  await sims.newApi?.close();
});
afterEach(() => {
  useTranslations(undefined);
  sims.strict.reset();
  sims.newApi.reset();
});

const hi: ChatRequest = { surface: 'compatible', model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] };

test('a 401 invalid token: Chinese cause and fix, English again without the bundle', async () => {
  useTranslations(chinese);
  const wrong = () => makeClient(sims.strict, { token: () => `sk-${'x'.repeat(48)}` }).client.chat(hi);
  const e = await thrown(wrong);
  assert.equal(e.kind, 'unauthorized');
  assert.match(e.message, /^HTTP 401 令牌无效。/);
  assertChinese('cause', e.reason);
  assertChinese('fix', e.fix);
  assert.match(e.reason, /令牌缺失/);
  assert.match(e.fix, /Model Relay: Add Token/, 'command names stay as they are');
  useTranslations(undefined);
  const en = await thrown(wrong);
  assert.match(en.message, /^HTTP 401 invalid token\./);
  assert.match(en.reason, /^The token is missing, copied wrongly/);
  assert.doesNotMatch(`${en.message} ${en.reason} ${en.fix}`, hanzi);
});

test('a 404 for an unknown model: Chinese cause and fix', async () => {
  useTranslations(chinese);
  const e = await thrown(() => makeClient(sims.strict).client.chat({ ...hi, model: 'no-such-model' }));
  assert.ok(['not_found', 'forbidden'].includes(e.kind), e.kind);
  assertChinese('cause', e.reason);
  assertChinese('fix', e.fix);
  assert.match(e.reason, /no-such-model/);
});

test("quota refusals: the account's wallet and an expired token, in Chinese", async () => {
  useTranslations(chinese);
  sims.newApi.config.userQuota = 0;
  const wallet = await thrown(() => makeClient(sims.newApi).client.chat(hi));
  assert.equal(wallet.detail, 'wallet_empty');
  assert.match(wallet.message, /^HTTP 403: 账户余额已用尽。/);
  assertChinese('cause', wallet.reason);
  assertChinese('fix', wallet.fix);
  assert.match(wallet.fix, /充值/);
  sims.newApi.reset();
  sims.newApi.setToken('production', { expiresAt: Math.floor(Date.parse('2026-11-01T00:00:00Z') / 1000) });
  const expired = await thrown(() => makeClient(sims.newApi).client.chat(hi));
  assert.equal(expired.detail, 'token_expired');
  assert.match(expired.message, /已于 2026-11-01 过期/);
  assertChinese('cause', expired.reason);
  assertChinese('fix', expired.fix);
});

test('an empty reply: Chinese message, cause and fix (and English without the bundle)', async () => {
  sims.strict.config.replyText = '';
  useTranslations(chinese);
  const e = await thrown(() => makeClient(sims.strict).client.chat(hi));
  assert.equal(e.detail, 'empty_reply');
  assertChinese('message', e.message);
  assertChinese('cause', e.reason);
  assertChinese('fix', e.fix);
  assert.match(e.message, /既没有文本也没有工具调用/);
  useTranslations(undefined);
  const en = await thrown(() => makeClient(sims.strict).client.chat(hi));
  assert.match(en.message, /neither text nor a tool call/);
  sims.strict.config.replyText = undefined;
});

test('balance lines and base-URL findings in Chinese', () => {
  useTranslations(chinese);
  const words = describeQuota(
    {
      source: 'usage-token',
      unlimited: false,
      remaining: 3.75,
      used: 1.25,
      granted: 5,
      unit: 'USD',
      expiresAt: '2026-11-01T00:00:00Z',
    },
    1,
    Date.parse('2026-12-01T00:00:00Z'),
  );
  assert.equal(words.short, '已过期');
  assert.deepEqual(words.lines.slice(0, 4), [
    '剩余：$3.75',
    '已用：$1.25',
    '总额度：$5.00',
    '过期时间：2026-11-01（已过期）',
  ]);
  const finding = normalizeBaseUrl('https://gateway.example.com/v1/chat/completions').findings.find(
    (f) => f.code === 'full-endpoint',
  );
  assertChinese('finding', finding?.message);
  assert.match(finding!.fix, /请使用根地址 https:\/\/gateway\.example\.com（已去除 \/v1\/chat\/completions）/);
  useTranslations(undefined);
  assert.equal(
    describeQuota(
      { source: 'billing', unlimited: true, remaining: 0, used: 2, granted: 0, unit: 'USD', expiresAt: null },
      1,
      0,
    ).lines[0],
    'Quota: unlimited',
  );
});
