/**
 * Images and reasoning in the chat panel, host side: the protocol's image validation, images sent on
 * both surfaces (real HTTP against the simulator), the refusal for a model without image input,
 * images kept in history (and bounded in the saved chat), and reasoning streamed into the entry.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makePng } from '../sim/server';
import { makeClient } from '../gateway/helpers';
import { ChatSession, type ChatBackend, type SessionEvent } from '../../src/host/chat/session';
import {
  boundTranscript,
  MAX_KEPT_IMAGES,
  SENT_IMAGE_TURNS,
  sentImageFiles,
  toChatMessages,
} from '../../src/host/chat/history';
import { checkAttachments } from '../../src/host/chat/attachments';
import { imageCapableModel, modelTraits, type SessionModels } from '../../src/host/chat/modelTraits';
import { restoreEntries } from '../../src/host/chat/chatStore';
import { parseWebviewMessage, type ChatEntry, type ImageAttachment } from '../../src/shared/chatProtocol';
import { base64Bytes, base64Head, MAX_IMAGE_BASE64, MAX_IMAGE_BYTES, sniffImage } from '../../src/shared/chatImages';
import type { ChatRequest, ContentPart } from '../../src/gateway';
import { imageFiles, opts, T, useSimulator } from './helpers';

const simulator = useSimulator();
const png = makePng('chat-panel', 24);
const pngB64 = png.toString('base64');
const image = (extra: Partial<ImageAttachment> = {}): ImageAttachment => ({
  mimeType: 'image/png',
  data: pngB64,
  name: 'shot.png',
  ...extra,
});
const options = opts('compatible');

/** Image input and thinking as the view provider derives them: family table plus overrides. */
function models(
  overrides: Record<string, { imageInput?: boolean; thinkingBudget?: number }> = {},
  listed: string[] = ['deepseek-reasoner', 'gpt-4o-mini', 'claude-sonnet-4-5'],
): SessionModels {
  return { traits: (m) => modelTraits(m, overrides), imageModel: () => imageCapableModel(listed, overrides) };
}

function rig(o: { streaming?: boolean; models?: SessionModels; entries?: ChatEntry[] } = {}) {
  const { client } = makeClient(simulator());
  const requests: ChatRequest[] = [];
  const backend: ChatBackend = {
    chat: (req) => (requests.push(req), client.chat(req)),
    chatStream: (req) => (requests.push(req), client.chatStream(req)),
  };
  const events: SessionEvent[] = [];
  const files = imageFiles();
  const session = new ChatSession({
    images: files,
    backend,
    streaming: () => o.streaming ?? true,
    listener: (e) => events.push(e),
    models: o.models ?? models(),
    entries: o.entries,
  });
  return { session, events, requests, files };
}

const partsOf = (c: string | ContentPart[]): ContentPart[] => (typeof c === 'string' ? [{ type: 'text', text: c }] : c);

// ----- protocol ---------------------------------------------------------------------------------

test('protocol: send carries up to 4 valid images; bad mime, too many, too large, not base64 are refused', () => {
  const ok = {
    type: 'send',
    text: 'what is this?',
    options,
    images: [
      image(),
      image({ mimeType: 'image/jpeg', name: undefined }),
      image({ mimeType: 'image/gif' }),
      image({ mimeType: 'image/webp' }),
    ],
  };
  const parsed = parseWebviewMessage(JSON.parse(JSON.stringify(ok)));
  assert.equal(parsed?.type, 'send');
  assert.equal((parsed as { images: unknown[] }).images.length, 4);
  assert.deepEqual(
    parseWebviewMessage({ type: 'send', text: 'x', options }),
    { type: 'send', text: 'x', options },
    'images are optional',
  );
  const bad: Array<[string, unknown]> = [
    ['svg', [image({ mimeType: 'image/svg+xml' as never })]],
    ['bmp', [image({ mimeType: 'image/bmp' as never })]],
    ['text/html', [image({ mimeType: 'text/html' as never })]],
    ['five images', Array.from({ length: 5 }, () => image())],
    ['too large', [image({ data: 'A'.repeat(MAX_IMAGE_BASE64 + 4) })]],
    ['not base64', [image({ data: 'this is not base64!!' })]],
    ['a data: URL instead of base64', [image({ data: `data:image/png;base64,${pngB64}` })]],
    ['bad padding', [image({ data: 'abc' })]],
    ['empty', [image({ data: '' })]],
    ['no data', [{ mimeType: 'image/png' }]],
    ['long name', [image({ name: 'x'.repeat(261) })]],
    ['not an array', image()],
  ];
  for (const [why, images] of bad)
    assert.equal(parseWebviewMessage({ type: 'send', text: 'x', options, images }), undefined, why);
  // The largest image allowed fits the schema.
  assert.ok(
    parseWebviewMessage({ type: 'send', text: 'x', options, images: [image({ data: 'A'.repeat(MAX_IMAGE_BASE64) })] }),
  );
  assert.equal(MAX_IMAGE_BASE64, Math.ceil(MAX_IMAGE_BYTES / 3) * 4);
});

