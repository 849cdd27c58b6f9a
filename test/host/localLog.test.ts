import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RequestRecord } from '../../src/gateway';
import { LOCAL_LOG_KEY, LocalRequestLog } from '../../src/host/usage/localLog';
import { InMemoryMemento } from '../fakes/state';
import { rec } from '../fakes/usageLog';

test('the local request log keeps the newest records, bounded, in one write per burst', async () => {
  const state = new InMemoryMemento();
  const log = new LocalRequestLog(state, 5);
  let changes = 0;
  log.onDidChange(() => changes++);
  for (let i = 0; i < 8; i++) log.add(rec(i));
  assert.deepEqual(
    log.all().map((r) => r.requestId),
    ['req-3', 'req-4', 'req-5', 'req-6', 'req-7'],
  );
  assert.equal(state.writes, 0, 'nothing is written per record');
  await log.flush();
  assert.equal(state.writes, 1);
  assert.equal(state.get<RequestRecord[]>(LOCAL_LOG_KEY, []).length, 5);
  assert.equal(changes, 8);
  log.add(rec(9));
  await log.flush();
  assert.deepEqual(
    new LocalRequestLog(state, 5).all().map((r) => r.requestId),
    ['req-4', 'req-5', 'req-6', 'req-7', 'req-9'],
  );
  log.dispose();
});

test('balance reads are not kept; request ids index the records; bad stored state is ignored', async () => {
  const state = new InMemoryMemento();
  await state.update(LOCAL_LOG_KEY, [{ nonsense: true }, 'x', rec(1)]);
  const log = new LocalRequestLog(state);
  log.add(rec(2, { capability: 'account', path: '/api/usage/token/' }));
  log.add(rec(3, { requestId: undefined }));
  assert.equal(log.all().length, 2);
  assert.deepEqual([...log.byRequestId().keys()], ['req-1']);
  await log.clear();
  assert.deepEqual(log.all(), []);
  log.dispose();
});
