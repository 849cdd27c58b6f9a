/** ChatSession against the gateway simulator: streaming on both surfaces, stop, regenerate, fallback, buffering. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Simulator } from '../sim/server';
import { makeClient } from '../gateway/helpers';
import { ChatSession, type ChatBackend, type SessionEvent } from '../../src/host/chat/session';
import { MAX_HISTORY_CHARS, toChatMessages, userContent } from '../../src/host/chat/history';
import { restoreEntries } from '../../src/host/chat/chatStore';
import type { ChatEntry } from '../../src/shared/chatProtocol';
import type { ChatRequest, RequestRecord } from '../../src/gateway';
import { useBothProfiles } from '../sim/profiles';
import { imageFiles, modelOf, opts, T, useSimulator } from './helpers';

const simulator = useSimulator();

interface Rig {
  session: ChatSession;
  events: SessionEvent[];
  requests: ChatRequest[];
  records: RequestRecord[];
  bufferNotices: number;
}

function rig(
  o: {
    streaming?: boolean | (() => boolean);
    baseUrl?: string;
    entries?: ChatEntry[];
    bufferNoticeShown?: boolean;
  } = {},
): Rig {
  const { client, records } = makeClient(simulator(), o.baseUrl ? { baseUrl: o.baseUrl } : {});
  const requests: ChatRequest[] = [];
  // Records what the session asks the core for; the core does the rest.
  const backend: ChatBackend = {
    chat: (req) => {
      requests.push(req);
      return client.chat(req);
    },
    chatStream: (req) => {
      requests.push(req);
      return client.chatStream(req);
    },
  };
  const events: SessionEvent[] = [];
  const r: Rig = { session: undefined as unknown as ChatSession, events, requests, records, bufferNotices: 0 };
  const streaming = o.streaming ?? true;
  r.session = new ChatSession({
    images: imageFiles(),
    backend,
    streaming: typeof streaming === 'function' ? streaming : () => streaming,
    entries: o.entries,
    bufferNoticeShown: o.bufferNoticeShown,
    onBufferNotice: () => r.bufferNotices++,
    listener: (e) => events.push(e),
  });
  return r;
}

const deltas = (r: Rig) =>
  r.events.filter((e): e is Extract<SessionEvent, { type: 'entryDelta' }> => e.type === 'entryDelta');

for (const surface of ['compatible', 'native'] as const) {
  test(`${surface}: a streamed reply arrives in deltas, with usage`, T, async () => {
    const r = rig();
    const entry = (await r.session.send('hello relay world', opts(surface, { system: 'You are terse.' })))!;
    assert.equal(entry.status, 'done');
    assert.equal(entry.text, 'Echo: hello relay world');
    assert.ok(deltas(r).length > 1, 'several deltas');
    assert.equal(
      deltas(r)
        .map((d) => d.text)
        .join(''),
      entry.text,
    );
    assert.ok(entry.usage?.inputTokens && entry.usage.outputTokens, 'usage reported');
    assert.equal(entry.surface, surface);
    assert.equal(entry.model, modelOf(surface));
    const req = r.requests[0];
    assert.equal(req.surface, surface);
    assert.equal(req.maxTokens, 512, 'max tokens always sent');
    assert.equal(req.system, 'You are terse.');
    assert.equal(simulator().log.at(-1)!.path, surface === 'native' ? '/v1/messages' : '/v1/chat/completions');
    assert.equal(r.session.busy, false);
    assert.deepEqual(
      r.events.filter((e) => e.type === 'busy').map((e) => (e as { busy: boolean }).busy),
      [true, false],
    );
  });

  test(`${surface}: Stop keeps the partial reply, marks it stopped and closes the connection early`, T, async () => {
    const r = rig();
    simulator().fault({ kind: 'slowChunks', ms: 80 });
    const words = 'a b c d e f g h i j k l m n o p q r s t';
    let seen = 0;
    r.events.length = 0;
    const listenerEvents = r.events;
    const started = Date.now();
    const pending = r.session.send(words, opts(surface));
    // Stop after the second delta.
    await new Promise<void>((resolve, reject) => {
      const timer = setInterval(() => {
        seen = listenerEvents.filter((e) => e.type === 'entryDelta').length;
        if (seen >= 2) {
          clearInterval(timer);
          r.session.stop();
          resolve();
        } else if (Date.now() - started > 10_000) {
          clearInterval(timer);
          reject(new Error('no deltas'));
        }
      }, 5);
    });
    const entry = (await pending)!;
    const elapsed = Date.now() - started;
    assert.equal(entry.status, 'stopped');
    assert.ok(entry.text.length > 0, 'partial text kept');
    assert.ok(entry.text.length < `Echo: ${words}`.length, 'not the whole reply');
    assert.equal(entry.error, undefined, 'a stop is not an error');
    assert.ok(elapsed < 21 * 80, `stopped early (${elapsed} ms)`);
    assert.equal(r.records.at(-1)!.errorKind, 'aborted', 'the core closed the request');
    // The simulator saw the client go away before the stream ended.
    const rec = simulator().log.at(-1)!;
    for (let i = 0; i < 40 && !rec.closedEarly; i++) await new Promise((res) => setTimeout(res, 25));
    assert.equal(rec.closedEarly, true, 'the simulator log shows the connection closed early');
    // The next request works and carries the partial reply as history.
    simulator().clearFaults();
    const next = (await r.session.send('and now?', opts(surface)))!;
    assert.equal(next.status, 'done');
    const msgs = r.requests.at(-1)!.messages;
    assert.deepEqual(
      msgs.map((m) => m.role),
      ['user', 'assistant', 'user'],
    );
    assert.equal(msgs[1].content, entry.text);
  });

  test(`${surface}: Regenerate replaces the last reply`, T, async () => {
    const r = rig();
    const first = (await r.session.send('one two three', opts(surface)))!;
    const second = (await r.session.regenerate(opts(surface)))!;
    assert.notEqual(second.id, first.id);
    assert.equal(second.status, 'done');
    assert.equal(second.text, first.text);
    assert.deepEqual(
      r.session.entries.map((e) => e.role),
      ['user', 'assistant'],
    );
    assert.ok(r.events.some((e) => e.type === 'entryRemoved' && e.id === first.id));
    assert.deepEqual(
      r.requests.at(-1)!.messages,
      [{ role: 'user', content: 'one two three' }],
      'the question is asked again, without the old reply',
    );
  });

  test(
    `${surface}: a stream that fails outright is not re-sent on its own; the user may ask again without streaming`,
    T,
    async () => {
      const r = rig();
      simulator().fault({ kind: 'truncate', afterEvents: 3, count: 1 });
      const failed = (await r.session.send('one two three four five six', opts(surface)))!;
      assert.equal(failed.status, 'error');
      assert.match(failed.error!.streamFailed!, /broke off before its end marker/);
      assert.deepEqual(
        r.requests.map((q) => q.stream),
        [true],
        'one (billed) call only: nothing was sent again',
      );
      const entry = (await r.session.retryWithoutStreaming(opts(surface)))!;
      assert.equal(entry.status, 'done', JSON.stringify(entry.error));
      assert.equal(entry.text, 'Echo: one two three four five six', 'the complete reply, not the broken partial one');
      assert.ok(entry.notices?.some((n) => n.kind === 'fallback' && /without streaming, as you asked/.test(n.text)));
      assert.deepEqual(
        r.requests.map((q) => q.stream),
        [true, false],
      );
      assert.deepEqual(
        r.session.entries.map((e) => e.role),
        ['user', 'assistant'],
        'the failed reply is replaced',
      );
      assert.ok(entry.usage?.outputTokens);
      assert.equal(
        await r.session.retryWithoutStreaming(opts(surface)),
        undefined,
        'offered only after a failed stream',
      );
    },
  );

  test(
    `${surface}: a proxy's 504 page or a reset after the body was read is sent once; the card says it may have been billed; only the user asks again`,
    T,
    async () => {
      for (const [fault, streaming] of [
        [{ kind: 'proxyPage' }, true],
        [{ kind: 'resetAfterBody' }, false],
      ] as const) {
        simulator().reset();
        const r = rig({ streaming });
        simulator().fault({ ...fault, count: 1 });
        const failed = (await r.session.send('one two three', opts(surface)))!;
        assert.equal(failed.status, 'error');
        assert.match(failed.error!.billing ?? '', /may have reached the gateway and been charged/, fault.kind);
        assert.equal(failed.error!.streamFailed, undefined, 'not a stream that broke: no plain retry');
        assert.equal(simulator().log.length, 1, `${fault.kind}: one request in all`);
        assert.equal(simulator().log[0].answerLost, true);
        // The user's click: the same question once more, and it is answered.
        const again = (await r.session.retryBilled(opts(surface)))!;
        assert.equal(again.status, 'done', JSON.stringify(again.error));
        assert.equal(again.text, 'Echo: one two three');
        assert.equal(simulator().log.length, 2);
        assert.deepEqual(
          r.session.entries.map((e) => e.role),
          ['user', 'assistant'],
          'the failed reply is replaced',
        );
        assert.equal(await r.session.retryBilled(opts(surface)), undefined, 'offered only after such a failure');
      }
    },
  );

  test(
    `${surface}: an error the gateway sends inside the stream (quota, context) keeps its meaning and offers no billed plain retry`,
    T,
    async () => {
      for (const said of [
        { message: 'You exceeded your current quota', errorType: 'insufficient_quota', means: 'forbidden' },
        {
          message: 'prompt is too long: 200001 tokens > 200000 maximum',
          errorType: 'invalid_request_error',
          means: 'bad_request',
        },
      ]) {
        const r = rig();
        const { means, ...words } = said;
        simulator().fault({ kind: 'midStreamError', afterEvents: 2, count: 1, ...words });
        const failed = (await r.session.send('one two three four five six', opts(surface)))!;
        assert.equal(failed.status, 'error');
        assert.equal(failed.error!.kind, means);
        assert.equal(failed.error!.streamFailed, undefined, 'no "Retry Without Streaming (billed again)"');
        assert.equal(await r.session.retryWithoutStreaming(opts(surface)), undefined);
        assert.deepEqual(
          r.requests.map((q) => q.stream),
          [true],
        );
      }
    },
  );

  test(`${surface}: a buffered stream is flagged once, with the offer to turn streaming off`, T, async () => {
    const r = rig();
    simulator().fault({ kind: 'slowChunks', ms: 60 });
    simulator().fault({ kind: 'buffer' });
    const entry = (await r.session.send('one two three four five six', opts(surface)))!;
    assert.equal(entry.status, 'done');
    assert.equal(entry.text, 'Echo: one two three four five six');
    assert.equal(entry.notices?.filter((n) => n.kind === 'buffering').length, 1);
    assert.equal(r.bufferNotices, 1);
    const again = (await r.session.send('seven eight nine ten eleven', opts(surface)))!;
    assert.equal(again.notices?.some((n) => n.kind === 'buffering') ?? false, false, 'told once');
    assert.equal(r.bufferNotices, 1);
    // Already told in this workspace: a new session does not repeat it.
    const later = rig({ bufferNoticeShown: true });
    const third = (await later.session.send('one two three four five six', opts(surface)))!;
    assert.equal(third.notices, undefined);
  });
}

test(
  'a 403 shows an error card with status, cause, fix, masked token and endpoint; no fallback is tried',
  T,
  async () => {
    const r = rig();
    const entry = (await r.session.send('hi', opts('compatible', { model: 'gpt-4o' })))!;
    assert.equal(entry.status, 'error');
    const e = entry.error!;
    assert.equal(e.status, 403);
    assert.equal(e.kind, 'forbidden');
    assert.match(e.cause, /group/i);
    assert.ok(e.fix.length > 10);
    assert.match(e.maskedToken!, /^sk-.{3}\.\.\..{4}$/);
    assert.match(e.url!, /\/v1\/chat\/completions$/);
    assert.equal(r.requests.length, 1, 'a refused model is not retried without streaming');
    assert.ok(!JSON.stringify(r.events).includes(simulator().tokens.production));
    // The failed turn is left out of the next request's history.
    await r.session.send('hello again', opts('compatible'));
    assert.deepEqual(r.requests.at(-1)!.messages, [{ role: 'user', content: 'hi\n\nhello again' }]);
  },
);

test('streaming off: one non-streamed call, the reply arrives whole', T, async () => {
  const r = rig({ streaming: false });
  const entry = (await r.session.send('one two three', opts('native')))!;
  assert.equal(entry.status, 'done');
  assert.equal(entry.text, 'Echo: one two three');
  assert.equal(deltas(r).length, 0);
  assert.equal(r.requests[0].stream, false);
  assert.ok(entry.usage?.inputTokens);
});

test('history: both surfaces get alternating turns; a selection is sent with file name and language', T, async () => {
  const r = rig();
  await r.session.send('first', opts('native'));
  const ctx = { fileName: 'src/app.ts', language: 'typescript', code: 'const x = 1;', startLine: 3, endLine: 3 };
  await r.session.send('what is x?', opts('native'), ctx);
  const msgs = r.requests.at(-1)!.messages;
  assert.deepEqual(
    msgs.map((m) => m.role),
    ['user', 'assistant', 'user'],
  );
  assert.equal(
    msgs[2].content,
    'what is x?\n\nFrom `src/app.ts` (line 3, typescript):\n```typescript\nconst x = 1;\n```',
  );
  assert.deepEqual(r.session.entries.at(-2)!.context, ctx);
});

// ----- pure parts ---------------------------------------------------------------------------

test('restored history never re-sends: a reply that was streaming is marked stopped', () => {
  const entries = restoreEntries(
    [
      { id: 'u', role: 'user', text: 'q', createdAt: 1 },
      {
        id: 'a',
        role: 'assistant',
        text: 'partial',
        createdAt: 2,
        status: 'streaming',
        retry: { attempt: 1, maxRetries: 2 },
      },
      { id: 'bad', role: 'system', text: 'x' },
      'junk',
    ],
    imageFiles(),
  );
  assert.deepEqual(entries, [
    { id: 'u', role: 'user', text: 'q', createdAt: 1 },
    { id: 'a', role: 'assistant', text: 'partial', createdAt: 2, status: 'stopped' },
  ]);
  assert.deepEqual(restoreEntries(undefined, imageFiles()), []);
  let sent = 0;
  const backend: ChatBackend = {
    chat: async () => {
      sent++;
      throw new Error('no');
    },
    chatStream: () => {
      sent++;
      throw new Error('no');
    },
  };
  const s = new ChatSession({
    images: imageFiles(),
    backend,
    entries,
    streaming: () => true,
    listener: () => undefined,
  });
  assert.equal(s.entries.length, 2);
  assert.equal(sent, 0);
});

test('toChatMessages: failed replies left out, same-role turns merged, selection appended', () => {
  const e = (x: Partial<ChatEntry> & Pick<ChatEntry, 'role' | 'text'>): ChatEntry => ({
    id: Math.random().toString(36),
    createdAt: 0,
    ...x,
  });
  assert.deepEqual(
    toChatMessages([
      e({ role: 'user', text: 'a' }),
      e({ role: 'assistant', text: '', status: 'error' }),
      e({ role: 'user', text: 'b' }),
      e({ role: 'assistant', text: 'B', status: 'done' }),
      e({ role: 'user', text: 'c' }),
      e({ role: 'assistant', text: 'half', status: 'stopped' }),
      e({ role: 'user', text: 'd' }),
      e({ role: 'assistant', text: '', status: 'stopped' }),
    ]),
    [
      { role: 'user', content: 'a\n\nb' },
      { role: 'assistant', content: 'B' },
      { role: 'user', content: 'c' },
      { role: 'assistant', content: 'half' },
      { role: 'user', content: 'd' },
    ],
  );
  assert.match(
    userContent(
      e({
        role: 'user',
        text: 'q',
        context: { fileName: 'a.md', language: 'markdown', code: '```x```', startLine: 1, endLine: 4 },
      }),
    ),
    /lines 1-4, markdown\):\n````markdown\n```x```\n````$/,
  );
});

test("retry notice: the core's onRetry shows on the reply until the request ends; late notices are ignored", () => {
  const events: SessionEvent[] = [];
  let release!: () => void;
  let seen: ChatRequest | undefined;
  const backend: ChatBackend = {
    chat: () => new Promise((_, reject) => (release = () => reject(new Error('gave up')))),
    chatStream: (req) => {
      seen = req;
      return {
        [Symbol.asyncIterator]: () => ({
          next: () => new Promise((_, reject) => (release = () => reject(new Error('gave up')))),
        }),
      };
    },
  };
  const s = new ChatSession({ images: imageFiles(), backend, streaming: () => true, listener: (e) => events.push(e) });
  const pending = s.send('hi', opts('compatible'));
  assert.ok(seen?.onRetry, 'the session passes onRetry with the request');
  assert.equal(events.filter((e) => e.type === 'entryUpdated').length, 0);
  const err = (status: number, kind: string) => Object.assign(new Error('x'), { status, kind }) as never;
  seen.onRetry({ attempt: 1, maxRetries: 2, delayMs: 3000, error: err(429, 'rate_limited') });
  seen.onRetry({ attempt: 2, maxRetries: 2, delayMs: 1000, error: err(503, 'server_error') });
  const updates = events.filter((e): e is Extract<SessionEvent, { type: 'entryUpdated' }> => e.type === 'entryUpdated');
  assert.equal(updates.length, 2);
  assert.deepEqual(s.entries.at(-1)!.retry, { attempt: 2, maxRetries: 2, status: 503, errorKind: 'server_error' });
  release();
  return pending.then((entry) => {
    assert.equal(entry!.status, 'error');
    assert.equal(entry!.retry, undefined, 'the retry state ends with the request');
    seen!.onRetry!({ attempt: 1, maxRetries: 2, delayMs: 1, error: err(429, 'rate_limited') });
    assert.equal(entry!.retry, undefined, 'a late notice for a finished request is ignored');
  });
});

for (const profile of ['strict', 'real'] as const) {
  test(
    `${profile}: no retry notice for a model the token's group cannot use (403 / 503 model_not_found): the core never retries it`,
    T,
    async () => {
      const sim = profile === 'strict' ? sims.strict : sims.real;
      const r = rigOn(sim);
      const entry = await r.session.send('hi', opts('compatible', { model: 'gpt-4o' }));
      assert.equal(entry!.status, 'error');
      assert.equal(entry!.error!.kind, 'forbidden');
      if (profile === 'real') assert.equal(entry!.error!.detail, 'model_not_found_503');
      assert.deepEqual(r.retries, [], 'no "retrying" for a request that is not retried');
      assert.equal(r.records.length, 1);
    },
  );
}

test('a 429 with Retry-After shows "retry 1 of 2" with the status, then the reply', T, async () => {
  const r = rigOn(sims.strict);
  sims.strict.fault({ kind: 'status', status: 429, retryAfter: '2', count: 1 });
  const entry = await r.session.send('hi', opts('compatible'));
  assert.deepEqual(r.retries, [{ attempt: 1, maxRetries: 2, status: 429, errorKind: 'rate_limited' }]);
  assert.equal(entry!.status, 'done');
  assert.equal(entry!.retry, undefined);
  assert.deepEqual(
    r.records.map((x) => x.status),
    [429, 200],
  );
});

const sims = useBothProfiles();

/** A session on one of the two-profile simulators, recording request records and each retry notice as shown. */
function rigOn(sim: Simulator) {
  const { client, records } = makeClient(sim);
  const retries: object[] = [];
  const listener = (e: SessionEvent) => {
    if (e.type === 'entryUpdated' && e.entry.retry) retries.push({ ...e.entry.retry });
  };
  const session = new ChatSession({ images: imageFiles(), backend: client, streaming: () => true, listener });
  return { session, retries, records };
}

