/** The webview renderer in jsdom: sanitising (XSS attempts render inert) and incremental rendering. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { JSDOM } from 'jsdom';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createMarkdownRenderer } from '../../src/webview/markdownRenderer';
import { stableSplit } from '../../src/webview/streamingBody';
import { ChatApp, type VsCodeApi } from '../../src/webview/chatApp';
import type { ChatEntry, ChatSnapshot, HostToWebview, ModelList, WebviewToHost } from '../../src/shared/chatProtocol';
import { chatStrings } from '../../src/host/chat/chatWords';
import { useTranslations } from '../../src/gateway/l10n';
import { reply, user } from './webview-harness';
import { oneGateway } from './helpers';

const ORIGIN = 'https://file+.vscode-resource.vscode-cdn.net';
const BUNDLE = join(__dirname, '..', '..', '..', 'dist', 'webview.js');

function dom() {
  // runScripts: anything that managed to get in as a live script or handler would run here.
  const jsdom = new JSDOM('<!DOCTYPE html><html><body><div id="app"></div></body></html>', {
    runScripts: 'dangerously',
    pretendToBeVisual: true,
  });
  const win = jsdom.window as unknown as Window & { pwned?: number; alert: (s: string) => void };
  let alerts = 0;
  win.alert = () => {
    alerts++;
  };
  return { jsdom, win, alerts: () => alerts };
}

/** Asserts a rendered tree holds nothing active. */
function assertInert(root: ParentNode, label: string): void {
  for (const tag of [
    'script',
    'iframe',
    'object',
    'embed',
    'frame',
    'form',
    'style',
    'link',
    'meta',
    'base',
    'svg',
    'math',
  ]) {
    assert.equal(root.querySelectorAll(tag).length, 0, `${label}: no <${tag}>`);
  }
  for (const el of Array.from(root.querySelectorAll('*'))) {
    for (const a of Array.from(el.attributes)) {
      assert.ok(!/^on/i.test(a.name), `${label}: no event handler attribute (${el.tagName} ${a.name})`);
      assert.ok(a.name !== 'style', `${label}: no style attribute`);
      assert.ok(
        !/^\s*(javascript|vbscript|data:text)/i.test(a.value),
        `${label}: no script URL (${el.tagName} ${a.name}=${a.value})`,
      );
    }
  }
  for (const img of Array.from(root.querySelectorAll('img'))) {
    const src = img.getAttribute('src') ?? '';
    assert.ok(src.startsWith('data:image/') || src.startsWith(`${ORIGIN}/`), `${label}: no remote image (${src})`);
  }
  for (const a of Array.from(root.querySelectorAll('a[href]'))) {
    assert.match(a.getAttribute('href')!, /^(https?:|mailto:|#)/i, `${label}: only http(s)/mailto links`);
  }
}

const ATTACKS: Array<[string, string]> = [
  ['script tag', 'Hello <script>window.pwned = 1; alert(1)</script> world'],
  ['img onerror', 'Look: <img src=x onerror="window.pwned=1;alert(1)">'],
  ['markdown javascript link', '[click me](javascript:alert(1))'],
  ['markdown javascript link, encoded', '[click me](JaVaScRiPt&#58;alert(1)) [x](java\nscript:alert(1))'],
  ['html javascript link', '<a href="javascript:alert(1)">click</a>'],
  ['iframe', '<iframe src="https://evil.example/"></iframe><iframe srcdoc="<script>parent.pwned=1</script>"></iframe>'],
  ['remote markdown image', '![tracker](https://evil.example/pixel.png)'],
  ['remote html image', '<img src="https://evil.example/pixel.png">'],
  ['svg onload', '<svg onload="alert(1)"><circle r="4"/></svg>'],
  ['style and form', '<style>body{display:none}</style><form action="https://evil.example"><input name=a></form>'],
  ['autolinked script url', 'javascript:alert(1) and <javascript:alert(1)>'],
  ['data html link', '[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)'],
  ['code fence with html', '```html\n<script>alert(1)</script>\n```'],
];

test('the inertness check itself catches live markup (negative control)', () => {
  const { win } = dom();
  const host = win.document.getElementById('app')!;
  for (const html of [
    '<img src="https://evil.example/x.png">',
    '<a href="javascript:alert(1)">x</a>',
    '<div onclick="x()"></div>',
    '<iframe></iframe>',
  ]) {
    host.innerHTML = html;
    assert.throws(() => assertInert(host, 'unsanitised'), html);
  }
});

test('model output with XSS attempts renders inert (markdown path)', () => {
  const { win, alerts } = dom();
  const md = createMarkdownRenderer(win, { resourceOrigin: ORIGIN, strings: chatStrings() });
  const host = win.document.getElementById('app')!;
  for (const [label, text] of ATTACKS) {
    const frag = md.render(text);
    host.replaceChildren(frag);
    assertInert(host, label);
  }
  assert.equal((win as { pwned?: number }).pwned, undefined, 'nothing executed');
  assert.equal(alerts(), 0, 'no alert');
  // The text survives as text.
  host.replaceChildren(md.render('Hello <script>alert(1)</script>'));
  assert.match(host.textContent ?? '', /<script>alert\(1\)<\/script>/);
});

test('raw HTML through the sanitiser is inert too (defence in depth)', () => {
  const { win, alerts } = dom();
  const md = createMarkdownRenderer(win, { resourceOrigin: ORIGIN, strings: chatStrings() });
  const host = win.document.getElementById('app')!;
  for (const [label, html] of [
    ['script', '<p>a</p><script>window.pwned=1</script>'],
    ['img onerror', '<img src=x onerror="window.pwned=1">'],
    ['a javascript', '<a href="javascript:window.pwned=1">x</a><a href=" javascript:alert(1)">y</a>'],
    ['iframe', '<iframe src="https://evil.example"></iframe>'],
    ['remote img', '<img src="https://evil.example/a.png" alt="t">'],
    ['onclick', '<div onclick="alert(1)" onmouseover="alert(2)">x</div>'],
    ['object/embed', '<object data="https://evil.example/x.swf"></object><embed src="https://evil.example/x">'],
    ['meta refresh', '<meta http-equiv="refresh" content="0;url=https://evil.example">'],
    ['srcset', '<img src="data:image/png;base64,iVBORw0KGgo=" srcset="https://evil.example/a.png 2x">'],
  ] as const) {
    host.replaceChildren(md.sanitize(html));
    assertInert(host, label);
  }
  assert.equal((win as { pwned?: number }).pwned, undefined);
  assert.equal(alerts(), 0);
});

test('allowed: data: images, own-resource images, https links (rel=noopener), remote images become a note', () => {
  const { win } = dom();
  const md = createMarkdownRenderer(win, { resourceOrigin: ORIGIN, strings: chatStrings() });
  const host = win.document.getElementById('app')!;
  host.replaceChildren(
    md.render(
      `![dot](data:image/png;base64,iVBORw0KGgo=) ![own](${ORIGIN}/media/icon.png) [docs](https://example.com/docs) ![remote](https://evil.example/x.png)`,
    ),
  );
  const imgs = Array.from(host.querySelectorAll('img')).map((i) => i.getAttribute('src'));
  assert.deepEqual(imgs, ['data:image/png;base64,iVBORw0KGgo=', `${ORIGIN}/media/icon.png`]);
  const a = host.querySelector('a')!;
  assert.equal(a.getAttribute('href'), 'https://example.com/docs');
  assert.equal(a.getAttribute('rel'), 'noopener noreferrer');
  assert.match(host.querySelector('.blocked-image')!.textContent, /image not loaded: remote/);
});

test('code blocks get Copy and Insert buttons, made by us', () => {
  const { win } = dom();
  const md = createMarkdownRenderer(win, { strings: chatStrings() });
  const host = win.document.getElementById('app')!;
  host.replaceChildren(md.render('Try:\n\n```ts\nconst a = 1 < 2;\n```\n'));
  const block = host.querySelector('[data-testid="chat-code-block"]')!;
  assert.ok(block);
  assert.equal(block.querySelector('code')!.textContent, 'const a = 1 < 2;\n');
  assert.ok(block.querySelector('[data-testid="chat-code-copy"]'));
  assert.ok(block.querySelector('[data-testid="chat-code-insert"]'));
  assert.equal(block.querySelector('.code-lang')!.textContent, 'ts');
  // Model output cannot forge our buttons.
  host.replaceChildren(md.render('<button data-action="insert">x</button>'));
  assert.equal(host.querySelectorAll('button').length, 0);
});

test('stableSplit cuts only after finished blocks, never inside a code fence', () => {
  assert.equal(stableSplit('Hello wor'), 0);
  assert.equal(stableSplit('Para one.\n\nPara tw'), 'Para one.\n\n'.length);
  assert.equal(
    stableSplit('Intro\n\n```js\nconst a = 1;\n\nconst b = 2;\n'),
    'Intro\n\n'.length,
    'the blank line inside the open fence is not a cut',
  );
  const closed = 'Intro\n\n```js\nconst a = 1;\n\nconst b = 2;\n```\n';
  assert.equal(stableSplit(`${closed}More te`), closed.length, 'a closed fence is a finished block');
  assert.equal(stableSplit('~~~\na\n\n```\nb\n'), 0, 'a ``` line does not close a ~~~ fence');
});

// ----- the app --------------------------------------------------------------------------------

interface Harness {
  win: Window;
  app: ChatApp;
  posted: WebviewToHost[];
  state: { value: unknown };
  frames: Array<() => void>;
  list: HTMLElement;
  q: (testId: string) => HTMLElement | null;
}

function harness(saved?: unknown): Harness {
  const { win } = dom();
  const posted: WebviewToHost[] = [];
  const state = { value: saved };
  const api: VsCodeApi = {
    postMessage: (m) => posted.push(m),
    getState: () => state.value,
    setState: (s) => (state.value = s),
  };
  const frames: Array<() => void> = [];
  const app = new ChatApp(win, win.document.getElementById('app')!, api, {
    schedule: (fn) => frames.push(fn),
    resourceOrigin: ORIGIN,
    strings: chatStrings(),
  });
  const q = (id: string) => win.document.querySelector<HTMLElement>(`[data-testid="${id}"]`);
  return { win, app, posted, state, frames, list: q('chat-messages')!, q };
}

const models: ModelList = oneGateway(
  [
    { id: 'gpt-4o-mini', capabilities: ['chat'] },
    { id: 'claude-sonnet-4-5', capabilities: ['native'] },
    { id: 'gpt-4o' },
  ],
  { compatible: 'gpt-4o-mini', native: 'claude-sonnet-4-5' },
);

function snapshot(entries: ChatEntry[], extra: Partial<ChatSnapshot> = {}): ChatSnapshot {
  return {
    entries,
    options: { surface: 'compatible', model: 'gpt-4o-mini', system: '', temperature: 0.7, maxTokens: 512 },
    busy: false,
    streaming: true,
    ...extra,
  };
}

const finished = (id: string, text: string): ChatEntry =>
  reply(id, text, { usage: { inputTokens: 5, outputTokens: 7 }, durationMs: 1200 });

test('incremental rendering: a streaming reply touches only its own tail; finished messages stay frozen', () => {
  const h = harness();
  const init: HostToWebview = {
    type: 'init',
    state: snapshot([
      user('u1', 'first question'),
      finished('a1', 'A **finished** reply.\n\n```js\nx()\n```\n'),
      user('u2', 'second'),
    ]),
    models,
  };
  h.app.handle(init);
  const msgs = () => Array.from(h.list.querySelectorAll<HTMLElement>('[data-testid="chat-message"]'));
  assert.equal(msgs().length, 3);
  const frozenBodies = msgs().map((m) => m.querySelector('[data-testid="chat-message-body"]')!.firstChild);

  h.app.handle({
    type: 'entryAdded',
    entry: {
      id: 'a2',
      role: 'assistant',
      text: '',
      createdAt: 2,
      status: 'streaming',
      surface: 'compatible',
      model: 'gpt-4o-mini',
    },
  });
  h.app.handle({ type: 'busy', busy: true });
  const streaming = h.list.querySelector<HTMLElement>('[data-entry-id="a2"]')!;
  assert.equal(streaming.getAttribute('data-status'), 'streaming');
  assert.ok(streaming.querySelector('[data-testid="chat-streaming-indicator"]'));

  const observer = new (h.win as unknown as { MutationObserver: typeof MutationObserver }).MutationObserver(
    () => undefined,
  );
  observer.observe(h.list, { childList: true, subtree: true, characterData: true, attributes: true });

  const chunks = ['Para', 'graph one.', '\n\nPara', 'graph two ', 'is longer.\n\n', '- item', ' a\n- item b'];
  for (const c of chunks) h.app.handle({ type: 'entryDelta', id: 'a2', text: c });
  // Several deltas, one frame: one render.
  assert.equal(h.frames.length, 1);
  h.frames.shift()!();
  const firstPara = streaming.querySelector('.md-stable p');
  assert.ok(firstPara, 'finished paragraphs went to the stable part');
  for (const c of [' more', '\n- item c', '\n\nDone.']) {
    h.app.handle({ type: 'entryDelta', id: 'a2', text: c });
    h.frames.shift()!();
  }
  assert.equal(streaming.querySelector('.md-stable p'), firstPara, 'the stable part is never re-rendered');

  const records = observer.takeRecords();
  assert.ok(records.length > 0);
  for (const r of records) {
    assert.ok(
      streaming.contains(r.target),
      `mutation outside the streaming message: ${(r.target as Element).outerHTML?.slice(0, 80)}`,
    );
    if (r.type === 'childList' && (r.target as Element).classList?.contains('md-stable'))
      assert.equal(r.removedNodes.length, 0, 'stable blocks are only appended');
  }
  msgs()
    .slice(0, 3)
    .forEach((m, i) =>
      assert.equal(
        m.querySelector('[data-testid="chat-message-body"]')!.firstChild,
        frozenBodies[i],
        'earlier messages untouched',
      ),
    );

  // Finishing freezes the message with the final text; late deltas are ignored.
  const fullText = chunks.join('') + ' more\n- item c\n\nDone.';
  h.app.handle({
    type: 'entryUpdated',
    entry: { ...finished('a2', fullText), usage: { inputTokens: 11, outputTokens: 22 } },
  });
  h.app.handle({ type: 'busy', busy: false });
  assert.equal(streaming.getAttribute('data-status'), 'done');
  assert.equal(streaming.querySelector('[data-testid="chat-streaming-indicator"]'), null);
  assert.equal(streaming.querySelectorAll('li').length, 3);
  assert.match(streaming.querySelector('[data-testid="chat-usage"]')!.textContent, /11 input · 22 output tokens/);
  const body = streaming.querySelector('[data-testid="chat-message-body"]')!.innerHTML;
  h.app.handle({ type: 'entryDelta', id: 'a2', text: 'late' });
  h.frames.splice(0).forEach((f) => f());
  assert.equal(streaming.querySelector('[data-testid="chat-message-body"]')!.innerHTML, body, 'frozen');
  observer.disconnect();
});

test('streamed XSS renders inert at every step', () => {
  const h = harness();
  h.app.handle({ type: 'init', state: snapshot([]), models });
  h.app.handle({
    type: 'entryAdded',
    entry: { id: 'x', role: 'assistant', text: '', createdAt: 1, status: 'streaming' },
  });
  const payload =
    'Hi <img src=x one' +
    'rror="window.pwned=1"> [a](javas' +
    'cript:alert(1)) <script>window.pwned=2</script> ![t](https://evil.example/t.png)';
  for (let i = 0; i < payload.length; i += 7) {
    h.app.handle({ type: 'entryDelta', id: 'x', text: payload.slice(i, i + 7) });
    h.frames.splice(0).forEach((f) => f());
    assertInert(h.list, `streamed step ${i}`);
  }
  h.app.handle({ type: 'entryUpdated', entry: finished('x', payload) });
  assertInert(h.list, 'finished');
  assert.equal((h.win as { pwned?: number }).pwned, undefined);
});

test('controls: Enter sends, Shift+Enter does not, Escape stops, Stop/Send swap while busy', () => {
  const h = harness();
  h.app.handle({ type: 'init', state: snapshot([]), models });
  const input = h.q('chat-input') as HTMLTextAreaElement;
  const KeyboardEvent = (h.win as unknown as { KeyboardEvent: typeof globalThis.KeyboardEvent }).KeyboardEvent;
  input.value = 'line one';
  input.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', shiftKey: true, bubbles: true, cancelable: true }));
  assert.equal(h.posted.length, 0);
  input.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true, cancelable: true }));
  assert.deepEqual(h.posted.at(-1), {
    type: 'send',
    text: 'line one',
    // the model with the gateway it is from (the only gateway listed)
    options: {
      surface: 'compatible',
      model: 'gpt-4o-mini',
      gateway: 'default',
      system: '',
      temperature: 0.7,
      maxTokens: 512,
    },
  });
  assert.equal(input.value, '');
  h.app.handle({ type: 'busy', busy: true });
  assert.equal(h.q('chat-send')!.hidden, true);
  assert.equal(h.q('chat-stop')!.hidden, false);
  h.win.document.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true }));
  assert.deepEqual(h.posted.at(-1), { type: 'stop' });
  h.q('chat-stop')!.click();
  assert.deepEqual(h.posted.at(-1), { type: 'stop' });
  h.app.handle({ type: 'busy', busy: false });
  assert.equal(h.q('chat-stop')!.hidden, true);
});

