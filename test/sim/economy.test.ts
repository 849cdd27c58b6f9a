/**
 * The simulator's gateway economy (shared/reference/gateway-economy.md) per flavor: /api/status,
 * /api/usage/token/ (301, rate limit, read-only auth), the billing endpoints in every display unit,
 * /api/pricing access modes, TokenAuth / distributor / quota error strings per version, and billing.
 */
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import { defaultConfig, startSimulator, type Simulator } from './server';
import { defaultEconomy, formatQuota, type GatewayFlavor } from './economy';

const FLAVORS: GatewayFlavor[] = ['new-api', 'new-api-2025', 'one-api'];
const sims = {} as Record<GatewayFlavor | 'strict', Simulator>;

before(async () => {
  for (const gateway of FLAVORS) sims[gateway] = await startSimulator({ profile: 'real', gateway });
  sims.strict = await startSimulator({ profile: 'strict' });
});
after(async () => {
  for (const sim of Object.values(sims)) await sim.close();
});
beforeEach(() => {
  for (const [name, sim] of Object.entries(sims)) {
    sim.reset();
    Object.assign(sim.config, {
      ...defaultEconomy(),
      gateway: name === 'strict' ? 'new-api' : name,
      models: defaultConfig().models,
    });
  }
});

type Headers = Record<string, string>;
async function call(sim: Simulator, path: string, init: { method?: string; headers?: Headers; body?: string } = {}) {
  const r = await request(`${sim.url}${path}`, {
    method: (init.method ?? 'GET') as 'GET',
    headers: init.headers,
    body: init.body,
  });
  const text = await r.body.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: r.statusCode, headers: r.headers, text, json };
}
const bearer = (sim: Simulator, name = 'production'): Headers => ({
  authorization: `Bearer ${sim.tokens[name]}`,
  'content-type': 'application/json',
});
const chat = (sim: Simulator, headers: Headers, model = 'gpt-4o-mini', extra: Record<string, unknown> = {}) =>
  call(sim, '/v1/chat/completions', {
    method: 'POST',
    headers,
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'one two three' }], ...extra }),
  });
const stripId = (m: string) => m.replace(/ \(request id: [^)]*\)$/, '');
const past = () => Math.floor(Date.now() / 1000) - 60;

// ---------------- /api/status ----------------

test('/api/status: new-api flavors carry quota_display_type and HeaderNavModules (a JSON string); one-api does not', async () => {
  for (const gateway of ['new-api', 'new-api-2025'] as const) {
    const r = await call(sims[gateway], '/api/status');
    assert.equal(r.status, 200);
    assert.equal(r.json.success, true);
    assert.equal(r.json.message, '');
    const d = r.json.data;
    assert.equal(d.quota_per_unit, 500000);
    assert.equal(d.display_in_currency, true);
    assert.equal(d.quota_display_type, 'USD');
    assert.equal(d.usd_exchange_rate, 7.3);
    assert.equal(d.custom_currency_symbol, '¤');
    assert.equal(d.custom_currency_exchange_rate, 1);
    assert.equal(typeof d.version, 'string');
    assert.equal(typeof d.system_name, 'string');
    assert.equal(typeof d.HeaderNavModules, 'string');
    assert.deepEqual(JSON.parse(d.HeaderNavModules).pricing, { enabled: true, requireAuth: false });
  }
  const sim = sims['new-api'];
  sim.config.pricingAccess = 'login';
  sim.config.displayType = 'TOKENS';
  const d = (await call(sim, '/api/status')).json.data;
  assert.deepEqual(JSON.parse(d.HeaderNavModules).pricing, { enabled: true, requireAuth: true });
  assert.equal(d.display_in_currency, false);
  assert.equal(d.quota_display_type, 'TOKENS');
  sim.config.pricingAccess = 'disabled';
  assert.deepEqual(JSON.parse((await call(sim, '/api/status')).json.data.HeaderNavModules).pricing, {
    enabled: false,
    requireAuth: false,
  });

  const one = await call(sims['one-api'], '/api/status');
  assert.equal(one.status, 200);
  assert.equal(one.json.data.quota_per_unit, 500000);
  assert.equal(one.json.data.display_in_currency, true);
  for (const k of ['quota_display_type', 'usd_exchange_rate', 'HeaderNavModules', 'self_use_mode_enabled'])
    assert.ok(!(k in one.json.data), `one-api has no ${k}`);
});

