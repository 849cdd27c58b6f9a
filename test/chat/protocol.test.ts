/** The chat webview protocol: inbound validation, the HTML shell's CSP, and no token ever posted. */
import { imageFiles } from './helpers';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  parseWebviewMessage,
  type ChatEntry,
  type ChatOptions,
  type HostToWebview,
  type ModelGroup,
} from '../../src/shared/chatProtocol';
import { modelsForSurface } from '../../src/shared/modelOrder';
import { chatCsp, chatHtml } from '../../src/host/webviewHtml';
import { ChatSession, type ChatBackend, type SessionEvent } from '../../src/host/chat/session';
import { errorInfo } from '../../src/host/errorWords';
import { errorFromResponse, maskToken, type ChatEvent, type ChatRequest, type ChatResult } from '../../src/gateway';
import { chatStrings } from '../../src/host/chat/chatWords';
import { CHAT_STRING_KEYS, fill, parseChatStrings } from '../../src/shared/chatStrings';
import { DIAGNOSE_CSS, diagnoseBody } from '../../src/host/diagnose/diagnoseHtml';
import { oneGateway } from '../fakes/diagnosis';
import type { DiagnosisReport } from '../../src/gateway';
import { useTranslations } from '../../src/gateway/l10n';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const options: ChatOptions = {
  surface: 'compatible',
  model: 'gpt-4o-mini',
  system: '',
  temperature: 0.7,
  maxTokens: 256,
};

test('every valid webview message parses', () => {
  const valid = [
    { type: 'ready' },
    { type: 'send', text: 'hello', options },
    {
      type: 'send',
      text: '',
      options: {
        ...options,
        surface: 'native',
        model: 'claude-sonnet-4-5',
        system: 'Be terse.',
        temperature: 0,
        maxTokens: 1,
      },
    },
    { type: 'stop' },
    { type: 'regenerate', options },
    { type: 'newChat' },
    { type: 'setOptions', options },
    { type: 'clearContext' },
    { type: 'copyCode', code: 'x = 1' },
    { type: 'insertCode', code: 'x = 1' },
    { type: 'runDiagnose' },
    { type: 'showLog' },
    { type: 'disableStreaming' },
    { type: 'refreshModels' },
  ];
  for (const m of valid) assert.deepEqual(parseWebviewMessage(m), m, JSON.stringify(m));
});

test('invalid webview messages are refused', () => {
  const invalid: unknown[] = [
    undefined,
    null,
    'ready',
    42,
    [],
    {},
    { type: 'READY' },
    { type: 'exec', command: 'workbench.action.terminal.new' },
    { type: 'send' },
    { type: 'send', text: 1, options },
    { type: 'send', text: 'x' },
    { type: 'send', text: 'x', options: { ...options, surface: 'other' } },
    { type: 'send', text: 'x', options: { ...options, temperature: 2.5 } },
    { type: 'send', text: 'x', options: { ...options, temperature: 'hot' } },
    { type: 'send', text: 'x', options: { ...options, maxTokens: 0 } },
    { type: 'send', text: 'x', options: { ...options, maxTokens: 1.5 } },
    { type: 'send', text: 'x'.repeat(200_001), options },
    { type: 'regenerate' },
    { type: 'setOptions', options: { surface: 'native' } },
    { type: 'copyCode' },
    { type: 'insertCode', code: { toString: 'x' } },
  ];
  for (const m of invalid) assert.equal(parseWebviewMessage(m), undefined, JSON.stringify(m)?.slice(0, 80));
});

test('unknown fields are dropped, not passed on', () => {
  const m = parseWebviewMessage({ type: 'send', text: 'hi', options: { ...options, token: 'sk-x' }, command: 'evil' });
  assert.deepEqual(m, { type: 'send', text: 'hi', options });
});

