/**
 * HTTP Archive recording of the transport (src/gateway/http/har.ts) over real HTTP against the
 * simulator: a HAR 1.2 document with real timings, credentials planted in headers, the query, the URL
 * and the bodies never written, bodies only when asked and bounded, and a stream that reaches the
 * caller as it comes while it is recorded.
 */
import { test, before, after, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulator, type Simulator } from '../sim/server';
import { collect, makeClient } from './helpers';
import {
  HarEntryBuilder,
  Transport,
  harLog,
  observeHttp,
  redactUrl,
  type ChatEvent,
  type ChatResult,
  type HarOptions,
} from '../../src/gateway';
import { assertHar12 } from './harSchema';

let sim: Simulator;
before(async () => {
  sim = await startSimulator({ profile: 'real' });
});
after(() => sim.close());
beforeEach(() => sim.reset());

/** A recorder for the test: every exchange while it is on. */
function record(o: HarOptions) {
  const builders: HarEntryBuilder[] = [];
  const stop = observeHttp({
    begin: (facts) => {
      const b = new HarEntryBuilder(facts, o);
      builders.push(b);
      return b;
    },
  });
  stops.push(stop);
  return {
    builders,
    har: () =>
      harLog(
        builders.map((b) => b.entry()),
        { name: 'test', version: '0' },
      ),
  };
}
const stops: Array<() => void> = [];
afterEach(() => stops.splice(0).forEach((s) => s()));

/** Every form of the token a careless archive could hold. */
function assertNoToken(text: string, token: string) {
  assert.ok(!text.includes(token), 'the token appears in the archive');
  assert.ok(!text.includes(token.replace(/^sk-/, '')), 'the bare token appears in the archive');
  assert.ok(!text.includes(encodeURIComponent(token)), 'the URL-encoded token appears in the archive');
}

test('a chat on each surface: HAR 1.2 with headers, timings and sizes; the auth headers masked; no bodies by default', async () => {
  const rec = record({ includeBodies: false, maxBodyBytes: 64 * 1024 });
  const { client } = makeClient(sim);
  const token = sim.tokens.production;
  await client.chat({
    surface: 'compatible',
    model: 'gpt-4o-mini',
    messages: [{ role: 'user', content: `hi ${token}` }],
  });
  await client.chat({ surface: 'native', model: 'claude-sonnet-4-5', messages: [{ role: 'user', content: 'hi' }] });
  const har = assertHar12(JSON.parse(JSON.stringify(rec.har())));
  assert.equal(har.log.entries.length, 2);
  const [compat, native] = har.log.entries;
  assert.equal(compat.request.method, 'POST');
  assert.equal(compat.request.url, `${sim.url}/v1/chat/completions`);
  assert.equal(compat.response.status, 200);
  assert.equal(compat.response.content.mimeType.split(';')[0], 'application/json');
  assert.ok(compat.response.content.size > 0 && compat.response.bodySize === compat.response.content.size);
  assert.ok(compat.request.bodySize > 0);
  assert.equal(compat.request.postData?.text, '', 'no body unless asked');
  assert.equal(compat.response.content.text, undefined);
  const auth = compat.request.headers.find((h) => h.name === 'authorization')?.value;
  assert.equal(auth, `Bearer ${token.slice(0, 6)}...${token.slice(-4)}`);
  assert.equal(
    native.request.headers.find((h) => h.name === 'x-api-key')?.value,
    `${token.slice(0, 6)}...${token.slice(-4)}`,
  );
  assert.ok(compat.response.headers.some((h) => h.name.toLowerCase() === 'x-oneapi-request-id'));
  assert.ok(Date.parse(compat.startedDateTime) <= Date.parse(native.startedDateTime));
  assert.ok(compat.timings.wait > 0);
  assertNoToken(JSON.stringify(har), token);
});

