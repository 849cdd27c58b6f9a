/**
 * How an answer ended, in one place (src/gateway/chat/finishReason.ts): the finish reasons of the
 * three surfaces as a table, and what each surface reports over real HTTP for an answer the output
 * budget cut (compatible `finish_reason: "length"`, native `stop_reason: "max_tokens"`, Responses
 * `response.incomplete` with `max_output_tokens`), streamed and not.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { answerEnding, endingWords, type ChatEvent, type Surface } from '../../src/gateway';
import { responsesSurface } from '../../src/gateway/chat/surfaces/responses';
import { startSimulator, type Simulator } from '../sim/server';
import { collect, makeClient } from './helpers';

let sim: Simulator;
before(async () => {
  sim = await startSimulator({ profile: 'strict' });
});
after(() => sim.close());

test('finish reasons of every surface: complete, cut by the budget, stopped by a filter, or other', () => {
  const table: Record<string, ReturnType<typeof answerEnding>> = {
    stop: 'complete',
    end_turn: 'complete',
    stop_sequence: 'complete',
    tool_calls: 'complete',
    tool_use: 'complete',
    function_call: 'complete',
    length: 'budget',
    max_tokens: 'budget',
    MAX_TOKENS: 'budget',
    max_output_tokens: 'budget',
    content_filter: 'filter',
    refusal: 'filter',
    SAFETY: 'filter',
    pause_turn: 'other',
    model_context_window_exceeded: 'other',
    insufficient_system_resource: 'other',
  };
  for (const [reason, ending] of Object.entries(table)) assert.equal(answerEnding(reason), ending, reason);
  assert.equal(answerEnding(undefined), 'complete', 'a gateway that gives none: nothing to say');
  assert.equal(answerEnding(''), 'complete');
  assert.equal(endingWords('stop'), undefined);
  assert.equal(endingWords('length', 64), 'the answer was cut by the output budget (max tokens 64).');
  assert.equal(endingWords('max_tokens'), 'the answer was cut by the output budget (max tokens).');
  assert.equal(endingWords('refusal'), "the answer was stopped by the gateway's content filter.");
  assert.equal(endingWords('pause_turn'), 'the answer did not end normally (finish reason "pause_turn").');
});

const models: Record<Surface, string> = {
  compatible: 'gpt-4o-mini',
  native: 'claude-sonnet-4-5',
  responses: 'gpt-4o-mini',
};

for (const surface of ['compatible', 'native', 'responses'] as const)
  test(`${surface}: an answer the output budget cut ends as 'budget', streamed and not`, async () => {
    sim.config.replyText = Array.from({ length: 40 }, (_, i) => `w${i}`).join(' ');
    try {
      const { client } = makeClient(sim);
      const req = {
        surface,
        model: models[surface],
        maxTokens: 16,
        encryptedReasoning: false,
        messages: [{ role: 'user' as const, content: 'go' }],
      };
      const plain = await client.chat(req);
      assert.equal(answerEnding(plain.finishReason), 'budget', `${surface}: ${plain.finishReason}`);
      const events: ChatEvent[] = await collect(client.chatStream(req));
      const finish = events.find((e) => e.type === 'finish');
      assert.equal(finish?.type === 'finish' && answerEnding(finish.reason), 'budget');
      const done = events.at(-1);
      assert.equal(done?.type === 'done' && answerEnding(done.result.finishReason), 'budget');
      const whole = await client.chat({ ...req, maxTokens: 200 });
      assert.equal(answerEnding(whole.finishReason), 'complete', `${surface}: ${whole.finishReason}`);
    } finally {
      sim.config.replyText = undefined;
    }
  });

test('a Responses answer whose status is neither completed nor incomplete (cancelled, queued…) is not said as complete', () => {
  const reply = (status: string) =>
    responsesSurface.parseReply({
      id: 'resp_1',
      object: 'response',
      status,
      output: [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Hi' }] }],
    });
  const ending = (status: string) => {
    const r = reply(status);
    return r && r !== 'empty' ? answerEnding(r.finishReason) : r;
  };
  assert.equal(ending('completed'), 'complete');
  assert.equal(ending('cancelled'), 'other');
  assert.equal(ending('queued'), 'other');
});
