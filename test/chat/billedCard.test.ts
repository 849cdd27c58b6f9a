/**
 * A billed call that failed, in the chat (src/host/chat/chatView.ts): an `/image` answered with a 500
 * page after the gateway may have done the work (real HTTP against the simulator's new-api profile, which
 * gives the request id) gets a card with the billing note; once the gateway's usage log is read, the
 * card says "billed …" or "no record", and the saved chat keeps it. A reply that was not billed is never
 * looked up.
 */
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { makeClient } from '../gateway/helpers';
import { startSimulator, type Simulator } from '../sim/server';
import { InMemoryMemento } from '../fakes/state';
import { FakeUsageLog, usageRecord } from '../fakes/usageLog';
import { ChatView } from '../../src/host/chat/chatView';
import { STATE_KEY, type SavedChat } from '../../src/host/chat/chatStore';
import { sessionModels } from '../../src/host/chat/modelTraits';
import { arrivalSource } from '../../src/host/usage/arrivals';
import type { ChatEntry, HostToWebview } from '../../src/shared/chatProtocol';
import { imageFiles, oneGateway, opts, T } from './helpers';

let sim: Simulator;
before(async () => {
  sim = await startSimulator({ profile: 'real' });
});
after(() => sim.close());
beforeEach(() => sim.reset());

const settings = {
  defaultSurface: 'compatible' as const,
  models: { chat: 'gpt-4o-mini', native: 'claude-sonnet-4-5' },
  temperature: 0.5,
  maxTokens: 256,
  stream: true,
};

function rig(logged: (requestId: string) => boolean) {
  const { client, records } = makeClient(sim);
  const usage = new FakeUsageLog([], Date.now, 0);
  const waits: number[] = [];
  const posted: HostToWebview[] = [];
  const state = new InMemoryMemento();
  const view = new ChatView({
    backend: { chat: (req) => client.chat(req), chatStream: (req) => client.chatStream(req) },
    state,
    files: imageFiles(),
    settings: () => settings,
    models: sessionModels({
      overrides: () => ({}),
      list: () => oneGateway([], { compatible: 'gpt-4o-mini', native: '' }),
    }),
    modelList: () => oneGateway([], { compatible: 'gpt-4o-mini', native: '' }),
    image: {
      model: () => 'gpt-image-1',
      generate: async (prompt, signal) => {
        const r = await client.generateImage({ model: 'gpt-image-1', prompt, signal });
        return { bytes: r.images[0]!.bytes };
      },
    },
    arrivals: arrivalSource(() => usage),
    // the gateway writes its record while the chat waits before looking
    sleep: async (ms) => {
      waits.push(ms);
      const id = records.at(-1)?.requestId;
      if (id && logged(id) && !usage.records.length) usage.records.push(usageRecord(id, { model: 'gpt-image-1' }));
    },
    post: (msg) => posted.push(JSON.parse(JSON.stringify(msg)) as HostToWebview),
    src: () => undefined,
  });
  view.webviewReady();
  return { view, posted, usage, waits, records, state };
}

const updates = (posted: HostToWebview[]) =>
  posted.flatMap((m) => (m.type === 'entryUpdated' && m.entry.error ? [m.entry] : []));

async function settle(view: ChatView, posted: HostToWebview[]): Promise<void> {
  const started = Date.now();
  while (!posted.some((m) => m.type === 'busy' && !m.busy)) {
    if (Date.now() - started > 15_000) throw new Error('waited for the reply');
    await new Promise((r) => setTimeout(r, 5));
  }
  await Promise.all(view.billedChecks.values());
}

test(
  'a failed /image that may have been charged: its card says what the gateway billed once the log is read',
  T,
  async () => {
    const r = rig(() => true);
    // a 500 page (not the gateway's own JSON error, which new-api refunds): it may have been billed
    sim.fault({ kind: 'status', status: 500, body: 'html', path: '/v1/images', count: 1 });
    r.view.send('/image a red fox', opts('compatible'));
    await settle(r.view, r.posted);
    const cards = updates(r.posted);
    const first = cards.find((e) => e.error?.arrival)!;
    assert.ok(first.error!.billing, 'the card carries the billing note');
    assert.equal(first.error!.arrival!.state, 'pending', 'the card says it is looking, at once');
    const last: ChatEntry = cards.at(-1)!;
    assert.equal(last.error!.arrival!.state, 'arrived');
    assert.equal(last.error!.arrival!.text, 'The gateway logged this request: billed $0.04 (12 in / 345 out tokens).');
    assert.ok(last.error!.requestId, 'the simulator gave the request id the usage log is matched on');
    assert.equal(r.usage.reads, 1);
    assert.deepEqual(r.waits, [6_000], 'looked once, after the record should exist');
    await new Promise((res) => setTimeout(res, 20)); // the save of the moment
    const saved = r.state.get<SavedChat | undefined>(STATE_KEY, undefined)?.entries as ChatEntry[] | undefined;
    assert.equal(saved?.at(-1)?.error?.arrival?.state, 'arrived', 'the saved chat keeps the answer');
  },
);

test('a failed /image the gateway has no record of says so', T, async () => {
  const r = rig(() => false);
  sim.fault({ kind: 'status', status: 502, body: 'html', path: '/v1/images', count: 1 });
  r.view.send('/image a blue fox', opts('compatible'));
  await settle(r.view, r.posted);
  const last = updates(r.posted).at(-1)!;
  assert.equal(last.error!.arrival!.state, 'no-record');
  assert.equal(
    last.error!.arrival!.text,
    'The gateway has no record of this request: it did not arrive, or was not billed.',
  );
});

test('a failure that was not billed (a chat reply) is never looked up', T, async () => {
  const r = rig(() => true);
  sim.fault({ kind: 'status', status: 400, path: '/v1/chat/completions', count: 1 });
  r.view.send('hello', opts('compatible'));
  await settle(r.view, r.posted);
  const last = updates(r.posted).at(-1)!;
  assert.equal(last.status, 'error');
  assert.equal(last.error!.billing, undefined);
  assert.equal(last.error!.arrival, undefined);
  assert.equal(r.usage.questions, 0);
  assert.equal(r.view.billedChecks.size, 0);
});

test(
  'a chat answered with a proxy’s 504 page: the card says it may have been billed, and why the log cannot tell',
  T,
  async () => {
    const r = rig(() => true);
    sim.fault({ kind: 'proxyPage', path: '/v1/chat/completions', count: 1 });
    r.view.send('hello', opts('compatible'));
    await settle(r.view, r.posted);
    const last = updates(r.posted).at(-1)!;
    assert.equal(last.status, 'error');
    assert.match(last.error!.billing ?? '', /may have reached the gateway and been charged/);
    assert.equal(sim.log.length, 1, 'sent once: no retry, no backup, no fallback');
    // A proxy's page carries no request id of the gateway: the usage log cannot be asked about it, and the card says so.
    assert.equal(last.error!.arrival!.state, 'unknown');
    assert.match(last.error!.arrival!.text, /no request id/);
    assert.equal(r.usage.questions, 0);
  },
);
