/**
 * Totals and spend per local day and per model over usage-log records (the Usage view and
 * relay-doctor `usage` share them): day boundaries at the given UTC offset, 7 / 30-day windows,
 * gaps filled, models ordered by spend, mixed units kept out of the amounts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { localDay, MAX_SUMMARY_DAYS, summarizeUsage } from '../../src/gateway/economy/usageSummary';
import type { UsageRecord } from '../../src/gateway/economy/usageTypes';

const H = 3_600_000;
const D = 24 * H;

function rec(time: number, model: string, amount: number, extra: Partial<UsageRecord> = {}): UsageRecord {
  return {
    time,
    kind: 'consume',
    model,
    quota: Math.round(amount * 500_000),
    cost: { amount, unit: 'USD' },
    promptTokens: 100,
    completionTokens: 10,
    useTimeS: 1,
    firstResponseMs: undefined,
    stream: false,
    tokenName: 'vscode',
    group: 'default',
    requestId: undefined,
    requestPath: undefined,
    other: undefined,
    ...extra,
  };
}

// 2026-11-24 02:00 UTC = 10:00 in Beijing (+480), 21:00 the day before in New York (−300)
const NOW = Date.UTC(2026, 10, 24, 2, 0);

test('localDay: the calendar day at the offset, across midnight both ways', () => {
  assert.equal(localDay(NOW, 0), '2026-11-24');
  assert.equal(localDay(NOW, 480), '2026-11-24');
  assert.equal(localDay(NOW, -300), '2026-11-23');
  assert.equal(localDay(Date.UTC(2026, 10, 23, 17, 0), 480), '2026-11-24'); // 01:00 Beijing
});

test('today, 7 days and 30 days count local days, today included', () => {
  const records = [
    rec(NOW - 1 * H, 'gpt-4o', 1), // today (Beijing 09:00)
    rec(NOW - 9 * H, 'gpt-4o', 2), // Beijing 01:00 today
    rec(NOW - 11 * H, 'gpt-4o', 4), // Beijing 23:00 yesterday
    rec(NOW - 6 * D, 'gpt-4o', 8), // 6 days ago: inside 7 days
    rec(NOW - 7 * D, 'gpt-4o', 16), // 7 days ago: outside 7, inside 30
    rec(NOW - 29 * D, 'gpt-4o', 32), // inside 30
    rec(NOW - 30 * D, 'gpt-4o', 64), // outside 30
  ];
  const s = summarizeUsage(records, { now: NOW, utcOffsetMin: 480 });
  assert.equal(s.unit, 'USD');
  assert.equal(s.today.amount, 3);
  assert.equal(s.today.requests, 2);
  assert.equal(s.last7Days.amount, 15);
  assert.equal(s.last30Days.amount, 63);
  assert.equal(s.last30Days.promptTokens, 600);
  assert.equal(s.last30Days.completionTokens, 60);
  // in UTC the 01:00-Beijing record is yesterday's
  const utc = summarizeUsage(records, { now: NOW, utcOffsetMin: 0 });
  assert.equal(utc.today.amount, 1);
});

test('perDay: every day from the oldest record to today, oldest first, gaps as zeros', () => {
  const s = summarizeUsage([rec(NOW - 1 * H, 'a', 1), rec(NOW - 3 * D, 'b', 2), rec(NOW - 3 * D - H, 'a', 0.5)], {
    now: NOW,
    utcOffsetMin: 480,
  });
  assert.deepEqual(
    s.perDay.map((d) => [d.day, d.amount, d.requests]),
    [
      ['2026-11-21', 2.5, 2],
      ['2026-11-22', 0, 0],
      ['2026-11-23', 0, 0],
      ['2026-11-24', 1, 1],
    ],
  );
});

test('perDay is bounded, and no records give today alone', () => {
  const s = summarizeUsage([rec(NOW - 1000 * D, 'a', 1), rec(NOW, 'a', 1)], { now: NOW, utcOffsetMin: 0 });
  assert.equal(s.perDay.length, MAX_SUMMARY_DAYS);
  assert.equal(s.perDay.at(-1)!.day, '2026-11-24');
  const empty = summarizeUsage([], { now: NOW, utcOffsetMin: 0 });
  assert.equal(empty.unit, undefined);
  assert.deepEqual(
    empty.perDay.map((d) => d.day),
    ['2026-11-24'],
  );
  assert.deepEqual(empty.perModel, []);
});

test('perModel: most spent first, then most requests; errors counted but cost nothing', () => {
  const s = summarizeUsage(
    [
      rec(NOW, 'cheap', 0.1),
      rec(NOW, 'dear', 3),
      rec(NOW, 'cheap', 0.1),
      rec(NOW, 'free', 0),
      rec(NOW, 'dear', 0, { kind: 'error', promptTokens: 0, completionTokens: 0 }),
    ],
    { now: NOW, utcOffsetMin: 0 },
  );
  assert.deepEqual(
    s.perModel.map((m) => [m.model, m.requests, m.errors]),
    [
      ['dear', 2, 1],
      ['cheap', 2, 0],
      ['free', 1, 0],
    ],
  );
  assert.equal(s.today.errors, 1);
  assert.ok(Math.abs(s.perModel[1]!.amount - 0.2) < 1e-12);
});

test('amounts stay in the newest record unit: a record in another unit is counted, not summed', () => {
  const s = summarizeUsage(
    [
      rec(NOW - H, 'a', 5, { cost: { amount: 5, unit: 'CNY' } }),
      rec(NOW, 'a', 1, { cost: { amount: 7.3, unit: 'CNY' } }),
    ],
    { now: NOW, utcOffsetMin: 0 },
  );
  assert.equal(s.unit, 'CNY');
  assert.equal(s.today.amount, 12.3);
  const mixed = summarizeUsage(
    [rec(NOW - H, 'a', 5), rec(NOW, 'a', 1000, { cost: { amount: 1000, unit: 'tokens' } })],
    {
      now: NOW,
      utcOffsetMin: 0,
    },
  );
  assert.equal(mixed.unit, 'tokens');
  assert.equal(mixed.today.amount, 1000);
  assert.equal(mixed.today.requests, 2);
  assert.equal(mixed.otherUnit, 1);
});