test('strict profile: no /api/* routes (404) and no billing endpoints', async () => {
  for (const path of ['/api/status', '/api/usage/token/', '/api/pricing']) {
    const r = await call(sims.strict, path, { headers: bearer(sims.strict) });
    assert.equal(r.status, 404);
    assert.equal(r.json.error.message, `Invalid URL (GET ${path})`);
  }
  assert.equal(
    (await call(sims.strict, '/v1/dashboard/billing/subscription', { headers: bearer(sims.strict) })).status,
    404,
  );
});

// ---------------- /api/usage/token/ ----------------

test('/api/usage/token/ (new-api): the exact token_usage JSON, raw amounts, code a boolean', async () => {
  const sim = sims['new-api'];
  const r = await call(sim, '/api/usage/token/', { headers: bearer(sim) });
  assert.equal(r.status, 200);
  assert.deepEqual(r.json, {
    code: true,
    message: 'ok',
    data: {
      object: 'token_usage',
      name: 'production',
      total_granted: 5000000,
      total_used: 1250000,
      total_available: 3750000,
      unlimited_quota: false,
      model_limits: {},
      model_limits_enabled: false,
      expires_at: 0,
    },
  });
  sim.setToken('production', { modelLimits: ['gpt-4o-mini'], expiresAt: 1767225600 });
  const limited = (await call(sim, '/api/usage/token/', { headers: bearer(sim) })).json.data;
  assert.deepEqual(limited.model_limits, { 'gpt-4o-mini': true });
  assert.equal(limited.model_limits_enabled, true);
  assert.equal(limited.expires_at, 1767225600);
  const unlimited = (await call(sim, '/api/usage/token/', { headers: bearer(sim, 'test') })).json.data;
  assert.equal(unlimited.unlimited_quota, true);
  assert.equal(unlimited.name, 'test');
});

test('/api/usage/token/ (new-api): expired, exhausted and disabled tokens still read their usage; auth errors are {success:false}', async () => {
  const sim = sims['new-api'];
  sim.setToken('production', { expiresAt: past() });
  assert.equal((await call(sim, '/api/usage/token/', { headers: bearer(sim) })).status, 200);
  sim.setToken('production', { expiresAt: 0, remainQuota: 0 });
  const exhausted = await call(sim, '/api/usage/token/', { headers: bearer(sim) });
  assert.equal(exhausted.status, 200);
  assert.equal(exhausted.json.data.total_available, 0);
  assert.equal((await call(sim, '/api/usage/token/', { headers: bearer(sim, 'disabled') })).status, 200);

  const unknown = await call(sim, '/api/usage/token/', { headers: { authorization: 'Bearer sk-nope' } });
  assert.equal(unknown.status, 401);
  assert.deepEqual(unknown.json, { success: false, message: 'Invalid token' });
  const zh = await call(sim, '/api/usage/token/', {
    headers: { authorization: 'Bearer sk-nope', 'accept-language': 'zh-CN,zh;q=0.9' },
  });
  assert.deepEqual(zh.json, { success: false, message: '无效的令牌' });
  assert.deepEqual((await call(sim, '/api/usage/token/')).json, { success: false, message: 'Token not provided' });
  const noScheme = await call(sim, '/api/usage/token/', { headers: { authorization: sim.tokens.production } });
  assert.equal(noScheme.status, 401);
  assert.deepEqual(noScheme.json, { success: false, message: 'Invalid Bearer token' });
  const lower = await call(sim, '/api/usage/token/', {
    headers: { authorization: `bearer ${sim.tokens.production.slice(3)}` },
  });
  assert.equal(lower.status, 200, 'scheme case-insensitive, sk- optional');
});

test('/api/usage/token/ (new-api-2025): TokenAuth, so bad tokens get the relay 401 in hard-coded Chinese', async () => {
  const sim = sims['new-api-2025'];
  assert.equal((await call(sim, '/api/usage/token/', { headers: bearer(sim) })).json.data.total_available, 3750000);
  const unknown = await call(sim, '/api/usage/token/', { headers: { authorization: 'Bearer sk-nope' } });
  assert.equal(unknown.status, 401);
  assert.equal(unknown.json.error.type, 'new_api_error');
  assert.equal(stripId(unknown.json.error.message), '无效的令牌');
  sim.setToken('production', { expiresAt: past() });
  const expired = await call(sim, '/api/usage/token/', { headers: bearer(sim) });
  assert.equal(expired.status, 401);
  assert.equal(stripId(expired.json.error.message), '该令牌已过期');
});

