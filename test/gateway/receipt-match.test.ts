/**
 * Pairing calls with usage-log records (shared/reference/relay-receipts.md §4): exactly by request id where
 * the log has them (and then never by time), else by time, token and model within ±5 s of the call's end;
 * records billing the reported tokens first; each record to one call; ambiguity said, and an ambiguous
 * pairing never held against the call; another token's calls and error records left out. And the reader
 * keeps the newest 1000 records of an older gateway that sends every row, unordered.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { matchCalls, parseRecords, reconcile, type ReceiptCall, type UsageRecord } from '../../src/gateway';

const T0 = 1_800_000_000_000;
const TOKEN = 'sk-abc...wxyz';

function record(
  i: number,
  o: { at?: number; model?: string; p?: number; k?: number; id?: boolean; type?: number } = {},
) {
  return {
    created_at: Math.floor((o.at ?? T0 + i * 60_000) / 1000),
    type: o.type ?? 2,
    model_name: o.model ?? 'gpt-4o-mini',
    quota: Math.round(((o.p ?? 100) + (o.k ?? 10) * 4) * 0.075),
    prompt_tokens: o.p ?? 100,
    completion_tokens: o.k ?? 10,
    is_stream: false,
    token_name: 'vscode',
    group: 'default',
    ...(o.id ? { request_id: `req-${i}` } : {}),
    other: JSON.stringify({
      model_ratio: 0.075,
      completion_ratio: 4,
      group_ratio: 1,
      model_price: -1,
      cache_tokens: 0,
    }),
  };
}
const records = (rows: unknown[]): UsageRecord[] => parseRecords(rows, undefined);

function call(
  i: number,
  o: { end?: number; model?: string; p?: number; k?: number; id?: boolean; token?: string } = {},
): ReceiptCall {
  const end = o.end ?? T0 + i * 60_000 + 300;
  return {
    time: new Date(end - 1200).toISOString(),
    durationMs: 1200,
    model: o.model ?? 'gpt-4o-mini',
    requestId: o.id === false ? undefined : `req-${i}`,
    maskedToken: o.token ?? TOKEN,
    stream: false,
    surface: 'compatible',
    usage: { promptTokens: o.p ?? 100, completionTokens: o.k ?? 10 },
  };
}

test('by request id where the log carries ids; a call whose id is not there stays unmatched, never paired by time', () => {
  const log = records([record(0, { id: true }), record(1, { id: true })]);
  const m = matchCalls([call(1), call(0), call(7)], log, { maskedToken: TOKEN });
  assert.deepEqual(
    m.map((x) => [x.record?.requestId, x.match.by]),
    [
      ['req-1', 'request-id'],
      ['req-0', 'request-id'],
      [undefined, 'none'],
    ],
  );
  const late = call(2, { end: T0 + 300 });
  assert.equal(matchCalls([late], log)[0].record, undefined, 'the log has ids: a record of the same time is not taken');
});

test('by time, token and model: each call its own record (the tokens decide), within ±5 s of its end', () => {
  const log = records([
    record(0, { at: T0, p: 100 }),
    record(1, { at: T0, p: 200 }),
    record(2, { at: T0, model: 'claude-sonnet-4-5', p: 100 }),
    record(3, { at: T0 + 20_000, p: 300 }),
  ]);
  const calls = [call(0, { end: T0 + 400, p: 200, id: false }), call(1, { end: T0 + 500, p: 100, id: false })];
  const m = matchCalls(calls, log);
  assert.deepEqual(
    m.map((x) => [x.record?.promptTokens, x.match]),
    [
      [200, { by: 'time', candidates: 1, tokensAgree: true }],
      [100, { by: 'time', candidates: 1, tokensAgree: true }],
    ],
  );
  const far = matchCalls([call(3, { end: T0 + 20_000 + 6_500, p: 300, id: false })], log);
  assert.equal(far[0].record, undefined, 'a record more than 5 s from the call is not its');
  const near = matchCalls([call(3, { end: T0 + 20_000 + 4_500, p: 300, id: false })], log);
  assert.equal(near[0].record?.promptTokens, 300);
});

test('concurrent identical calls are matched and say how many records fitted; an unattributable pairing is not held against the call', () => {
  const log = records([record(0, { at: T0 }), record(1, { at: T0 })]);
  const same = matchCalls([call(0, { end: T0 + 200, id: false }), call(1, { end: T0 + 300, id: false })], log);
  assert.deepEqual(
    same.map((x) => x.match),
    [
      { by: 'time', candidates: 2, tokensAgree: true },
      { by: 'time', candidates: 1, tokensAgree: true },
    ],
  );
  assert.notEqual(same[0].record, same[1].record, 'each record goes to one call');
  // No record bills what this call's response reported, and two fit by time: nothing can be said of its tokens.
  const r = reconcile([call(2, { end: T0 + 200, p: 150, id: false })], log, {});
  const receipt = [...r.byCall.values()][0]!;
  assert.equal(receipt.matchText, 'Matched by time, token and model (2 records fit).');
  const tokens = receipt.billing.find((c) => c.id === 'tokens')!;
  assert.deepEqual([tokens.state, tokens.reason], ['not-checkable', 'ambiguous']);
  // One record alone fits: its tokens are held against the call.
  const alone = reconcile([call(2, { end: T0 + 200, p: 150, id: false })], log.slice(0, 1), {});
  const held = [...alone.byCall.values()][0]!.billing.find((c) => c.id === 'tokens')!;
  assert.equal(held.state, 'inconsistent');
  assert.equal(
    held.text,
    "According to the gateway's log, 100 input and 10 output tokens were billed; its response reported 150 and 10.",
  );
});

test("another token's calls and the gateway's error records are left out; unmatched calls are listed", () => {
  const log = records([record(0, { id: true }), record(1, { id: true, type: 5 })]);
  const r = reconcile([call(0, { token: 'sk-other...1234' }), call(1)], log, {}, { maskedToken: TOKEN });
  assert.equal(r.receipts.length, 1, 'a receipt per billed record');
  assert.equal(r.byCall.size, 0);
  assert.equal(r.unmatched.length, 2);
  assert.equal(r.receipts[0].matchText, 'No call made from here matches this record.');
  assert.equal(r.receipts[0].billing.find((c) => c.id === 'tokens')!.reason, 'no-call');
});

test('an older gateway sends every row in no order: the newest 1000 are kept, newest first', () => {
  const rows = Array.from({ length: 1500 }, (_, i) => record(i, { at: T0 + ((i * 7919) % 1500) * 1000 }));
  const kept = records(rows);
  assert.equal(kept.length, 1000);
  assert.equal(kept[0].time, T0 + 1499 * 1000);
  assert.equal(kept.at(-1)!.time, T0 + 500 * 1000);
});
