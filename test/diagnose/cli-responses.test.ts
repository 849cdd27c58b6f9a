/**
 * relay-doctor on the responses surface, as a user runs it (dist/cli.js spawned against the
 * simulator): `chat --surface responses` streams from /v1/responses; a responses-only model asked
 * on the compatible surface is moved there once, said on stderr, with stdout holding only the reply.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { startSimulator, type Simulator } from '../sim/server';
import { spawnCli } from './spawnCli';

const CLI = resolve(__dirname, '../../../dist/cli.js');
const ROOT = resolve(__dirname, '../../..');
const T = { skip: existsSync(CLI) ? false : 'run `npm run build` first' };

let sim: Simulator;
before(async () => {
  sim = await startSimulator();
});
after(() => sim.close());

const env = () => ({ MODEL_RELAY_BASE_URL: sim.url, MODEL_RELAY_TOKEN: sim.tokens.production, LANG: 'en_US.UTF-8' });
const calls = () => sim.log.map((r) => `${r.path} ${r.status}${r.stream ? ' stream' : ''}`);

test('relay-doctor chat --surface responses streams the reply from /v1/responses', T, async () => {
  sim.reset();
  const r = await spawnCli(
    CLI,
    ['chat', '--surface', 'responses', '--model', 'o3-pro', 'Hello there'],
    env(),
    ROOT,
    20_000,
  );
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /Hello there/);
  assert.deepEqual(calls(), ['/v1/responses 200 stream']);
  assert.ok(!r.stdout.includes(sim.tokens.production) && !r.stderr.includes(sim.tokens.production));
});

test(
  'relay-doctor chat on the compatible surface with a responses-only model: moved once, said on stderr',
  T,
  async () => {
    sim.reset();
    const r = await spawnCli(
      CLI,
      ['chat', '--model', 'gpt-5.5-codex', '--no-stream', 'Hello there'],
      env(),
      ROOT,
      20_000,
    );
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Hello there/);
    assert.match(r.stderr, /refused gpt-5\.5-codex on the compatible surface: it answers only on the Responses API/);
    assert.deepEqual(calls(), ['/v1/chat/completions 404', '/v1/responses 200']);
  },
);

test('relay-doctor chat --surface other names the three surfaces', T, async () => {
  const r = await spawnCli(CLI, ['chat', '--surface', 'other', '--model', 'm', 'hi'], env(), ROOT, 20_000);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /--surface must be "compatible", "native" or "responses"/);
});
