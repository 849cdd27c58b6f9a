/** The balance's read schedule: at start, slowly, soon after a billed call but never twice a minute. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GatewayError, type Quota } from '../../src/gateway';
import { QuotaTracker, QUOTA_TIMING } from '../../src/host/status/quotaSchedule';

function clock() {
  let now = 0;
  const timers: Array<{ at: number; fn: () => void; id: number }> = [];
  let next = 1;
  return {
    now: () => now,
    setTimeout: (fn: () => void, ms: number) => {
      const t = { at: now + ms, fn, id: next++ };
      timers.push(t);
      return t.id;
    },
    clearTimeout: (id: unknown) => {
      const i = timers.findIndex((t) => t.id === id);
      if (i >= 0) timers.splice(i, 1);
    },
    /** Moves time forward, firing due timers in order (bounded). */
    async advance(ms: number) {
      const end = now + ms;
      for (let n = 0; n < 1000; n++) {
        timers.sort((a, b) => a.at - b.at);
        const t = timers[0];
        if (!t || t.at > end) break;
        timers.shift();
        now = t.at;
        t.fn();
        await new Promise((r) => setImmediate(r));
      }
      now = end;
    },
    pending: () => timers.length,
  };
}

const q: Quota = {
  source: 'usage-token',
  unlimited: false,
  remaining: 1,
  used: 0,
  granted: 1,
  unit: 'USD',
  expiresAt: null,
};

test('reads at start, then every ten minutes; a billed call reads again soon, never within a minute of the last read', async () => {
  const c = clock();
  const reads: Array<{ at: number; maxAgeMs: number }> = [];
  const seen: Array<Quota | undefined> = [];
  const t = new QuotaTracker(
    async (maxAgeMs) => {
      reads.push({ at: c.now(), maxAgeMs });
      return q;
    },
    (x) => seen.push(x),
    QUOTA_TIMING,
    c,
  );
  t.start();
  await new Promise((r) => setImmediate(r));
  assert.equal(reads.length, 1);
  assert.equal(seen.length, 1);
  await c.advance(10_000);
  t.billed();
  t.billed(); // coalesced
  await c.advance(QUOTA_TIMING.minGapMs - 10_000 - 1);
  assert.equal(reads.length, 1, 'not within a minute of the start read');
  await c.advance(2);
  assert.equal(reads.length, 2);
  assert.equal(reads[1].maxAgeMs, 0, 'a billed call bypasses the cache');
  t.billed();
  await c.advance(QUOTA_TIMING.afterBilledMs);
  assert.equal(reads.length, 2, 'again not within a minute');
  await c.advance(QUOTA_TIMING.minGapMs);
  assert.equal(reads.length, 3);
  await c.advance(QUOTA_TIMING.periodMs);
  assert.equal(reads.length, 4, 'the slow schedule continues');
  t.readNow();
  await c.advance(0);
  assert.equal(reads.length, 5, 'the user asked: now');
  t.dispose();
  await c.advance(QUOTA_TIMING.periodMs * 3);
  assert.equal(reads.length, 5, 'nothing after dispose');
});

test('a failing read keeps the last figure and the schedule', async () => {
  const c = clock();
  let fail = false;
  const seen: Array<Quota | undefined> = [];
  const t = new QuotaTracker(
    async () => {
      if (fail) throw new Error('429');
      return q;
    },
    (x) => seen.push(x),
    QUOTA_TIMING,
    c,
  );
  t.start();
  await new Promise((r) => setImmediate(r));
  fail = true;
  await c.advance(QUOTA_TIMING.periodMs);
  assert.equal(seen.length, 1);
  assert.equal(c.pending(), 1, 'still scheduled');
  t.dispose();
});

test('a read that failed on the way is tried again soon, backing off up to the period; a refusal waits for the period', async () => {
  const c = clock();
  const reads: number[] = [];
  let failure: Error | undefined = new GatewayError({
    kind: 'network',
    message: 'reset',
    reason: 'r',
    fix: 'f',
    context: {},
  });
  const seen: Array<Quota | undefined> = [];
  const t = new QuotaTracker(
    async () => {
      reads.push(c.now());
      if (failure) throw failure;
      return q;
    },
    (x) => seen.push(x),
    QUOTA_TIMING,
    c,
  );
  t.start();
  await new Promise((r) => setImmediate(r));
  await c.advance(QUOTA_TIMING.periodMs);
  const gaps = reads.slice(1).map((at, i) => at - reads[i]);
  assert.deepEqual(
    gaps.slice(0, 3),
    [1, 2, 4].map((n) => n * QUOTA_TIMING.retryMs),
  );
  assert.ok(gaps.every((g) => g <= QUOTA_TIMING.periodMs));
  assert.ok(reads.length <= 6, `bounded: ${reads.length} reads in the first period`);
  failure = undefined;
  await c.advance(QUOTA_TIMING.periodMs);
  assert.deepEqual(seen, [q], 'the figure once a read succeeds');

  // A refusal (the token) is not tried again sooner: the slow schedule.
  failure = new GatewayError({ kind: 'unauthorized', message: '401', reason: 'r', fix: 'f', context: {} });
  const n = reads.length;
  await c.advance(reads.at(-1)! + QUOTA_TIMING.periodMs - c.now());
  assert.equal(reads.length, n + 1, 'the scheduled read, refused');
  await c.advance(QUOTA_TIMING.periodMs - 1);
  assert.equal(reads.length, n + 1, 'nothing sooner than the period after a refusal');
  await c.advance(1);
  assert.equal(reads.length, n + 2);
  t.dispose();
});
