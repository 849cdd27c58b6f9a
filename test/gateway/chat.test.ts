import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { startSimulator, type Simulator } from '../sim/server';
import { collect, makeClient, thrown } from './helpers';
import type { ChatEvent, ChatResult, Surface } from '../../src/gateway';

let sim: Simulator;
before(async () => {
  sim = await startSimulator();
});
after(() => sim.close());
beforeEach(() => sim.reset());

const model = (s: Surface) => (s === 'native' ? 'claude-sonnet-4-5' : 'gpt-4o-mini');

for (const surface of ['compatible', 'native'] as const) {
  test(`${surface}: non-stream and stream give the same final text and usage`, async () => {
    const { client, records } = makeClient(sim);
    const req = {
      surface,
      model: model(surface),
      system: 'You are terse.',
      messages: [{ role: 'user' as const, content: 'hello relay world' }],
    };
    const plain = await client.chat(req);
    assert.equal(plain.text, 'Echo: hello relay world');
    assert.ok(plain.usage?.outputTokens && plain.usage.inputTokens);
    assert.ok(plain.finishReason);
    const events = await collect(client.chatStream({ ...req, stream: true }));
    const text = events
      .filter((e): e is Extract<ChatEvent, { type: 'text' }> => e.type === 'text')
      .map((e) => e.text)
      .join('');
    assert.ok(events.filter((e) => e.type === 'text').length > 1, 'the reply arrived in several deltas');
    assert.equal(text, plain.text);
    const done = events.at(-1) as { type: 'done'; result: ChatResult };
    assert.equal(done.type, 'done');
    assert.equal(done.result.text, plain.text);
    assert.deepEqual(done.result.usage, plain.usage);
    assert.equal(done.result.buffered, false);
    assert.equal(records.length, 2);
    assert.deepEqual(
      records.map((r) => r.surface),
      [surface, surface],
    );
    assert.ok(
      records.every(
        (r) =>
          r.status === 200 &&
          r.maskedToken === 'sk-' + sim.tokens.production.slice(3, 6) + '...' + sim.tokens.production.slice(-4),
      ),
    );
  });

  test(`${surface}: auth headers of the surface reach the gateway`, async () => {
    const { client } = makeClient(sim);
    await client.chat({ surface, model: model(surface), messages: [{ role: 'user', content: 'hi' }] });
    const rec = sim.log.at(-1)!;
    assert.equal(rec.status, 200);
    if (surface === 'native') {
      assert.equal(rec.path, '/v1/messages');
      assert.ok(rec.headers['x-api-key'], 'x-api-key sent');
      assert.equal(rec.headers['native-version'], '2023-06-01');
      assert.equal(rec.headers['anthropic-version'], '2023-06-01');
      assert.equal(rec.headers['authorization'], undefined);
    } else {
      assert.equal(rec.path, '/v1/chat/completions');
      assert.match(rec.headers['authorization'], /^Bearer sk-/);
      assert.equal(rec.headers['x-api-key'], undefined);
    }
    assert.equal(rec.headers['content-type'], 'application/json');
  });

  test(`${surface}: max tokens truncates and the finish reason says so`, async () => {
    const { client } = makeClient(sim);
    const r = await client.chat({
      surface,
      model: model(surface),
      maxTokens: 2,
      messages: [{ role: 'user', content: 'one two three four five' }],
    });
    assert.ok(/length|max_tokens/.test(r.finishReason ?? ''), `finish reason ${r.finishReason}`);
  });

  test(`${surface}: an "overloaded" error event inside a 200 stream is a server error with the gateway message, not an interrupted stream`, async () => {
    const { client } = makeClient(sim);
    sim.fault({ kind: 'midStreamError', afterEvents: 2, message: 'upstream overloaded' });
    const seen: string[] = [];
    const err = await thrown(async () => {
      for await (const e of client.chatStream({
        surface,
        model: model(surface),
        messages: [{ role: 'user', content: 'a b c d e f g' }],
      }))
        if (e.type === 'text') seen.push(e.text);
    });
    assert.equal(err.kind, 'server_error');
    assert.equal(err.detail, 'stream_error_event');
    assert.ok(err.gatewayMessage, 'gateway message kept');
    assert.ok(err.reason && err.fix);
  });

  test(`${surface}: a truncated stream (no end marker) is stream_interrupted, not a reply`, async () => {
    const { client } = makeClient(sim);
    sim.fault({ kind: 'truncate', afterEvents: 3 });
    const err = await thrown(() =>
      collect(
        client.chatStream({ surface, model: model(surface), messages: [{ role: 'user', content: 'a b c d e f g h' }] }),
      ),
    );
    assert.equal(err.kind, 'stream_interrupted');
    assert.equal(err.detail, 'stream_truncated');
  });

  test(`${surface}: a connection reset mid-stream is classified, not a hang`, async () => {
    const { client } = makeClient(sim, { retry: { maxRetries: 0 } });
    sim.fault({ kind: 'reset', afterEvents: 3 });
    const err = await thrown(() =>
      collect(
        client.chatStream({ surface, model: model(surface), messages: [{ role: 'user', content: 'a b c d e f g h' }] }),
      ),
    );
    assert.equal(err.kind, 'stream_interrupted');
  });

  test(`${surface}: a buffering proxy is flagged (all events in one burst at the end)`, async () => {
    const { client, records } = makeClient(sim);
    sim.fault({ kind: 'slowChunks', ms: 60 });
    sim.fault({ kind: 'buffer' });
    const events = await collect(
      client.chatStream({
        surface,
        model: model(surface),
        messages: [{ role: 'user', content: 'one two three four five six' }],
      }),
    );
    const done = events.at(-1) as { type: 'done'; result: ChatResult };
    assert.equal(done.result.buffered, true);
    assert.equal(records.at(-1)!.buffered, true);
    sim.clearFaults();
    sim.fault({ kind: 'slowChunks', ms: 60 });
    const flowing = await collect(
      client.chatStream({
        surface,
        model: model(surface),
        messages: [{ role: 'user', content: 'one two three four five six' }],
      }),
    );
    assert.equal((flowing.at(-1) as { type: 'done'; result: ChatResult }).result.buffered, false);
  });

  test(`${surface}: breaking out of the stream closes the connection`, async () => {
    const { client, records } = makeClient(sim);
    sim.fault({ kind: 'slowChunks', ms: 30 });
    let n = 0;
    for await (const e of client.chatStream({
      surface,
      model: model(surface),
      messages: [{ role: 'user', content: 'a b c d e f g h i j k l' }],
    })) {
      if (e.type === 'text' && ++n === 2) break;
    }
    assert.equal(records.at(-1)!.errorKind, 'aborted');
  });

  test(`${surface}: AbortSignal stops a stream with kind aborted`, async () => {
    const { client } = makeClient(sim);
    sim.fault({ kind: 'slowChunks', ms: 40 });
    const ac = new AbortController();
    const err = await thrown(async () => {
      for await (const e of client.chatStream({
        surface,
        model: model(surface),
        signal: ac.signal,
        messages: [{ role: 'user', content: 'a b c d e f g h i j' }],
      })) {
        if (e.type === 'text') ac.abort();
      }
    });
    assert.equal(err.kind, 'aborted');
  });

  test(`${surface}: a stalled stream hits the idle timeout`, async () => {
    const { client } = makeClient(sim, { timeouts: { streamIdleMs: 150 } });
    sim.fault({ kind: 'slowChunks', ms: 600 });
    const err = await thrown(() =>
      collect(client.chatStream({ surface, model: model(surface), messages: [{ role: 'user', content: 'a b c' }] })),
    );
    assert.equal(err.kind, 'stream_interrupted');
    assert.equal(err.detail, 'idle_timeout');
  });
}