test('surface switch and model picker: configured defaults first, options posted', () => {
  const h = harness();
  h.app.handle({ type: 'init', state: snapshot([]), models });
  const model = h.q('chat-model') as HTMLSelectElement;
  assert.deepEqual(
    Array.from(model.options).map((o) => o.value),
    ['gpt-4o-mini', 'gpt-4o'],
  );
  const surface = h.q('chat-surface') as HTMLSelectElement;
  surface.value = 'native';
  surface.dispatchEvent(new (h.win as unknown as { Event: typeof Event }).Event('change'));
  assert.equal(model.value, 'claude-sonnet-4-5');
  assert.equal(Array.from(model.options)[0].value, 'claude-sonnet-4-5');
  const last = h.posted.at(-1) as Extract<WebviewToHost, { type: 'setOptions' }>;
  assert.equal(last.type, 'setOptions');
  assert.equal(last.options.surface, 'native');
  assert.equal(last.options.model, 'claude-sonnet-4-5');
  const temp = h.q('chat-temperature') as HTMLInputElement;
  temp.value = '7';
  temp.dispatchEvent(new (h.win as unknown as { Event: typeof Event }).Event('change'));
  assert.equal((h.posted.at(-1) as Extract<WebviewToHost, { type: 'setOptions' }>).options.temperature, 2, 'clamped');
  temp.value = '';
  temp.dispatchEvent(new (h.win as unknown as { Event: typeof Event }).Event('change'));
  const cleared = (h.posted.at(-1) as Extract<WebviewToHost, { type: 'setOptions' }>).options.temperature;
  assert.equal(cleared, null, "emptied: the model's own default");
  assert.equal(temp.value, '');
  assert.equal(temp.placeholder, "model's default");
});

