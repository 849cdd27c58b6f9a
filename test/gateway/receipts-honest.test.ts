/**
 * An honest gateway gives no inconsistent finding: 1,000 seeded random calls on each usage-log vintage —
 * models of every family, the compatible, native and Responses surfaces, streams, repeated long contexts
 * that hit the upstream's prompt cache (OpenAI's automatic one through the client; Anthropic's
 * `cache_control`, which the client does not send, by raw HTTP), images, videos and code completions —
 * each a real HTTP call to the simulator, whose own accounting writes the log. The log is read once through
 * the client, the price list once, and every call gets a receipt with no check inconsistent.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import type { ChatRequest, ReceiptCall } from '../../src/gateway';
import { maskToken } from '../../src/gateway/mask';
import type { Simulator } from '../sim/server';
import type { LogVintage } from '../sim/usageLog';
import { VINTAGES, client, lastCall, receipts, statesOf, useVintageSims, wordsOf } from './receiptsFixture';
import type { TestClient } from './helpers';

const sims = useVintageSims();
const CALLS = 1000;

/** mulberry32: the same calls on every run */
function seeded(a: number): () => number {
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A context of over 1024 tokens, repeated: the upstream's prompt cache serves it from the second call on. */
const CONTEXT = wordsOf(1100, 'ctx');
const COMPATIBLE = ['gpt-4o-mini', 'deepseek-chat', 'gemini-2.5-flash', 'claude-sonnet-4-5', 'kimi-k2.5', 'gpt-5.5'];
const NATIVE = ['claude-sonnet-4-5', 'claude-opus-4-7'];
const RESPONSES = ['gpt-4o-mini', 'gpt-5.5-codex', 'gpt-5.5'];

const PROSE = 'the gateway bills each call by its tokens and the ratios of its group, per million'.split(' ');
const CODE = [
  'const',
  'x',
  '=',
  'await',
  'fetch(url);',
  '\n',
  'if',
  '(x.ok)',
  '{',
  'return',
  'x.json();',
  '}',
  '//',
  'π≈3.14',
];
const CJK = [...'中转站按照倍率计费，每次调用都有日志记录。模型重定向'];

type Kind = 'chat' | 'tools' | 'cached-chat' | 'native' | 'cached-native' | 'responses' | 'image' | 'video' | 'fim';
const KINDS: Array<[Kind, number]> = [
  ['chat', 35],
  ['tools', 5],
  ['cached-chat', 10],
  ['native', 15],
  ['cached-native', 8],
  ['responses', 12],
  ['image', 7],
  ['video', 3],
  ['fim', 5],
];

interface Gen {
  rnd: () => number;
  pick<T>(xs: readonly T[]): T;
  text(): string;
}
function generator(seed: number): Gen {
  const rnd = seeded(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)];
  // numbered words, prose, code and Chinese: the tokenizer's count differs from a word count on each
  const text = () => {
    const n = 1 + Math.floor(rnd() * 200);
    const vocab = pick([PROSE, CODE, CJK, undefined]);
    if (!vocab) return wordsOf(n, pick(['a', 'b', 'c', 'word']));
    return Array.from({ length: n }, () => pick(vocab)).join(vocab === CJK ? '' : ' ');
  };
  return { rnd, pick, text };
}
function kindOf(g: Gen): Kind {
  let x = g.rnd() * 100;
  for (const [k, w] of KINDS) if ((x -= w) < 0) return k;
  return 'chat';
}

/** Anthropic's cache_control, by raw HTTP (the client does not send it): the call as the request log would keep it. */
async function cachedNative(sim: Simulator, g: Gen): Promise<ReceiptCall> {
  const token = sim.tokens.production;
  const question = g.text();
  const t0 = Date.now();
  const r = await request(`${sim.url}/v1/messages`, {
    method: 'POST',
    headers: { 'x-api-key': token, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'claude-sonnet-4-5',
      max_tokens: 64,
      system: [{ type: 'text', text: CONTEXT, cache_control: { type: 'ephemeral' } }],
      messages: [{ role: 'user', content: question }],
    }),
  });
  const json = (await r.body.json()) as { usage: { input_tokens: number; output_tokens: number } };
  assert.equal(r.statusCode, 200);
  return {
    time: new Date(t0).toISOString(),
    model: 'claude-sonnet-4-5',
    requestId: String(r.headers['x-oneapi-request-id']),
    maskedToken: maskToken(token),
    stream: false,
    durationMs: Date.now() - t0,
    surface: 'native',
    usage: { promptTokens: json.usage.input_tokens, completionTokens: json.usage.output_tokens },
  };
}