test('toChatMessages: the newest turns within the history budget go, starting at a question; the last question always', () => {
  const big = 'x'.repeat(MAX_HISTORY_CHARS / 4);
  const entries: ChatEntry[] = [];
  for (let i = 0; i < 6; i++)
    entries.push(
      { id: `u${i}`, role: 'user', text: `q${i}`, createdAt: i },
      { id: `a${i}`, role: 'assistant', text: big, createdAt: i, status: 'done' },
    );
  entries.push({ id: 'last', role: 'user', text: 'the question', createdAt: 9 });
  const msgs = toChatMessages(entries);
  assert.equal(msgs[0].role, 'user');
  assert.equal(msgs[0].content, 'q3', 'the oldest turns that do not fit are left out');
  assert.equal(msgs.at(-1)!.content, 'the question');
  assert.ok(msgs.reduce((n, m) => n + String(m.content).length, 0) <= MAX_HISTORY_CHARS);
  const huge = toChatMessages([{ id: 'h', role: 'user', text: 'y'.repeat(MAX_HISTORY_CHARS + 1), createdAt: 0 }]);
  assert.equal(huge.length, 1, 'a question larger than the budget still goes');
});

test(
  "the chat panel's default: no temperature goes to a Responses-only reasoning model, which the strict simulator (as OpenAI) would refuse",
  T,
  async () => {
    const r = rig();
    const entry = (await r.session.send('one two', opts('responses', { model: 'gpt-5.5-codex', temperature: null })))!;
    assert.equal(entry.status, 'done', entry.error?.message);
    assert.equal(r.requests[0].temperature, undefined);
    assert.equal(entry.notices, undefined, 'nothing to say: nothing was asked');
    assert.deepEqual(
      r.records.map((x) => x.status),
      [200],
    );
  },
);

test('a temperature the model refuses is not sent, and the reply says so once per conversation', T, async () => {
  const r = rig();
  const o = opts('responses', { model: 'gpt-5.5-codex', temperature: 0.7 });
  const first = (await r.session.send('one two', o))!;
  assert.equal(first.status, 'done', first.error?.message);
  assert.deepEqual(
    first.notices?.map((n) => [n.kind, n.text]),
    [['adjusted', 'temperature was not sent: gpt-5.5-codex does not accept it.']],
  );
  const second = (await r.session.send('three four', o))!;
  assert.equal(second.status, 'done');
  assert.equal(second.notices, undefined, 'said once');
  assert.deepEqual(
    r.records.map((x) => x.status),
    [200, 200],
    'never refused: the table knows the family',
  );
});
