/**
 * Every read bounded, tried as a hostile gateway would (issue 21): one stream event that never ends
 * is stopped at MAX_STREAM_EVENT_BYTES on both surfaces and named; a 2xx body over its cap is named
 * as too large, not as "not valid JSON"; a model list of 500,000 entries is read without spreading
 * it into a call's arguments. (relay-doctor under a small heap: test/diagnose/cli-hostile.test.ts.)
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startSimulator, type Simulator } from '../sim/server';
import { collect, makeClient, thrown } from './helpers';
import { MAX_STREAM_EVENT_BYTES, type GatewayError } from '../../src/gateway';
import { sseChunks, EventTooLarge } from '../../src/gateway/http/sseStream';
import { parsePricing } from '../../src/gateway/economy/pricing';

let sim: Simulator;
before(async () => {
  sim = await startSimulator();
});
after(() => sim.close());

const MB = 1024 * 1024;

for (const surface of ['compatible', 'native'] as const) {
  test(`${surface}: one stream event larger than the cap is stopped and named, the rest never read`, async () => {
    sim.reset();
    sim.fault({ kind: 'hugeEvent', bytes: 64 * MB });
    const { client } = makeClient(sim);
    const err = (await thrown(() =>
      collect(
        client.chatStream({
          surface,
          model: surface === 'native' ? 'claude-sonnet-4-5' : 'gpt-4o-mini',
          messages: [{ role: 'user', content: 'hi' }],
        }),
      ),
    )) as GatewayError;
    assert.equal(err.kind, 'protocol');
    assert.equal(err.detail, 'event_too_large');
    assert.match(err.message, new RegExp(`larger than ${MAX_STREAM_EVENT_BYTES / MB} MB`));
    assert.ok(err.reason && err.fix);
    const rec = sim.log.find((l) => l.path.startsWith('/v1/'))!;
    // (the simulator hears the close a moment later)
    for (let i = 0; i < 100 && !rec.closedEarly; i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal(rec.closedEarly, true, 'the connection was closed');
    assert.ok((rec.bytesSent ?? 0) < 32 * MB, `read ${rec.bytesSent} bytes, not the whole event`);
  });
}

test('the event cap counts one event (its line and its data lines), not the stream', async () => {
  const small = 1000;
  async function* body(parts: string[]) {
    for (const p of parts) yield Buffer.from(p);
  }
  const many = Array.from({ length: 50 }, (_, i) => `data: {"n":${i},"pad":"${'x'.repeat(500)}"}\n\n`);
  let events = 0;
  for await (const c of sseChunks(body(many), 0, () => 0, small)) events += c.events.length;
  assert.equal(events, 50, 'many events below the cap pass, however long the stream');
  const dataLines = Array.from({ length: 10 }, () => `data: ${'y'.repeat(200)}\n`);
  await assert.rejects(async () => {
    for await (const _ of sseChunks(body(dataLines), 0, () => 0, small)) void _;
  }, EventTooLarge);
  const oneLine = Array.from({ length: 10 }, () => 'z'.repeat(200));
  await assert.rejects(async () => {
    for await (const _ of sseChunks(body(['data: ', ...oneLine]), 0, () => 0, small)) void _;
  }, EventTooLarge);
});

test('a 200 JSON body over the cap is named as too large, not as invalid JSON (non-stream and stream request)', async () => {
  sim.reset();
  sim.fault({ kind: 'hugeBody', bytes: 80 * MB, count: 1 });
  const { client } = makeClient(sim);
  const hi = {
    surface: 'compatible' as const,
    model: 'gpt-4o-mini',
    messages: [{ role: 'user' as const, content: 'hi' }],
  };
  const plain = (await thrown(() => client.chat(hi))) as GatewayError;
  assert.equal(plain.detail, 'body_too_large', plain.message);
  assert.match(plain.message, /larger than 64 MB/);
  assert.doesNotMatch(plain.message, /not valid JSON/);
  sim.fault({ kind: 'hugeBody', bytes: 40 * MB, count: 1 });
  const streamed = (await thrown(() => collect(client.chatStream(hi)))) as GatewayError;
  assert.equal(streamed.detail, 'body_too_large', streamed.message);
  assert.match(streamed.message, /larger than 16 MB/);
});

test('a model list of 500,000 entries is read whole (no call spreads it into arguments)', async () => {
  sim.reset();
  sim.fault({ kind: 'manyModels', models: 500_000 });
  const { client } = makeClient(sim);
  const ids = await client.listModelIds();
  assert.equal(ids.length, 500_000);
  assert.equal(ids[499_999], 'model-0499999');
});

test('pricing with a model enabled for 500,000 groups picks the cheapest without a stack overflow', () => {
  const groups = Array.from({ length: 500_000 }, (_, i) => `g${i}`);
  const ratios = Object.fromEntries(groups.map((g, i) => [g, 2 + (i % 7)]));
  ratios.g4242 = 0.5;
  const prices = parsePricing(
    {
      success: true,
      data: [{ model_name: 'm', quota_type: 0, model_ratio: 1, completion_ratio: 1, enable_groups: groups }],
      group_ratio: ratios,
    },
    { quotaPerUnit: 500_000, display: 'USD', usdExchangeRate: 1, customSymbol: '', customRate: 1 },
  );
  assert.equal(prices?.get('m')?.input, 1, 'priced at the cheapest group (ratio 0.5)');
});
