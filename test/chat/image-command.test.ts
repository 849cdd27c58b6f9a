/** `/image <prompt>` in the chat: generated through the core against the simulator, shown inline, kept out of chat history. */
import { imageFiles } from './helpers';
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
      return { bytes: r.images[0].bytes, savedPath: '.model-relay/images/x.png' };
    },
  };
  const files = imageFiles();
  const s = new ChatSession({
    images: files,
    backend: client,
    streaming: () => true,
    listener: (e) => events.push(e),
    image,
  });
  return { s, events, files };
}

const opts = { surface: 'compatible' as const, model: 'gpt-4o-mini', system: '', temperature: 0.5, maxTokens: 256 };

test('/image keeps the generated image as a stored file, out of the text, and notes where it was saved', async () => {
  const { s, files } = session('gpt-image-1');
  const entry = await s.send('/image a lighthouse at dusk', opts);
  assert.equal(entry?.status, 'done');
  assert.equal(entry.text, 'Saved to `.model-relay/images/x.png`.', 'no image data inside the text');
  assert.equal(entry.images?.length, 1);
  const [im] = entry.images!;
  assert.equal(im.mimeType, 'image/png');
  assert.equal(im.data, undefined);
  const stored = await files.read(im.file!);
  assert.ok(
    stored && stored.length === im.bytes && stored.subarray(1, 4).toString() === 'PNG',
    'the file holds the image',
  );
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
