/**
 * The simulator's POST /v1/completions, read by the official `openai` SDK (`client.completions.create`,
 * streamed and not): FIM answers, the refusals of chat models, of `suffix` on a vLLM-served coder and of
 * an empty prompt, the latency knob, and a request the client gave up on recorded as aborted.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import type { Simulator } from './server';
import { useBothProfiles } from './profiles';
import { cutMiddle, middleOf } from './completions';

const sims = useBothProfiles();

const openai = (sim: Simulator) =>
  new OpenAI({ baseURL: `${sim.url}/v1`, apiKey: sim.tokens.production, maxRetries: 0, timeout: 10_000 });

const FIB = {
  model: 'deepseek-chat',
  prompt: 'def fib(a):\n    ',
  suffix: '\n    return fib(a-1) + fib(a-2)',
  max_tokens: 128,
  temperature: 0,
  stop: ['\n\n'],
};

test('the middle finishes the line, closes what the suffix does not, and stops where asked', () => {
  assert.equal(middleOf(FIB.prompt, FIB.suffix).split('\n')[0], 'return a');
  assert.equal(middleOf('const total = sum(', ')').split('\n')[0], 'sum', 'the suffix closes the call');
  assert.equal(middleOf('const total = sum(', '').split('\n')[0], 'sum)');
  assert.equal(middleOf('  cons', '').split('\n')[0], 't');
  assert.deepEqual(cutMiddle('a b\n\nc d', ['\n\n'], 10), { text: 'a b', pieces: ['a', ' b'], finishReason: 'stop' });
  assert.equal(cutMiddle('a b c d', [], 2).finishReason, 'length');
  assert.equal(cutMiddle('a b c d', [], 2).text, 'a b');
});

for (const profile of ['strict', 'real'] as const) {
  const sim = () => sims.of(profile);

  test(`${profile}: openai completions.create, FIM not streamed: text_completion with usage`, async () => {
    const r = await openai(sim()).completions.create(FIB);
    assert.equal(r.object, 'text_completion');
    assert.equal(r.choices[0].text, 'return a');
    assert.equal(r.choices[0].finish_reason, 'stop');
    assert.equal(r.choices[0].index, 0);
    assert.ok(r.usage!.prompt_tokens > 0 && r.usage!.completion_tokens === 2);
    const rec = sim().log.at(-1)!;
    assert.equal(rec.path, '/v1/completions');
    assert.equal(rec.status, 200);
    assert.equal(rec.model, 'deepseek-chat');
    if (profile === 'real') {
      assert.ok(rec.requestId && r.id.endsWith(rec.requestId));
      // new-api's usage log: a billed record (type 2) with the tokens, like every relayed request.
      const entry = sim().gatewayLog.at(-1)!;
      assert.equal(entry.type, 2);
      assert.equal(entry.model_name, 'deepseek-chat');
      assert.equal(entry.request_id, rec.requestId);
      assert.deepEqual([entry.prompt_tokens, entry.completion_tokens], [r.usage!.prompt_tokens, 2]);
      assert.ok(entry.quota > 0);
    }
    assert.deepEqual(sim().completionStats(), { requests: 1, answered: 1, refused: 0, aborted: 0, fim: 1 });
  });

  test(`${profile}: openai completions.create streamed: chunks, finish, usage, [DONE]`, async () => {
    const stream = await openai(sim()).completions.create({
      ...FIB,
      stop: undefined,
      max_tokens: 3,
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let finish: string | null = null;
    let usage: unknown;
    for await (const chunk of stream) {
      assert.equal(chunk.object, 'text_completion');
      text += chunk.choices[0]?.text ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
      if (chunk.usage) usage = chunk.usage;
    }
    assert.equal(text, 'return a\n\n    //', 'cut at max_tokens');
    assert.equal(finish, 'length');
    assert.deepEqual((usage as { completion_tokens: number }).completion_tokens, 3);
    assert.equal(sim().log.at(-1)!.stream, true);
  });

  test(`${profile}: a chat model is refused with OpenAI's 404; a vLLM coder refuses suffix; an empty prompt is 400`, async () => {
    const client = openai(sim());
    for (const model of ['gpt-4o-mini', 'claude-sonnet-4-5', 'codestral-latest']) {
      const e = await client.completions.create({ ...FIB, model }).catch((x: unknown) => x);
      assert.ok(e instanceof OpenAI.NotFoundError, `${model}: ${String(e)}`);
      assert.match(e.message, /This is a chat model and not supported in the v1\/completions endpoint/);
    }
    const suffix = await client.completions
      .create({ ...FIB, model: 'qwen3-coder-30b-a3b-instruct' })
      .catch((x: unknown) => x);
    assert.ok(suffix instanceof OpenAI.BadRequestError);
    assert.match(suffix.message, /suffix is not currently supported/);
    const plain = await client.completions.create({ ...FIB, suffix: undefined, model: 'qwen3-coder-30b-a3b-instruct' });
    assert.equal(plain.choices[0].text, 'return a');
    const empty = await client.completions.create({ ...FIB, prompt: '' }).catch((x: unknown) => x);
    assert.ok(empty instanceof OpenAI.BadRequestError);
    assert.match(empty.message, /field prompt is required/);
    const stats = sim().completionStats();
    assert.deepEqual(stats, { requests: 6, answered: 1, refused: 5, aborted: 0, fim: 0 });
  });

  test(`${profile}: the latency knob delays the first byte; a client that gives up is recorded aborted, unbilled`, async () => {
    const s = sim();
    s.config.completions = { latencyMs: 300 };
    const started = Date.now();
    await openai(s).completions.create(FIB);
    assert.ok(Date.now() - started >= 290, 'waited the latency');
    const before = s.tokenState('production');
    s.config.completions = { latencyMs: 5_000 };
    const asked = Date.now();
    const gone = await openai(s)
      .completions.create(FIB, { signal: AbortSignal.timeout(50) })
      .catch((x: unknown) => x);
    assert.ok(gone instanceof Error);
    for (let i = 0; i < 300 && s.completionStats().aborted === 0; i++) await new Promise((r) => setTimeout(r, 10));
    const rec = s.log.at(-1)!;
    assert.equal(rec.aborted, true);
    assert.equal(rec.status, 499);
    assert.ok(Date.now() - asked < 2_500, 'recorded when the socket closed, not after the latency');
    assert.equal(s.completionStats().aborted, 1);
    assert.deepEqual(s.tokenState('production'), before, 'an aborted request is not billed');
    if (profile === 'real') {
      const entry = s.gatewayLog.at(-1)!;
      assert.equal(entry.type, 5, 'an error record, nothing billed');
      assert.equal(entry.quota, 0);
      assert.equal(entry.request_id, rec.requestId);
    }
  });
}

test('a stream the client leaves half-way is recorded aborted (billed: the answer had begun)', async () => {
  const s = sims.real;
  s.fault({ kind: 'slowChunks', ms: 200, path: '/v1/completions' });
  const controller = new AbortController();
  const stream = await openai(s).completions.create(
    { ...FIB, stop: undefined, stream: true },
    { signal: controller.signal },
  );
  let first = '';
  try {
    for await (const chunk of stream) {
      first = chunk.choices[0]?.text ?? '';
      controller.abort();
    }
  } catch {
    /* the SDK reports the abort */
  }
  assert.equal(first, 'return');
  for (let i = 0; i < 100 && s.completionStats().aborted === 0; i++) await new Promise((r) => setTimeout(r, 10));
  const rec = s.log.at(-1)!;
  assert.equal(rec.aborted, true);
  assert.equal(rec.closedEarly, true);
  assert.equal(s.completionStats().aborted, 1);
});
