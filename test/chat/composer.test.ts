/** The webview in jsdom: attaching images (picker, paste, drop, limits), sending them, the host's refusal, thumbnails, and the Thinking section. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { JSDOM } from 'jsdom';
import { ChatApp, type VsCodeApi } from '../../src/webview/chatApp';
import type { ChatEntry, ChatSnapshot, ModelList, WebviewToHost } from '../../src/shared/chatProtocol';
import { MAX_IMAGE_BYTES } from '../../src/shared/chatImages';
import { makePng } from '../sim/server';
import { chatStrings } from '../../src/host/chat/chatWords';
import { oneGateway } from './helpers';

const png = makePng('composer', 8);
const models: ModelList = oneGateway([{ id: 'gpt-4o-mini', capabilities: ['chat'] }], {
  compatible: 'gpt-4o-mini',
  native: 'claude-sonnet-4-5',
});
const snapshot = (entries: ChatEntry[] = [], extra: Partial<ChatSnapshot> = {}): ChatSnapshot => ({
  entries,
  options: { surface: 'compatible', model: 'gpt-4o-mini', system: '', temperature: 0.7, maxTokens: 512 },
  busy: false,
  streaming: true,
  ...extra,
});

function harness(saved?: unknown) {
  const jsdom = new JSDOM('<!DOCTYPE html><html><body><div id="app"></div></body></html>', {
    runScripts: 'dangerously',
    pretendToBeVisual: true,
  });
  const win = jsdom.window as unknown as Window & typeof globalThis;
  const posted: WebviewToHost[] = [];
  const state = { value: saved };
  const api: VsCodeApi = {
    postMessage: (m) => posted.push(JSON.parse(JSON.stringify(m))),
    getState: () => state.value,
    setState: (s) => (state.value = s),
  };
  const frames: Array<() => void> = [];
  const app = new ChatApp(win, win.document.getElementById('app')!, api, {
    schedule: (fn) => frames.push(fn),
    strings: chatStrings(),
  });
  app.handle({ type: 'init', state: snapshot(), models });
  const q = <E extends HTMLElement = HTMLElement>(id: string) => win.document.querySelector<E>(`[data-testid="${id}"]`);
  const qa = (id: string) => Array.from(win.document.querySelectorAll<HTMLElement>(`[data-testid="${id}"]`));
  const file = (bytes: Uint8Array | string, name: string, type: string) =>
    new win.File([bytes as BlobPart], name, { type });
  /** Chooses files in the hidden file input (what the picker does), and waits until they are read. */
  const pick = async (...files: File[]) => {
    const input = q<HTMLInputElement>('chat-file-input')!;
    Object.defineProperty(input, 'files', { value: files, configurable: true });
    input.dispatchEvent(new win.Event('change'));
    await settle();
  };
  /** Lets the file reads finish (jsdom's FileReader answers in a later task; slower on a busy machine). */
  const settle = () => new Promise((r) => setTimeout(r, 300));
  return { win, app, posted, state, frames, q, qa, file, pick, settle };
}

const note = (h: ReturnType<typeof harness>) => h.q('chat-composer-note')!;

test('the picker: an "Attach image" button opens a hidden file input for PNG, JPEG, GIF and WebP', async () => {
  const h = harness();
  const attach = h.q<HTMLButtonElement>('chat-attach')!;
  assert.equal(attach.getAttribute('aria-label'), 'Attach image');
  const input = h.q<HTMLInputElement>('chat-file-input')!;
  assert.equal(input.type, 'file');
  assert.equal(input.accept, 'image/png,image/jpeg,image/gif,image/webp');
  assert.equal(input.hidden, true);
  let opened = 0;
  input.click = () => void opened++;
  attach.click();
  assert.equal(opened, 1);
  assert.equal(h.q('chat-attachments')!.hidden, true, 'no thumbnails yet');
});

test('picked images show as removable thumbnails and go with the message; the typed text is untouched', async () => {
  const h = harness();
  const input = h.q<HTMLTextAreaElement>('chat-input')!;
  input.value = 'what is in these?';
  await h.pick(h.file(png, 'one.png', 'image/png'), h.file(png, 'two.png', 'image/jpeg'));
  assert.equal(input.value, 'what is in these?');
  const thumbs = h.qa('chat-attachment');
  assert.equal(thumbs.length, 2);
  assert.match(thumbs[0].querySelector('img')!.getAttribute('src')!, /^data:image\/png;base64,/);
  assert.equal(thumbs[0].querySelector('img')!.alt, 'one.png');
  const removes = h.qa('chat-attachment-remove');
  assert.deepEqual(
    removes.map((b) => b.getAttribute('aria-label')),
    ['Remove image one.png', 'Remove image two.png'],
  );
  removes[0].click();
  assert.equal(h.qa('chat-attachment').length, 1);
  assert.equal(h.qa('chat-attachment')[0].querySelector('img')!.alt, 'two.png');
  h.q('chat-send')!.click();
  const sent = h.posted.at(-1) as Extract<WebviewToHost, { type: 'send' }>;
  assert.equal(sent.type, 'send');
  assert.equal(sent.text, 'what is in these?');
  assert.deepEqual(
    sent.images,
    [{ mimeType: 'image/png', data: png.toString('base64'), name: 'two.png' }],
    'the bytes decide the type',
  );
  assert.equal(input.value, '');
  assert.equal(h.qa('chat-attachment').length, 0);
});

