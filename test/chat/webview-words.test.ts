/**
 * What the webview shows on the host's word: how a reply ended — cut off at max tokens, stopped by a
 * content filter, another finish reason (the core's rule, applied by the host), sizes in the host's units, and images by their file's webview URI (never as base64 in text).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { usageLine } from '../../src/webview/messageView';
import { formatBytes } from '../../src/shared/chatImages';
import type { ChatEntry } from '../../src/shared/chatProtocol';
import { ChatSession, type ChatBackend } from '../../src/host/chat/session';
import { restoreEntries } from '../../src/host/chat/chatStore';
import type { ChatResult } from '../../src/gateway';
import { byteUnits, chatStrings } from '../../src/host/chat/chatWords';
import { useTranslations } from '../../src/gateway/l10n';
import { makeClient } from '../gateway/helpers';
import { harness, models, ORIGIN, reply, snapshot, user } from './webview-harness';
import { imageFiles, opts, T, useSimulator } from './helpers';

const simulator = useSimulator();

test('"cut off at max tokens" is the host\'s word: it marks the entry, the webview only shows it', T, async () => {
  const { client } = makeClient(simulator());
  const done: ChatEntry[] = [];
  const session = new ChatSession({
    backend: { chat: (r) => client.chat(r), chatStream: (r) => client.chatStream(r) },
    images: imageFiles(),
    streaming: () => true,
    listener: (e) => {
      if (e.type === 'entryUpdated' && e.entry.status === 'done') done.push(e.entry);
    },
  });
  await session.send('one two three four five six seven eight nine ten', opts('compatible', { maxTokens: 3 }));
  const cut = done.at(-1)!;
  assert.equal(cut.ending, 'budget', 'a reply that ran out of max tokens is marked by the host');
  const s = chatStrings();
  assert.match(usageLine(cut, s) ?? '', /cut off at max tokens/);
  await session.send('hi', opts('compatible'));
  assert.equal(done.at(-1)!.ending, undefined);
  // The webview does not read finish reasons itself.
  assert.doesNotMatch(usageLine(reply('r', 'x', { finishReason: 'length' }), s) ?? '', /cut off/);
});

/** A backend whose one reply streams `text` and ends with `finishReason` (the simulator has no content filter). */
function endingWith(finishReason: string, text: string): ChatBackend {
  const result = (): ChatResult => ({
    text,
    toolCalls: [],
    reasoning: '',
    thinking: [],
    finishReason,
    usage: { inputTokens: 3, outputTokens: 2 },
    model: 'gpt-4o-mini',
    id: 'r1',
    host: 'h',
    requestId: undefined,
    durationMs: 5,
  });
  return {
    chat: async () => result(),
    chatStream: async function* () {
      yield { type: 'text', text };
      yield { type: 'finish', reason: finishReason };
      yield { type: 'done', result: result() };
    },
  };
}

