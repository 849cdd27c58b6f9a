/**
 * Code completions against the simulator (issue 25): the FIM request's body, the chat way for chat
 * models and its cleanup, the FIM refusal learnt once per gateway and model, the override that wins
 * over the family table, aborts that close the socket at once, and billed failures never re-sent.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GatewayClient, isGatewayError, type CompletionRequest } from '../../src/gateway';
import { useBothProfiles } from '../sim/profiles';
import { makeClient, thrown } from './helpers';

const sims = useBothProfiles();

const FIB: CompletionRequest = {
  model: 'deepseek-chat',
  prefix: 'def fib(a):\n    ',
  suffix: '\n    return fib(a-1) + fib(a-2)',
  languageId: 'python',
  fileName: 'src/fib.py',
};

/** A gateway stand-in that records the bodies it is sent and answers a fixed text_completion. */
async function recordingGateway(answer: (body: Record<string, unknown>) => [number, unknown]) {
  const bodies: Array<{ path: string; body: Record<string, unknown> }> = [];
  const server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (d: Buffer) => chunks.push(d));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
      bodies.push({ path: req.url ?? '', body });
      const [status, json] = answer(body);
      res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(json));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, bodies, close: () => new Promise<void>((r) => server.close(() => r())) };
}

for (const profile of ['strict', 'real'] as const) {
  const sim = () => sims.of(profile);

  test(`${profile}: a FIM model gets prompt + suffix on /v1/completions and its middle, with usage and the request id`, async () => {
    const { client, records } = makeClient(sim());
    const r = await client.complete(FIB);
    assert.equal(r.text, 'return a');
    assert.equal(r.mode, 'fim');
    assert.equal(r.model, 'deepseek-chat');
    assert.ok(r.usage && r.usage.input > 0 && r.usage.output === 2 && !r.usage.estimated);
    const rec = sim().log.at(-1)!;
    assert.equal(rec.path, '/v1/completions');
    assert.equal(r.requestId, rec.requestId);
    assert.equal(records.length, 1);
    assert.equal(records[0].purpose, 'completion', 'the request log tells a completion apart');
    assert.equal(records[0].path, '/v1/completions');
    assert.ok(r.durationMs >= 0);
  });

  test(`${profile}: a chat model is asked the chat way and its answer cleaned`, async () => {
    const s = sim();
    s.config.replyText = '```python\n    return a\n```';
    const { client, records } = makeClient(s);
    const r = await client.complete({ ...FIB, model: 'gpt-4o-mini' });
    assert.equal(r.mode, 'chat');
    assert.equal(r.text, 'return a', 'no fence, no repeated indentation');
    assert.equal(s.log.at(-1)!.path, '/v1/chat/completions');
    assert.equal(s.completionStats().requests, 0, 'no FIM request for a chat family');
    assert.equal(records.at(-1)!.purpose, 'completion');
    s.config.replyText = undefined;
  });
}

test('the FIM body: prompt, suffix, max_tokens, temperature 0, stop at a blank line, not streamed', async () => {
  const gw = await recordingGateway(() => [
    200,
    { id: 'cmpl-1', object: 'text_completion', choices: [{ text: 'return a', index: 0, finish_reason: 'stop' }] },
  ]);
  try {
    const client = new GatewayClient({ baseUrl: gw.url, token: () => 'sk-test-0123456789abcdef' });
    const r = await client.complete({ ...FIB, maxTokens: 64 });
    assert.deepEqual(gw.bodies, [
      {
        path: '/v1/completions',
        body: {
          model: 'deepseek-chat',
          prompt: FIB.prefix,
          suffix: FIB.suffix,
          max_tokens: 64,
          temperature: 0,
          stop: ['\n\n'],
          stream: false,
        },
      },
    ]);
    assert.equal(r.text, 'return a');
    assert.equal(r.usage?.estimated, true, 'no usage in the answer: estimated');
    assert.ok(r.usage!.input > 0 && r.usage!.output > 0);
  } finally {
    await gw.close();
  }
});

test('real: a vLLM coder refuses suffix: the same insertion is asked the chat way once, then chat directly', async () => {
  const s = sims.real;
  s.config.replyText = '    return a';
  const { client } = makeClient(s);
  const model = 'qwen3-coder-30b-a3b-instruct';
  const r = await client.complete({ ...FIB, model });
  assert.equal(r.mode, 'chat');
  assert.equal(r.text, 'return a');
  assert.deepEqual(
    s.log.map((x) => [x.path, x.status]),
    [
      ['/v1/completions', 400],
      ['/v1/chat/completions', 200],
    ],
  );
  assert.deepEqual(client.fimRefusedModels(), [model]);
  await client.complete({ ...FIB, model });
  assert.deepEqual(s.log.at(-1)!.path, '/v1/chat/completions');
  assert.equal(s.completionStats().requests, 1, 'FIM refused once, never asked again');
  s.config.replyText = undefined;
});