test('limits: at most 4 images, 5 MB each, images only — said inline, the rest kept', async () => {
  const h = harness();
  const input = h.q<HTMLTextAreaElement>('chat-input')!;
  input.value = 'keep me';
  await h.pick(h.file('<svg/>', 'vector.svg', 'image/svg+xml'));
  assert.match(note(h).textContent, /"vector\.svg" was not added: only PNG, JPEG, GIF and WebP images can be attached/);
  assert.equal(note(h).hidden, false);
  assert.equal(note(h).getAttribute('role'), 'alert');
  await h.pick(h.file(new Uint8Array(MAX_IMAGE_BYTES + 1), 'huge.png', 'image/png'));
  assert.match(note(h).textContent, /"huge\.png" was not added: it is 5\.0 MB, and each image may be at most 5\.0 MB/);
  await h.pick(h.file('not really a png', 'fake.png', 'image/png'));
  assert.match(note(h).textContent, /"fake\.png" was not added: it is not an image/);
  await h.pick(...Array.from({ length: 6 }, (_, i) => h.file(png, `p${i}.png`, 'image/png')));
  assert.equal(h.qa('chat-attachment').length, 4);
  assert.match(note(h).textContent, /At most 4 images per message: 2 images were not added/);
  await h.pick(h.file(png, 'late.png', 'image/png'));
  assert.match(note(h).textContent, /At most 4 images per message: "late\.png" was not added/);
  assert.equal(input.value, 'keep me', 'the typed text is never touched');
  assert.equal(h.posted.filter((m) => m.type === 'send').length, 0);
});

test('paste and drop add images', async () => {
  const h = harness();
  const paste = new h.win.Event('paste', { bubbles: true, cancelable: true });
  Object.defineProperty(paste, 'clipboardData', {
    value: { files: [h.file(png, 'image.png', 'image/png')], getData: () => '' },
  });
  h.q('chat-input')!.dispatchEvent(paste);
  await h.settle();
  assert.equal(paste.defaultPrevented, true, 'an image-only paste inserts no text');
  assert.equal(h.qa('chat-attachment').length, 1);
  const over = new h.win.Event('dragover', { bubbles: true, cancelable: true });
  Object.defineProperty(over, 'dataTransfer', { value: { types: ['Files'], dropEffect: 'none' } });
  h.q('chat-messages')!.dispatchEvent(over);
  assert.equal(over.defaultPrevented, true);
  assert.ok(h.win.document.body.classList.contains('drop-target'));
  const drop = new h.win.Event('drop', { bubbles: true, cancelable: true });
  Object.defineProperty(drop, 'dataTransfer', {
    value: {
      types: ['Files'],
      files: [h.file(png, 'dropped.gif', 'image/gif'), h.file('x', 'notes.txt', 'text/plain')],
    },
  });
  h.q('chat-messages')!.dispatchEvent(drop);
  await h.settle();
  assert.equal(drop.defaultPrevented, true);
  assert.ok(!h.win.document.body.classList.contains('drop-target'));
  assert.deepEqual(
    h.qa('chat-attachment').map((a) => a.querySelector('img')!.alt),
    ['image.png', 'dropped.gif'],
  );
  assert.match(note(h).textContent, /"notes\.txt" was not added/);
});

test('a refused send puts the text, the images and the selection back, and says why', async () => {
  const h = harness();
  const context = { fileName: 'a.ts', language: 'typescript', code: 'x()', startLine: 1, endLine: 1 };
  h.app.handle({ type: 'context', context });
  const input = h.q<HTMLTextAreaElement>('chat-input')!;
  input.value = 'describe';
  await h.pick(h.file(png, 'shot.png', 'image/png'));
  h.q('chat-send')!.click();
  assert.equal(input.value, '');
  assert.equal(h.q('chat-context')!.hidden, true);
  h.app.handle({ type: 'sendRefused', message: 'deepseek-reasoner does not accept images, so nothing was sent.' });
  assert.equal(input.value, 'describe');
  assert.equal(h.qa('chat-attachment').length, 1);
  assert.equal(h.q('chat-context')!.hidden, false, 'the selection is attached again');
  assert.match(note(h).textContent, /deepseek-reasoner does not accept images/);
  // The draft's images survive a reload of the webview (its saved state).
  await new Promise((r) => setTimeout(r, 600));
  const again = harness(JSON.parse(JSON.stringify(h.state.value)));
  assert.equal(again.qa('chat-attachment').length, 1);
});