test('real profile: an error data line followed by [DONE] is a failure, not a reply', async () => {
  const real = await startSimulator({ profile: 'real' });
  try {
    const { client } = makeClient(real);
    real.fault({ kind: 'midStreamError', afterEvents: 1 });
    const err = await thrown(() =>
      collect(
        client.chatStream({
          surface: 'compatible',
          model: 'gpt-4o-mini',
          messages: [{ role: 'user', content: 'a b c d' }],
        }),
      ),
    );
    assert.equal(err.kind, 'server_error');
    assert.equal(err.detail, 'stream_error_event');
  } finally {
    await real.close();
  }
});

test('a chat stream can be iterated only once', async () => {
  const { client } = makeClient(sim);
  const s = client.chatStream({
    surface: 'compatible',
    model: 'gpt-4o-mini',
    messages: [{ role: 'user', content: 'x' }],
  });
  await collect(s);
  assert.throws(() => s[Symbol.asyncIterator]());
});

test('bad input is a classified error before anything is sent', async () => {
  const { client } = makeClient(sim);
  for (const req of [
    { surface: 'compatible' as const, model: '', messages: [{ role: 'user' as const, content: 'x' }] },
    { surface: 'compatible' as const, model: 'gpt-4o-mini', messages: [] },
    {
      surface: 'native' as const,
      model: 'claude-sonnet-4-5',
      maxTokens: -1,
      messages: [{ role: 'user' as const, content: 'x' }],
    },
    {
      surface: 'compatible' as const,
      model: 'gpt-4o-mini',
      temperature: 9,
      messages: [{ role: 'user' as const, content: 'x' }],
    },
  ]) {
    const err = await thrown(() => client.chat(req));
    assert.equal(err.kind, 'bad_request');
    assert.equal(err.notSent, true);
  }
  assert.equal(sim.log.length, 0);
});

