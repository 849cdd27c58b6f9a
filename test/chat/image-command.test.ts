/** `/image <prompt>` in the chat: generated through the core against the simulator, shown inline, kept out of chat history. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startSimulator, type Simulator } from '../sim/server';
import { makeClient } from '../gateway/helpers';
import { ChatSession, type ImageBackend, type SessionEvent } from '../../src/host/chat/session';
import { toChatMessages } from '../../src/host/chat/history';

let sim: Simulator;
before(async () => {
  sim = await startSimulator();
});
after(() => sim.close());

function session(model: string) {
  const { client } = makeClient(sim);
  const events: SessionEvent[] = [];
  const image: ImageBackend = {
    model: () => model,
    generate: async (prompt, signal) => {
      const r = await client.generateImage({ model, prompt, signal });
      const img = r.images[0];
      return {
        dataUrl: `data:${img.mime};base64,${img.bytes.toString('base64')}`,
        savedPath: '.model-relay/images/x.png',
      };
    },
  };
  const s = new ChatSession({ backend: client, streaming: () => true, listener: (e) => events.push(e), image });
  return { s, events };
}

const opts = { surface: 'compatible' as const, model: 'gpt-4o-mini', system: '', temperature: 0.5, maxTokens: 256 };

test('/image renders the generated image inline and notes where it was saved', async () => {
  const { s } = session('gpt-image-1');
  const entry = await s.send('/image a lighthouse at dusk', opts);
  assert.equal(entry?.status, 'done');
  assert.match(entry.text, /^!\[a lighthouse at dusk\]\(data:image\/png;base64,[A-Za-z0-9+/=]+\)/);
  assert.match(entry.text, /Saved to `\.model-relay\/images\/x\.png`/);
  assert.equal(sim.log.at(-1)!.path, '/v1/images/generations');
  await s.send('and now a question', opts);
  const history = toChatMessages(s.entries);
  assert.deepEqual(
    history.map((m) => m.content),
    ['and now a question', 'Echo: and now a question'],
  );
});

test('/image with a chat model shows the capability error card', async () => {
  const { s } = session('gpt-4o-mini');
  const entry = await s.send('/image a cat', opts);
  assert.equal(entry?.status, 'error');
  assert.equal(entry?.error?.status, 400);
  assert.equal(entry?.error?.detail, 'capability_mismatch');
});
