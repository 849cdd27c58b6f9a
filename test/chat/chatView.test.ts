/**
 * The chat view's host side (src/host/chat/chatView.ts) over real HTTP against the simulator, with the
 * workspace state in an InMemoryMemento and the images in a temporary folder: what the saved state
 * holds after `/image` replies, what is sent after a reload, when the transcript is saved, old saved
 * chats migrated, and Ask About Selection while a reply streams.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeClient } from '../gateway/helpers';
import { makePng } from '../sim/server';
import { InMemoryMemento } from '../fakes/state';
import { ChatView } from '../../src/host/chat/chatView';
import { STATE_KEY, type SavedChat } from '../../src/host/chat/chatStore';
import { MAX_ENTRIES } from '../../src/host/chat/history';
import { ChatImageFiles } from '../../src/host/chat/imageFiles';
import { sessionModels } from '../../src/host/chat/modelTraits';
import type { ChatBackend } from '../../src/host/chat/session';
import type { ChatRequest } from '../../src/gateway';
import type { ChatEntry, HostToWebview, ImageAttachment, SelectionContext } from '../../src/shared/chatProtocol';
import { imageFiles, oneGateway, opts, T, useSimulator } from './helpers';

const simulator = useSimulator();
const settings = {
  defaultSurface: 'compatible' as const,
  models: { chat: 'gpt-4o-mini', native: 'claude-sonnet-4-5' },
  temperature: 0.5,
  maxTokens: 256,
  stream: true,
};
const options = opts('compatible');

interface Rig {
  view: ChatView;
  posted: HostToWebview[];
  requests: ChatRequest[];
  state: InMemoryMemento;
  files: ChatImageFiles;
}

/** A chat view on the simulator; `from` reuses another rig's state and image folder (a reload). */
function rig(o: { from?: Pick<Rig, 'state' | 'files'>; streamSaveMs?: number; state?: InMemoryMemento } = {}): Rig {
  const { client } = makeClient(simulator());
  const requests: ChatRequest[] = [];
  const backend: ChatBackend = {
    chat: (req) => (requests.push(req), client.chat(req)),
    chatStream: (req) => (requests.push(req), client.chatStream(req)),
  };
  const state = o.from?.state ?? o.state ?? new InMemoryMemento();
  const files = o.from ? new ChatImageFiles(o.from.files.dir) : imageFiles();
  const posted: HostToWebview[] = [];
  const view = new ChatView({
    backend,
    state,
    files,
    settings: () => settings,
    models: sessionModels({
      overrides: () => ({}),
      list: () => oneGateway([], { compatible: 'gpt-4o-mini', native: 'claude-sonnet-4-5' }),
    }),
    modelList: () => oneGateway([], { compatible: 'gpt-4o-mini', native: 'claude-sonnet-4-5' }),
    image: {
      model: () => 'gpt-image-1',
      generate: async (prompt, signal) => {
        const r = await client.generateImage({ model: 'gpt-image-1', prompt, signal });
        return { bytes: r.images[0].bytes, savedPath: `.model-relay/images/${prompt}.png` };
      },
    },
    post: (msg) => posted.push(JSON.parse(JSON.stringify(msg)) as HostToWebview),
    src: (file) => `https://file+.vscode-resource.vscode-cdn.net/chat-images/${file}`,
    streamSaveMs: o.streamSaveMs,
  });
  view.webviewReady();
  return { view, posted, requests, state, files };
}

/** Waits for the reply under way (and any queued one) to end: `busy: false` posted `n` times in all. */
async function replies(r: Rig, n: number): Promise<void> {
  const started = Date.now();
  while (r.posted.filter((m) => m.type === 'busy' && !m.busy).length < n) {
    if (Date.now() - started > 15_000) throw new Error(`waited for ${n} replies`);
    await new Promise((res) => setTimeout(res, 5));
  }
  await new Promise((res) => setTimeout(res, 20)); // the save of the moment
}