test("strict: an override fim:true on a chat model wins over the family; the gateway's 404 is learnt once; another model list forgets it", async () => {
  const s = sims.strict;
  const { client } = makeClient(s);
  const completions = client.completions(() => ({ 'gpt-4o-mini': { fim: true } }));
  assert.equal(completions.modeOf('gpt-4o-mini'), 'fim', 'the override wins over the family');
  await client.listModels();
  const r = await completions.complete({ ...FIB, model: 'gpt-4o-mini' });
  assert.equal(r.mode, 'chat');
  assert.equal(completions.modeOf('gpt-4o-mini'), 'chat');
  assert.equal(s.completionStats().refused, 1);
  s.config.groups.find((g) => g.name === 'default')!.visible.push('dall-e-3-extra');
  s.config.models.push({ id: 'dall-e-3-extra', capabilities: ['image'] });
  await client.listModels();
  assert.equal(completions.modeOf('gpt-4o-mini'), 'fim', 'another model list forgets what was learnt');
  s.config.groups.find((g) => g.name === 'default')!.visible.pop();
  s.config.models.pop();
});

test('strict: an override fim:false sends a FIM family the chat way; a forced mode is never moved', async () => {
  const s = sims.strict;
  const { client } = makeClient(s);
  const r = await client.completions(() => ({ 'deepseek-chat': { fim: false } })).complete(FIB);
  assert.equal(r.mode, 'chat');
  assert.equal(s.completionStats().requests, 0);
  const e = await thrown(() => client.complete({ ...FIB, model: 'gpt-4o-mini', mode: 'fim' }));
  assert.ok(isGatewayError(e));
  assert.equal(e.status, 404);
  assert.deepEqual(client.fimRefusedModels(), [], 'a forced question learns nothing');
});

test('strict: a completion with sendAfter is prepared at once and sent only when released; a failed release sends nothing', async () => {
  const s = sims.strict;
  let tokenReads = 0;
  const { client, records } = makeClient(s, {
    token: () => (tokenReads++, s.tokens.production),
  });
  const logged = s.log.length;
  const gate = () => {
    let open!: () => void;
    let fail!: (e: unknown) => void;
    const p = new Promise<void>((res, rej) => ((open = res), (fail = rej)));
    return { p, open, fail };
  };
  const ways: Array<[string, (req: CompletionRequest) => Promise<unknown>]> = [
    ['fim', (req) => client.complete(req)],
    ['chat', (req) => client.completions(() => ({ 'deepseek-chat': { fim: false } })).complete(req)],
  ];
  for (const [way, ask] of ways) {
    const g = gate();
    const reads = tokenReads;
    const pending = ask({ ...FIB, sendAfter: g.p });
    for (let i = 0; i < 100 && tokenReads === reads; i++) await new Promise((r) => setTimeout(r, 2));
    await new Promise((r) => setTimeout(r, 30));
    assert.ok(tokenReads > reads, `${way}: the token is read while waiting`);
    assert.equal(s.log.length, logged + (way === 'chat' ? 1 : 0), `${way}: nothing on the wire before the release`);
    const released = Date.now();
    g.open();
    const r = (await pending) as { text: string; durationMs: number };
    assert.ok(r.text.length > 0);
    assert.equal(s.log.length, logged + (way === 'chat' ? 2 : 1), `${way}: one request after the release`);
    assert.ok(r.durationMs <= Date.now() - released + 1, `${way}: the exchange is timed from the release`);
  }
  for (const [way, ask] of ways) {
    const g = gate();
    const before = [s.log.length, records.length];
    const pending = ask({ ...FIB, sendAfter: g.p });
    const superseded = new Error('superseded');
    setTimeout(() => g.fail(superseded), 20);
    assert.equal(await thrown(() => pending), superseded, `${way}: rejected with the release's own reason`);
    await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual([s.log.length, records.length], before, `${way}: nothing sent, nothing recorded`);
  }
});

test('real: aborting closes the socket at once: the simulator records the request aborted, nothing billed', async () => {
  const s = sims.real;
  s.config.completions = { latencyMs: 10_000 };
  const { client, records } = makeClient(s);
  const before = s.tokenState('production');
  const controller = new AbortController();
  const started = Date.now();
  const pending = client.complete({ ...FIB, signal: controller.signal });
  setTimeout(() => controller.abort(), 50);
  const e = await thrown(() => pending);
  assert.equal(e.kind, 'aborted');
  for (let i = 0; i < 400 && s.completionStats().aborted === 0; i++) await new Promise((r) => setTimeout(r, 5));
  assert.equal(s.completionStats().aborted, 1);
  assert.ok(Date.now() - started < 3_000, 'the gateway saw the socket close long before its answer');
  assert.equal(s.log.at(-1)!.aborted, true);
  assert.deepEqual(s.tokenState('production'), before, 'not billed');
  assert.equal(records.length, 1);
  assert.equal(records[0].errorKind, 'aborted');
});