test('the HTML shell: strict CSP with a fresh crypto nonce, local resources only', () => {
  const input = {
    cspSource: 'https://*.vscode-cdn.net',
    scriptUri: 'https://file+.vscode-resource.vscode-cdn.net/ext/dist/webview.js',
    styleUri: 'https://file+.vscode-resource.vscode-cdn.net/ext/media/chat.css',
    codiconUri: 'https://file+.vscode-resource.vscode-cdn.net/ext/dist/codicons/codicon.css',
    strings: chatStrings(),
  };
  const a = chatHtml(input);
  const b = chatHtml(input);
  const nonceOf = (html: string) => /script-src 'nonce-([^']+)'/.exec(html)?.[1];
  assert.ok(nonceOf(a) && nonceOf(a)!.length >= 16);
  assert.notEqual(nonceOf(a), nonceOf(b), 'a new nonce per load');
  assert.ok(a.includes(`<script nonce="${nonceOf(a)}" src="${input.scriptUri}">`));
  assert.equal(
    chatCsp('X', 'N'),
    "default-src 'none'; img-src X data:; style-src X; font-src X; script-src 'nonce-N';",
  );
  assert.ok(!/unsafe-inline|unsafe-eval/.test(a));
  assert.ok(!/<style|style=|<script>/.test(a), 'no inline style or script');
  assert.ok(
    !/https?:\/\/(?!file\+\.vscode-resource)/.test(a.replace(/https:\/\/\*\.vscode-cdn\.net/g, '')),
    'no remote URL',
  );
});

test('model picker order: the configured default for the surface first, then fitting models', () => {
  const list: Pick<ModelGroup, 'items' | 'defaults'> = {
    items: [
      { id: 'zeta' },
      { id: 'gpt-4o-mini', capabilities: ['chat'] },
      { id: 'claude-sonnet-4-5', capabilities: ['native'] },
      { id: 'alpha' },
    ],
    defaults: { compatible: 'gpt-4o-mini', native: 'claude-sonnet-4-5' },
  };
  assert.deepEqual(modelsForSurface(list, 'compatible'), ['gpt-4o-mini', 'alpha', 'zeta']);
  assert.deepEqual(modelsForSurface(list, 'native'), ['claude-sonnet-4-5', 'alpha', 'zeta']);
  assert.deepEqual(
    modelsForSurface({ items: [], defaults: { compatible: 'my-model', native: '' } }, 'compatible'),
    ['my-model'],
    'the default even when the list failed',
  );
  assert.deepEqual(
    modelsForSurface({ items: [{ id: 'b' }, { id: 'a' }], defaults: { compatible: 'a', native: 'b' } }, 'compatible'),
    ['a', 'b'],
    'no duplicates',
  );
});

// ----- no token ever leaves for the webview ---------------------------------------------------------

const TOKEN = 'sk-LiveSecretToken0123456789abcdefXYZ';

/** A backend whose calls fail the way a gateway does, with the token in the error context and body. */
function failing(status: number, body: string): ChatBackend {
  const fail = (req: ChatRequest) =>
    errorFromResponse({
      status,
      headers: { 'x-request-id': 'req-1' },
      body,
      context: { surface: req.surface, model: req.model, url: 'http://127.0.0.1:9/v1/chat/completions', token: TOKEN },
    });
  return {
    chat: async (req) => {
      throw fail(req);
    },
    chatStream: (req): AsyncIterable<ChatEvent> => ({
      async *[Symbol.asyncIterator]() {
        throw fail(req);
      },
    }),
  };
}

/** The messages the view provider would post for these session events. */
function outbound(events: SessionEvent[], session: ChatSession): HostToWebview[] {
  return events.map((e): HostToWebview => {
    switch (e.type) {
      case 'reset':
        return {
          type: 'reset',
          state: { entries: [...session.entries], options, busy: session.busy, streaming: true },
        };
      default:
        return e;
    }
  });
}

