/**
 * A record's charge recomputed by its vintage's formula (shared/reference/relay-receipts.md §2.2, §2.3),
 * worked by hand from the reference, and held against the simulator's own accounting: for any tokens,
 * cache and ratios, on every vintage and semantic, the quota the simulated gateway writes is what the
 * receipt recomputes from the record, within the stated ±1. And what cannot be recomputed says why.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { parseRecords, recompute, receiptOf, type UsageRecord } from '../../src/gateway';
import type { EconToken } from '../sim/economy';
import {
  defaultUsageLog,
  entryOf,
  logBody,
  quotaOf,
  type ChargeTerms,
  type GatewayBill,
  type LogVintage,
} from '../sim/usageLog';

const USD = { quotaPerUnit: 500_000, display: 'USD' as const, usdExchangeRate: 7.3, customSymbol: '¤', customRate: 1 };

/** A consume record with these `other` fields and tokens, as the parser makes it. */
function rec(other: Record<string, unknown>, prompt: number, completion: number, quota: number): UsageRecord {
  const [r] = parseRecords(
    [
      {
        created_at: 1_800_000_000,
        type: 2,
        model_name: 'm',
        quota,
        prompt_tokens: prompt,
        completion_tokens: completion,
        other: JSON.stringify(other),
      },
    ],
    USD,
  );
  return r!;
}
const expected = (r: UsageRecord) => {
  const x = recompute(r, USD.quotaPerUnit);
  return x.state === 'recomputed' ? [x.formula, x.expected] : [x.reason, x.detail];
};

test('the formulas, worked by hand from the reference', () => {
  const na26 = { model_ratio: 0.075, completion_ratio: 4, group_ratio: 1, model_price: -1, cache_ratio: 0.5 };
  // ((1000 − 400) + 400 × 0.5 + 100 × 4) × 0.075 = 90
  assert.deepEqual(expected(rec({ ...na26, cache_tokens: 400 }, 1000, 100, 90)), ['openai', 90]);
  // Anthropic: (200 + 1000 × 0.1 + 500 × 1.25 + 50 × 5) × 1.5 × 0.8 = 1410
  const claude = { model_ratio: 1.5, completion_ratio: 5, group_ratio: 0.8, model_price: -1, cache_ratio: 0.1 };
  const anthropic = { ...claude, usage_semantic: 'anthropic', cache_tokens: 1000, cache_creation_tokens: 500 };
  assert.deepEqual(expected(rec({ ...anthropic, cache_creation_ratio: 1.25 }, 200, 50, 1410)), ['anthropic', 1410]);
  // before 2026-01-15 the same record said claude: true
  assert.deepEqual(
    expected(rec({ ...claude, claude: true, cache_tokens: 1000, cache_creation_tokens: 500 }, 200, 50, 0)),
    ['anthropic', 1410],
  );
  // the 1 h writes at their own ratio: (200 + 100 + 200 × 1.25 + 300 × 2 + 250) × 1.2 = 1680
  const split = { ...anthropic, cache_creation_tokens: 500, cache_creation_tokens_1h: 300, cache_creation_ratio_1h: 2 };
  assert.deepEqual(expected(rec(split, 200, 50, 0)), ['anthropic', 1680]);
  // NA24 rounds K × completion_ratio first: (10 + round(4.5)) × 2 = 30; without: (10 + 4.5) × 2 = 29
  const old = { model_ratio: 2, completion_ratio: 1.5, group_ratio: 1, model_price: -1 };
  assert.deepEqual(expected(rec(old, 10, 3, 30)), ['before-cache', 30]);
  assert.deepEqual(expected(rec(old, 10, 3, 29)), ['before-cache', 29]);
  // per call: 0.04 × 500,000 × 0.8
  assert.deepEqual(expected(rec({ model_ratio: 0, group_ratio: 0.8, model_price: 0.04 }, 0, 0, 16_000)), [
    'per-call',
    16_000,
  ]);
  // P + K = 0 bills nothing; a positive charge under 1 bills 1 (§2.2)
  assert.deepEqual(expected(rec({ ...na26, cache_tokens: 0 }, 0, 0, 0)), ['openai', 0]);
  assert.deepEqual(expected(rec({ ...na26, model_ratio: 0.001, cache_tokens: 0 }, 1, 0, 1)), ['openai', 1]);
});