test('code Copy / Insert, error card with Diagnose, buffering notice action', () => {
  const h = harness();
  const err: ChatEntry = {
    id: 'e1',
    role: 'assistant',
    text: '',
    createdAt: 1,
    status: 'error',
    error: {
      kind: 'forbidden',
      status: 403,
      message: 'HTTP 403 from the gateway',
      cause: "Your token's group cannot use this model.",
      fix: 'Pick a model your group can use.',
      url: 'http://127.0.0.1:1/v1/chat/completions',
      maskedToken: 'sk-abc...wxyz',
      attempts: 1,
    },
  };
  const buffered: ChatEntry = {
    ...finished('b1', '```py\nprint(1)\n```\n'),
    notices: [{ kind: 'buffering', text: 'A proxy buffers responses.' }],
  };
  h.app.handle({ type: 'init', state: snapshot([user('u1', 'q'), buffered, user('u2', 'q2'), err]), models });
  (h.q('chat-code-copy') as HTMLButtonElement).click();
  assert.deepEqual(h.posted.at(-1), { type: 'copyCode', code: 'print(1)\n' });
  (h.q('chat-code-insert') as HTMLButtonElement).click();
  assert.deepEqual(h.posted.at(-1), { type: 'insertCode', code: 'print(1)\n' });
  const card = h.q('chat-error-card')!;
  assert.match(h.q('chat-error-status')!.textContent, /HTTP 403/);
  assert.match(h.q('chat-error-cause')!.textContent, /group cannot use this model/);
  assert.match(h.q('chat-error-fix')!.textContent, /Pick a model/);
  assert.equal(h.q('chat-error-token')!.textContent, 'sk-abc...wxyz');
  assert.equal(h.q('chat-error-endpoint')!.textContent, 'http://127.0.0.1:1/v1/chat/completions');
  assert.equal(card.getAttribute('data-http-status'), '403');
  (h.q('chat-error-diagnose') as HTMLButtonElement).click();
  assert.deepEqual(h.posted.at(-1), { type: 'runDiagnose' });
  assert.ok(h.q('chat-buffering-notice'));
  (h.q('chat-disable-streaming') as HTMLButtonElement).click();
  assert.deepEqual(h.posted.at(-1), { type: 'disableStreaming' });
  h.app.handle({ type: 'config', streaming: false });
  assert.equal(h.q('chat-disable-streaming'), null, 'no button once streaming is off');
  assert.equal(h.q('chat-error-diagnose')!.textContent, 'Run Diagnose');
  (h.q('chat-error-show-log') as HTMLButtonElement).click();
  assert.deepEqual(h.posted.at(-1), { type: 'showLog' });
  (h.q('chat-error-support-report') as HTMLButtonElement).click();
  assert.deepEqual(
    h.posted.at(-1),
    { type: 'copySupportReport', entryId: err.id },
    'the report names the card it came from',
  );
  assert.equal(h.q('chat-error-arrival'), null, 'no usage-log row on a call that was not billed');
  // a failed billed call's card, then what the gateway's usage log said
  const billed = (arrival: NonNullable<ChatEntry['error']>['arrival']): ChatEntry => ({
    ...err,
    error: { ...err.error!, billing: 'This billed call may have reached the gateway and been charged.', arrival },
  });
  h.app.handle({ type: 'entryUpdated', entry: billed({ state: 'pending', text: 'Looking for this request…' }) });
  assert.equal(h.q('chat-error-arrival')!.getAttribute('data-arrival'), 'pending');
  h.app.handle({
    type: 'entryUpdated',
    entry: billed({
      state: 'arrived',
      text: 'The gateway logged this request: billed $0.04 (12 in / 345 out tokens).',
    }),
  });
  assert.equal(h.q('chat-error-arrival')!.getAttribute('data-arrival'), 'arrived');
  assert.match(h.q('chat-error-arrival')!.textContent, /billed \$0\.04/);
});

