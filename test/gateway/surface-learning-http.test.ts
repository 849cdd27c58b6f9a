/**
 * Surface learning over real HTTP against the simulator (src/gateway/chat/refusals.ts, the surface adjuster): one
 * refused request, one on /v1/responses, the next straight to /v1/responses, forgotten when the
 * model list changes; also through chatStreamAcross (VS Code's chat and the chat panel's path).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GatewayError, GatewaySet, chatStreamAcross, type ChatEvent, type SurfaceMove } from '../../src/gateway';
import { useSimulator } from '../sim/profiles';
import { collect, makeClient, thrown } from './helpers';

const sim = useSimulator();

/** The responses-only model of the simulator (listed with endpoint types ["openai"]). */
const CODEX = 'gpt-5.5-codex';

const paths = () => sim().log.map((r) => `${r.path} ${r.status}`);

test('over HTTP: a refused chat moves once to /v1/responses, the next goes straight there, a changed model list forgets it', async () => {
  const moves: SurfaceMove[] = [];
  /** what was learnt for CODEX when each list read was heard (onModelsListed: after the client took the list) */
  const heard: Array<string | undefined> = [];
  const { client, records } = makeClient(sim(), {
    onSurfaceMove: (m) => moves.push(m),
    onModelsListed: () => heard.push(client.learntSurface(CODEX)),
  });
  await client.listModels();
  const ask = { surface: 'compatible' as const, model: CODEX, messages: [{ role: 'user' as const, content: 'hi' }] };

  const first = await collect(client.chatStream(ask));
  const done = first.at(-1) as Extract<ChatEvent, { type: 'done' }>;
  assert.equal(done.type, 'done');
  assert.ok(done.result.text.length > 0);
  assert.deepEqual(done.result.surfaceMove, { model: CODEX, from: 'compatible', to: 'responses', learntNow: true });
  assert.deepEqual(paths(), ['/v1/models 200', '/v1/chat/completions 404', '/v1/responses 200']);
  assert.deepEqual(
    records.filter((r) => r.capability === 'chat').map((r) => r.surface),
    ['compatible', 'responses'],
    'the request log names the surface',
  );
  assert.equal(client.learntSurface(CODEX), 'responses');
  assert.deepEqual(client.learntSurfaces(), [{ model: CODEX, surface: 'responses' }]);

  // The next request (not streamed this time) goes straight to /v1/responses.
  const second = await client.chat(ask);
  assert.deepEqual(second.surfaceMove, { model: CODEX, from: 'compatible', to: 'responses', learntNow: false });
  assert.deepEqual(paths().slice(3), ['/v1/responses 200']);
  assert.deepEqual(
    moves.map((m) => m.learntNow),
    [true, false],
  );

  // The same list again keeps it; another list forgets it.
  await client.listModels();
  assert.equal(client.learntSurface(CODEX), 'responses');
  const before = sim().config.models;
  sim().config.models = before.filter((m) => m.id !== 'dall-e-3');
  try {
    await client.listModels();
  } finally {
    sim().config.models = before;
  }
  assert.equal(client.learntSurface(CODEX), undefined);
  assert.deepEqual(
    heard,
    [undefined, 'responses', undefined],
    'each list read is heard once the client has taken it: a changed list has already forgotten what was learnt',
  );
  sim().log.length = 0;
  await client.chat(ask);
  assert.deepEqual(paths(), ['/v1/chat/completions 404', '/v1/responses 200'], 'learnt again, from one refusal');
});

test('over HTTP: a model that answers on chat completions never moves, and a refusal for another reason is thrown as it is', async () => {
  const { client } = makeClient(sim());
  const r = await client.chat({
    surface: 'compatible',
    model: 'gpt-4o-mini',
    messages: [{ role: 'user', content: 'hi' }],
  });
  assert.equal(r.surfaceMove, undefined);
  const e = await thrown(() =>
    client.chat({ surface: 'compatible', model: 'no-such-model', messages: [{ role: 'user', content: 'hi' }] }),
  );
  assert.ok(e instanceof GatewayError);
  assert.ok(!sim().log.some((x) => x.path === '/v1/responses'), 'nothing went to /v1/responses');
  assert.equal(client.learntSurfaces().length, 0);
});

test('over HTTP through chatStreamAcross (VS Code chat, the chat panel): the move happens inside the gateway, no failover', async () => {
  const listed: string[] = [];
  const set = new GatewaySet([{ id: 'g1', name: 'One', baseUrl: sim().url }], {
    token: () => sim().tokens.production,
    sleep: async () => {},
    onModelsListed: (id, models) => listed.push(`${id}: ${models.length > 0}`),
  });
  const events = await collect(
    chatStreamAcross(set, [{ gateway: 'g1', model: CODEX }], {
      surface: 'compatible',
      messages: [{ role: 'user', content: 'hi' }],
    }),
  );
  assert.ok(!events.some((e) => e.type === 'failover'));
  const done = events.at(-1);
  assert.equal(done?.type, 'done');
  if (done?.type === 'done') {
    assert.equal(done.result.surfaceMove?.to, 'responses');
    assert.equal(done.result.gateway?.id, 'g1');
  }
  assert.equal(set.get('g1')?.learntSurface(CODEX), 'responses');
  assert.deepEqual(paths(), ['/v1/chat/completions 404', '/v1/responses 200']);
  assert.deepEqual(listed, [], 'a chat is no list read');
  await set.get('g1')?.listModels();
  assert.deepEqual(listed, ['g1: true'], "a set's list read is heard with its gateway's id");
});