test('/api/usage/token without the slash: 301 to the slash form (gin), query kept, no request id', async () => {
  for (const gateway of ['new-api', 'new-api-2025'] as const) {
    const r = await call(sims[gateway], '/api/usage/token?x=1', { headers: bearer(sims[gateway]) });
    assert.equal(r.status, 301);
    assert.equal(r.headers.location, '/api/usage/token/?x=1');
    assert.match(r.text, /Moved Permanently/);
    assert.equal(r.headers['x-oneapi-request-id'], undefined);
  }
});

test('one-api: 404 RelayNotFound for new-api-only routes; /api/status and billing served', async () => {
  const sim = sims['one-api'];
  const r = await call(sim, '/api/usage/token/', { headers: bearer(sim) });
  assert.equal(r.status, 404);
  assert.equal(
    r.text,
    '{"error":{"message":"Invalid URL (GET /api/usage/token/)","type":"invalid_request_error","param":"","code":""}}',
  );
  assert.equal(
    (await call(sim, '/api/usage/token', { headers: bearer(sim) })).status,
    404,
    'no 301 where there is no route',
  );
  assert.equal((await call(sim, '/api/pricing')).json.error.message, 'Invalid URL (GET /api/pricing)');
  assert.equal((await call(sim, '/v1/dashboard/billing/usage', { headers: bearer(sim) })).status, 200);
});

test('/api/usage/token/: the critical rate limit per IP is a bare 429 with an empty body; reset() clears it', async () => {
  const sim = sims['new-api'];
  sim.config.criticalRateLimit = { max: 3, windowMs: 60_000 };
  for (let i = 0; i < 3; i++)
    assert.equal(
      (await call(sim, '/api/usage/token/', { headers: i === 1 ? {} : bearer(sim) })).status,
      i === 1 ? 401 : 200,
    );
  const limited = await call(sim, '/api/usage/token/', { headers: bearer(sim) });
  assert.equal(limited.status, 429);
  assert.equal(limited.text, '');
  assert.equal((await call(sim, '/api/status')).status, 200, 'other routes are not limited');
  sim.reset();
  assert.equal((await call(sim, '/api/usage/token/', { headers: bearer(sim) })).status, 200);
});

// ---------------- billing endpoints ----------------

test('billing (new-api): USD, CNY, TOKENS and CUSTOM (which falls back to USD); with and without /v1', async () => {
  const sim = sims['new-api'];
  const get = async (path: string) => (await call(sim, path, { headers: bearer(sim) })).json;
  const sub = await get('/v1/dashboard/billing/subscription');
  assert.deepEqual(sub, {
    object: 'billing_subscription',
    has_payment_method: true,
    soft_limit_usd: 10,
    hard_limit_usd: 10,
    system_hard_limit_usd: 10,
    access_until: 0,
  });
  assert.deepEqual(await get('/v1/dashboard/billing/usage'), { object: 'list', total_usage: 250 });
  assert.deepEqual(await get('/dashboard/billing/subscription'), sub);
  assert.equal(
    sub.hard_limit_usd - (await get('/dashboard/billing/usage')).total_usage / 100,
    7.5,
    'remaining = hard − usage/100',
  );

  sim.config.displayType = 'CNY';
  assert.ok(Math.abs((await get('/v1/dashboard/billing/subscription')).hard_limit_usd - 73) < 1e-9);
  assert.ok(Math.abs((await get('/v1/dashboard/billing/usage')).total_usage - 1825) < 1e-9);
  sim.config.displayType = 'TOKENS';
  assert.equal((await get('/v1/dashboard/billing/subscription')).hard_limit_usd, 5000000);
  assert.equal((await get('/v1/dashboard/billing/usage')).total_usage, 125000000);
  sim.config.displayType = 'CUSTOM';
  sim.config.customCurrencySymbol = '€';
  sim.config.customCurrencyExchangeRate = 0.9;
  assert.equal((await get('/v1/dashboard/billing/subscription')).hard_limit_usd, 10);
  assert.equal((await get('/v1/dashboard/billing/usage')).total_usage, 250);
});

