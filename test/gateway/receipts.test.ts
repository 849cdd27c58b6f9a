/**
 * Receipts against an honest and a dishonest simulated gateway, on every usage-log vintage (NA26 matched by
 * request id, NA25 and NA24 by time, token and model), over real HTTP: each dishonest behaviour that leaves
 * a trace is reported inconsistent with its sentence, naming the gateway's log as the witness; one that
 * leaves none (a mapping the gateway does not record; a forward before forwards were recorded) makes no
 * check inconsistent and no sentence claim what cannot be known. In Chinese with the reference's words.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  checkStateText,
  overallState,
  receiptDisclaimer,
  useTranslations,
  type Receipt,
  type Translations,
} from '../../src/gateway';
import type { Dishonesty } from '../sim/accounting';
import { makeClient } from './helpers';
import type { LogVintage } from '../sim/usageLog';
import {
  VINTAGES,
  checkOf,
  client,
  honestStates,
  lastCall,
  receipts,
  statesOf,
  useVintageSims,
  wordsOf,
} from './receiptsFixture';

const sims = useVintageSims();
const PROMPT = wordsOf(120);
/** words that would overclaim: the receipts name a witness and three states, never a verdict */
const VERDICT = /verified|genuine|authentic|fraud|overcharged|cheat/i;

/** One chat (gpt-4o-mini, compatible, 120 words) on the `v` gateway behaving as `dishonest`; its receipt. */
async function receiptOfChat(v: LogVintage, dishonest: Dishonesty | undefined, system?: string): Promise<Receipt> {
  const sim = sims[v];
  sim.config.dishonest = dishonest;
  const tc = client(sim);
  await tc.client.chat({
    surface: 'compatible',
    model: 'gpt-4o-mini',
    ...(system ? { system } : {}),
    messages: [{ role: 'user', content: PROMPT }],
  });
  const call = await lastCall(tc);
  const r = await receipts(sim, tc, [call]);
  const receipt = r.byCall.get(call);
  assert.ok(receipt, `${v}: the call has a receipt`);
  assert.equal(receipt.match.by, v === 'NA26' ? 'request-id' : 'time');
  for (const c of [...receipt.billing, ...receipt.route]) assert.doesNotMatch(c.text, VERDICT, c.text);
  return receipt;
}

/** The checks a trace should make inconsistent and nothing else. */
function assertStates(v: LogVintage, receipt: Receipt, changed: Record<string, string>) {
  assert.deepEqual(statesOf(receipt), { ...honestStates(v), ...changed }, `${v}: ${JSON.stringify(receipt.billing)}`);
}

