/**
 * The request log's arrived column over the real chain: the client's own usage-log reader
 * (GatewayClient.usage) against the simulator's new-api profile, which writes a usage record per
 * relayed request. Two chats and a model list: both chats arrived (billed, with their tokens), the model
 * list is not asked about, and the whole log costs one read of GET /api/log/token.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startSimulator, type Simulator } from '../sim/server';
import { makeClient } from '../gateway/helpers';
import { arrivalCell, arrivalSource, lookUpArrivals } from '../../src/host/usage/arrivals';

let sim: Simulator;
before(async () => {
  sim = await startSimulator({ profile: 'real' });
});
after(() => sim.close());

test('a log of two chats and a model list: both chats arrived, one read of the usage log', async () => {
  // The reader waits 5 s after a response before it reads for its record: the clock moves 10 s on before the lookup.
  let ahead = 0;
  const { client, records } = makeClient(sim, { now: () => Date.now() + ahead });
  await client.listModels();
  for (const text of ['one', 'two'])
    await client.chat({ surface: 'compatible', model: 'gpt-4o-mini', messages: [{ role: 'user', content: text }] });
  await new Promise((r) => setTimeout(r, 2_000)); // the simulator writes its records 1.5 s after the response
  ahead = 10_000;
  const found = await lookUpArrivals(
    records,
    arrivalSource(() => client.usage),
  );
  assert.deepEqual(
    found.map((a) => a?.state),
    [undefined, 'arrived', 'arrived'],
  );
  assert.match(arrivalCell(found[1]), /^arrived: billed \$\d+\.\d+ \(\d+ in \/ \d+ out tokens\)$/);
  assert.equal(sim.log.filter((l) => l.path.startsWith('/api/log/token')).length, 1, 'one read for the whole log');
});