test(
  'keep-alive comments are not activity: a stream of only `: ping` ends with the idle timeout',
  { timeout: 10_000 },
  async () => {
    const sim = await startSimulator();
    try {
      sim.fault({ kind: 'keepAlive', everyMs: 50, afterEvents: 2 });
      const { client } = makeClient(sim, { timeouts: { streamIdleMs: 400 } });
      const started = Date.now();
      const events: string[] = [];
      const e = await thrown(async () => {
        for await (const ev of client.chatStream({
          surface: 'compatible',
          model: 'gpt-4o-mini',
          messages: [{ role: 'user', content: 'hi there friend' }],
        }))
          events.push(ev.type);
      });
      assert.equal(e.kind, 'stream_interrupted');
      assert.equal(e.detail, 'idle_timeout');
      assert.ok(Date.now() - started < 3000, 'ended within a few idle periods, not never');
      assert.ok(events.includes('text'), 'the events before the pings arrived');
    } finally {
      await sim.close();
    }
  },
);

for (const surface of ['compatible', 'native'] as const) {
  test(
    `${surface}: a body dripped one byte at a time ends at the overall deadline, streamed or not`,
    { timeout: 10_000 },
    async () => {
      const sim = await startSimulator();
      try {
        const model = surface === 'native' ? 'claude-sonnet-4-5' : 'gpt-4o-mini';
        const { client } = makeClient(sim, {
          timeouts: { chatOverallMs: 600, streamIdleMs: 60_000 },
          retry: { maxRetries: 0 },
        });
        for (const stream of [true, false]) {
          sim.fault({ kind: 'drip', everyMs: 40, count: 1 });
          const started = Date.now();
          const e = await thrown(async () => {
            if (!stream) return client.chat({ surface, model, messages: [{ role: 'user', content: 'x' }] });
            for await (const _ of client.chatStream({ surface, model, messages: [{ role: 'user', content: 'x' }] }))
              void _;
          });
          assert.equal(e.kind, 'timeout', `stream=${stream}: ${e.kind} ${e.message}`);
          assert.ok(Date.now() - started < 2500, `stream=${stream}: ended at the deadline`);
        }
      } finally {
        await sim.close();
      }
    },
  );
}