test('strict: a 5xx on a completion is never re-sent (it may have been billed), and no chat way is tried', async () => {
  const s = sims.strict;
  s.fault({ kind: 'status', status: 502, body: 'html', path: '/v1/completions' });
  const { client, sleeps } = makeClient(s);
  const e = await thrown(() => client.complete(FIB));
  assert.equal(e.kind, 'server_error');
  assert.equal(e.mayHaveBeenBilled, true);
  assert.equal(s.log.length, 1, 'one request, no retry, no fallback');
  assert.deepEqual(sleeps, []);
  assert.deepEqual(client.fimRefusedModels(), []);
});

test('strict: the chat way is not re-sent on a 5xx either, and the failure names no token', async () => {
  const s = sims.strict;
  s.fault({ kind: 'status', status: 503, body: 'html', path: '/v1/chat/completions' });
  const { client, sleeps } = makeClient(s);
  const e = await thrown(() => client.complete({ ...FIB, model: 'gpt-4o-mini' }));
  assert.equal(e.kind, 'server_error');
  assert.equal(e.mayHaveBeenBilled, true);
  assert.deepEqual(
    s.log.map((r) => r.path),
    ['/v1/chat/completions'],
  );
  assert.deepEqual(sleeps, []);
  const token = s.tokens.production;
  for (const words of [e.message, e.reason, e.fix, JSON.stringify(e)]) assert.ok(!String(words).includes(token));
});

test('real: a wrong token on a completion is classified (401) with the token masked', async () => {
  const s = sims.real;
  const { client } = makeClient(s, { token: () => 'sk-WrongWrongWrongWrongWrongWrong0123456789' });
  const e = await thrown(() => client.complete(FIB));
  assert.equal(e.kind, 'unauthorized');
  assert.ok(!`${e.message} ${e.reason} ${e.fix}`.includes('WrongWrongWrongWrong'));
  assert.equal(e.maskedToken, 'sk-Wro...6789');
});

test('no model, or a bad max tokens: an input error before anything is sent', async () => {
  const s = sims.strict;
  const { client } = makeClient(s);
  const none = await thrown(() => client.complete({ ...FIB, model: ' ' }));
  assert.equal(none.kind, 'bad_request');
  assert.equal(none.notSent, true);
  assert.match(none.fix, /modelRelay\.completions\.model/);
  const bad = await thrown(() => client.complete({ ...FIB, maxTokens: 0 }));
  assert.equal(bad.kind, 'bad_request');
  assert.equal(s.log.length, 0);
});

test('strict: at the very start of a file (empty prefix) a FIM model is asked the chat way, nothing learnt', async () => {
  const s = sims.strict;
  s.config.replyText = 'import os';
  const { client } = makeClient(s);
  const r = await client.complete({ ...FIB, prefix: '', suffix: '\nprint(os.name)\n' });
  assert.equal(r.mode, 'chat');
  assert.equal(r.text, 'import os');
  assert.equal(s.completionStats().requests, 0, 'new-api refuses an empty prompt: not asked');
  assert.deepEqual(client.fimRefusedModels(), []);
  s.config.replyText = undefined;
});

test('real: a new token forgets the refusals learnt with the old one', async () => {
  const s = sims.real;
  s.config.replyText = 'return a';
  let token = s.tokens.production;
  const { client } = makeClient(s, { token: () => token });
  await client.complete({ ...FIB, model: 'qwen3-coder-30b-a3b-instruct' });
  assert.deepEqual(client.fimRefusedModels(), ['qwen3-coder-30b-a3b-instruct']);
  token = s.tokens.test;
  await client.complete({ ...FIB, model: 'gpt-4o-mini' });
  assert.deepEqual(client.fimRefusedModels(), []);
  s.config.replyText = undefined;
});

test('strict: a completion that times out is not re-sent (it may have been billed); the socket is closed', async () => {
  const s = sims.strict;
  s.config.completions = { latencyMs: 10_000 };
  const { client } = makeClient(s, { timeouts: { chatMs: 200 } });
  const e = await thrown(() => client.complete(FIB));
  assert.equal(e.kind, 'timeout');
  assert.equal(e.mayHaveBeenBilled, true);
  for (let i = 0; i < 400 && s.completionStats().aborted === 0; i++) await new Promise((r) => setTimeout(r, 5));
  assert.deepEqual(s.completionStats(), { requests: 1, answered: 0, refused: 0, aborted: 1, fim: 0 });
  assert.equal(s.log.length, 1);
});
