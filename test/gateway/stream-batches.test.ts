/**
 * The streaming hot path handles events a socket chunk at a time (issue 15): the batches a
 * consumer can read (`chatStream(…).batches()`) hold exactly the events one-at-a-time iteration
 * gives, in order; a failure inside a chunk is raised only after the events before it; burst
 * detection from first/last/count is the same as from every arrival; and a surface parses an event
 * the same whether or not it had to be trimmed first.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useSimulator } from '../sim/profiles';
import { makeClient } from './helpers';
import { compatibleSurface, isBurst, nativeSurface, type ChatEvent, type Surface } from '../../src/gateway';
import { chatEventBatches, chatStream } from '../../src/gateway/chat/stream';
import { isBurstSpan } from '../../src/gateway/http/sseStream';
import type { Transport } from '../../src/gateway/http/transport';

const sim = useSimulator();

const model = (s: Surface) => (s === 'native' ? 'claude-sonnet-4-5' : 'gpt-4o-mini');
/** Events without the timing that differs between two calls. */
const comparable = (events: ChatEvent[]) =>
  events.map((e) =>
    e.type === 'done' ? { ...e, result: { ...e.result, durationMs: 0, id: undefined, requestId: undefined } } : e,
  );

for (const surface of ['compatible', 'native'] as const) {
  test(`${surface}: batches() holds the same events, in order, as one at a time`, async () => {
    sim().config.replyText = Array.from({ length: 3000 }, (_, i) => `w${i}`).join(' ');
    try {
      const { client } = makeClient(sim());
      const req = {
        surface,
        model: model(surface),
        maxTokens: 10_000,
        messages: [{ role: 'user' as const, content: 'go' }],
      };
      const single: ChatEvent[] = [];
      for await (const e of client.chatStream(req)) single.push(e);
      const batches: (readonly ChatEvent[])[] = [];
      for await (const b of chatEventBatches(client.chatStream(req))) batches.push(b);
      assert.ok(
        batches.every((b) => b.length > 0),
        'no empty batch',
      );
      assert.ok(
        batches.length < single.length / 10,
        `events arrive many to a batch (${batches.length} batches, ${single.length} events)`,
      );
      assert.deepEqual(comparable(batches.flat()), comparable(single));
      const done = single.at(-1) as Extract<ChatEvent, { type: 'done' }>;
      assert.equal(done.result.text, sim().config.replyText ?? '');
    } finally {
      sim().config.replyText = undefined;
    }
  });
}

test('chatEventBatches on any other event stream: one event per batch', async () => {
  async function* plain(): AsyncGenerator<ChatEvent> {
    yield { type: 'text', text: 'a' };
    yield { type: 'text', text: 'b' };
  }
  const out: (readonly ChatEvent[])[] = [];
  for await (const b of chatEventBatches(plain())) out.push(b);
  assert.deepEqual(out, [[{ type: 'text', text: 'a' }], [{ type: 'text', text: 'b' }]]);
});