for (const [status, body] of [
  [401, JSON.stringify({ error: { message: `Invalid token ${TOKEN}`, type: 'invalid_request_error' } })],
  [
    403,
    JSON.stringify({
      error: { message: `token ${TOKEN} group default has no access to model gpt-4o`, type: 'new_api_error' },
    }),
  ],
  [500, `upstream said: Authorization: Bearer ${TOKEN}`],
] as const) {
  test(`an HTTP ${status} becomes an error card with the masked token only`, async () => {
    const events: SessionEvent[] = [];
    const session = new ChatSession({
      images: imageFiles(),
      backend: failing(status, body),
      streaming: () => true,
      listener: (e) => events.push(e),
    });
    const entry = await session.send('hi', options);
    assert.equal(entry!.status, 'error');
    assert.equal(entry!.error!.status, status);
    assert.equal(entry!.error!.maskedToken, maskToken(TOKEN));
    assert.ok(entry!.error!.cause && entry!.error!.fix);
    const wire = JSON.stringify(outbound(events, session));
    assert.ok(!wire.includes(TOKEN), 'the full token is never posted');
    assert.ok(!wire.includes(TOKEN.slice(6, -4)), 'not even its middle');
    assert.ok(wire.includes(maskToken(TOKEN)));
  });
}

test('an unexpected (non-gateway) error message is redacted too', () => {
  const info = errorInfo(new Error(`boom with ${TOKEN}`));
  assert.ok(!JSON.stringify(info).includes(TOKEN));
});

test('a stream that succeeds posts entries without any token', async () => {
  const events: SessionEvent[] = [];
  const result: ChatResult = {
    text: 'hello there',
    toolCalls: [],
    reasoning: '',
    thinking: [],
    finishReason: 'stop',
    usage: { inputTokens: 3, outputTokens: 2 },
    model: 'gpt-4o-mini',
    id: 'x',
    host: '127.0.0.1',
    requestId: 'r',
    durationMs: 5,
    buffered: false,
  };
  const backend: ChatBackend = {
    chat: async () => result,
    chatStream: () => ({
      async *[Symbol.asyncIterator]() {
        yield { type: 'text', text: 'hello ' };
        yield { type: 'text', text: 'there' };
        yield { type: 'usage', usage: result.usage! };
        yield { type: 'done', result };
      },
    }),
  };
  const session = new ChatSession({
    images: imageFiles(),
    backend,
    streaming: () => true,
    listener: (e) => events.push(e),
  });
  const entry = (await session.send('hi', options)) as ChatEntry;
  assert.equal(entry.text, 'hello there');
  assert.deepEqual(entry.usage, { inputTokens: 3, outputTokens: 2 });
  assert.deepEqual(
    events.map((e) => e.type),
    ['entryAdded', 'entryAdded', 'busy', 'entryDelta', 'entryDelta', 'entryUpdated', 'busy'],
  );
  assert.ok(!JSON.stringify(outbound(events, session)).includes('sk-'));
});

test("the webview's words: built on the host for every key, checked at the boundary, filled in the view", () => {
  const s = chatStrings();
  assert.deepEqual(Object.keys(s).sort(), [...CHAT_STRING_KEYS].sort());
  assert.deepEqual(parseChatStrings(JSON.parse(JSON.stringify(s))), s);
  const { send: _send, ...missing } = s;
  assert.equal(parseChatStrings(missing), undefined, 'a missing key');
  assert.equal(parseChatStrings({ ...s, send: 3 }), undefined, 'not a string');
  assert.equal(parseChatStrings({ ...s, extra: 'x' }), undefined, 'an unknown key');
  assert.equal(parseChatStrings('nope'), undefined);
  assert.equal(
    fill(s.retrying, 1, 'HTTP 429', 2),
    'Attempt 1 failed (HTTP 429); retrying with backoff (retry 1 of 2)…',
  );
  assert.equal(fill('{0} and {1}', 'a'), 'a and {1}');
  const html = chatHtml({
    cspSource: 'X',
    scriptUri: 'X/w.js',
    styleUri: 'X/c.css',
    codiconUri: 'X/codicons/codicon.css',
    strings: { ...s, send: 'Send "now" <b>' },
    lang: 'zh-cn',
  });
  assert.ok(html.includes('<link rel="stylesheet" href="X/codicons/codicon.css">'));
  assert.ok(html.includes('<html lang="zh-cn">'));
  const attr = /data-strings="([^"]*)"/.exec(html)![1];
  const decoded = attr
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
  assert.equal(parseChatStrings(JSON.parse(decoded))?.send, 'Send "now" <b>');
});

