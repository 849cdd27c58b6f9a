/**
 * The request log's store (src/host/usage/localLog.ts over ./jsonLinesFile.ts): JSON lines in a folder,
 * one write per burst, bounded by rotation, every read bounded, a torn or foreign line skipped, two
 * windows (and two processes) appending at once without losing a record, each window seeing the
 * other's, the records of global state moved once, and inline completions counted per minute and model.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import type { RequestRecord } from '../../src/gateway';
import { JsonLinesFile } from '../../src/host/usage/jsonLinesFile';
import { LEGACY_LOG_KEY, LocalRequestLog, requestIdsOf, type LoggedRequest } from '../../src/host/usage/localLog';
import { InMemoryMemento } from '../fakes/state';
import { logDir, rec } from '../fakes/usageLog';

const ids = (list: readonly RequestRecord[]) => list.map((r) => r.requestId);
const lines = (path: string) => readFileSync(path, 'utf8').split('\n').filter(Boolean);
const CURRENT = 'requests.jsonl';
const ROTATED = 'requests.1.jsonl';

test('records are kept in one write per burst and read back by the next window', async () => {
  const dir = logDir();
  const log = new LocalRequestLog(dir, { watch: false });
  await log.loaded;
  let changes = 0;
  log.onDidChange(() => changes++);
  for (let i = 0; i < 8; i++) log.add(rec(i));
  assert.deepEqual(ids(log.all()), ['req-0', 'req-1', 'req-2', 'req-3', 'req-4', 'req-5', 'req-6', 'req-7']);
  assert.deepEqual(readdirSync(dir), [], 'nothing is written per record');
  await log.flush();
  assert.equal(readFileSync(join(dir, CURRENT), 'utf8').split('\n\n').length, 1, 'one batch');
  assert.equal(lines(join(dir, CURRENT)).length, 8);
  assert.equal(changes, 8, 'one change per record; reading its own batch back is none');
  log.add(rec(9));
  log.dispose(); // a closing window writes what waits, at once
  const next = new LocalRequestLog(dir, { watch: false });
  await next.loaded;
  assert.deepEqual(ids(next.all()).slice(-2), ['req-7', 'req-9']);
  next.dispose();
});

test('balance reads are not kept; request ids index the records; clear empties the files', async () => {
  const log = new LocalRequestLog(logDir(), { watch: false });
  log.add(rec(2, { capability: 'account', path: '/api/usage/token/' }));
  log.add(rec(3, { requestId: undefined }));
  log.add(rec(4));
  assert.equal(log.all().length, 2);
  assert.deepEqual([...log.byRequestId().keys()], ['req-4']);
  await log.flush();
  await log.clear();
  assert.deepEqual(log.all(), []);
  log.add(rec(5));
  await log.flush();
  assert.deepEqual(ids(log.all()), ['req-5']);
  log.dispose();
});

test('a torn, foreign or broken line is skipped, never a crash, and never takes the next record with it', async () => {
  const dir = logDir();
  writeFileSync(
    join(dir, CURRENT),
    [
      JSON.stringify(rec(1, { localInput: { tokens: 247, tokenizer: 'o200k_base' } })),
      'not json',
      '{"nonsense":true}',
      '"x"',
      '[1,2]',
      // a local count that is not one (the receipts' input check computes with it)
      JSON.stringify({ ...rec(5), localInput: { tokens: 'many', tokenizer: 'o200k_base' } }),
      JSON.stringify({ ...rec(6), localInput: { tokens: 12, tokenizer: 'x'.repeat(500) } }),
      JSON.stringify(rec(2)),
    ].join('\n') +
      '\n' +
      JSON.stringify(rec(3)).slice(0, 40), // a window crashed in the middle of its write
  );
  const log = new LocalRequestLog(dir, { watch: false });
  await log.loaded;
  assert.deepEqual(ids(log.all()), ['req-1', 'req-2']);
  assert.deepEqual(log.all()[0]!.localInput, { tokens: 247, tokenizer: 'o200k_base' }, 'a local count is kept');
  log.add(rec(4));
  await log.flush();
  assert.deepEqual(ids(log.all()), ['req-1', 'req-2', 'req-4'], 'the torn line is ended and skipped alone');
  const again = new LocalRequestLog(dir, { watch: false });
  await again.loaded;
  assert.deepEqual(ids(again.all()), ['req-1', 'req-2', 'req-4']);
  log.dispose();
  again.dispose();
});

test('the files are bounded: rotated past the size, each read bounded, the newest records kept', async () => {
  const dir = logDir();
  const max = 8 * 1024;
  const log = new LocalRequestLog(dir, { watch: false, maxFileBytes: max });
  await log.loaded;
  const one = Buffer.byteLength(JSON.stringify(rec(0))) + 1;
  for (let b = 0; b < 40; b++) {
    for (let i = 0; i < 5; i++) log.add(rec(b * 5 + i, { requestId: `req-${b * 5 + i}` }));
    await log.flush();
    const sizes = readdirSync(dir).map((f) => statSync(join(dir, f)).size);
    assert.ok(
      sizes.every((s) => s <= max + 5 * one + 1),
      `each file stays within its bound plus one batch: ${sizes.join(', ')}`,
    );
  }
  assert.deepEqual(readdirSync(dir).sort(), [ROTATED, CURRENT]);
  const kept = ids(log.all());
  assert.equal(kept.at(-1), 'req-199', 'the newest record is kept');
  assert.ok(
    kept.length < 200 && kept.length > max / one,
    `older records were dropped with the rotated file (${kept.length})`,
  );
  // a file grown past any bound elsewhere: only its newest part is read, starting at a whole line
  const big = Array.from({ length: 400 }, (_, i) => JSON.stringify(rec(i, { requestId: `big-${i}` }))).join('\n');
  writeFileSync(join(dir, ROTATED), `${big}\n`);
  const reader = new JsonLinesFile<LoggedRequest>(dir, (v): v is LoggedRequest => !!v, max, 'requests');
  const { items } = await reader.readNew();
  const read = items.filter((r) => r.requestId?.startsWith('big-'));
  assert.ok(read.length * one <= reader.maxReadBytes, 'the read is bounded');
  assert.equal(read.at(-1)?.requestId, 'big-399');
  assert.equal(read[0]?.requestId, `big-${400 - read.length}`, 'whole lines only');
  log.dispose();
});

test('two windows append at once: none loses the other’s records, and each sees the other’s', async () => {
  const dir = logDir();
  const a = new LocalRequestLog(dir, { watch: false });
  const b = new LocalRequestLog(dir, { watch: true });
  await Promise.all([a.loaded, b.loaded]);
  const seen = new Promise<void>((resolve) => {
    const sub = b.onDidChange(() => {
      if (b.all().some((r) => r.requestId === 'a-0-0')) resolve(sub.dispose());
    });
  });
  const writes: Promise<void>[] = [];
  for (let batch = 0; batch < 30; batch++) {
    for (let i = 0; i < 10; i++) {
      a.add(rec(i, { requestId: `a-${batch}-${i}` }));
      b.add(rec(i, { requestId: `b-${batch}-${i}` }));
    }
    writes.push(a.flush(), b.flush());
  }
  await Promise.all(writes);
  await seen; // b heard a's records through its folder watch
  const third = new LocalRequestLog(dir, { watch: false });
  await third.loaded;
  assert.equal(new Set(ids(third.all())).size, 600, 'every record of both windows is in the file');
  a.all(); // a looks for other windows' records when read
  await a.settled();
  assert.equal(a.all().length, 600, 'a sees b’s records');
  for (const l of [a, b, third]) l.dispose();
});

test('two processes appending hundreds of batches at once: every line whole, none lost', async () => {
  const dir = logDir();
  const module = join(__dirname, '../../src/host/usage/jsonLinesFile.js');
  const script = `
    const { JsonLinesFile } = require(${JSON.stringify(module)});
    const f = new JsonLinesFile(process.argv[1], (v) => true, 1 << 30, 'requests');
    (async () => {
      for (let b = 0; b < 200; b++)
        await f.append(Array.from({ length: 5 }, (_, i) => ({ who: process.argv[2], n: b * 5 + i, pad: 'x'.repeat(300) })));
    })();`;
  const run = promisify(execFile);
  await Promise.all(['p', 'q'].map((who) => run(process.execPath, ['-e', script, dir, who])));
  const got = lines(join(dir, CURRENT)).map((l) => JSON.parse(l) as { who: string; n: number });
  for (const who of ['p', 'q'])
    assert.deepEqual(
      got.filter((g) => g.who === who).map((g) => g.n),
      Array.from({ length: 1000 }, (_, i) => i),
      `all of ${who}'s records, whole and in order`,
    );
});

test('the records of global state are moved into the file once, and the key cleared', async () => {
  const dir = logDir();
  const state = new InMemoryMemento();
  await state.update(LEGACY_LOG_KEY, [{ nonsense: true }, 'x', rec(1), rec(2)]);
  const log = new LocalRequestLog(dir, { watch: false, legacy: state });
  await log.loaded;
  assert.deepEqual(ids(log.all()), ['req-1', 'req-2']);
  assert.equal(state.get(LEGACY_LOG_KEY), undefined, 'the key is cleared');
  assert.equal(lines(join(dir, CURRENT)).length, 2);
  // another window still read the old key (global state reaches windows late): the file exists, nothing doubles
  await state.update(LEGACY_LOG_KEY, [rec(1), rec(2)]);
  const other = new LocalRequestLog(dir, { watch: false, legacy: state });
  await other.loaded;
  assert.deepEqual(ids(other.all()), ['req-1', 'req-2']);
  assert.equal(state.get(LEGACY_LOG_KEY), undefined);
  log.dispose();
  other.dispose();
});

test('inline completions are counted per minute, model and outcome; their failures keep their own records', async () => {
  const dir = logDir();
  const log = new LocalRequestLog(dir, { watch: false });
  await log.loaded;
  const at = (s: number) => new Date(Date.UTC(2026, 10, 27, 12, 0, s)).toISOString();
  const completion = (s: number, extra: Partial<RequestRecord> = {}) =>
    rec(0, {
      time: at(s),
      path: '/v1/completions',
      purpose: 'completion',
      stream: false,
      requestId: `c-${s}`,
      durationMs: 100 + s,
      usage: { promptTokens: 10, completionTokens: 2 },
      ...extra,
    });
  for (let s = 0; s < 10; s++) log.add(completion(s));
  log.add(completion(20, { model: 'other-model' }));
  log.add(completion(21, { status: undefined, errorKind: 'aborted', requestId: undefined, usage: undefined }));
  log.add(completion(22, { status: 500, errorKind: 'server_error' }));
  log.add(completion(61)); // the next minute
  log.add(rec(5, { time: at(30) })); // a chat request: its own record
  await log.flush();
  const all = log.all();
  assert.equal(all.length, 6, 'ten of one minute and model are one record');
  const first = all.find((r) => r.count === 10)!;
  assert.equal(first.time, at(0));
  assert.deepEqual(first.usage, { promptTokens: 100, completionTokens: 20 }, 'tokens summed');
  assert.equal(first.durationMs, 105, 'the mean duration');
  assert.equal(first.requestId, undefined);
  assert.deepEqual(
    requestIdsOf(first),
    Array.from({ length: 10 }, (_, s) => `c-${s}`),
  );
  assert.deepEqual(
    all.map((r) => [r.model, r.count ?? 1, r.errorKind ?? r.status]),
    [
      ['gpt-4o-mini', 10, 200],
      ['other-model', 1, 200],
      ['gpt-4o-mini', 1, 'aborted'],
      ['gpt-4o-mini', 1, 'server_error'],
      ['gpt-4o-mini', 1, 200],
      ['gpt-4o-mini', 1, 200],
    ],
  );
  assert.equal(log.byRequestId().get('c-7'), first, 'each request id finds its minute');
  const again = new LocalRequestLog(dir, { watch: false });
  await again.loaded;
  assert.deepEqual(again.all(), all, 'as written, so read');
  log.dispose();
  again.dispose();
});

test('typing with suggestions on (one completion every 300 ms): about one write a minute', async (t) => {
  const dir = logDir();
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: Date.UTC(2026, 10, 27, 12, 0, 0) });
  const log = new LocalRequestLog(dir, { watch: false });
  await log.loaded;
  const sizes: number[] = [];
  const sizeNow = () => readdirSync(dir).reduce((n, f) => n + statSync(join(dir, f)).size, 0);
  let writes = 0;
  for (let i = 0; i < 3 * 200; i++) {
    t.mock.timers.tick(300);
    log.add(
      rec(0, {
        time: new Date(Date.now() - 180).toISOString(),
        purpose: 'completion',
        path: '/v1/completions',
        stream: false,
        durationMs: 180,
        requestId: `2026112712000${String(i).padStart(8, '0')}`,
        usage: { promptTokens: 900, completionTokens: 20 },
        ...(i % 3 === 0 ? { status: undefined, errorKind: 'aborted' as const } : {}),
      }),
    );
    await log.settled();
    const size = sizeNow();
    if (size !== (sizes.at(-1) ?? 0)) writes++;
    sizes.push(size);
  }
  t.mock.timers.tick(10_000); // the last minute's write
  await log.settled();
  if (sizeNow() !== sizes.at(-1)) writes++;
  const bytes = sizeNow();
  t.diagnostic(`3 minutes of completions: ${writes} writes, ${bytes} bytes (${Math.round(bytes / 3)} bytes/min)`);
  assert.ok(writes <= 3, `at most one write a minute (${writes} in 3 minutes)`);
  const all = log.all();
  assert.equal(
    all.reduce((n, r) => n + (r.count ?? 1), 0),
    600,
    'every request is counted',
  );
  assert.ok(all.length <= 8, `a few records for 600 requests (${all.length})`);
  log.dispose();
});