test('host checks: bytes decide the type, oversize and non-images are refused', () => {
  assert.equal(sniffImage(base64Head(pngB64)), 'image/png');
  assert.equal(base64Bytes(pngB64), png.length);
  const mislabelled = checkAttachments([image({ mimeType: 'image/jpeg' })]);
  assert.ok('images' in mislabelled);
  assert.equal(mislabelled.images[0].mimeType, 'image/png', 'relabelled by its bytes');
  assert.equal(mislabelled.images[0].bytes, png.length);
  const text = checkAttachments([image({ data: Buffer.from('hello world!').toString('base64') })]);
  assert.ok('refused' in text && /"shot.png" is not a PNG, JPEG, GIF or WebP image/.test(text.refused));
  const big = checkAttachments([image({ data: pngB64.slice(0, 12) + 'A'.repeat(MAX_IMAGE_BASE64) })]);
  assert.ok('refused' in big && /at most 5\.0 MB/.test(big.refused));
  assert.ok('refused' in checkAttachments(Array.from({ length: 5 }, () => image())));
});

// ----- sending --------------------------------------------------------------------------------

for (const surface of ['compatible', 'native'] as const) {
  for (const streaming of [true, false]) {
    test(
      `${surface}${streaming ? '' : ' (not streamed)'}: the image goes with the message and the simulator sees it`,
      T,
      async () => {
        const r = rig({ streaming });
        const entry = (await r.session.send('what is this?', opts(surface), undefined, [image()]))!;
        assert.equal(entry.status, 'done', JSON.stringify(entry.error));
        assert.equal(entry.text, `I see 1 image (image/png, ${png.length} bytes). Echo: what is this?`);
        const [im] = r.session.entries[0].images!;
        assert.deepEqual(
          { ...im, file: undefined },
          { mimeType: 'image/png', bytes: png.length, name: 'shot.png', file: undefined },
          'the entry keeps a reference, not the data',
        );
        assert.deepEqual(await r.files.read(im.file!), png, 'the stored file holds the image');
        const sent = partsOf(r.requests[0].messages[0].content);
        assert.deepEqual(
          sent.map((p) => p.type),
          ['image', 'text'],
          'images first, then the text',
        );
        assert.equal(simulator().log.at(-1)!.path, surface === 'native' ? '/v1/messages' : '/v1/chat/completions');
        assert.equal(simulator().log.at(-1)!.status, 200);
      },
    );
  }
}

test('an image alone (no text) is sent', T, async () => {
  const r = rig();
  const entry = (await r.session.send('  ', opts('native'), undefined, [image()]))!;
  assert.equal(entry.status, 'done', JSON.stringify(entry.error));
  assert.match(entry.text, new RegExp(`^I see 1 image \\(image/png, ${png.length} bytes\\)\\.`));
  assert.deepEqual(
    partsOf(r.requests[0].messages[0].content).map((p) => p.type),
    ['image'],
  );
});

test(
  'a model without image input is refused before sending: named, an image-capable one suggested, nothing added',
  T,
  async () => {
    const r = rig();
    const before = simulator().log.length;
    const result = await r.session.send(
      'what is this?',
      opts('compatible', { model: 'deepseek-reasoner' }),
      undefined,
      [image()],
    );
    assert.equal(result, undefined);
    assert.equal(r.session.entries.length, 0, 'nothing added');
    assert.equal(simulator().log.length, before, 'nothing sent');
    const refused = r.events.filter((e) => e.type === 'sendRefused');
    assert.equal(refused.length, 1);
    const message = (refused[0] as { message: string }).message;
    assert.match(message, /^deepseek-reasoner does not accept images/);
    assert.match(message, /such as gpt-4o-mini/);
    assert.match(message, /message and images are kept/);
    assert.deepEqual(
      r.events.map((e) => e.type),
      ['sendRefused'],
    );
    // Without images the same model is fine.
    const plain = (await r.session.send('hello', opts('compatible', { model: 'deepseek-reasoner' })))!;
    assert.equal(plain.status, 'done');
  },
);