test(
  'the bundled webview (dist/webview.js) boots, says ready and renders under its CSP-shaped page',
  { skip: !existsSync(BUNDLE) && 'run npm run build first' },
  async () => {
    const jsdom = new JSDOM('<!DOCTYPE html><html><body><div id="app"></div></body></html>', {
      runScripts: 'outside-only',
      pretendToBeVisual: true,
    });
    const w = jsdom.window as unknown as Window & { acquireVsCodeApi: () => VsCodeApi; eval: (src: string) => void };
    const posted: WebviewToHost[] = [];
    w.acquireVsCodeApi = () => ({
      postMessage: (m) => posted.push(m),
      getState: () => undefined,
      setState: () => undefined,
    });
    w.document.getElementById('app')!.dataset.strings = JSON.stringify(chatStrings());
    w.eval(readFileSync(BUNDLE, 'utf8'));
    assert.deepEqual(JSON.parse(JSON.stringify(posted)), [{ type: 'ready' }], 'ready is the first and only message');
    const msg: HostToWebview = {
      type: 'init',
      state: snapshot([user('u', 'hi'), finished('a', 'Hello **there** <img src=x onerror=alert(1)>')]),
      models,
    };
    w.dispatchEvent(new (w as unknown as { MessageEvent: typeof MessageEvent }).MessageEvent('message', { data: msg }));
    const doc = w.document;
    assert.equal(doc.querySelectorAll('[data-testid="chat-message"]').length, 2);
    assert.equal(doc.querySelector('[data-entry-id="a"] strong')!.textContent, 'there');
    assertInert(doc.body, 'bundle');
    for (const id of [
      'chat-input',
      'chat-send',
      'chat-stop',
      'chat-regenerate',
      'chat-new',
      'chat-surface',
      'chat-model',
      'chat-system',
      'chat-temperature',
      'chat-max-tokens',
      'chat-usage',
    ]) {
      assert.ok(doc.querySelector(`[data-testid="${id}"]`), id);
    }
    assert.equal(
      doc.querySelector('[data-testid="chat-send"]')!.textContent,
      'Send',
      "the host's words, from the page",
    );
    jsdom.window.close();
  },
);