test('user entries show their images as thumbnails that open larger; images not kept show a placeholder', async () => {
  const h = harness();
  const user: ChatEntry = {
    id: 'u1',
    role: 'user',
    text: 'look',
    createdAt: 1,
    images: [
      { mimeType: 'image/png', data: png.toString('base64'), bytes: png.length, name: 'shot.png' },
      { mimeType: 'image/jpeg', bytes: 2048 },
    ],
  };
  h.app.handle({ type: 'entryAdded', entry: user });
  const img = h.q<HTMLImageElement>('chat-message-image')!;
  assert.equal(img.alt, 'shot.png');
  assert.match(img.src, /^data:image\/png;base64,/);
  const button = img.closest('button')!;
  assert.equal(button.getAttribute('aria-expanded'), 'false');
  button.click();
  assert.equal(button.getAttribute('aria-expanded'), 'true');
  assert.ok(button.classList.contains('expanded'));
  assert.match(h.q('chat-message-image-missing')!.textContent, /image 2 \(2 KB\) is no longer kept/);
  // The webview's own saved state does not hold sent image data (the host's init brings it).
  await new Promise((r) => setTimeout(r, 600));
  assert.doesNotMatch(JSON.stringify(h.state.value ?? {}), new RegExp(png.toString('base64').slice(0, 40)));
});

test('reasoning: a collapsed Thinking section above the reply, streamed, then "Thought for N s"; plain text only', () => {
  const h = harness();
  h.app.handle({
    type: 'entryAdded',
    entry: { id: 'a1', role: 'assistant', text: '', createdAt: 1, status: 'streaming', model: 'deepseek-reasoner' },
  });
  assert.equal(h.q('chat-thinking'), null, 'no section without reasoning');
  for (const t of ['Let me ', 'think <img src=x onerror="window.pwned=1"> ', '**about** this.'])
    h.app.handle({ type: 'entryReasoning', id: 'a1', text: t });
  assert.equal(h.frames.length, 1, 'rendered once per frame');
  h.frames.shift()!();
  const details = h.q<HTMLDetailsElement>('chat-thinking')!;
  assert.equal(details.tagName, 'DETAILS');
  assert.equal(details.open, false, 'collapsed');
  assert.equal(h.q('chat-thinking-summary')!.textContent, 'Thinking…');
  assert.equal(
    h.q('chat-thinking-text')!.textContent,
    'Let me think <img src=x onerror="window.pwned=1"> **about** this.',
  );
  assert.equal(details.querySelectorAll('img, strong').length, 0, 'not markdown, not HTML');
  const body = h.q('chat-message-body')!;
  assert.equal(details.nextElementSibling, body, 'above the reply text');
  details.open = true;
  const base = {
    id: 'a1',
    role: 'assistant' as const,
    createdAt: 1,
    model: 'deepseek-reasoner',
    reasoning: 'Let me think <img src=x onerror="window.pwned=1"> **about** this.',
  };
  h.app.handle({ type: 'entryUpdated', entry: { ...base, text: '', status: 'streaming', reasoningMs: 3200 } });
  h.app.handle({ type: 'entryDelta', id: 'a1', text: 'Echo: hi' });
  h.frames.splice(0).forEach((f) => f());
  assert.equal(h.q('chat-thinking-summary')!.textContent, 'Thought for 3.2 s');
  assert.equal(h.q<HTMLDetailsElement>('chat-thinking')!.open, true, 'left open as the user opened it');
  h.app.handle({ type: 'entryUpdated', entry: { ...base, text: 'Echo: hi', status: 'done', reasoningMs: 14_400 } });
  assert.equal(h.q('chat-thinking-summary')!.textContent, 'Thought for 14 s');
  assert.equal(h.qa('chat-thinking').length, 1);
  assert.equal((h.win as unknown as { pwned?: number }).pwned, undefined);
  // Restored or not streamed: no duration known.
  h.app.handle({
    type: 'entryAdded',
    entry: { id: 'a2', role: 'assistant', text: 'ok', createdAt: 2, status: 'done', reasoning: 'hmm' },
  });
  assert.equal(h.qa('chat-thinking-summary')[1].textContent, 'Thinking');
});
