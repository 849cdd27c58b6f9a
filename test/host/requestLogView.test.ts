/**
 * The request log document (src/host/usage/requestLogView.ts): the arrived column looked up on open
 * and refresh (one read per gateway), "checking…" meanwhile, new rows waiting for the next refresh,
 * a stale lookup never overwriting a newer one, and the bound on rows.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { arrivalSource } from '../../src/host/usage/arrivals';
import { LocalRequestLog } from '../../src/host/usage/localLog';
import { MAX_LOG_ROWS, RequestLogView } from '../../src/host/usage/requestLogView';
import { FakeUsageLog, logDir, NOW, rec, usageRecord } from '../fakes/usageLog';

function rig(records = 3) {
  const log = new LocalRequestLog(logDir(), { watch: false });
  for (let i = 0; i < records; i++) log.add(rec(i));
  const usage = new FakeUsageLog([usageRecord('req-0')], () => NOW);
  const view = new RequestLogView(
    log,
    arrivalSource(() => usage),
    () => NOW,
  );
  return { log, usage, view };
}

const row = (text: string, id: string) => text.split('\n').find((l) => l.includes(id)) ?? '';

test('opening the log looks every row up at once: arrived with its bill, no record, one read', async () => {
  const { view, usage, log } = rig();
  let changes = 0;
  view.onDidChange(() => changes++);
  const done = view.refresh();
  assert.match(view.text(), /Looking up the requests in the gateways' usage logs…/);
  assert.match(row(view.text(), 'req-1'), / {2}checking… {2}/);
  await done;
  const text = view.text();
  assert.match(row(text, 'req-0'), / {2}arrived: billed \$0\.04 \(12 in \/ 345 out tokens\) {2}/);
  assert.match(row(text, 'req-1'), / {2}no record {2}/);
  assert.match(text, /"no record": the gateway has no record of this request: it did not arrive, or was not billed\./);
  const header = text.split('\n').find((l) => l.startsWith('Time (UTC)'))!;
  assert.equal(
    row(text, 'req-1').indexOf('no record'),
    header.indexOf('Arrived'),
    'the arrived cell is under its header',
  );
  assert.match(text, /Looked up at 2023-11-14 22:15:00 UTC\./);
  assert.ok(text.indexOf('req-2') < text.indexOf('req-1'), 'newest first');
  assert.ok(row(text, 'req-0').includes('sk-abc...wxyz'), 'the masked token');
  assert.equal(usage.reads, 1, 'three rows, one read');
  assert.equal(changes, 2, 'checking, then the answers');
  log.add(rec(9));
  assert.match(row(view.text(), 'req-9'), / {2}not looked up yet \(Refresh\) {2}/, 'a new row waits for Refresh');
  assert.match(row(view.text(), 'req-0'), /arrived/, 'known rows keep their answer');
  view.dispose();
});

test('a refresh during a lookup wins: the older answers are dropped', async () => {
  const { view, usage } = rig();
  const first = view.refresh();
  usage.records = [usageRecord('req-1')];
  const second = view.refresh();
  await Promise.all([first, second]);
  const text = view.text();
  assert.match(row(text, 'req-1'), /arrived/);
  view.dispose();
});

test('the log shows the newest rows only, aligned, and says how many there are', async () => {
  const { view } = rig(MAX_LOG_ROWS + 5);
  const text = view.text();
  assert.match(text, new RegExp(`${MAX_LOG_ROWS + 5} requests; the newest ${MAX_LOG_ROWS} are shown\\.`));
  assert.ok(!text.includes('req-4 '), 'the oldest rows are left out');
  const lines = text.split('\n').filter((l) => l.includes('req-'));
  assert.equal(lines.length, MAX_LOG_ROWS);
  const at = (l: string) => l.indexOf('req-');
  assert.ok(
    lines.every((l) => at(l) === at(lines[0]!)),
    'the request id column starts at the same place on every row',
  );
  assert.match(
    new RequestLogView({ all: () => [], onDidChange: () => ({ dispose() {} }) }, async () => ({
      state: 'pending',
    })).text(),
    /No request has been sent yet\./,
  );
  view.dispose();
});

test('a code completion is told apart in the Request column, on either path', () => {
  const log = new LocalRequestLog(logDir(), { watch: false });
  log.add(rec(0, { path: '/v1/completions', purpose: 'completion', requestId: 'req-fim' }));
  log.add(rec(1, { path: '/v1/chat/completions', purpose: 'completion', requestId: 'req-chatway' }));
  log.add(rec(2, { path: '/v1/chat/completions', requestId: 'req-chat' }));
  const view = new RequestLogView(
    log,
    arrivalSource(() => new FakeUsageLog([], () => NOW)),
    () => NOW,
  );
  const text = view.text();
  assert.match(row(text, 'req-fim'), /POST \/v1\/completions \(code completion\)/);
  assert.match(row(text, 'req-chatway'), /POST \/v1\/chat\/completions \(code completion\)/);
  assert.doesNotMatch(row(text, 'req-chat'), /code completion/);
});

test('a minute of code completions is one row: how many, the mean duration, no single arrival', async () => {
  const log = new LocalRequestLog(logDir(), { watch: false });
  for (let i = 0; i < 3; i++)
    log.add(rec(i, { path: '/v1/completions', purpose: 'completion', durationMs: 100 * (i + 1), requestId: `c-${i}` }));
  log.add(rec(10, { requestId: 'req-chat' }));
  const view = new RequestLogView(
    log,
    arrivalSource(() => new FakeUsageLog([usageRecord('c-0')], () => NOW)),
    () => NOW,
  );
  await view.refresh();
  const text = view.text();
  const minute = text.split('\n').find((l) => l.includes('3 code completions')) ?? '';
  assert.match(minute, /POST \/v1\/completions \(3 code completions\)/);
  assert.match(minute, /200 ms on average/);
  assert.match(minute, /^\S+ \S+ +200 +— /, 'the arrived cell of a minute of requests is a dash');
  assert.match(text, /4 requests\./, 'requests are counted, not rows');
  assert.match(row(text, 'req-chat'), /arrived|no record/);
  view.dispose();
  log.dispose();
});