test('a failed stream: the card says nothing was re-sent and offers Retry Without Streaming (billed again); other errors do not', () => {
  const h = harness();
  const failed: ChatEntry = {
    id: 'f1',
    role: 'assistant',
    text: 'Echo: one',
    createdAt: 1,
    status: 'error',
    error: {
      kind: 'stream_interrupted',
      message: 'The stream carried an error.',
      cause: 'The upstream failed.',
      fix: 'Retry.',
      streamFailed: 'the gateway sent an error inside it',
      billing: undefined,
    },
  };
  h.app.handle({ type: 'init', state: snapshot([user('u1', 'one two'), failed]), models });
  assert.match(h.q('chat-error-stream-failed')!.textContent, /nothing was sent again.*billed again/);
  const retry = h.q('chat-error-retry-plain') as HTMLButtonElement;
  assert.match(retry.textContent, /billed again/);
  retry.click();
  const posted = h.posted.at(-1) as Extract<WebviewToHost, { type: 'retryWithoutStreaming' }>;
  assert.equal(posted.type, 'retryWithoutStreaming');
  assert.equal(posted.options.surface, 'compatible');
  const other: ChatEntry = {
    ...failed,
    id: 'f2',
    error: { kind: 'forbidden', status: 403, message: 'HTTP 403', cause: 'c', fix: 'f' },
  };
  h.app.handle({ type: 'init', state: snapshot([user('u1', 'one two'), other]), models });
  assert.equal(h.q('chat-error-retry-plain'), null);
});