test('billing: unlimited token 1e8, access_until in seconds, wallet mode, expired token refused with the relay 401', async () => {
  const sim = sims['new-api'];
  const unlimited = (await call(sim, '/v1/dashboard/billing/subscription', { headers: bearer(sim, 'test') })).json;
  assert.equal(unlimited.soft_limit_usd, 100000000);
  assert.equal(unlimited.hard_limit_usd, 100000000);
  const future = Math.floor(Date.now() / 1000) + 86400;
  sim.setToken('production', { expiresAt: future });
  assert.equal(
    (await call(sim, '/v1/dashboard/billing/subscription', { headers: bearer(sim) })).json.access_until,
    future,
  );

  sim.config.displayTokenStat = false;
  sim.config.userQuota = 2_000_000;
  sim.config.userUsedQuota = 500_000;
  const wallet = (await call(sim, '/v1/dashboard/billing/subscription', { headers: bearer(sim, 'test') })).json;
  assert.equal(wallet.hard_limit_usd, 5, 'wallet remain + used, even for an unlimited token');
  assert.equal(wallet.access_until, 0);
  assert.equal((await call(sim, '/v1/dashboard/billing/usage', { headers: bearer(sim) })).json.total_usage, 100);
  sim.config.displayTokenStat = true;

  sim.setToken('production', { expiresAt: past() });
  const expired = await call(sim, '/v1/dashboard/billing/subscription', { headers: bearer(sim) });
  assert.equal(expired.status, 401);
  assert.match(expired.json.error.message, /^Invalid token \(request id: \S+\)$/);
  sim.setToken('production', { expiresAt: 0, remainQuota: 0 });
  assert.equal((await call(sim, '/v1/dashboard/billing/usage', { headers: bearer(sim) })).status, 401);
});

test('billing (one-api): converts by display_in_currency only, and its wallet-mode bug (hard limit = remaining only)', async () => {
  const sim = sims['one-api'];
  const get = async (path: string) => (await call(sim, path, { headers: bearer(sim) })).json;
  assert.equal((await get('/v1/dashboard/billing/subscription')).hard_limit_usd, 10);
  sim.config.displayType = 'CNY';
  assert.equal((await get('/v1/dashboard/billing/subscription')).hard_limit_usd, 10, 'one-api knows no CNY');
  sim.config.displayType = 'TOKENS';
  assert.equal((await get('/v1/dashboard/billing/subscription')).hard_limit_usd, 5000000);
  assert.equal((await get('/dashboard/billing/usage')).total_usage, 125000000);
  sim.config.displayType = 'USD';
  sim.config.displayTokenStat = false;
  sim.config.userQuota = 2_000_000;
  sim.config.userUsedQuota = 500_000;
  assert.equal((await get('/v1/dashboard/billing/subscription')).hard_limit_usd, 4);
  assert.equal((await get('/v1/dashboard/billing/usage')).total_usage, 100);
  sim.setToken('production', { status: 'expired' });
  const r = await call(sim, '/v1/dashboard/billing/subscription', { headers: bearer(sim) });
  assert.equal(r.status, 401);
  assert.deepEqual(Object.keys(r.json.error).sort(), ['message', 'type']);
  assert.equal(r.json.error.type, 'one_api_error');
  assert.equal(stripId(r.json.error.message), '该令牌已过期');
});

// ---------------- /api/pricing ----------------

