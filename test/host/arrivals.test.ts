/**
 * Whether our requests reached the gateway (src/host/usage/arrivals.ts) over a usage-log reader fake
 * (test/fakes/usageLog.ts): found / no record / unknown, one read per gateway for a whole log, the
 * wait for a failed billed call's record, and the words.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  arrivalCell,
  arrivalSource,
  billedArrival,
  billedSentence,
  lookUpArrivals,
  type ArrivalReader,
  type ArrivalSource,
} from '../../src/host/usage/arrivals';
import { FakeUsageLog, NOW, rec, usageRecord } from '../fakes/usageLog';

function sourceOver(logs: Record<string, ArrivalReader>): ArrivalSource {
  return arrivalSource((g) => logs[g ?? 'Main']);
}

test('a whole log is looked up with one read per gateway: arrived, no record, unknown, and rows never asked', async () => {
  const main = new FakeUsageLog([usageRecord('req-0'), usageRecord('req-2')], () => NOW);
  const other = new FakeUsageLog([usageRecord('req-5', { cost: { amount: 0.5, unit: 'CNY' } })], () => NOW);
  const records = [
    rec(0),
    rec(1),
    rec(2),
    rec(3, { requestId: undefined }),
    rec(4, { capability: 'models', method: 'GET', path: '/v1/models' }),
    rec(5, { gateway: 'Other' }),
    rec(6, { gateway: 'Old' }),
    rec(7, { gateway: 'One' }),
  ];
  // one-api: no usage log (its reader says so)
  const oneApi: ArrivalReader = { arrival: async () => ({ state: 'unknown', reason: 'unsupported' }) };
  const found = await lookUpArrivals(records, sourceOver({ Main: main, Other: other, One: oneApi }));
  assert.deepEqual(
    found.map((a) => a?.state),
    ['arrived', 'no-record', 'arrived', 'unknown', undefined, 'arrived', 'unknown', 'unknown'],
  );
  assert.equal(main.reads, 1, 'three rows of one gateway: one read');
  assert.equal(other.reads, 1);
  assert.equal(main.questions, 3, 'the row without a request id and the model list are not asked about');
  assert.deepEqual(found[3], { state: 'unknown', reason: 'no-request-id' });
  assert.deepEqual(found[6], { state: 'unknown', reason: 'failed' }, 'a gateway no longer configured');
  assert.deepEqual(found[7], { state: 'unknown', reason: 'unsupported' }, 'a gateway without the endpoint');
  assert.equal(arrivalCell(found[0]), 'arrived: billed $0.04 (12 in / 345 out tokens)');
  assert.equal(arrivalCell(found[5]), 'arrived: billed ¥0.50 (12 in / 345 out tokens)');
  assert.equal(arrivalCell(found[1]), 'no record');
  assert.equal(arrivalCell(found[4]), '—');
  assert.equal(arrivalCell(found[7]), 'unknown (this gateway does not let a token read its usage log)');
});

test('a failing source is an unknown arrival, not a failed view', async () => {
  const found = await lookUpArrivals([rec(0)], () => Promise.reject(new Error('boom')));
  assert.deepEqual(found, [{ state: 'unknown', reason: 'failed' }]);
});

test('a failed billed call is looked up once its record should exist, again while too soon, bounded', async () => {
  let now = NOW;
  const waits: number[] = [];
  const sleep = async (ms: number) => {
    waits.push(ms);
    now += ms;
  };
  const q = { requestId: 'img-1', sentAt: now - 1000, durationMs: 900 };
  let asked = 0;
  const tooSoon = await billedArrival(async () => (asked++, { state: 'pending' }), undefined, q, { sleep });
  assert.equal(tooSoon.state, 'pending');
  assert.deepEqual(waits, [6_000, 20_000, 65_000], 'three looks at most, the last a minute after the second');
  assert.equal(asked, 3);
  waits.length = 0;
  // the gateway writes the record only 10 s after the response: the first look is too soon
  const log = new FakeUsageLog([], () => now, 10_000);
  const source = arrivalSource(() => log);
  q.sentAt = now;
  const writing = sleep;
  const b = await billedArrival(source, undefined, q, {
    sleep: async (ms) => {
      await writing(ms);
      if (waits.length === 2) log.records.push(usageRecord('img-1'));
    },
  });
  assert.equal(b.state, 'arrived');
  assert.deepEqual(waits, [6_000, 20_000]);
  assert.equal(billedSentence(b), 'The gateway logged this request: billed $0.04 (12 in / 345 out tokens).');
  const none = await billedArrival(source, undefined, { ...q, requestId: 'img-2' }, { sleep });
  assert.equal(
    billedSentence(none),
    'The gateway has no record of this request: it did not arrive, or was not billed.',
  );
  const noId = await billedArrival(source, undefined, { ...q, requestId: undefined });
  assert.deepEqual(noId, { state: 'unknown', reason: 'no-request-id' }, 'nothing to match: no wait, no read');
});