test('a failure that may have been billed: the card offers Retry (may be billed again), and only then', () => {
  const h = harness();
  const billed: ChatEntry = {
    id: 'b1',
    role: 'assistant',
    text: '',
    createdAt: 1,
    status: 'error',
    error: {
      kind: 'server_error',
      status: 504,
      message: 'HTTP 504: an HTML error page came back from /v1/chat/completions ("504 Gateway Time-out").',
      cause: 'A proxy or CDN in front of the gateway answered with its own error page.',
      fix: 'Retry later.',
      detail: 'html_page',
      billing: 'This billed call may have reached the gateway and been charged. It was not sent again.',
    },
  };
  h.app.handle({ type: 'init', state: snapshot([user('u1', 'one two'), billed]), models });
  assert.match(h.q('chat-error-billing')!.textContent, /may have reached the gateway/);
  const retry = h.q('chat-error-retry-billed') as HTMLButtonElement;
  assert.equal(retry.textContent, 'Retry (may be billed again)');
  assert.equal(h.q('chat-error-retry-plain'), null, 'not a failed stream');
  retry.click();
  const posted = h.posted.at(-1) as Extract<WebviewToHost, { type: 'retryBilled' }>;
  assert.equal(posted.type, 'retryBilled');
  assert.equal(posted.options.surface, 'compatible');
  // A refusal (not billed) offers no billed retry.
  const refused: ChatEntry = {
    ...billed,
    id: 'b2',
    error: { kind: 'forbidden', status: 403, message: 'HTTP 403', cause: 'c', fix: 'f' },
  };
  h.app.handle({ type: 'init', state: snapshot([user('u1', 'one two'), refused]), models });
  assert.equal(h.q('chat-error-retry-billed'), null);
});