const png = makePng('attached', 24);
const attachment: ImageAttachment = { mimeType: 'image/png', data: png.toString('base64'), name: 'shot.png' };
const saved = (r: Pick<Rig, 'state'>) => r.state.get<SavedChat>(STATE_KEY)!;

test(
  'a 200-turn conversation with 20 /image replies saves its images as files: no base64 in the saved state',
  T,
  async () => {
    const r = rig();
    for (let i = 0; i < 20; i++) {
      r.view.send(`/image picture ${i}`, options);
      await replies(r, i + 1);
    }
    const added = r.posted.filter(
      (m): m is Extract<HostToWebview, { type: 'entryUpdated' }> => m.type === 'entryUpdated',
    );
    const last = added.at(-1)!.entry;
    assert.equal(last.text, 'Saved to `.model-relay/images/picture 19.png`.');
    assert.equal(last.images?.length, 1);
    assert.match(
      last.images![0].src!,
      /^https:\/\/file\+\.vscode-resource\.vscode-cdn\.net\/chat-images\/[a-z0-9]+\.png$/,
    );
    assert.equal(last.images![0].data, undefined, 'the webview gets a URI, not the data');
    const stored = await r.files.read(last.images![0].file!);
    assert.equal(stored?.length, last.images![0].bytes);
    const json = JSON.stringify(saved(r));
    assert.doesNotMatch(json, /base64|src/, 'neither data nor webview URIs are saved');
    assert.ok(json.length < 40_000, `20 /image turns: ${json.length} characters saved`);
  },
);

test(
  'the same conversation sends the same request before and after a reload (images and text by one rule)',
  T,
  async () => {
    const r = rig();
    for (let i = 0; i < 5; i++) {
      r.view.send(`what is picture ${i}?`, options, [attachment]);
      await replies(r, i + 1);
    }
    r.view.send('compare them', options);
    await replies(r, 6);
    const live = r.requests.at(-1)!.messages;
    const images = JSON.stringify(live).match(/"type":"image"/g)?.length;
    assert.equal(images, 3, 'the newest three image turns go, not all five');
    assert.match(JSON.stringify(live), /shared earlier; not sent again/);
    r.view.dispose();
    await r.files.settled();

    const again = rig({ from: r });
    await again.view.restored;
    assert.equal(again.view.entries.length, 12);
    again.view.regenerate(options);
    await replies(again, 1);
    assert.deepEqual(again.requests.at(-1)!.messages, live, 'the reloaded chat sends exactly what the live one did');
    const init = again.posted.find((m) => m.type === 'init')!;
    assert.ok(init.type === 'init' && init.state.entries[0].images![0].src, 'restored images get their src on init');
  },
);

test(
  'the transcript is saved when a reply ends, at most every few seconds while it streams, never per delta',
  T,
  async () => {
    simulator().fault({ kind: 'slowChunks', ms: 60 });
    const r = rig({ streamSaveMs: 10_000 });
    r.view.send('one two three four five six seven eight nine ten eleven twelve thirteen fourteen', options);
    await replies(r, 1);
    const deltas = r.posted.filter((m) => m.type === 'entryDelta').length;
    assert.ok(deltas > 10, `${deltas} deltas`);
    assert.equal(r.state.writes, 2, 'once when the question was added, once when the reply ended');
    assert.equal(saved(r).entries && (saved(r).entries as ChatEntry[])[1].status, 'done');
    // Unchanged options are not written again.
    r.view.setOptions(options);
    await new Promise((res) => setTimeout(res, 20));
    assert.equal(r.state.writes, 2);

    // While a long reply streams, the throttle saves the partial text.
    const t = rig({ streamSaveMs: 300 });
    const started = Date.now();
    t.view.send('a b c d e f g h i j k l m n o p q r s t u v w x y z', options);
    await replies(t, 1);
    const most = 2 + Math.ceil((Date.now() - started) / 300);
    const w = t.state.writes;
    const d = t.posted.filter((m) => m.type === 'entryDelta').length;
    assert.ok(w >= 3 && w <= most, `${w} writes (at most ${most}) for ${d} deltas`);
    assert.ok(w < d / 2, 'far fewer writes than deltas');
  },
);

