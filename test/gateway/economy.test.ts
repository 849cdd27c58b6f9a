/**
 * The gateway's economy through the client, over real HTTP against the simulator's flavors
 * (new-api now, new-api 2025, one-api) and the strict profile: balance, units, the rate limit,
 * prices and groups, every refusal in the user's terms, and group-aware diagnosis.
 */
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { runDiagnosis, type ChatRequest } from '../../src/gateway';
import { startSimulator, type Simulator } from '../sim/server';
import { makeClient, thrown } from './helpers';

const sims: Record<'newApi' | 'newApi2025' | 'oneApi' | 'strict', Simulator> = {} as never;
before(async () => {
  sims.newApi = await startSimulator({ profile: 'real' });
  sims.newApi2025 = await startSimulator({ profile: 'real', gateway: 'new-api-2025' });
  sims.oneApi = await startSimulator({ profile: 'real', gateway: 'one-api' });
  sims.strict = await startSimulator({ profile: 'strict' });
});
after(async () => {
  for (const s of Object.values(sims)) await s.close();
});
beforeEach(() => {
  for (const s of Object.values(sims)) s.reset();
});

const hi: ChatRequest = { surface: 'compatible', model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] };
const accountPaths = (s: Simulator) =>
  s.log.filter((r) => r.path.startsWith('/api/') || r.path.includes('/dashboard/billing/')).map((r) => r.path);

test('new-api: the balance from /api/usage/token/ in USD; a billed chat lowers it', async () => {
  const { client } = makeClient(sims.newApi);
  const q = await client.account.quota();
  assert.deepEqual(
    {
      source: q?.source,
      unit: q?.unit,
      remaining: q?.remaining,
      granted: q?.granted,
      unlimited: q?.unlimited,
      expiresAt: q?.expiresAt,
    },
    { source: 'usage-token', unit: 'USD', remaining: 7.5, granted: 10, unlimited: false, expiresAt: null },
  );
  await client.chat(hi);
  const cached = await client.account.quota();
  assert.equal(cached?.remaining, 7.5, 'served from the cache: no fast polling');
  const fresh = await client.account.quota({ maxAgeMs: 0 });
  assert.ok(fresh && fresh.remaining < 7.5, `billed: ${fresh?.remaining}`);
  assert.equal(accountPaths(sims.newApi).filter((p) => p === '/api/usage/token/').length, 2);
});

test('units follow /api/status: CNY, a custom currency, raw tokens', async () => {
  for (const [displayType, unit, remaining] of [
    ['CNY', 'CNY', 7.5 * 7.3],
    ['CUSTOM', '€', 7.5 * 0.9],
    ['TOKENS', 'tokens', 3_750_000],
  ] as const) {
    sims.newApi.config.displayType = displayType;
    sims.newApi.config.customCurrencySymbol = '€';
    sims.newApi.config.customCurrencyExchangeRate = 0.9;
    const q = await makeClient(sims.newApi).client.account.quota();
    assert.equal(q?.unit, unit);
    assert.ok(Math.abs((q?.remaining ?? 0) - remaining) < 1e-6, `${displayType}: ${q?.remaining}`);
  }
  sims.newApi.config.displayType = 'USD';
});

test('a CNY gateway that does not say its exchange rate: amounts in its own unit (USD), no rate guessed', async () => {
  for (const sim of [sims.newApi, sims.newApi2025]) {
    sim.config.displayType = 'CNY';
    sim.config.hideExchangeRate = true;
    try {
      const { client } = makeClient(sim);
      const q = await client.account.quota();
      assert.deepEqual([q?.source, q?.unit, q?.remaining], ['usage-token', 'USD', 7.5], sim.config.gateway);
      const p = await client.account.pricing();
      assert.deepEqual([p?.get('gpt-image-1')?.unit, p?.get('gpt-image-1')?.perCall], ['USD', 0.04]);
    } finally {
      sim.config.displayType = 'USD';
      sim.config.hideExchangeRate = false;
    }
  }
  // one-api never says a rate (nor shows CNY): its own unit, USD.
  const q = await makeClient(sims.oneApi).client.account.quota();
  assert.deepEqual([q?.unit, q?.remaining], ['USD', 7.5]);
});

test('one-api: no token-usage route (404), the billing pair answers; the strict profile tells nothing and raises nothing', async () => {
  const q = await makeClient(sims.oneApi).client.account.quota();
  assert.equal(q?.source, 'billing');
  assert.equal(q?.remaining, 7.5);
  assert.equal(q?.unit, 'USD');
  assert.equal(await makeClient(sims.strict).client.account.quota(), undefined);
  assert.equal(await makeClient(sims.strict).client.account.pricing(), undefined);
});

test('the token-usage rate limit: a 429 keeps the last figure and pauses reads (never retried)', async () => {
  sims.newApi.config.criticalRateLimit = { max: 1, windowMs: 60_000 };
  const { client } = makeClient(sims.newApi);
  const first = await client.account.quota();
  const again = await client.account.quota({ maxAgeMs: 0 });
  assert.equal(again?.remaining, first?.remaining);
  await client.account.quota({ maxAgeMs: 0 });
  assert.equal(
    accountPaths(sims.newApi).filter((p) => p === '/api/usage/token/').length,
    2,
    'one refused read, then paused',
  );
  sims.newApi.config.criticalRateLimit = { max: 20, windowMs: 20 * 60_000 };
});