test('what cannot be recomputed says why: a dynamic price, surcharges, no ratios, a per-call price without the unit', () => {
  assert.deepEqual(expected(rec({ billing_mode: 'tiered_expr', expr_b64: 'eA==' }, 10, 10, 5)), ['dynamic', undefined]);
  const search = { model_ratio: 1, completion_ratio: 1, group_ratio: 1, web_search: true, web_search_call_count: 2 };
  assert.deepEqual(expected(rec(search, 10, 10, 5)), ['surcharges', 'web_search']);
  assert.deepEqual(expected(rec({}, 10, 10, 5)), ['no-ratios', undefined]);
  const perCall = rec({ model_ratio: 0, group_ratio: 1, model_price: 0.04 }, 0, 0, 20_000);
  assert.deepEqual(recompute(perCall, undefined), { state: 'not-recomputable', reason: 'no-units' });
  const receipt = receiptOf(rec(search, 10, 10, 5), {});
  const arithmetic = receipt.billing.find((c) => c.id === 'arithmetic')!;
  assert.equal(arithmetic.state, 'not-checkable');
  assert.equal(
    arithmetic.text,
    'The charge could not be recomputed: the record includes surcharges this client does not recompute (web_search).',
  );
});

const TOKEN: EconToken = { value: 'sk-x', name: 'vscode', group: 'default' };
/** The record the simulated gateway writes for these terms, as the client parses it. */
function simulated(vintage: LogVintage, terms: ChargeTerms): UsageRecord {
  const bill: GatewayBill = { ...terms, quota: quotaOf(vintage, terms, 500_000) };
  const entry = entryOf(defaultUsageLog(), vintage, {
    tok: TOKEN,
    model: 'm',
    status: 200,
    requestId: 'r1',
    startedMs: 1_800_000_000_000,
    endMs: 1_800_000_001_000,
    firstByteMs: undefined,
    stream: false,
    path: '/v1/chat/completions',
    billed: bill,
  })!;
  const body = logBody(vintage, [{ ...entry, visibleAt: 0 }], TOKEN.value, 1) as { data: unknown[] };
  return parseRecords(body.data, USD)[0]!;
}

test("the simulator's accounting and the receipt's recomputation agree on every vintage and semantic, within ±1", () => {
  const ratio = fc.double({ min: 0.001, max: 20, noNaN: true });
  const terms = fc
    .record({
      prompt: fc.integer({ min: 0, max: 200_000 }),
      completion: fc.integer({ min: 0, max: 50_000 }),
      cacheRead: fc.integer({ min: 0, max: 100_000 }),
      cacheWrite: fc.integer({ min: 0, max: 100_000 }),
      anthropic: fc.boolean(),
      perCall: fc.boolean(),
      modelRatio: ratio,
      completionRatio: ratio,
      groupRatio: fc.constantFrom(0.5, 0.6, 0.8, 1, 1.5),
      cacheRatio: fc.double({ min: 0.05, max: 1, noNaN: true }),
      cacheCreationRatio: fc.constantFrom(1.25, 2),
      price: fc.double({ min: 0.001, max: 2, noNaN: true }),
      vintage: fc.constantFrom<LogVintage>('NA26', 'NA25', 'NA24'),
    })
    .map((t) => {
      const anthropic = t.anthropic && t.vintage !== 'NA24';
      // The OpenAI semantic's P includes its cached tokens; it has no cache writes.
      const cacheRead = t.vintage === 'NA24' ? 0 : anthropic ? t.cacheRead : Math.min(t.cacheRead, t.prompt);
      const c: ChargeTerms = {
        prompt: t.prompt,
        completion: t.completion,
        cacheRead,
        cacheWrite: anthropic ? t.cacheWrite : 0,
        semantic: anthropic ? 'anthropic' : 'openai',
        modelRatio: t.perCall ? 0 : t.modelRatio,
        completionRatio: t.completionRatio,
        groupRatio: t.groupRatio,
        cacheRatio: t.cacheRatio,
        cacheCreationRatio: t.cacheCreationRatio,
        modelPrice: t.perCall ? t.price : -1,
      };
      return { vintage: t.vintage, c };
    });
  fc.assert(
    fc.property(terms, ({ vintage, c }) => {
      const r = simulated(vintage, c);
      const x = recompute(r, 500_000);
      assert.equal(x.state, 'recomputed', JSON.stringify(x));
      if (x.state === 'recomputed')
        assert.ok(Math.abs(x.expected - r.quota) <= 1, `${vintage} ${x.expected} vs ${r.quota}`);
    }),
    { numRuns: 2000, seed: 40 },
  );
});