test('tokens planted in every header, the query, the URL and the bodies never appear; bodies kept when asked', async () => {
  const rec = record({ includeBodies: true, maxBodyBytes: 64 * 1024 });
  const token = sim.tokens.production;
  const { client } = makeClient(sim, {
    extraHeaders: {
      'x-goog-api-key': token,
      'api-key': token,
      cookie: `session=${token}; theme=dark`,
      'x-custom-trace': `trace ${token}`,
      'cf-access-client-secret': 'a-second-credential-9f8e7d6c',
    },
  });
  const reply = await client.chat({
    surface: 'compatible',
    model: 'gpt-4o-mini',
    messages: [{ role: 'user', content: `my key is ${token} and {"api_key":"${token}"}` }],
  });
  assert.match(reply.text, /my key is/, 'the echo carries the token back in the response body');
  // new-api's older usage-log auth: the token in the query (a path as the usage-log reader sends it)
  const transport = new Transport({ baseUrl: sim.url, token: () => token });
  await transport
    .json({
      method: 'GET',
      path: `/api/log/token?key=${encodeURIComponent(token)}&p=1`,
      surface: 'compatible',
      capability: 'account',
      timeoutMs: 5000,
      noRetry: true,
    })
    .catch(() => undefined);
  // a password in the base URL
  const creds = new Transport({ baseUrl: sim.url.replace('://', `://relay:${token}@`), token: () => token });
  await creds
    .json({
      method: 'GET',
      path: '/v1/models',
      surface: 'compatible',
      capability: 'models',
      timeoutMs: 5000,
      noRetry: true,
    })
    .catch(() => undefined);
  const har = assertHar12(JSON.parse(JSON.stringify(rec.har())));
  const text = JSON.stringify(har);
  assertNoToken(text, token);
  const [chat, log, models] = har.log.entries;
  const header = (n: string) => chat.request.headers.find((h) => h.name === n)?.value;
  const masked = `${token.slice(0, 6)}...${token.slice(-4)}`;
  assert.equal(header('x-goog-api-key'), masked);
  assert.equal(header('api-key'), masked);
  assert.equal(header('cookie'), `session=${masked}; theme=...`, 'every cookie value masked');
  assert.equal(header('x-custom-trace'), `trace ${masked}`);
  assert.equal(header('cf-access-client-secret'), 'a-seco...7d6c', 'a header named as a credential');
  assert.equal(header('content-type'), 'application/json');
  assert.match(chat.request.postData?.text ?? '', /my key is sk-\w+\.\.\.\w{4} and/);
  assert.match(chat.response.content.text ?? '', /Echo: my key is/);
  assert.deepEqual(
    log.request.queryString.find((q) => q.name === 'key'),
    { name: 'key', value: masked },
  );
  assert.ok(log.request.url.includes('p=1'));
  // (the endpoint rules drop a base URL's credentials before anything is sent; a URL that keeps them —
  // a redirect's Location, a link in a body — is masked by redactUrl)
  assert.equal(models.request.url, `${sim.url}/v1/models`);
  assert.equal(
    redactUrl(`https://relay:${token}@gw.example.com/v1/x?key=${token}&q=1`, [token]),
    `https://***@gw.example.com/v1/x?key=${encodeURIComponent(masked)}&q=1`,
  );
  assert.equal(redactUrl(`https://${token}@gw.example.com/`, []), 'https://***@gw.example.com/');
});

test('each body is bounded: the first bytes kept, the rest counted and said', async () => {
  const rec = record({ includeBodies: true, maxBodyBytes: 200 });
  const { client } = makeClient(sim);
  const long = 'word '.repeat(400);
  await client.chat({ surface: 'compatible', model: 'gpt-4o-mini', messages: [{ role: 'user', content: long }] });
  const [e] = assertHar12(JSON.parse(JSON.stringify(rec.har()))).log.entries;
  assert.ok(Buffer.byteLength(e.request.postData?.text ?? '') <= 200);
  assert.match(e.request.postData?.comment ?? '', /^first 200 of \d+ bytes$/);
  assert.ok(Buffer.byteLength(e.response.content.text ?? '') <= 200);
  assert.ok(e.response.content.size > 2000, 'the size is the whole body');
  assert.match(e.response.content.comment ?? '', /^first 200 of \d+ bytes$/);
});

test('a token the bound would cut in two is masked before the cut: no part of it is left', async () => {
  const token = sim.tokens.production;
  for (const cut of [4, 10, 20]) {
    const rec = record({ includeBodies: true, maxBodyBytes: 300 });
    const { client } = makeClient(sim);
    // The request body starts `{"model":"gpt-4o-mini","messages":[{"role":"user","content":"` (63 bytes) and
    // the reply `Echo: ` inside the response's JSON: pad so that the bound falls `cut` bytes into the token.
    const head = JSON.stringify({ model: 'gpt-4o-mini', stream: false, messages: [{ role: 'user', content: '' }] });
    const pad = 'x'.repeat(300 - (head.indexOf('"content":"') + 11) - cut);
    await client.chat({
      surface: 'compatible',
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: `${pad}${token} tail` }],
    });
    const [e] = assertHar12(JSON.parse(JSON.stringify(rec.har()))).log.entries;
    const body = e.request.postData?.text ?? '';
    for (const text of [body, e.response.content.text ?? ''])
      for (let n = 7; n <= token.length; n++)
        assert.ok(!text.includes(token.slice(0, n)), `${n} characters of the token: ${text.slice(-40)}`);
    stops.splice(0).forEach((s) => s());
  }
});