test('/api/pricing (new-api): public shape, per-call and per-token models, usable groups; disabled 403; login 401 / access token invalid', async () => {
  const sim = sims['new-api'];
  const r = await call(sim, '/api/pricing');
  assert.equal(r.status, 200);
  assert.equal(r.json.success, true);
  assert.deepEqual(r.json.group_ratio, { default: 1, vip: 0.8 });
  assert.deepEqual(r.json.usable_group, { default: '默认分组', vip: 'vip分组' });
  assert.deepEqual(r.json.auto_groups, ['default']);
  assert.match(r.json.pricing_version, /^[0-9a-f]{32}$/);
  const byName = Object.fromEntries(r.json.data.map((m: { model_name: string }) => [m.model_name, m]));
  assert.deepEqual(
    { ...byName['gpt-4o-mini'] },
    {
      model_name: 'gpt-4o-mini',
      quota_type: 0,
      model_ratio: 0.075,
      model_price: 0,
      owner_by: '',
      completion_ratio: 4,
      cache_ratio: 0.5,
      enable_groups: ['default', 'vip'],
      supported_endpoint_types: ['openai'],
      vendor_id: byName['gpt-4o-mini'].vendor_id,
    },
  );
  assert.deepEqual(byName['gpt-4o'].enable_groups, ['vip', 'svip']);
  assert.equal(byName['sora-2'].quota_type, 1);
  assert.equal(byName['sora-2'].model_price, 0.5);
  assert.deepEqual(byName['sora-2'].supported_endpoint_types, ['openai-video']);
  assert.equal(byName['qwen3-max'].billing_mode, 'tiered_expr');
  const vendor = r.json.vendors.find((v: { id: number }) => v.id === byName['claude-sonnet-4-5'].vendor_id);
  assert.equal(vendor.name, 'Anthropic');
  assert.deepEqual(r.json.supported_endpoint.openai, { path: '/v1/chat/completions', method: 'POST' });

  sim.config.pricingAccess = 'disabled';
  const disabled = await call(sim, '/api/pricing', { headers: bearer(sim) });
  assert.equal(disabled.status, 403);
  assert.deepEqual(disabled.json, { success: false, message: 'pricing is disabled' });
  sim.config.pricingAccess = 'login';
  const anon = await call(sim, '/api/pricing');
  assert.equal(anon.status, 401);
  assert.deepEqual(anon.json, { success: false, message: '无权进行此操作，未登录且未提供 access token' });
  const withKey = await call(sim, '/api/pricing', { headers: bearer(sim) });
  assert.equal(withKey.status, 200);
  assert.deepEqual(withKey.json, { success: false, message: '无权进行此操作，access token 无效' });
});

test('/api/pricing: since 2026-04 only models of the usable groups are listed; new-api-2025 lists all and ignores the access mode', async () => {
  for (const sim of [sims['new-api'], sims['new-api-2025']])
    sim.config.models = sim.config.models.map((m) => (m.id === 'gpt-4o' ? { ...m, enableGroups: ['svip'] } : m));
  const names = async (sim: Simulator) =>
    ((await call(sim, '/api/pricing')).json.data as Array<{ model_name: string }>).map((m) => m.model_name);
  assert.ok(!(await names(sims['new-api'])).includes('gpt-4o'));
  assert.ok((await names(sims['new-api-2025'])).includes('gpt-4o'));
  sims['new-api-2025'].config.pricingAccess = 'disabled';
  assert.equal((await call(sims['new-api-2025'], '/api/pricing')).json.success, true, 'TryUserAuth: always answered');
});

// ---------------- relay errors per version ----------------

test('TokenAuth 401 per version: new-api one answer (en/zh), new-api-2025 and one-api say why', async () => {
  const cases: Array<{
    setup: (sim: Simulator) => void;
    headers?: (sim: Simulator) => Headers;
    want: Record<GatewayFlavor, string>;
  }> = [
    {
      setup: () => undefined,
      headers: () => ({ 'content-type': 'application/json' }),
      want: { 'new-api': 'Invalid token', 'new-api-2025': '未提供令牌', 'one-api': '未提供令牌' },
    },
    {
      setup: () => undefined,
      headers: () => ({ authorization: 'Bearer sk-unknown', 'content-type': 'application/json' }),
      want: { 'new-api': 'Invalid token', 'new-api-2025': '无效的令牌', 'one-api': '无效的令牌' },
    },
    {
      setup: () => undefined,
      headers: (sim) => bearer(sim, 'disabled'),
      want: { 'new-api': 'Invalid token', 'new-api-2025': '该令牌状态不可用', 'one-api': '该令牌状态不可用' },
    },
    {
      setup: (sim) => sim.setToken('production', { status: 'disabled' }),
      want: { 'new-api': 'Invalid token', 'new-api-2025': '该令牌状态不可用', 'one-api': '该令牌状态不可用' },
    },
    {
      setup: (sim) => sim.setToken('production', { expiresAt: past() }),
      want: { 'new-api': 'Invalid token', 'new-api-2025': '该令牌已过期', 'one-api': '该令牌已过期' },
    },
    {
      setup: (sim) => sim.setToken('production', { status: 'expired' }),
      want: { 'new-api': 'Invalid token', 'new-api-2025': '该令牌已过期', 'one-api': '该令牌已过期' },
    },
    {
      setup: (sim) => sim.setToken('production', { remainQuota: 0 }),
      want: {
        'new-api': 'Invalid token',
        'new-api-2025': '[sk-Pr0***k5d] 该令牌额度已用尽 !token.UnlimitedQuota && token.RemainQuota = 0',
        'one-api': '该令牌额度已用尽',
      },
    },
    {
      setup: (sim) => sim.setToken('production', { status: 'exhausted' }),
      want: {
        'new-api': 'Invalid token',
        'new-api-2025': '该令牌额度已用尽 TokenStatusExhausted[sk-Pr0***k5d]',
        'one-api': '令牌 production（#1）额度已用尽',
      },
    },
  ];
  for (const gateway of FLAVORS) {
    const sim = sims[gateway];
    for (const c of cases) {
      sim.reset();
      c.setup(sim);
      const r = await chat(sim, c.headers ? c.headers(sim) : bearer(sim));
      assert.equal(r.status, 401, `${gateway}: ${c.want[gateway]}`);
      assert.match(r.json.error.message, / \(request id: [^)]+\)$/);
      assert.equal(stripId(r.json.error.message), c.want[gateway]);
      assert.equal(r.json.error.type, gateway === 'one-api' ? 'one_api_error' : 'new_api_error');
      assert.equal('code' in r.json.error, gateway !== 'one-api');
    }
  }
  const zh = await chat(sims['new-api'], {
    authorization: 'Bearer sk-unknown',
    'accept-language': 'zh-CN',
    'content-type': 'application/json',
  });
  assert.equal(stripId(zh.json.error.message), '无效的令牌');
  const native = await call(sims['one-api'], '/v1/messages', {
    method: 'POST',
    headers: { 'x-api-key': 'sk-unknown' },
    body: '{}',
  });
  assert.equal(native.json.error.type, 'one_api_error');
});