test('new-api says only "Invalid token": the client asks the token-usage endpoint and says expired (with the date), used up, or disabled', async () => {
  const expiredAt = Math.floor(Date.parse('2026-11-01T00:00:00Z') / 1000);
  sims.newApi.setToken('production', { expiresAt: expiredAt });
  let e = await thrown(() => makeClient(sims.newApi).client.chat(hi));
  assert.equal(e.detail, 'token_expired');
  assert.match(e.message, /expired on 2026-11-01/);
  assert.match(e.gatewayMessage, /Invalid token/);
  sims.newApi.reset();
  sims.newApi.setToken('production', { remainQuota: 0 });
  e = await thrown(() => makeClient(sims.newApi).client.chat(hi));
  assert.equal(e.detail, 'token_exhausted');
  assert.match(e.message, /quota is used up/);
  sims.newApi.reset();
  sims.newApi.setToken('production', { status: 'disabled' });
  e = await thrown(() => makeClient(sims.newApi).client.chat({ ...hi, surface: 'native', model: 'claude-sonnet-4-5' }));
  assert.equal(e.detail, 'token_disabled');
  const unknown = await thrown(() => makeClient(sims.newApi, { token: () => `sk-${'z'.repeat(48)}` }).client.chat(hi));
  assert.equal(unknown.kind, 'unauthorized');
  assert.equal(unknown.detail, undefined, 'an unknown token stays "invalid"');
});

test('a balance read before the token expired does not hide the expiry (the explanation reads afresh)', async () => {
  const { client } = makeClient(sims.newApi);
  assert.equal((await client.account.quota())?.expiresAt, null);
  sims.newApi.setToken('production', { expiresAt: Math.floor(Date.parse('2026-11-01T00:00:00Z') / 1000) });
  const e = await thrown(() => client.chat(hi));
  assert.equal(e.detail, 'token_expired');
  assert.match(e.message, /expired on 2026-11-01/);
});

test('older gateways say it themselves (new-api 2025, one-api): the same kinds', async () => {
  for (const sim of [sims.newApi2025, sims.oneApi]) {
    sim.setToken('production', { expiresAt: 1_000_000 });
    assert.equal((await thrown(() => makeClient(sim).client.chat(hi))).detail, 'token_expired');
    sim.reset();
    sim.setToken('production', { remainQuota: 0 });
    assert.equal((await thrown(() => makeClient(sim).client.chat(hi))).detail, 'token_exhausted');
    sim.reset();
  }
});

test("three 403s: the account's wallet, the token's own quota, the token's model limits", async () => {
  sims.newApi.config.userQuota = 0;
  let e = await thrown(() => makeClient(sims.newApi).client.chat(hi));
  assert.equal(e.detail, 'wallet_empty');
  assert.match(e.fix, /Top up the account/);
  sims.newApi.reset();
  sims.newApi.setToken('production', { remainQuota: 10 });
  e = await thrown(() => makeClient(sims.newApi).client.chat(hi));
  assert.equal(e.detail, 'token_quota');
  assert.match(e.fix, /Raise this token's quota/);
  sims.newApi.reset();
  sims.newApi.setToken('production', { modelLimits: ['claude-sonnet-4-5'] });
  e = await thrown(() => makeClient(sims.newApi).client.chat(hi));
  assert.equal(e.detail, 'token_model_limit');
  assert.match(e.message, /gpt-4o-mini/);
});

test('503 model_not_found names the group, in every version', async () => {
  for (const sim of [sims.newApi, sims.newApi2025, sims.oneApi]) {
    const e = await thrown(() => makeClient(sim).client.chat({ ...hi, model: 'gpt-4o' }));
    assert.equal(e.detail, 'model_not_found_503', sim.config.gateway);
    assert.match(e.message, /group "default" cannot use "gpt-4o"/, sim.config.gateway);
  }
});

test('prices and groups from /api/pricing where public; nothing where disabled or behind a login', async () => {
  const p = await makeClient(sims.newApi).client.account.pricing();
  assert.deepEqual(p?.get('gpt-4o')?.groups, ['vip', 'svip']);
  assert.equal(p?.get('gpt-image-1')?.perCall, 0.04, 'quoted for the default group');
  assert.equal(
    p?.get('gpt-4o')?.input,
    2,
    'not enabled for default: the cheapest of its groups an anonymous caller sees (1.25 × 2 × vip 0.8)',
  );
  for (const access of ['disabled', 'login'] as const) {
    sims.newApi.config.pricingAccess = access;
    assert.equal(await makeClient(sims.newApi).client.account.pricing(), undefined, access);
  }
  sims.newApi.config.pricingAccess = 'public';
  assert.equal(await makeClient(sims.oneApi).client.account.pricing(), undefined);
});

test('diagnose: a listed model the group cannot use names the groups that can, and the models this token can use', async () => {
  const r = await runDiagnosis({
    baseUrl: sims.newApi.url,
    token: sims.newApi.tokens.production,
    models: { chat: 'gpt-4o' },
    sleep: async () => undefined,
  });
  const c = r.checks.find((x) => x.id === 'generate-chat')!;
  assert.equal(c.result, 'fail');
  assert.match(c.cause, /gpt-4o is enabled for the groups vip, svip; this token's group \(default\) cannot use it/);
  assert.match(c.fix, /ask the gateway's admin for a token of the group vip or svip, or pick one of: .*gpt-4o-mini/i);
  assert.doesNotMatch(c.fix, /pick one of: [^.]*\bgpt-4o\b(?!-)/);
  const expired = await (async () => {
    sims.newApi.setToken('production', { expiresAt: Math.floor(Date.parse('2026-11-01T00:00:00Z') / 1000) });
    return runDiagnosis({
      baseUrl: sims.newApi.url,
      token: sims.newApi.tokens.production,
      models: { chat: 'gpt-4o-mini' },
      sleep: async () => undefined,
    });
  })();
  const token = expired.checks.find((x) => x.id === 'token')!;
  assert.equal(token.result, 'fail');
  assert.match(token.cause, /expired on 2026-11-01/);
});
