/**
 * Record HTTP Archive's state (src/host/support/harRecorder.ts) over real HTTP against the
 * simulator: the next N requests of every client, complete by itself after the N-th, or stopped
 * with what it has; the user's count checked; nothing observed once it is over.
 */
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { startSimulator, type Simulator } from '../sim/server';
import { makeClient } from '../gateway/helpers';
import { assertHar12 } from '../gateway/harSchema';
import type { HarLog } from '../../src/gateway';
import {
  HAR_MAX_REQUESTS,
  HarRecorder,
  harFileName,
  parseHarCount,
  type HarRecorderState,
} from '../../src/host/support/harRecorder';

let sim: Simulator;
before(async () => {
  sim = await startSimulator({ profile: 'real' });
});
after(() => sim.close());
beforeEach(() => sim.reset());

const creator = { name: 'Model Relay', version: '9.9.9' };
const ask = (content: string) => ({
  surface: 'compatible' as const,
  model: 'gpt-4o-mini',
  messages: [{ role: 'user' as const, content }],
});

test('the next N requests of every client, then complete by itself: one archive, the rest unrecorded', async () => {
  const done: HarLog[] = [];
  const states: HarRecorderState[] = [];
  const rec = new HarRecorder(creator, { onComplete: (h) => done.push(h), onChange: (s) => states.push(s) });
  rec.start({ count: 2, includeBodies: false });
  assert.deepEqual(rec.state, { recording: true, recorded: 0, count: 2, includeBodies: false });
  const a = makeClient(sim).client;
  const b = makeClient(sim, { tokenName: 'test' }).client;
  await a.chat(ask('one'));
  assert.equal(done.length, 0);
  await b.listModels();
  assert.equal(done.length, 1, 'complete once the second request has finished');
  await a.chat(ask('three'));
  assert.equal(done.length, 1);
  const har = assertHar12(JSON.parse(JSON.stringify(done[0])));
  assert.deepEqual(
    har.log.entries.map((e) => new URL(e.request.url).pathname),
    ['/v1/chat/completions', '/v1/models'],
  );
  assert.deepEqual(har.log.creator, creator);
  assert.equal(rec.state.recording, false);
  assert.deepEqual(
    states.map((s) => [s.recording, s.recorded]),
    [
      [true, 0],
      [true, 1],
      [true, 2],
      [false, 0],
    ],
  );
  assert.equal(rec.stop(), undefined, 'nothing to stop');
});

test('stopped early: the archive of what was recorded; a new recording starts afresh', async () => {
  const done: HarLog[] = [];
  const rec = new HarRecorder(creator, { onComplete: (h) => done.push(h) });
  rec.start({ count: 5, includeBodies: true });
  const { client } = makeClient(sim);
  await client.chat(ask('kept'));
  const har = assertHar12(JSON.parse(JSON.stringify(rec.stop())));
  assert.equal(har.log.entries.length, 1);
  assert.match(har.log.entries[0].request.postData?.text ?? '', /kept/);
  assert.equal(done.length, 0, 'a stop is not a completion');
  await client.chat(ask('after'));
  rec.start({ count: 1, includeBodies: false });
  await client.chat(ask('again'));
  assert.equal(done.length, 1);
  assert.equal(done[0].log.entries.length, 1);
  assert.equal(done[0].log.entries[0].request.postData?.text, '');
  rec.dispose();
});

test('the count the user types, and the file name offered', () => {
  assert.deepEqual(parseHarCount(' 10 '), { count: 10 });
  assert.deepEqual(parseHarCount(String(HAR_MAX_REQUESTS)), { count: HAR_MAX_REQUESTS });
  for (const bad of ['0', '-1', '2.5', 'ten', '', String(HAR_MAX_REQUESTS + 1)])
    assert.ok('problem' in parseHarCount(bad), bad);
  assert.equal(harFileName(new Date(2026, 10, 4, 9, 5, 7)), 'model-relay-2026-11-04T09-05-07.har');
});