test('model limits: 403 per version; an empty list allows nothing (new-api) or everything (one-api); /v1/models lists the limits', async () => {
  const want: Record<GatewayFlavor, string> = {
    'new-api': 'This token has no access to model claude-sonnet-4-5',
    'new-api-2025': '该令牌无权访问模型 claude-sonnet-4-5',
    'one-api': '该令牌无权使用模型：claude-sonnet-4-5',
  };
  for (const gateway of FLAVORS) {
    const sim = sims[gateway];
    sim.setToken('production', { modelLimits: ['gpt-4o-mini'] });
    const r = await chat(sim, bearer(sim), 'claude-sonnet-4-5');
    assert.equal(r.status, 403);
    assert.equal(stripId(r.json.error.message), want[gateway]);
    assert.equal((await chat(sim, bearer(sim), 'gpt-4o-mini')).status, 200);
    const ids = (await call(sim, '/v1/models', { headers: bearer(sim) })).json.data.map((m: { id: string }) => m.id);
    assert.deepEqual(ids, ['gpt-4o-mini']);
    sim.setToken('production', { modelLimits: [] });
    const none = await chat(sim, bearer(sim), 'gpt-4o-mini');
    assert.equal(none.status, gateway === 'one-api' ? 200 : 403);
    if (gateway !== 'one-api')
      assert.equal(
        stripId(none.json.error.message),
        gateway === 'new-api' ? 'This token has no access to any models' : '该令牌无权访问任何模型',
      );
  }
  const zh = sims['new-api'];
  zh.setToken('production', { modelLimits: ['gpt-4o-mini'] });
  const r = await chat(zh, { ...bearer(zh), 'accept-language': 'zh' }, 'claude-sonnet-4-5');
  assert.equal(stripId(r.json.error.message), '该令牌无权访问模型 claude-sonnet-4-5');
});

test('503 model_not_found per version (one-api has no code)', async () => {
  const want: Record<GatewayFlavor, string> = {
    'new-api': 'No available channel for model gpt-4o under group default (distributor)',
    'new-api-2025': '分组 default 下模型 gpt-4o 无可用渠道（distributor）',
    'one-api': '当前分组 default 下对于模型 gpt-4o 无可用渠道',
  };
  for (const gateway of FLAVORS) {
    const r = await chat(sims[gateway], bearer(sims[gateway]), 'gpt-4o');
    assert.equal(r.status, 503);
    assert.equal(stripId(r.json.error.message), want[gateway]);
    if (gateway === 'one-api') assert.ok(!('code' in r.json.error));
    else assert.equal(r.json.error.code, 'model_not_found');
  }
  const zh = await chat(sims['new-api'], { ...bearer(sims['new-api']), 'accept-language': 'zh-CN' }, 'gpt-4o');
  assert.equal(stripId(zh.json.error.message), '分组 default 下模型 gpt-4o 无可用渠道（distributor）');
});