test(
  'an old saved chat (image data URLs inside the text, attachments as base64) is migrated to files; junk is dropped',
  T,
  async () => {
    const gen = makePng('generated', 32);
    const state = new InMemoryMemento();
    await state.update(STATE_KEY, {
      entries: [
        {
          id: 'u1',
          role: 'user',
          text: 'look',
          createdAt: 1,
          images: [{ mimeType: 'image/png', data: attachment.data, bytes: png.length, name: 'shot.png' }],
        },
        { id: 'a1', role: 'assistant', text: 'I see it.', createdAt: 2, status: 'done' },
        { id: 'u2', role: 'user', text: '/image a cat', createdAt: 3, image: { prompt: 'a cat' } },
        {
          id: 'a2',
          role: 'assistant',
          text: `![a cat](data:image/png;base64,${gen.toString('base64')})\n\nSaved to \`cat.png\`.`,
          createdAt: 4,
          status: 'done',
          image: { prompt: 'a cat', savedPath: 'cat.png' },
        },
        {
          id: 'a3',
          role: 'assistant',
          text: '![x](data:image/png;base64,bm90IGFuIGltYWdl) broken',
          createdAt: 5,
          status: 'done',
        },
        { id: 'bad', role: 'system' },
        42,
      ],
      options,
    });
    state.writes = 0;
    const r = rig({ state });
    await r.view.restored;
    const init = r.posted.find((m) => m.type === 'init');
    assert.ok(init?.type === 'init');
    const [u1, , , a2, a3] = init.state.entries;
    assert.equal(init.state.entries.length, 5);
    assert.equal(a2.text, 'Saved to `cat.png`.');
    assert.equal(a2.images?.[0].bytes, gen.length);
    assert.ok(a2.images?.[0].src && u1.images?.[0].src);
    assert.equal(u1.images?.[0].data, undefined);
    assert.equal(a3.text, 'broken', 'what is not an image is dropped');
    assert.deepEqual(await r.files.read(u1.images![0].file!), png);
    await new Promise((res) => setTimeout(res, 20));
    assert.equal(r.state.writes, 1, 'the migrated chat is written back at once');
    assert.doesNotMatch(JSON.stringify(saved(r)), /base64/);
    // Garbage in the saved state is not a crash.
    for (const junk of [42, 'x', null, { entries: 'x' }, { entries: [null, {}] }, { options: 7 }]) {
      const s = new InMemoryMemento();
      await s.update(STATE_KEY, junk);
      assert.deepEqual(rig({ state: s }).view.entries, []);
    }
  },
);

test('the image folder holds what the transcript names: New Chat and a reload remove the rest', T, async () => {
  const r = rig();
  r.view.send('look', options, [attachment]);
  await replies(r, 1);
  r.view.dispose();
  await r.files.settled();
  const { readdirSync, writeFileSync } = await import('node:fs');
  writeFileSync(`${r.files.dir}/0123456789abcdef.png`, png); // left by a crash
  const again = rig({ from: r });
  await again.view.restored;
  assert.equal(readdirSync(r.files.dir).length, 1, 'the stray file is removed, the named one kept');
  again.view.newChat();
  await again.files.settled();
  await new Promise((res) => setTimeout(res, 20));
  assert.deepEqual(readdirSync(r.files.dir), []);
});

