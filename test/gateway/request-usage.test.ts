/**
 * A request record carries the tokens the reply said it used (the Usage view's estimate on gateways
 * without a usage log): a chat's final usage, streamed or not, on both surfaces.
 */
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { startSimulator, type Simulator } from '../sim/server';
import { collect, makeClient } from './helpers';
import { usageOfBody } from '../../src/gateway/requestLog';
import type { ChatResult } from '../../src/gateway';

let sim: Simulator;
before(async () => {
  sim = await startSimulator();
});
after(() => sim.close());
beforeEach(() => sim.reset());

for (const surface of ['compatible', 'native'] as const) {
  test(`${surface}: the request record holds the reply's tokens in and out, streamed or not`, async () => {
    const { client, records } = makeClient(sim);
    const req = {
      surface,
      model: surface === 'native' ? 'claude-sonnet-4-5' : 'gpt-4o-mini',
      messages: [{ role: 'user' as const, content: 'hello relay world' }],
    };
    const plain = await client.chat(req);
    const events = await collect(client.chatStream({ ...req, stream: true }));
    const done = events.at(-1) as { type: 'done'; result: ChatResult };
    const expected = { promptTokens: plain.usage!.inputTokens!, completionTokens: plain.usage!.outputTokens! };
    assert.ok(expected.promptTokens > 0 && expected.completionTokens > 0);
    assert.equal(records.length, 2);
    assert.deepEqual(records[0]!.usage, expected);
    assert.deepEqual(records[1]!.usage, {
      promptTokens: done.result.usage!.inputTokens!,
      completionTokens: done.result.usage!.outputTokens!,
    });
  });
}

test('usageOfBody: OpenAI and input/output shapes; nothing said gives nothing; junk is ignored', () => {
  assert.deepEqual(usageOfBody({ usage: { prompt_tokens: 12, completion_tokens: 3 } }), {
    promptTokens: 12,
    completionTokens: 3,
  });
  assert.deepEqual(usageOfBody({ usage: { input_tokens: 50, output_tokens: 4160 } }), {
    promptTokens: 50,
    completionTokens: 4160,
  });
  assert.deepEqual(usageOfBody({ usage: { input_tokens: 7 } }), { promptTokens: 7, completionTokens: 0 });
  assert.equal(usageOfBody({ data: [] }), undefined);
  assert.equal(usageOfBody({ usage: { prompt_tokens: 'x', completion_tokens: -1 } }), undefined);
  assert.equal(usageOfBody(null), undefined);
});
