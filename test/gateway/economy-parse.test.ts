/**
 * The gateway's economy documents, parsed per version and unit (shared/reference/gateway-economy.md):
 * /api/status units, the token-usage document, the billing pair, pricing formulas, the error words.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  describeQuota,
  formatAmount,
  noChannelGroup,
  parseBilling,
  parsePricing,
  parseStatus,
  parseTokenUsage,
  priceText,
  quotaRefusalFrom,
  quotaState,
  replyCost,
  tokenStateFrom,
  type Units,
} from '../../src/gateway';

const usageDoc = { total_granted: 1_000_000, total_used: 0, total_available: 1_000_000, unlimited_quota: false };
const usd: Units = { quotaPerUnit: 500_000, display: 'USD', usdExchangeRate: 7.3, customSymbol: '¤', customRate: 1 };

test('/api/status: new-api display types, one-api display_in_currency, the pricing module', () => {
  const s = parseStatus({
    success: true,
    message: '',
    data: {
      quota_per_unit: 500000,
      display_in_currency: true,
      quota_display_type: 'CNY',
      usd_exchange_rate: 7.2,
      HeaderNavModules: '{"pricing":{"enabled":true,"requireAuth":true}}',
    },
  })!;
  assert.equal(s.units.display, 'CNY');
  assert.equal(s.units.usdExchangeRate, 7.2);
  assert.equal(s.newApi, true);
  assert.deepEqual(s.pricing, { enabled: true, requireAuth: true });
  const one = parseStatus({ success: true, data: { quota_per_unit: 500000, display_in_currency: false } })!;
  assert.equal(one.units.display, 'TOKENS');
  assert.equal(one.newApi, false);
  assert.equal(one.pricing, undefined);
  assert.equal(parseStatus({ hello: 'world' }), undefined);
  assert.equal(parseStatus('<html>'), undefined);
});

test('/api/status without usd_exchange_rate: no rate is invented; CNY amounts stay in USD', () => {
  const s = parseStatus({ success: true, data: { quota_per_unit: 500000, quota_display_type: 'CNY' } })!;
  assert.equal(s.units.usdExchangeRate, undefined);
  assert.deepEqual(parseTokenUsage({ data: { ...usageDoc, total_available: 1_000_000 } }, s.units)?.unit, 'USD');
  assert.equal(parseTokenUsage({ data: { ...usageDoc, total_available: 1_000_000 } }, s.units)?.remaining, 2);
});

test('token usage: raw quota in the display unit, unlimited, expiry, model limits', () => {
  const doc = {
    code: true,
    message: 'ok',
    data: {
      object: 'token_usage',
      name: 'vscode',
      total_granted: 5_000_000,
      total_used: 1_250_000,
      total_available: 3_750_000,
      unlimited_quota: false,
      model_limits: { 'gpt-4o-mini': true },
      model_limits_enabled: true,
      expires_at: 1767225600,
    },
  };
  const q = parseTokenUsage(doc, usd)!;
  assert.deepEqual(q, {
    source: 'usage-token',
    unlimited: false,
    remaining: 7.5,
    used: 2.5,
    granted: 10,
    unit: 'USD',
    expiresAt: '2026-01-01T00:00:00.000Z',
    name: 'vscode',
    modelLimits: ['gpt-4o-mini'],
  });
  assert.equal(parseTokenUsage(doc, { ...usd, display: 'CNY' })!.remaining, 7.5 * 7.3);
  assert.equal(parseTokenUsage(doc, { ...usd, display: 'CUSTOM', customSymbol: '€', customRate: 0.9 })!.unit, '€');
  assert.equal(parseTokenUsage(doc, { ...usd, display: 'TOKENS' })!.remaining, 3_750_000);
  assert.equal(parseTokenUsage(doc, undefined)!.unit, 'tokens', 'without /api/status the raw quota is shown');
  assert.equal(parseTokenUsage({ ...doc, data: { ...doc.data, expires_at: 0 } }, usd)!.expiresAt, null);
  assert.equal(parseTokenUsage({ success: false, message: '获取令牌信息失败，请稍后重试' }, usd), undefined);
});

test('billing pair: remaining = hard_limit_usd − total_usage/100, unlimited = 1e8, access_until in seconds', () => {
  const q = parseBilling(
    {
      object: 'billing_subscription',
      has_payment_method: true,
      soft_limit_usd: 12.5,
      hard_limit_usd: 12.5,
      system_hard_limit_usd: 12.5,
      access_until: 1767225600,
    },
    { object: 'list', total_usage: 250 },
    usd,
  )!;
  assert.deepEqual(q, {
    source: 'billing',
    unlimited: false,
    remaining: 10,
    used: 2.5,
    granted: 12.5,
    unit: 'USD',
    expiresAt: '2026-01-01T00:00:00.000Z',
  });
  const u = parseBilling({ hard_limit_usd: 100000000, access_until: 0 }, { total_usage: 1000 }, usd)!;
  assert.equal(u.unlimited, true);
  assert.equal(u.expiresAt, null);
  assert.equal(
    parseBilling({ hard_limit_usd: 100, access_until: 0 }, { total_usage: 0 }, { ...usd, display: 'TOKENS' })!.unit,
    'tokens',
  );
  assert.equal(parseBilling({ error: { message: 'db' } }, { total_usage: 1 }, usd), undefined);
});

test('quota words: money, expired, exhausted, unlimited, the warning threshold', () => {
  const now = Date.parse('2026-11-23T00:00:00Z');
  const base = {
    source: 'usage-token' as const,
    unlimited: false,
    remaining: 3.75,
    used: 6.25,
    granted: 10,
    unit: 'USD',
    expiresAt: null,
  };
  assert.deepEqual(describeQuota(base, 1, now).short, '$3.75');
  assert.equal(describeQuota(base, 1, now).level, 'ok');
  assert.equal(describeQuota(base, 5, now).level, 'warning');
  assert.equal(describeQuota({ ...base, expiresAt: '2026-11-01T00:00:00.000Z' }, 1, now).short, 'expired');
  assert.match(
    describeQuota({ ...base, expiresAt: '2026-11-01T00:00:00.000Z' }, 1, now).lines.join('\n'),
    /Expires: 2026-11-01 \(expired\)/,
  );
  assert.equal(describeQuota({ ...base, remaining: 0 }, 1, now).short, 'exhausted');
  assert.equal(describeQuota({ ...base, unlimited: true }, 1, now).short, 'unlimited');
  assert.equal(quotaState({ ...base, unlimited: true, expiresAt: '2026-01-01T00:00:00.000Z' }, now), 'expired');
  assert.equal(formatAmount(27.375, 'CNY'), '¥27.38');
  assert.equal(formatAmount(1_875_000, 'tokens'), '1.9M tokens');
  assert.equal(formatAmount(0.004, 'USD'), '$0.0040');
  // a chat reply's fraction of a cent keeps two significant digits (it printed $0.0000)
  assert.equal(formatAmount(0.000021, 'USD'), '$0.000021');
  assert.equal(formatAmount(0.00035, 'CNY'), '¥0.00035');
  assert.equal(formatAmount(0.0000001, 'USD'), '<$0.000001');
  assert.equal(formatAmount(0, 'USD'), '$0.00');
});

test('pricing: per token (ratio × group × 1e6 / quota_per_unit), per call (price × group), tiered, groups; a reply cost', () => {
  const doc = {
    success: true,
    data: [
      {
        model_name: 'gpt-4o',
        quota_type: 0,
        model_ratio: 1.25,
        model_price: 0,
        completion_ratio: 4,
        enable_groups: ['vip', 'svip'],
      },
      {
        model_name: 'gpt-4o-mini',
        quota_type: 0,
        model_ratio: 0.075,
        model_price: 0,
        completion_ratio: 4,
        enable_groups: ['default'],
      },
      { model_name: 'gpt-image-1', quota_type: 1, model_ratio: 0, model_price: 0.04, enable_groups: ['default'] },
      { model_name: 'tiered', quota_type: 0, model_ratio: 1, billing_mode: 'tiered_expr', enable_groups: ['default'] },
    ],
    group_ratio: { default: 1, vip: 0.8, svip: 0.6 },
  };
  const p = parsePricing(doc, usd)!;
  assert.equal(priceText(p.get('gpt-4o-mini')), '$0.15 in / $0.60 out per 1M tokens');
  assert.deepEqual(p.get('gpt-4o')!.groups, ['vip', 'svip']);
  assert.equal(p.get('gpt-4o')!.input, 1.5, 'the cheapest of its groups (svip 0.6): 1.25 × 2 × 0.6');
  assert.equal(priceText(p.get('gpt-image-1')), '$0.04 per call');
  assert.equal(priceText(p.get('tiered')), 'priced by usage tier');
  assert.equal(replyCost(p.get('gpt-4o-mini'), { inputTokens: 1_000_000, outputTokens: 500_000 }), '≈ $0.45');
  assert.equal(replyCost(p.get('gpt-image-1'), { inputTokens: 1 }), undefined);
  assert.equal(priceText(parsePricing(doc, { ...usd, display: 'CNY' })!.get('gpt-image-1')), '¥0.29 per call');
  assert.equal(parsePricing({ success: false, message: 'pricing is disabled' }, usd), undefined);
});

test("the gateway's words, every version: token state, the three 403s, the no-channel group", () => {
  assert.equal(tokenStateFrom('该令牌已过期'), 'expired');
  assert.equal(tokenStateFrom('令牌 vscode（#3）额度已用尽'), 'exhausted');
  assert.equal(tokenStateFrom('该令牌额度已用尽 TokenStatusExhausted[sk-abc***xyz]'), 'exhausted');
  assert.equal(tokenStateFrom('该令牌状态不可用'), 'disabled');
  assert.equal(tokenStateFrom('无效的令牌'), undefined, 'current new-api does not say which');
  assert.equal(tokenStateFrom('Invalid token'), undefined);
  assert.deepEqual(quotaRefusalFrom('insufficient_user_quota', '用户额度不足, 剩余额度: ＄0.000000'), {
    kind: 'wallet_empty',
  });
  assert.deepEqual(quotaRefusalFrom(undefined, 'user quota is not enough'), { kind: 'wallet_empty' });
  assert.deepEqual(
    quotaRefusalFrom(
      'pre_consume_token_quota_failed',
      'token quota is not enough, token remain quota: ＄0.01, need quota: ＄0.05',
    ),
    { kind: 'token_quota' },
  );
  assert.deepEqual(quotaRefusalFrom('', 'This token has no access to model gpt-4o'), {
    kind: 'model_limit',
    model: 'gpt-4o',
  });
  assert.deepEqual(quotaRefusalFrom(undefined, '该令牌无权访问模型 gpt-4o'), { kind: 'model_limit', model: 'gpt-4o' });
  assert.deepEqual(quotaRefusalFrom(undefined, '该令牌无权使用模型：gpt-4o'), { kind: 'model_limit', model: 'gpt-4o' });
  assert.deepEqual(quotaRefusalFrom(undefined, 'This token has no access to any models'), {
    kind: 'model_limit',
    model: undefined,
  });
  assert.equal(quotaRefusalFrom(undefined, 'model not found'), undefined);
  assert.deepEqual(noChannelGroup('No available channel for model gpt-4o under group default (distributor)'), {
    group: 'default',
  });
  assert.deepEqual(noChannelGroup('分组 default 下模型 gpt-4o 无可用渠道（distributor）'), { group: 'default' });
  assert.deepEqual(noChannelGroup('当前分组 default 下对于模型 gpt-4o 无可用渠道'), { group: 'default' });
  assert.deepEqual(noChannelGroup('No available channel for model gpt-4o under group auto(default) (distributor)'), {
    group: 'auto(default)',
  });
  assert.equal(noChannelGroup('upstream error'), undefined);
});