test(
  `the live list is bounded like the saved one: past ${MAX_ENTRIES} entries the oldest go, in the view too`,
  T,
  async () => {
    const state = new InMemoryMemento();
    const entries: ChatEntry[] = [];
    for (let i = 0; i < MAX_ENTRIES / 2; i++)
      entries.push(
        { id: `u${i}`, role: 'user', text: `q${i}`, createdAt: i },
        { id: `a${i}`, role: 'assistant', text: `r${i}`, createdAt: i, status: 'done' },
      );
    await state.update(STATE_KEY, { entries, options });
    const r = rig({ state });
    r.view.send('one more', options);
    await replies(r, 1);
    assert.equal(r.view.entries.length, MAX_ENTRIES);
    assert.equal(r.view.entries[0].id, 'u1');
    assert.deepEqual(
      r.posted.filter((m) => m.type === 'entryRemoved').map((m) => m.type === 'entryRemoved' && m.id),
      ['u0', 'a0'],
    );
    assert.equal((saved(r).entries as ChatEntry[]).length, MAX_ENTRIES);
  },
);

const selection: SelectionContext = {
  fileName: 'a.ts',
  language: 'typescript',
  code: 'let x = 1;',
  startLine: 1,
  endLine: 1,
};

test('Ask About Selection while a reply streams: the question and selection wait and go when it ends', T, async () => {
  simulator().fault({ kind: 'slowChunks', ms: 40 });
  const r = rig();
  r.view.send('a b c d e f g h', options);
  await new Promise((res) => setTimeout(res, 60));
  r.view.askAbout(selection, 'what is x?');
  r.view.askAbout({ ...selection, code: 'let y;' }, 'and y?');
  const refused = r.posted.filter((m) => m.type === 'sendRefused');
  assert.equal(refused.length, 1, 'a second question is refused, with why');
  assert.match(refused[0].type === 'sendRefused' ? refused[0].message : '', /already waiting/);
  await replies(r, 2);
  const users = r.view.entries.filter((e) => e.role === 'user');
  assert.equal(users.length, 2);
  assert.equal(users[1].text, 'what is x?');
  assert.deepEqual(users[1].context, selection);
  assert.match(JSON.stringify(r.requests.at(-1)!.messages), /what is x\?\\n\\nFrom `a.ts`/);
});

test('a message sent while a reply streams is refused (the selection stays), not dropped', T, async () => {
  simulator().fault({ kind: 'slowChunks', ms: 40 });
  const r = rig();
  r.view.askAbout(selection);
  r.view.send('a b c d e f g h', options);
  r.view.askAbout(selection);
  r.view.send('second', options);
  const refused = r.posted.filter((m) => m.type === 'sendRefused');
  assert.equal(refused.length, 1);
  await replies(r, 1);
  assert.equal(r.view.entries.length, 2, 'the second message was not added');
  r.view.send('now', options);
  await replies(r, 2);
  assert.deepEqual(r.view.entries.at(-2)!.context, selection, 'the selection went with the next message');
});

test(
  'nothing is posted before the page is ready or while it is hidden; init then carries the whole state, in order',
  T,
  async () => {
    const r = rig();
    r.view.webviewGone();
    r.posted.length = 0;
    r.view.send('hello there', options);
    await new Promise((res) => setTimeout(res, 300));
    assert.equal(r.posted.length, 0, 'hidden: nothing posted');
    r.view.webviewReady();
    const init = r.posted[0];
    assert.ok(init.type === 'init');
    assert.equal(init.state.entries.length, 2);
    r.view.send('and again', options);
    await replies(r, 1);
    const types = r.posted.map((m) => m.type);
    assert.ok(types.indexOf('entryDelta') > types.indexOf('entryAdded'));
    assert.ok(
      types.lastIndexOf('entryDelta') < types.lastIndexOf('entryUpdated'),
      'text posted before the final update',
    );
    const text = r.posted
      .filter((m): m is Extract<HostToWebview, { type: 'entryDelta' }> => m.type === 'entryDelta')
      .map((m) => m.text)
      .join('');
    assert.equal(text, 'Echo: and again');
  },
);
