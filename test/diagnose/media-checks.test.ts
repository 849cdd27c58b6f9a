/** Image and video generation checks cost money: they run only when asked for. */
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { startSimulator, type Simulator } from '../sim/server';
import { runDiagnosis } from '../../src/gateway';

let sim: Simulator;
before(async () => {
  sim = await startSimulator();
});
after(() => sim.close());
beforeEach(() => sim.reset());

const billed = () =>
  sim.log.filter((r) => r.method === 'POST' && (r.path.startsWith('/v1/images') || r.path === '/v1/videos'));
const input = (includeMedia: boolean) => ({
  baseUrl: sim.url,
  token: sim.tokens.production,
  models: { chat: 'gpt-4o-mini', image: 'gpt-image-1', imageEdit: 'gpt-image-1', video: 'sora-2' },
  includeMedia,
  proxy: { env: {} },
  sleep: async () => {},
});

test('without includeMedia the media checks are skipped and nothing billed is sent', async () => {
  const r = await runDiagnosis(input(false));
  for (const id of ['generate-image', 'generate-image-edit', 'generate-video'])
    assert.equal(r.checks.find((c) => c.id === id)?.result, 'skipped', id);
  assert.equal(billed().length, 0);
});

test('with includeMedia the image, image-edit and video checks make real calls', async () => {
  const r = await runDiagnosis(input(true));
  for (const id of ['generate-image', 'generate-video'])
    assert.equal(r.checks.find((c) => c.id === id)?.result, 'pass', id);
  assert.ok(billed().some((b) => b.path === '/v1/images/generations' && b.status === 200));
  assert.equal(billed().filter((b) => b.path === '/v1/videos').length, 1, 'one video task, never a second');
});