test('accessible: every button has a name, the input a label, icons are codicons (no glyphs or emoji)', () => {
  const h = harness();
  const err = {
    kind: 'bad_request' as const,
    status: 403,
    message: 'HTTP 403 no access',
    cause: 'group',
    fix: 'switch token',
    streamFailed: 'cut',
  };
  h.app.handle({
    type: 'init',
    state: snapshot([
      user('u', 'hi'),
      finished('a', 'Code:\n\n```js\nx()\n```\n'),
      { ...finished('e', ''), status: 'error', error: err },
    ]),
    models,
  });
  const doc = h.win.document;
  const buttons = Array.from(doc.querySelectorAll('button'));
  assert.ok(buttons.length >= 10);
  for (const b of buttons) {
    const name = b.getAttribute('aria-label') ?? b.textContent?.trim() ?? '';
    assert.ok(name.length > 0, `a name for ${b.getAttribute('data-testid')}`);
    assert.doesNotMatch(
      b.textContent ?? '',
      /[\u2190-\u21ff\u2300-\u23ff\u2500-\u27bf\u00d7]|\p{Extended_Pictographic}/u,
      `no glyph in ${b.getAttribute('data-testid')}`,
    );
  }
  for (const id of ['chat-refresh-models', 'chat-context-remove', 'chat-attach']) {
    const b = h.q(id)!;
    assert.ok(b.querySelector('.codicon[aria-hidden="true"]'), `${id}: a codicon`);
    assert.ok(b.getAttribute('aria-label') && b.title, `${id}: aria-label and title`);
  }
  const input = h.q('chat-input') as HTMLTextAreaElement;
  assert.equal(input.labels?.[0]?.textContent, 'Message');
  assert.ok(h.q('chat-code-copy')!.querySelector('.codicon-copy'));
  assert.equal(h.q('chat-code-copy')!.textContent, 'Copy');
});