test('an honest gateway: every check consistent, or not checkable where the vintage does not record it; the witness named', async () => {
  for (const v of VINTAGES) {
    const r = await receiptOfChat(v, undefined);
    assertStates(v, r, {});
    assert.equal(overallState(r.billing), 'consistent');
    for (const c of [...r.billing, ...r.route].filter((x) => x.state === 'consistent'))
      assert.match(c.text, /^According to the gateway's log, /);
    assert.equal(r.requestedModel, 'gpt-4o-mini');
    assert.equal(r.billedModel, 'gpt-4o-mini');
    assert.equal(r.upstreamModel, undefined);
    assert.equal(r.charge.unit, 'USD');
    assert.ok(r.charge.quota > 0 && Math.abs(r.charge.amount - r.charge.quota / 500_000) < 1e-12);
    assert.equal(r.group, v === 'NA24' ? undefined : 'default', 'NA24 records have no group');
    assert.match(checkOf(r, 'input').text, /tokenizer o200k_base, ±13 tokens/);
    assert.match(checkOf(r, 'price-list').text, /as of \d{4}-\d\d-\d\d \d\d:\d\d UTC/);
    if (v === 'NA24') assert.match(checkOf(r, 'price-list').text, /the record does not name its group/);
    if (v === 'NA24') assert.match(checkOf(r, 'redirect').text, /older than its redirect records/);
    if (v !== 'NA26') assert.equal(checkOf(r, 'chain').reason, 'predates');
    if (v !== 'NA26') assert.match(r.matchText, /^Matched by time, token and model\.$/);
    else assert.match(r.matchText, /^Gateway receipt \S+, matched by request id\.$/);
  }
});

test('a higher model ratio than published, recorded as charged: the price list check is inconsistent and names both ratios', async () => {
  for (const v of VINTAGES) {
    const r = await receiptOfChat(v, { overcharge: { factor: 1.5, recorded: 'charged' } });
    assert.deepEqual(
      [overallState(r.billing), overallState(r.route)],
      ['inconsistent', v === 'NA24' ? 'not-checkable' : 'consistent'],
    );
    assertStates(v, r, { 'price-list': 'inconsistent' });
    assert.match(
      checkOf(r, 'price-list').text,
      /^According to the gateway's log, the ratios applied differ from the price list as of .+: model_ratio ×0\.1125 \(listed ×0\.075\)\.$/,
    );
    assert.ok(Math.abs(Number(checkOf(r, 'price-list').inputs.model_ratio) - 0.1125) < 1e-12);
    assert.equal(checkOf(r, 'price-list').inputs.listed_model_ratio, 0.075);
  }
});

test('input not checkable, with its reason: a model whose tokenizer is not bundled; a chat with tool definitions', async () => {
  const sim = sims.NA26;
  const tc = client(sim);
  await tc.client.chat({
    surface: 'native',
    model: 'claude-sonnet-4-5',
    messages: [{ role: 'user', content: PROMPT }],
  });
  const claude = await lastCall(tc);
  await tc.client.chat({
    surface: 'compatible',
    model: 'gpt-4o-mini',
    tools: [{ name: 'read_file', inputSchema: { type: 'object', properties: {} } }],
    messages: [{ role: 'user', content: PROMPT }],
  });
  const withTools = await lastCall(tc);
  assert.equal(withTools.localInput, undefined, 'tool definitions are framed in an undocumented way: not counted');
  const r = await receipts(sim, tc, [claude, withTools]);
  const a = checkOf(r.byCall.get(claude)!, 'input');
  assert.deepEqual([a.state, a.reason], ['not-checkable', 'no-tokenizer']);
  assert.match(a.text, /this client has no tokenizer for claude-sonnet-4-5 .*Anthropic does not publish Claude's/);
  const b = checkOf(r.byCall.get(withTools)!, 'input');
  assert.deepEqual([b.state, b.reason], ['not-checkable', 'no-local-count']);
  assert.match(b.text, /tool definitions, images, files and replayed reasoning are not recounted/);
});

test('a higher ratio charged while the published one is recorded: the arithmetic check is inconsistent with both quotas', async () => {
  for (const v of VINTAGES) {
    const r = await receiptOfChat(v, { overcharge: { factor: 1.5, recorded: 'published' } });
    assertStates(v, r, { arithmetic: 'inconsistent' });
    const c = checkOf(r, 'arithmetic');
    assert.match(
      c.text,
      /^According to the gateway's log, the receipt's quota \((\d+)\) does not match its own ratios \(expected (\d+), ±1 for rounding\)\.$/,
    );
    assert.equal(c.inputs.quota, r.charge.quota);
    assert.ok(Math.abs(r.charge.quota - 1.5 * Number(c.inputs.expected)) <= 2, JSON.stringify(c.inputs));
  }
});

test('prompt tokens inflated in the log only: tokens billed vs reported and the local count are inconsistent', async () => {
  for (const v of VINTAGES) {
    const r = await receiptOfChat(v, { inflatePrompt: { share: 0.2, inResponse: false } });
    assertStates(v, r, { tokens: 'inconsistent', input: 'inconsistent' });
    assert.match(
      checkOf(r, 'tokens').text,
      /^According to the gateway's log, 296 input and \d+ output tokens were billed; its response reported 247 and \d+\.$/,
    );
    assert.match(
      checkOf(r, 'input').text,
      /about 49 more input tokens were billed than this client counted \(247, tokenizer o200k_base, ±13 tokens\); causes include a provider system prompt/,
    );
  }
});

test('prompt tokens inflated in the log and the response alike: only the local count tells', async () => {
  for (const v of VINTAGES) {
    const r = await receiptOfChat(v, { inflatePrompt: { share: 0.2, inResponse: true } });
    assertStates(v, r, { input: 'inconsistent' });
    assert.equal(checkOf(r, 'input').inputs.billed_input, 296);
    assert.equal(checkOf(r, 'input').inputs.local_count, 247);
  }
});

test("a model mapping the gateway records: the route check says where the call went (NA24's records cannot say)", async () => {
  for (const v of VINTAGES) {
    const r = await receiptOfChat(v, { mapModels: { 'gpt-4o-mini': 'gpt-4o-mini-lite' } });
    assert.ok(sims[v].log.some((l) => l.servedModel === 'gpt-4o-mini-lite'));
    if (v === 'NA24') {
      assertStates(v, r, {});
      continue;
    }
    assertStates(v, r, { redirect: 'inconsistent' });
    assert.equal(
      checkOf(r, 'redirect').text,
      "According to the gateway's log, this call went to gpt-4o-mini-lite (billed as gpt-4o-mini).",
    );
    assert.equal(r.upstreamModel, 'gpt-4o-mini-lite');
    assert.deepEqual(checkOf(r, 'redirect').inputs, {
      model_name: 'gpt-4o-mini',
      is_model_mapped: true,
      upstream_model_name: 'gpt-4o-mini-lite',
    });
  }
});

test('a model mapping the gateway does not record: nothing inconsistent, and nothing said that cannot be known', async () => {
  for (const v of VINTAGES) {
    const r = await receiptOfChat(v, { hiddenMapModels: { 'gpt-4o-mini': 'gpt-4o-mini-lite' } });
    assert.ok(
      sims[v].log.some((l) => l.servedModel === 'gpt-4o-mini-lite'),
      'the simulator did serve another model',
    );
    assertStates(v, r, {});
    assert.equal(r.upstreamModel, undefined);
    const redirect = checkOf(r, 'redirect').text;
    if (v !== 'NA24')
      assert.equal(
        redirect,
        "According to the gateway's log, no model redirect was recorded; this does not show which model served the call.",
      );
    assert.doesNotMatch(redirect, /gpt-4o-mini-lite|served by gpt-4o-mini\b/);
  }
  assert.match(receiptDisclaimer(), /^No relay can currently prove which model served a request/);
});

test('a forward to another relay: recorded since May 2026 (NA26), the chain check names the upstream request; older logs cannot say', async () => {
  for (const v of VINTAGES) {
    const r = await receiptOfChat(v, { forward: true });
    if (v !== 'NA26') {
      assertStates(v, r, {});
      continue;
    }
    assertStates(v, r, { chain: 'inconsistent' });
    const upstream = r.record.upstreamRequestId!;
    assert.match(upstream, /^\d{14}/, 'a one-api/new-api request id');
    assert.equal(
      checkOf(r, 'chain').text,
      `According to the gateway's log, it forwarded this call to another one-api/new-api relay (upstream request ${upstream}).`,
    );
  }
});

test('a channel system prompt of 40 tokens: the local count shows a constant excess with its possible causes, never an accusation', async () => {
  for (const v of VINTAGES) {
    const r = await receiptOfChat(v, { systemPromptTokens: 40 });
    assertStates(v, r, { input: 'inconsistent' });
    assert.match(
      checkOf(r, 'input').text,
      /about 40 more input tokens were billed than this client counted \(247, tokenizer o200k_base, ±13 tokens\); causes include a provider system prompt, wrapping, or a different tokenizer\.$/,
    );
    assert.equal(
      checkOf(r, 'input').inputs.is_system_prompt_overwritten,
      undefined,
      'the client sent no system prompt: no flag',
    );
  }
  // With a system prompt of the client's own, NA26 records that the channel's was prepended (since 2025-08).
  const own = await receiptOfChat('NA26', { systemPromptTokens: 40 }, 'be brief');
  assert.equal(checkOf(own, 'input').inputs.is_system_prompt_overwritten, true);
  assert.match(checkOf(own, 'input').text, /about 40 more input tokens/);
});

test("a group the public price list does not show (the token's own): named as such, not called an overcharge", async () => {
  const sim = sims.NA26;
  const tc = client(sim, 'test');
  await tc.client.chat({ surface: 'compatible', model: 'gpt-4o-mini', messages: [{ role: 'user', content: PROMPT }] });
  const call = await lastCall(tc);
  const other = await receipts(sim, tc, [call]);
  assert.equal(other.byCall.size, 0, "the production token's log matches no call made with another token");
  const r = (await receipts(sim, tc, [call], 'test')).byCall.get(call)!;
  assert.deepEqual(statesOf(r), honestStates('NA26'));
  const c = checkOf(r, 'price-list');
  assert.match(c.text, /; a group ratio ×1 not shown on the public price list was applied\.$/);
  assert.equal(c.inputs.group, 'chat-only');
  assert.equal(c.inputs.listed_group_ratio, undefined);
});

test('in Chinese: the three states and the witness in the reference’s words (一致 / 不一致 / 无法核对; 据中转站自身日志)', async () => {
  const root = resolve(__dirname, '../../..');
  const zh = JSON.parse(readFileSync(join(root, 'l10n/zh-cn/receipts.json'), 'utf8')) as Translations;
  useTranslations(zh);
  try {
    assert.deepEqual((['consistent', 'inconsistent', 'not-checkable'] as const).map(checkStateText), [
      '一致',
      '不一致',
      '无法核对',
    ]);
    const r = await receiptOfChat('NA25', { mapModels: { 'gpt-4o-mini': 'gpt-4o-mini-lite' } });
    assert.equal(
      checkOf(r, 'redirect').text,
      '据中转站自身日志，此次调用被转到了 gpt-4o-mini-lite（按 gpt-4o-mini 计费）。',
    );
    assert.match(checkOf(r, 'arithmetic').text, /^据中转站自身日志，/);
    assert.equal(
      checkOf(r, 'chain').text,
      '无法核对是否转发给其他中转：此中转站的日志早于其记录转发的版本（2026 年 5 月）。',
    );
    const honest = await receiptOfChat('NA26', { hiddenMapModels: { 'gpt-4o-mini': 'gpt-4o-mini-lite' } });
    assert.match(checkOf(honest, 'redirect').text, /未记录模型重定向（不代表模型为真/);
  } finally {
    useTranslations(undefined);
  }
});

test('the price list is kept with the time it was read and the ratios it published (unpublished cache ratios: their defaults)', async () => {
  let now = 1_800_000_000_000;
  const tc = makeClient(sims.NA26, { now: () => now });
  const list = await tc.client.account.priceList();
  assert.ok(list);
  assert.equal(list.readAt, now);
  assert.deepEqual(list.groupRatios, { default: 1, vip: 0.8 });
  assert.deepEqual(list.models.get('gpt-4o-mini')?.ratios, {
    modelPrice: undefined,
    modelRatio: 0.075,
    completionRatio: 4,
    cacheRatio: 0.5,
    createCacheRatio: 1.25,
  });
  assert.equal(list.models.get('sora-2')?.ratios?.modelPrice, 0.5);
  assert.equal(list.models.get('qwen3-max')?.ratios, undefined, 'a dynamic price has no ratios');
  now += 60_000;
  assert.equal((await tc.client.account.priceList())?.readAt, list.readAt, 'the same read, kept as the prices are');
  assert.equal(await tc.client.account.pricing(), list.models);
});