test('image input: overrides win over the family; an unknown family is allowed and nothing is said', T, async () => {
  assert.equal(modelTraits('deepseek-reasoner', {}).imageInput, false);
  assert.equal(modelTraits('deepseek-reasoner', { 'deepseek-reasoner': { imageInput: true } }).imageInput, true);
  assert.equal(modelTraits('gpt-4o-mini', { 'gpt-4o-mini': { imageInput: false } }).imageInput, false);
  assert.equal(modelTraits('my-house-model', {}).imageInput, undefined);
  const r = rig({ models: models({ 'deepseek-reasoner': { imageInput: true } }) });
  const entry = (await r.session.send('and this?', opts('compatible', { model: 'deepseek-reasoner' }), undefined, [
    image(),
  ]))!;
  assert.equal(entry.status, 'done');
  assert.match(entry.text, /I see 1 image/);
  const unknown = rig({ models: models() });
  await unknown.session.send('x', opts('compatible', { model: 'my-house-model' }), undefined, [image()]);
  assert.equal(unknown.events.filter((e) => e.type === 'sendRefused').length, 0, 'not refused');
  assert.equal(unknown.session.entries[0].images?.length, 1);
});

// ----- history --------------------------------------------------------------------------------

for (const surface of ['compatible', 'native'] as const) {
  test(`${surface}: later turns send the earlier images again as history`, T, async () => {
    const r = rig();
    await r.session.send('what is this?', opts(surface), undefined, [image()]);
    const second = (await r.session.send('and its colour?', opts(surface)))!;
    assert.equal(second.status, 'done', JSON.stringify(second.error));
    assert.equal(second.text, 'Echo: and its colour?', 'the simulator accepted the history (images in a user turn)');
    const [first, reply, last] = r.requests[1].messages;
    assert.deepEqual(partsOf(first.content)[0], { type: 'image', mimeType: 'image/png', data: pngB64 });
    assert.equal(reply.role, 'assistant');
    assert.equal(last.content, 'and its colour?');
  });
}

test('a model without image input gets notes in place of earlier images', T, async () => {
  const r = rig();
  await r.session.send('what is this?', opts('compatible'), undefined, [image()]);
  const next = (await r.session.send('think about it', opts('compatible', { model: 'deepseek-reasoner' })))!;
  assert.equal(next.status, 'done');
  const first = partsOf(r.requests[1].messages[0].content);
  assert.deepEqual(
    first.map((p) => p.type),
    ['text'],
  );
  assert.match(
    (first[0] as { text: string }).text,
    /\[image \("shot\.png", image\/png\) left out: this model does not accept images\]\n\nwhat is this\?/,
  );
});

const userTurn = (i: number, file?: string, bytes = png.length): ChatEntry => ({
  id: `u${i}`,
  role: 'user',
  text: `turn ${i}`,
  createdAt: i,
  images: [{ mimeType: 'image/png', bytes, name: `p${i}.png`, ...(file ? { file } : {}) }],
});
const replyTo = (i: number): ChatEntry => ({
  id: `a${i}`,
  role: 'assistant',
  text: `reply ${i}`,
  createdAt: i,
  status: 'done',
});

test('a request sends the images of the newest turns only; older ones go as a note, by one rule for live and restored', async () => {
  const files = imageFiles();
  const turns: ChatEntry[] = [];
  for (let i = 0; i < SENT_IMAGE_TURNS + 2; i++) turns.push(userTurn(i, files.add(png, 'image/png')), replyTo(i));
  const sent = sentImageFiles(turns);
  assert.deepEqual(
    turns.filter((e) => e.images?.some((im) => sent.has(im.file!))).map((e) => e.id),
    ['u2', 'u3', 'u4'],
  );
  const data = new Map([...sent].map((f) => [f, pngB64]));
  const history = toChatMessages(turns, { withImages: true, data });
  assert.match(
    JSON.stringify(history[0].content),
    /image \(\\"p0\.png\\", image\/png\) shared earlier; not sent again/,
  );
  assert.equal(partsOf(history.at(-2)!.content)[0].type, 'image');
  // The newest turn's images always go; earlier ones within the byte budget.
  const big = [userTurn(0, 'a'.repeat(16) + '.png', 6e6), replyTo(0), userTurn(1, 'b'.repeat(16) + '.png', 6e6)];
  assert.deepEqual([...sentImageFiles(big)], ['b'.repeat(16) + '.png']);
});