test('keyboard: a Stop button that hides while focused hands the focus to the input', () => {
  const h = harness();
  h.app.handle({ type: 'init', state: snapshot([]), models });
  h.app.handle({ type: 'busy', busy: true });
  const stop = h.q('chat-stop')!;
  stop.focus();
  assert.equal(h.win.document.activeElement, stop);
  stop.click();
  assert.deepEqual(h.posted.at(-1), { type: 'stop' });
  h.app.handle({ type: 'busy', busy: false });
  assert.equal(h.win.document.activeElement, h.q('chat-input'), 'focus is back in the input');
});

test('keyboard: when the view gets the focus, the input takes it (unless a control already has it)', () => {
  const h = harness();
  h.app.handle({ type: 'init', state: snapshot([]), models });
  (h.win.document.activeElement as HTMLElement | null)?.blur();
  h.win.dispatchEvent(new (h.win as unknown as typeof globalThis).FocusEvent('focus'));
  assert.equal(h.win.document.activeElement, h.q('chat-input'));
  h.q('chat-new')!.focus();
  h.win.dispatchEvent(new (h.win as unknown as typeof globalThis).FocusEvent('focus'));
  assert.equal(h.win.document.activeElement, h.q('chat-new'), 'a focused control keeps the focus');
});

test("the view shows the host's words: a translated record changes every label, the webview translates nothing", () => {
  useTranslations({ Send: '发送', 'Attach image': '附加图片', 'Thought for {0}': '思考了 {0}', '{0} s': '{0} 秒' });
  let strings;
  try {
    strings = chatStrings();
  } finally {
    useTranslations(undefined);
  }
  assert.equal(strings.send, '发送');
  assert.equal(chatStrings().send, 'Send', 'English again without the bundle');
  const { win } = dom();
  const api: VsCodeApi = { postMessage: () => undefined, getState: () => undefined, setState: () => undefined };
  const app = new ChatApp(win, win.document.getElementById('app')!, api, { schedule: (fn) => fn(), strings });
  app.handle({
    type: 'init',
    state: snapshot([{ ...finished('a', 'ok'), reasoning: 'hm', reasoningMs: 3200 }]),
    models,
  });
  const q = (id: string) => win.document.querySelector<HTMLElement>(`[data-testid="${id}"]`)!;
  assert.equal(q('chat-send').textContent, '发送');
  assert.equal(q('chat-attach').getAttribute('aria-label'), '附加图片');
  assert.equal(q('chat-thinking-summary').textContent, '思考了 3.2 秒');
});

test("an image from the webview's own resources is allowed however the host's URI string encodes the authority", () => {
  const { win } = dom();
  // code-server's remote resources: asWebviewUri(...).toString() percent-encodes the `+` that the
  // browser's own URL (the script's src, which gives the origin) holds decoded.
  const remote = 'https://vscode-remote+localhost-3a8080.vscode-resource.vscode-cdn.net';
  const md = createMarkdownRenderer(win, { resourceOrigin: remote, strings: chatStrings() });
  assert.ok(md.imageAllowed(`${remote}/root/ws/.vscode/chat-images/a.png`));
  assert.ok(
    md.imageAllowed('https://vscode-remote%2Blocalhost-3a8080.vscode-resource.vscode-cdn.net/chat-images/a.png'),
  );
  assert.ok(!md.imageAllowed('https://evil.example.com/a.png'), 'another origin');
  assert.ok(!md.imageAllowed(`${remote}.evil.example.com/a.png`), 'a look-alike host');
  assert.ok(!md.imageAllowed('javascript:alert(1)'));
  assert.ok(!md.imageAllowed('/relative.png'));
});