test('a stream recorded: its text in the archive, and it still reaches the caller delta by delta', async () => {
  const rec = record({ includeBodies: true, maxBodyBytes: 64 * 1024 });
  const { client } = makeClient(sim);
  sim.fault({ kind: 'slowChunks', ms: 60 });
  const started = performance.now();
  const arrivals: number[] = [];
  const events: ChatEvent[] = [];
  for await (const e of client.chatStream({
    surface: 'compatible',
    model: 'gpt-4o-mini',
    messages: [{ role: 'user', content: 'one two three four five six' }],
  })) {
    events.push(e);
    if (e.type === 'text') arrivals.push(performance.now() - started);
  }
  const done = events.at(-1) as { type: 'done'; result: ChatResult };
  assert.equal(done.result.buffered, false, 'the stream was not held back into one burst');
  assert.ok(arrivals.length > 3);
  assert.ok(arrivals.at(-1)! - arrivals[0] > 150, `the deltas came over time: ${arrivals.map(Math.round).join(', ')}`);
  const [e] = assertHar12(JSON.parse(JSON.stringify(rec.har()))).log.entries;
  assert.match(e.response.content.mimeType, /^text\/event-stream/);
  assert.match(e.response.content.text ?? '', /^data: \{/m);
  assert.match(e.response.content.text ?? '', /data: \[DONE\]/);
  assert.ok(e.timings.receive > 150, `receive ${e.timings.receive} ms: the body's time`);
});

test('a failed request is an entry with status 0 and its error; nothing is recorded once the observer is gone', async () => {
  const rec = record({ includeBodies: false, maxBodyBytes: 1024 });
  const { client } = makeClient(sim, { retry: { maxRetries: 0 } });
  sim.fault({ kind: 'reset' });
  await client
    .chat({ surface: 'compatible', model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x' }] })
    .catch(() => undefined);
  stops.splice(0).forEach((s) => s());
  sim.clearFaults();
  await client.chat({ surface: 'compatible', model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'y' }] });
  const har = assertHar12(JSON.parse(JSON.stringify(rec.har())));
  assert.equal(har.log.entries.length, 1);
  assert.equal(har.log.entries[0].response.status, 0);
  assert.ok(har.log.entries[0].response._error);
  assert.ok(rec.builders[0].done);
});

test('an exchange still in flight when the archive is taken says so', async () => {
  const rec = record({ includeBodies: false, maxBodyBytes: 1024 });
  const { client } = makeClient(sim);
  sim.fault({ kind: 'slowChunks', ms: 50 });
  const it = client
    .chatStream({ surface: 'compatible', model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'a b c d e f' }] })
    [Symbol.asyncIterator]();
  await it.next();
  const [e] = assertHar12(JSON.parse(JSON.stringify(rec.har()))).log.entries;
  assert.match(e.response._error ?? '', /in flight/);
  await collect({ [Symbol.asyncIterator]: () => it });
});

test('an image edit: the form fields kept (when asked), its file named with type and size but never its bytes; a 429 is an entry with its status', async () => {
  const rec = record({ includeBodies: true, maxBodyBytes: 64 * 1024 });
  const { client } = makeClient(sim, { retry: { maxRetries: 0 } });
  const src = (await client.generateImage({ model: 'gpt-image-1', prompt: 'source' })).images[0].bytes;
  const file = join(mkdtempSync(join(tmpdir(), 'har-')), 'source.png');
  writeFileSync(file, src);
  await client.editImage({ model: 'gpt-image-1', prompt: `make it blue ${sim.tokens.production}`, imagePath: file });
  sim.fault({ kind: 'status', status: 429, body: 'empty' });
  await client.listModels().catch(() => undefined);
  const har = assertHar12(JSON.parse(JSON.stringify(rec.har())));
  assertNoToken(JSON.stringify(har), sim.tokens.production);
  const edit = har.log.entries.find((e) => e.request.url.endsWith('/v1/images/edits'))!;
  assert.match(edit.request.postData?.mimeType ?? '', /^multipart\/form-data/);
  const params = edit.request.postData?.params ?? [];
  assert.match(params.find((p) => p.name === 'prompt')?.value ?? '', /^make it blue sk-\w+\.\.\.\w{4}$/);
  const image = params.find((p) => p.fileName !== undefined);
  assert.equal(image?.contentType, 'image/png');
  assert.equal(image?.value, undefined, 'never the file itself');
  assert.equal(image?.comment, `${src.length} bytes, not recorded`);
  const limited = har.log.entries.at(-1)!;
  assert.equal(limited.response.status, 429);
  assert.equal(limited.response.content.size, 0);
});