test("the transcript keeps the newest images' files; older ones keep a placeholder and their files are released", () => {
  const turns: ChatEntry[] = [];
  for (let i = 0; i < MAX_KEPT_IMAGES + 2; i++)
    turns.push(userTurn(i, `f${String(i).padStart(10, '0')}.png`), replyTo(i));
  const b = boundTranscript(turns);
  assert.equal(b.entries.length, turns.length, 'no entry dropped');
  assert.deepEqual(b.released, ['f0000000001.png', 'f0000000000.png']);
  assert.deepEqual(
    b.updated.map((e) => e.id),
    ['u1', 'u0'],
  );
  assert.deepEqual(b.entries[0].images, [{ mimeType: 'image/png', bytes: png.length, name: 'p0.png' }]);
  assert.equal(turns[0].images![0].file, 'f0000000000.png', 'the input is not touched');
  // Malformed saved images are dropped, not trusted; a file name this store would not give is not kept.
  const odd = restoreEntries(
    [
      {
        id: 'x',
        role: 'user',
        text: 't',
        createdAt: 1,
        images: [
          { mimeType: 'text/html', bytes: 1 },
          'junk',
          { mimeType: 'image/gif', bytes: 3, file: '../../etc/passwd' },
          { mimeType: 'image/png', bytes: 3, src: 'https://evil.example/x.png' },
        ],
      },
    ],
    imageFiles(),
  );
  assert.deepEqual(odd[0].images, [
    { mimeType: 'image/gif', bytes: 3 },
    { mimeType: 'image/png', bytes: 3 },
  ]);
});

// ----- reasoning ------------------------------------------------------------------------------

test(
  'compatible: deepseek-reasoner streams its reasoning into the entry (entryReasoning), then the answer',
  T,
  async () => {
    const r = rig();
    const entry = (await r.session.send('ponder this', opts('compatible', { model: 'deepseek-reasoner' })))!;
    assert.equal(entry.status, 'done');
    assert.equal(entry.text, 'Echo: ponder this');
    assert.equal(entry.reasoning, 'Let me think about this.');
    assert.ok(entry.reasoningMs !== undefined && entry.reasoningMs >= 0, 'how long it reasoned');
    const pieces = r.events.filter(
      (e): e is Extract<SessionEvent, { type: 'entryReasoning' }> => e.type === 'entryReasoning',
    );
    assert.ok(pieces.length > 1, 'several reasoning deltas');
    assert.equal(pieces.map((p) => p.text).join(''), 'Let me think about this.');
    assert.ok(pieces.every((p) => p.id === entry.id));
    const types = r.events.map((e) => e.type);
    assert.ok(types.lastIndexOf('entryReasoning') < types.indexOf('entryDelta'), 'reasoning before the answer');
    // The answer's start is marked (reasoningMs set) before its first text.
    const marked = r.events.findIndex((e) => e.type === 'entryUpdated' && e.entry.reasoningMs !== undefined);
    assert.ok(marked > types.lastIndexOf('entryReasoning') && marked < types.indexOf('entryDelta'));
    // Reasoning is never sent back as history.
    await r.session.send('and?', opts('compatible', { model: 'deepseek-reasoner' }));
    assert.doesNotMatch(JSON.stringify(r.requests[1].messages), /Let me think/);
  },
);

test('compatible, not streamed: the reasoning comes with the reply', T, async () => {
  const r = rig({ streaming: false });
  const entry = (await r.session.send('ponder', opts('compatible', { model: 'deepseek-reasoner' })))!;
  assert.equal(entry.reasoning, 'Let me think about this.');
  assert.equal(entry.reasoningMs, undefined, 'not measured');
});

test('native: a thinking budget in the overrides turns thinking on; its text streams as reasoning', T, async () => {
  const r = rig({ models: models({ 'claude-sonnet-4-5': { thinkingBudget: 1024 } }) });
  const entry = (await r.session.send('ponder', opts('native')))!;
  assert.equal(entry.status, 'done', JSON.stringify(entry.error));
  assert.deepEqual(r.requests[0].thinking, { budgetTokens: 1024 });
  assert.equal(entry.reasoning, 'Let me think about this.');
  assert.equal(entry.text, 'Echo: ponder');
  assert.ok(r.events.some((e) => e.type === 'entryReasoning'));
  const plain = rig();
  await plain.session.send('ponder', opts('native'));
  assert.equal(plain.requests[0].thinking, undefined, 'off without an override');
  assert.equal(plain.session.entries[1].reasoning, undefined);
});