test('quota errors (403): empty wallet, wallet below the estimate, token below the estimate; amounts per display type', async () => {
  const sim = sims['new-api'];
  sim.config.userQuota = 0;
  let r = await chat(sim, bearer(sim));
  assert.equal(r.status, 403);
  assert.equal(r.json.error.code, 'insufficient_user_quota');
  assert.equal(stripId(r.json.error.message), '用户额度不足, 剩余额度: ＄0.000000');
  sim.config.displayType = 'CNY';
  assert.equal(stripId((await chat(sim, bearer(sim))).json.error.message), '用户额度不足, 剩余额度: ¥0.000000');
  sim.config.displayType = 'USD';
  sim.config.userQuota = 100;
  r = await chat(sim, bearer(sim));
  assert.equal(r.json.error.code, 'insufficient_user_quota');
  assert.equal(stripId(r.json.error.message), '预扣费额度失败, 用户剩余额度: ＄0.000200, 需要预扣费额度: ＄0.000614');
  sim.config.userQuota = 500_000_000;

  // gpt-4o-mini without max_tokens: 4096 × 0.075 = 307 quota
  sim.setToken('production', { remainQuota: 100 });
  r = await chat(sim, bearer(sim));
  assert.equal(r.status, 403);
  assert.equal(r.json.error.code, 'pre_consume_token_quota_failed');
  assert.equal(
    stripId(r.json.error.message),
    'token quota is not enough, token remain quota: ＄0.000200, need quota: ＄0.000614',
  );
  assert.equal(
    (await chat(sim, bearer(sim), 'gpt-4o-mini', { max_tokens: 1000 })).status,
    200,
    '1000 × 0.075 = 75 fits',
  );
  sim.config.displayType = 'TOKENS';
  sim.setToken('production', { remainQuota: 100 });
  assert.equal(
    stripId((await chat(sim, bearer(sim))).json.error.message),
    'token quota is not enough, token remain quota: 100, need quota: 307',
  );

  // a video: 0.5 × 500,000 = 250,000 quota per call
  sim.setToken('production', { remainQuota: 200_000 });
  const v = await call(sim, '/v1/videos', {
    method: 'POST',
    headers: bearer(sim),
    body: JSON.stringify({ model: 'sora-2', prompt: 'waves' }),
  });
  assert.equal(v.status, 403);
  assert.equal(
    stripId(v.json.error.message),
    'token quota is not enough, token remain quota: 200000, need quota: 250000',
  );
  // native surface: Claude-shaped
  const n = await call(sim, '/v1/messages', {
    method: 'POST',
    headers: { 'x-api-key': sim.tokens.production, 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'claude-sonnet-4-5',
      max_tokens: 1_000_000,
      messages: [{ role: 'user', content: 'x' }],
    }),
  });
  assert.equal(n.status, 403);
  assert.equal(n.json.type, 'error');
  assert.match(n.json.error.message, /^token quota is not enough/);
});

test('quota errors: new-api-2025 and one-api wording', async () => {
  const s25 = sims['new-api-2025'];
  s25.config.userQuota = 0;
  assert.equal(stripId((await chat(s25, bearer(s25))).json.error.message), 'user quota is not enough');
  s25.config.userQuota = 500_000_000;
  s25.setToken('production', { remainQuota: 100 });
  assert.match(
    stripId((await chat(s25, bearer(s25))).json.error.message),
    /^token quota is not enough, token remain quota: ＄0\.000200/,
  );

  const one = sims['one-api'];
  one.config.userQuota = 100;
  let r = await chat(one, bearer(one));
  assert.equal(r.status, 403);
  assert.equal(r.json.error.type, 'one_api_error');
  assert.equal(r.json.error.code, 'insufficient_user_quota');
  assert.equal(stripId(r.json.error.message), 'user quota is not enough');
  one.config.userQuota = 10_000; // not over 100 × 307: the token is checked
  one.setToken('production', { remainQuota: 100 });
  r = await chat(one, bearer(one));
  assert.equal(r.json.error.code, 'pre_consume_token_quota_failed');
  assert.equal(stripId(r.json.error.message), '令牌额度不足');
  one.config.userQuota = 500_000_000; // a rich wallet: one-api skips the token check
  assert.equal((await chat(one, bearer(one))).status, 200);
});