test('a reply a content filter stopped (or that ended for another reason) says so; a saved chat keeps saying it', async () => {
  const s = chatStrings();
  for (const [reason, ending, words] of [
    ['content_filter', 'filter', /stopped by the gateway's content filter/],
    ['refusal', 'filter', /stopped by the gateway's content filter/],
    ['pause_turn', 'other', /ended with finish reason "pause_turn"/],
  ] as const)
    for (const streaming of [true, false]) {
      const done: ChatEntry[] = [];
      const session = new ChatSession({
        backend: endingWith(reason, 'I cannot'),
        images: imageFiles(),
        streaming: () => streaming,
        listener: (e) => {
          if (e.type === 'entryUpdated' && e.entry.status === 'done') done.push(e.entry);
        },
      });
      await session.send('hi', opts('compatible'));
      const entry = done.at(-1)!;
      assert.equal(entry.ending, ending, `${reason}, streamed: ${streaming}`);
      assert.match(usageLine(entry, s) ?? '', words);
      assert.doesNotMatch(usageLine(entry, s) ?? '', /cut off/);
    }
  // Saved before endings were said (`cutOff`), or tampered with: worked out again from the finish reason.
  const restored = restoreEntries(
    [
      reply('a', 'x', { finishReason: 'length', cutOff: true } as Partial<ChatEntry>),
      reply('b', 'y', { finishReason: 'stop', ending: 'filter' }),
      reply('c', 'z', { finishReason: 42, ending: 'budget' } as unknown as Partial<ChatEntry>),
    ],
    imageFiles(),
  );
  assert.deepEqual(
    restored.map((e) => [e.ending, 'cutOff' in e]),
    [
      ['budget', false],
      [undefined, false],
      [undefined, false],
    ],
  );
});

test('sizes are in the words of the display language (composer, image placeholders, host refusals)', () => {
  assert.equal(formatBytes(512, byteUnits()), '512 bytes');
  assert.equal(formatBytes(2048, byteUnits()), '2 KB');
  assert.equal(formatBytes(4.2 * 1024 * 1024, byteUnits()), '4.2 MB');
  useTranslations({ '{0} bytes': '{0} 字节', 'Image {0} ({1}) is no longer kept': '图像 {0}（{1}）已不再保留' });
  let strings;
  try {
    strings = chatStrings();
    assert.equal(formatBytes(300, byteUnits()), '300 字节');
  } finally {
    useTranslations(undefined);
  }
  const h = harness(undefined, strings);
  h.app.handle({
    type: 'init',
    state: snapshot([{ ...user('u', 'look'), images: [{ mimeType: 'image/png', bytes: 700, name: 'a.png' }] }]),
    models,
  });
  assert.equal(h.q('chat-message-image-missing')!.textContent, '图像 a.png（700 字节）已不再保留');
});

test('entry images show from their webview URI (a generated /image reply too), else their data, else a placeholder', () => {
  const h = harness();
  const src = `${ORIGIN}/storage/chat-images/img-1.png`;
  const generated = reply('a1', '', {
    model: 'gpt-image-1',
    image: { prompt: 'a lighthouse' },
    images: [{ mimeType: 'image/png', src, name: 'img-1.png', bytes: 1_400_000 }],
  });
  const attached: ChatEntry = {
    ...user('u2', 'and this?'),
    images: [
      { mimeType: 'image/png', data: 'iVBORw0KGgo=', bytes: 8, name: 'dot.png' },
      { mimeType: 'image/png', src: 'https://evil.example/x.png', bytes: 8, name: 'remote.png' },
    ],
  };
  h.app.handle({ type: 'init', state: snapshot([user('u1', '/image a lighthouse'), generated, attached]), models });
  const img = (id: string) =>
    Array.from(h.list.querySelectorAll<HTMLImageElement>(`[data-entry-id="${id}"] [data-testid="chat-message-image"]`));
  assert.deepEqual(
    img('a1').map((i) => i.getAttribute('src')),
    [src],
    'the generated image, from its file',
  );
  assert.equal(img('a1')[0].alt, 'img-1.png');
  assert.deepEqual(
    img('u2').map((i) => i.getAttribute('src')),
    ['data:image/png;base64,iVBORw0KGgo='],
  );
  const missing = h.list.querySelectorAll('[data-entry-id="u2"] [data-testid="chat-message-image-missing"]');
  assert.equal(missing.length, 1, 'a URI from outside this webview is not loaded');
  assert.doesNotMatch(h.list.innerHTML, /evil\.example/);
});

test('a /image reply added while it runs shows its image when the finished entry arrives (no reload needed)', () => {
  const h = harness();
  h.app.handle({ type: 'init', state: snapshot([]), models });
  const running = reply('a1', '', { model: 'gpt-image-1', status: 'streaming', image: { prompt: 'a lighthouse' } });
  h.app.handle({ type: 'entryAdded', entry: running });
  h.frame();
  const src = `${ORIGIN}/storage/chat-images/img-1.png`;
  const done: ChatEntry = {
    ...running,
    status: 'done',
    text: 'Saved to `img-1.png`.',
    images: [{ mimeType: 'image/png', src, name: 'img-1.png', bytes: 1_400 }],
  };
  h.app.handle({ type: 'entryUpdated', entry: done });
  h.frame();
  const shown = () =>
    Array.from(h.list.querySelectorAll<HTMLImageElement>('[data-entry-id="a1"] [data-testid="chat-message-image"]'));
  assert.deepEqual(
    shown().map((i) => i.getAttribute('src')),
    [src],
  );
  h.app.handle({ type: 'entryUpdated', entry: { ...done } });
  h.frame();
  assert.equal(shown().length, 1, 'an unchanged update does not add it twice');
  const body = h.list.querySelector('[data-entry-id="a1"] [data-testid="chat-message-body"]')!;
  assert.ok(shown()[0].compareDocumentPosition(body) & 4, 'the image sits above the reply text');
});