/** A transport whose one response is these body chunks (SSE text), recording finish() and abort(). */
function fakeTransport(chunks: string[]) {
  const seen = { finished: [] as unknown[], aborted: 0 };
  const transport = {
    open: async () => ({
      status: 200,
      headers: { 'content-type': 'text/event-stream' },
      body: (async function* () {
        for (const c of chunks) yield Buffer.from(c);
      })(),
      url: 'http://gw/v1/chat/completions',
      host: 'gw',
      requestId: undefined,
      attempt: 1,
      context: { surface: 'compatible' as const, url: 'http://gw/v1/chat/completions' },
      finish: (extra: unknown) => void seen.finished.push(extra),
      abort: () => void seen.aborted++,
      timedOut: () => false,
    }),
  } as unknown as Transport;
  return { transport, seen };
}
const frame = (content: string) =>
  `data: ${JSON.stringify({ id: 'c1', model: 'm', choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;
const errorFrame = `data: ${JSON.stringify({ error: { message: 'upstream overloaded', type: 'server_error' } })}\n\n`;
const settings = { timeoutMs: 5000, idleTimeoutMs: 5000 };
const req = { surface: 'compatible' as const, model: 'm', messages: [{ role: 'user' as const, content: 'x' }] };

test('an error event inside a chunk comes after the text before it, one at a time and in batches', async () => {
  for (const mode of ['single', 'batches'] as const) {
    const { transport } = fakeTransport([frame('one') + frame(' two') + errorFrame + frame(' never')]);
    const texts: string[] = [];
    let error: unknown;
    try {
      const stream = chatStream(transport, req, settings);
      if (mode === 'single') for await (const e of stream) texts.push(e.type === 'text' ? e.text : e.type);
      else for await (const b of stream.batches()) for (const e of b) texts.push(e.type === 'text' ? e.text : e.type);
    } catch (e) {
      error = e;
    }
    assert.deepEqual(texts, ['one', ' two'], mode);
    assert.equal((error as { detail?: string }).detail, 'stream_error_event', mode);
  }
});

test('breaking out of batches() closes the connection; a stream is iterated once, whichever way', async () => {
  const { transport, seen } = fakeTransport([frame('one') + frame(' two'), frame(' three')]);
  const stream = chatStream(transport, req, settings);
  for await (const b of stream.batches()) {
    assert.deepEqual(
      b.map((e) => e.type),
      ['text', 'text'],
    );
    break;
  }
  assert.equal(seen.aborted, 1);
  assert.deepEqual(seen.finished, [{ errorKind: 'aborted' }]);
  assert.throws(() => stream[Symbol.asyncIterator](), /only once/);
  const again = chatStream(transport, req, settings);
  again[Symbol.asyncIterator]();
  assert.throws(() => again.batches()[Symbol.asyncIterator](), /only once/);
});

test('the stream text is every delta joined, across chunks that split events', async () => {
  const whole = frame('al') + frame('pha') + frame(' beta') + 'data: [DONE]\n\n';
  const { transport } = fakeTransport([whole.slice(0, 30), whole.slice(30, 95), whole.slice(95)]);
  const events: ChatEvent[] = [];
  for await (const e of chatStream(transport, req, settings)) events.push(e);
  const done = events.at(-1) as Extract<ChatEvent, { type: 'done' }>;
  assert.equal(done.result.text, 'alpha beta');
  assert.equal(done.result.id, 'c1');
});

test('burst detection from count, first and last arrival is the same as from every arrival', () => {
  const cases: Array<[number[], number]> = [
    [[600, 601, 601, 602, 602], 605],
    [[50, 150, 250, 350, 450], 460],
    [[1, 1, 2, 2, 2], 3],
    [[900, 901], 902],
    [[], 10],
    [[300, 310, 320, 330, 340, 350], 5000],
  ];
  for (const [arrivals, total] of cases) {
    for (const t of [undefined, { minEvents: 0, minWaitMs: 0, spanMs: 5, spanRatio: 0 }]) {
      assert.equal(
        isBurstSpan(arrivals.length, arrivals[0], arrivals[arrivals.length - 1], total, t),
        isBurst(arrivals, total, t),
        JSON.stringify(arrivals),
      );
    }
  }
});

test('an event is parsed the same with or without whitespace around it', () => {
  const native = JSON.stringify({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'hi' } });
  const compat = JSON.stringify({
    id: 'c',
    model: 'm',
    choices: [{ index: 0, delta: { content: 'hi' }, finish_reason: null }],
  });
  for (const pad of ['', ' ', '\u00a0', '\ufeff', '\t\r']) {
    assert.deepEqual(
      nativeSurface.parseEvent({ event: 'content_block_delta', data: `${native}${pad}` }),
      [{ type: 'text', text: 'hi' }],
      JSON.stringify(pad),
    );
    assert.deepEqual(
      nativeSurface.parseEvent({ data: `${pad}${native}` }),
      [{ type: 'text', text: 'hi' }],
      JSON.stringify(pad),
    );
    assert.deepEqual(
      compatibleSurface.parseEvent({ data: `${compat}${pad}` }),
      compatibleSurface.parseEvent({ data: compat }),
      JSON.stringify(pad),
    );
  }
  assert.deepEqual(compatibleSurface.parseEvent({ data: ' [DONE] ' }), [{ type: 'end' }]);
  assert.equal(nativeSurface.parseEvent({ data: '{"type":' })[0].type, 'garbled');
  assert.equal(compatibleSurface.parseEvent({ data: '{"id": ' })[0].type, 'garbled');
});