/** A chat through the client (which counts its input where the model's tokenizer is bundled). */
async function chat(tc: TestClient, g: Gen, kind: Kind): Promise<void> {
  const surface = kind === 'native' ? 'native' : kind === 'responses' ? 'responses' : 'compatible';
  const model = g.pick(surface === 'native' ? NATIVE : surface === 'responses' ? RESPONSES : COMPATIBLE);
  const question = g.text();
  const system = g.rnd() < 0.3 && surface !== 'responses' ? g.text() : undefined;
  const messages: ChatRequest['messages'] =
    kind === 'cached-chat'
      ? [
          { role: 'user', content: CONTEXT },
          { role: 'assistant', content: 'noted' },
          { role: 'user', content: question },
        ]
      : [{ role: 'user', content: question }];
  const req: ChatRequest = {
    surface,
    model: kind === 'cached-chat' ? 'gpt-4o-mini' : model,
    ...(system ? { system } : {}),
    messages,
    maxTokens: 400,
    // tool definitions are framed in an undocumented way (§7.5): such a call is not counted
    ...(kind === 'tools' ? { tools: [{ name: 'read_file', inputSchema: { type: 'object', properties: {} } }] } : {}),
  };
  if (g.rnd() < 0.5) await tc.client.chat(req);
  else for await (const e of tc.client.chatStream(req)) void e;
}

/** One random billed call, as the request log keeps it. */
async function oneCall(sim: Simulator, tc: TestClient, g: Gen): Promise<ReceiptCall> {
  const kind = kindOf(g);
  if (kind === 'cached-native') return cachedNative(sim, g);
  if (kind === 'image') await tc.client.generateImage({ model: g.pick(['gpt-image-1', 'dall-e-3']), prompt: g.text() });
  else if (kind === 'video') await tc.client.createVideo({ model: 'sora-2', prompt: g.text(), seconds: 4 });
  else if (kind === 'fim')
    await tc.client.complete({
      model: 'deepseek-chat',
      prefix: `def f${Math.floor(g.rnd() * 1e6)}(a):\n    `,
      suffix: '\n    return a',
      languageId: 'python',
      fileName: 'src/f.py',
    });
  else await chat(tc, g, kind);
  return lastCall(tc);
}

async function honestRun(v: LogVintage) {
  const sim = sims[v];
  sim.setToken('production', { unlimited: true });
  const tc = client(sim);
  const g = generator(40);
  const calls: ReceiptCall[] = [];
  for (let i = 0; i < CALLS; i++) calls.push(await oneCall(sim, tc, g));
  return { sim, ...(await receipts(sim, tc, calls)), calls };
}

for (const v of VINTAGES)
  test(`${v}: 1,000 random calls on an honest gateway, zero inconsistent findings`, async () => {
    const { calls, receipts: all, byCall, unmatched, read } = await honestRun(v);
    assert.equal(read.records.length, CALLS, 'one record per call');
    assert.deepEqual(unmatched, [], 'every call has its record');
    assert.equal(all.length, CALLS);
    const inconsistent = all.flatMap((r) =>
      [...r.billing, ...r.route].filter((c) => c.state === 'inconsistent').map((c) => `${r.record.model}: ${c.text}`),
    );
    assert.deepEqual(inconsistent, []);
    // The mix did take every path: cache reads and writes, streams, per-call models, matches of the vintage.
    const receiptsOf = calls.map((c) => byCall.get(c)!);
    const seen = (f: (r: (typeof receiptsOf)[number]) => boolean) => receiptsOf.filter(f).length;
    if (v !== 'NA24') {
      assert.ok(seen((r) => r.tokens.cacheRead > 0 && r.tokens.semantic === 'openai') > 10, 'OpenAI cache reads');
      assert.ok(seen((r) => r.tokens.cacheRead > 0 && r.tokens.semantic === 'anthropic') > 10, 'Anthropic cache reads');
      assert.ok(seen((r) => r.tokens.cacheWrite > 0) >= 1, 'an Anthropic cache write');
    }
    assert.ok(seen((r) => r.record.stream) > 100, 'streams');
    assert.ok(seen((r) => statesOf(r).tokens === 'not-checkable') > 50, 'per-call images and videos');
    assert.equal(
      seen((r) => r.match.by === (v === 'NA26' ? 'request-id' : 'time')),
      CALLS,
    );
    // OpenAI models' plain-text chats are counted here (o200k_base) and match what the upstream billed;
    // the others say why not (no bundled tokenizer; a completion's input is not counted)
    const consistentInput = seen((r) => statesOf(r).input === 'consistent');
    assert.ok(consistentInput > 300, `input consistent with the local count: ${consistentInput}`);
    const counted = calls.filter((c) => c.localInput).length;
    assert.equal(consistentInput, counted, 'every local count agrees with what was billed');
    const reasons = new Set(receiptsOf.map((r) => r.billing.find((c) => c.id === 'input')!.reason));
    for (const why of ['no-tokenizer', 'per-call', 'no-local-count'] as const) assert.ok(reasons.has(why), why);
  });