test('the diagnosis page: column headers, a codicon and a status word per check, no emoji, wraps when narrow', () => {
  const check = (id: string, result: 'pass' | 'warn' | 'fail' | 'skipped', fix = '') => ({
    id,
    title: `T ${id}`,
    result,
    durationMs: 1,
    cause: `c <${id}>`,
    fix,
  });
  const report = {
    startedAt: new Date(0).toISOString(),
    durationMs: 40,
    baseUrl: 'http://127.0.0.1:1/v1',
    maskedToken: 'sk-abc...wxyz',
    proxy: 'none',
    summary: { pass: 1, warn: 1, fail: 1, skipped: 1 },
    checks: [
      check('token', 'fail', 'https://example.invalid/a/very/long/path/without/any/break/'.repeat(3)),
      check('base-url', 'pass'),
      check('proxy', 'warn'),
      check('generate-video', 'skipped'),
    ],
  } as unknown as DiagnosisReport;
  const html = diagnoseBody(oneGateway(report));
  assert.equal(html.match(/<th scope="col">/g)?.length, 5);
  for (const [id, word, icon] of [
    ['token', 'Failed', 'error'],
    ['base-url', 'Passed', 'pass'],
    ['proxy', 'Warning', 'warning'],
    ['generate-video', 'Skipped', 'debug-step-over'],
  ]) {
    const row = new RegExp(`data-testid="check-${id}"[\\s\\S]*?</tr>`).exec(html)![0];
    assert.ok(row.includes(`codicon-${icon}`), `${id}: icon`);
    assert.ok(row.includes(`<span class="status-text" data-testid="status-text">${word}</span>`), `${id}: ${word}`);
  }
  assert.ok(html.includes('c &lt;token&gt;'), 'escaped');
  assert.doesNotMatch(html, /\p{Extended_Pictographic}/u);
  assert.match(html, /Summary: 1 failed, 1 warning, 1 passed, 1 skipped \(40 ms\)\./);
  assert.match(DIAGNOSE_CSS, /@media \(max-width:640px\)/);
  assert.match(DIAGNOSE_CSS, /overflow-wrap:anywhere/);
});

test('in Chinese every word of the chat webview and the diagnosis page is translated on the host', () => {
  // The fragments the build merges into l10n/bundle.l10n.zh-cn.json.
  const dir = join(__dirname, '..', '..', '..', 'l10n', 'zh-cn');
  const bundle: Record<string, string> = Object.assign(
    {},
    ...readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as Record<string, string>),
  );
  const en = chatStrings();
  useTranslations(bundle);
  let zh: ReturnType<typeof chatStrings>;
  let page: string;
  try {
    zh = chatStrings();
    page = diagnoseBody(
      oneGateway({
        startedAt: new Date(0).toISOString(),
        durationMs: 1,
        baseUrl: '',
        proxy: 'none',
        summary: { pass: 1, warn: 0, fail: 0, skipped: 0 },
        checks: [{ id: 'token', title: 'T', result: 'pass', durationMs: 1, cause: 'c', fix: '' }],
      } as unknown as DiagnosisReport),
    );
  } finally {
    useTranslations(undefined);
  }
  // "HTTP {0}", "{0} KB" and "{0} MB" read the same in Chinese.
  const alike: string[] = ['retryHttp', 'kilobytes', 'megabytes'];
  const same = CHAT_STRING_KEYS.filter((k) => zh[k] === en[k] && !alike.includes(k));
  assert.deepEqual(same, [], 'untranslated chat strings');
  assert.equal(zh.send, '发送');
  for (const word of ['状态', '检查项', '原因', '解决办法', '通过', '复制报告']) assert.ok(page.includes(word), word);
});