// ---------------- billing ----------------

test('billing: a chat deducts (prompt + completion × completion ratio) × ratio × group from the token and the wallet', async () => {
  const sim = sims['new-api'];
  const r = await chat(sim, bearer(sim), 'claude-sonnet-4-5');
  assert.equal(r.status, 200);
  const cost = Math.round((r.json.usage.prompt_tokens + r.json.usage.completion_tokens * 5) * 1.5);
  assert.ok(cost > 0);
  const s = sim.tokenState('production');
  assert.equal(s.remainQuota, 3_750_000 - cost);
  assert.equal(s.usedQuota, 1_250_000 + cost);
  assert.equal(sim.config.userQuota, defaultEconomy().userQuota - cost);
  const usage = (await call(sim, '/api/usage/token/', { headers: bearer(sim) })).json.data;
  assert.equal(usage.total_used, 1_250_000 + cost);
  assert.equal(usage.total_granted, 5_000_000);
  const stream = await chat(sim, bearer(sim), 'gpt-4o-mini', { stream: true });
  assert.equal(stream.status, 200);
  assert.ok(sim.tokenState('production').usedQuota > 1_250_000 + cost, 'streamed calls are billed too');
});

test('billing: an image is price × unit × group per call; an unlimited token still counts usage; reset() restores', async () => {
  const sim = sims['new-api'];
  const r = await call(sim, '/v1/images/generations', {
    method: 'POST',
    headers: bearer(sim),
    body: JSON.stringify({ model: 'gpt-image-1', prompt: 'a cat' }),
  });
  assert.equal(r.status, 200);
  assert.deepEqual(sim.tokenState('production'), {
    name: 'production',
    remainQuota: 3_730_000,
    usedQuota: 1_270_000,
    unlimited: false,
    expiresAt: 0,
    status: 'enabled',
    modelLimits: undefined,
  });
  assert.equal((await call(sim, '/v1/dashboard/billing/usage', { headers: bearer(sim) })).json.total_usage, 254);
  assert.equal(formatQuota(sim.config, 20_000), '＄0.040000');

  const chatOnly = sim.tokens.test;
  await chat(sim, { authorization: `Bearer ${chatOnly}`, 'content-type': 'application/json' });
  const test = sim.tokenState('test');
  assert.equal(test.unlimited, true);
  assert.ok(test.usedQuota > 0);
  assert.equal(test.remainQuota, -test.usedQuota, 'new-api decrements remain even for unlimited tokens');

  sim.reset();
  assert.equal(sim.tokenState('production').remainQuota, 3_750_000);
  assert.equal(sim.tokenState('test').usedQuota, 0);
  assert.equal(sim.config.userQuota, defaultEconomy().userQuota);
});

test('usage log: economy routes are recorded with a masked token only', async () => {
  const sim = sims['new-api'];
  await call(sim, '/api/usage/token/', { headers: bearer(sim) });
  await call(sim, '/v1/dashboard/billing/subscription', { headers: bearer(sim) });
  await call(sim, '/api/status');
  assert.deepEqual(
    sim.log.map((l) => [l.path, l.status, l.tokenName]),
    [
      ['/api/usage/token/', 200, 'production'],
      ['/v1/dashboard/billing/subscription', 200, 'production'],
      ['/api/status', 200, null],
    ],
  );
  const text = JSON.stringify(sim.log);
  assert.ok(!text.includes(sim.tokens.production));
  assert.ok(text.includes(`${sim.tokens.production.slice(0, 6)}...${sim.tokens.production.slice(-4)}`));
});

test('control API: PUT /__sim/token and GET /__sim/token/<name>', async () => {
  const sim = sims['new-api'];
  const put = await request(`${sim.url}/__sim/token`, {
    method: 'PUT',
    body: JSON.stringify({ name: 'production', patch: { remainQuota: 42 } }),
  });
  assert.equal(((await put.body.json()) as { remainQuota: number }).remainQuota, 42);
  const got = (await (await request(`${sim.url}/__sim/token/production`)).body.json()) as {
    remainQuota: number;
    unlimited: boolean;
  };
  assert.equal(got.remainQuota, 42);
  assert.equal(got.unlimited, false);
});
