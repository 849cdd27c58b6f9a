/**
 * Model Relay's own notices in VS Code's chat (src/host/lm/lmNotices.ts), against simulators: an
 * answer the output budget cut ends with a notice line on every surface; a failover is said before
 * the answer; and neither is sent to the model on the next turn, when VS Code hands our reply back as
 * history (checked on the bytes that leave for the gateway). Only our exact notice lines are left
 * out: the model's own text, even text that looks like a notice, goes as it came.
 */
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { GatewaySet, chatStreamAcross, type ChatEvent, type ChatResult } from '../../src/gateway';
import { observeHttp } from '../../src/gateway/http/har';
import { useTranslations } from '../../src/gateway/l10n';
import { lmRoutes } from '../../src/host/lm/lmGateways';
import { adjustedNotice, endingNotice, withNotices, withoutNotices } from '../../src/host/lm/lmNotices';
import { lmToChatRequest, type LmMessage } from '../../src/host/lm/lmRequest';
import type { ModelProfile } from '../../src/host/lm/modelProfile';
import { ThinkingCache } from '../../src/host/lm/thinkingCache';
import { startSimulator, type Simulator } from '../sim/server';
import { collect } from '../gateway/helpers';

let a: Simulator;
let b: Simulator;
before(async () => {
  [a, b] = await Promise.all([startSimulator({ profile: 'strict' }), startSimulator({ profile: 'strict' })]);
});
after(() => Promise.all([a.close(), b.close()]));
beforeEach(() => {
  for (const s of [a, b]) {
    s.reset();
    s.config.replyText = Array.from({ length: 40 }, (_, i) => `w${i}`).join(' ');
  }
});

const models = { compatible: 'gpt-4o-mini', native: 'claude-sonnet-4-5', responses: 'gpt-4o-mini' } as const;
const profileOf = (surface: keyof typeof models, maxOutputTokens: number): ModelProfile => ({
  surface,
  surfaceLearnt: false,
  maxInputTokens: 100_000,
  maxOutputTokens,
  toolCalling: true,
  imageInput: false,
  thinkingBudget: undefined,
});
const gateways = () =>
  new GatewaySet(
    [
      { id: 'a', name: 'Alpha', baseUrl: a.url },
      { id: 'b', name: 'Beta', baseUrl: b.url },
    ],
    { token: (id) => (id === 'a' ? a : b).tokens.production, sleep: async () => undefined },
  );
const user = (value: string): LmMessage => ({ role: 1, content: [{ kind: 'text', value }] });

/** One turn as the provider answers it: the text VS Code shows (the parts it keeps), and the core's result. */
async function turn(set: GatewaySet, id: string, history: LmMessage[], profile: ModelProfile, fallbacks = {}) {
  const routes = lmRoutes({ id }, set, 'a', fallbacks);
  const { model: _m, ...req } = lmToChatRequest(routes[0].model, profile, history, {}, new ThinkingCache());
  const bodies: string[] = [];
  const stop = observeHttp({
    begin: (f) => {
      const body = f.body;
      if (typeof body === 'string') bodies.push(body);
      else if (body instanceof Uint8Array) bodies.push(Buffer.from(body).toString('utf8'));
      else throw new Error(`a request body this test cannot read (${typeof body})`);
      return undefined;
    },
  });
  let events: ChatEvent[];
  try {
    events = await collect(withNotices(chatStreamAcross(set, routes, req), req.maxTokens));
  } finally {
    stop();
  }
  const shown = events.map((e) => (e.type === 'text' ? e.text : '')).join('');
  const done = events.at(-1);
  assert.equal(done?.type, 'done');
  return { shown, result: (done as { result: ChatResult }).result, bodies, events };
}

for (const surface of ['compatible', 'native', 'responses'] as const)
  test(`${surface}: a cut answer ends with a notice the user sees, and the model never gets it back`, async () => {
    const set = gateways();
    const profile = profileOf(surface, 16);
    const history = [user('go')];
    const first = await turn(set, `a/${models[surface]}`, history, profile);
    const notice = '> ⚠ Model Relay: the answer was cut by the output budget (max tokens 16).';
    assert.equal(first.shown, `${first.result.text}\n\n${notice}`, 'the answer, then the notice on a line of its own');
    assert.ok(first.result.text.length > 0);
    // The next turn: VS Code hands the reply back as it showed it.
    const replied: LmMessage = { role: 2, content: [{ kind: 'text', value: first.shown }] };
    const next = await turn(
      set,
      `a/${models[surface]}`,
      [...history, replied, user('and then?')],
      profileOf(surface, 200),
    );
    // (one request, or two where the gateway refused a parameter and it was sent again without it)
    assert.ok(next.bodies.length >= 1);
    for (const body of next.bodies) {
      assert.doesNotMatch(body, /Model Relay/, 'not in what was sent to the gateway');
      assert.ok(body.includes(first.result.text), "the model's own text is sent, whole");
    }
    assert.ok(!next.shown.includes('Model Relay'), 'a whole answer: no notice');
  });

test('a failover is said before the answer, not sent back on the next turn; two text parts or one, the same', async () => {
  a.fault({ kind: 'status', status: 503, path: '/v1/chat/completions', count: 10 });
  const set = gateways();
  const fallbacks = { 'gpt-4o-mini': [{ gateway: 'b', model: 'gpt-4o-mini' }] };
  const profile = profileOf('compatible', 16);
  const first = await turn(set, 'a/gpt-4o-mini', [user('go')], profile, fallbacks);
  const lines = first.shown.split('\n');
  assert.match(
    lines[0],
    /^> ↪ Model Relay: gateway "Alpha" could not serve gpt-4o-mini \(HTTP 503: (?!HTTP)[^)]*\); answered by gateway "Beta" with gpt-4o-mini\.$/,
  );
  assert.equal(lines[1], '');
  assert.equal(lines.at(-1), '> ⚠ Model Relay: the answer was cut by the output budget (max tokens 16).');
  // VS Code keeps the reply as one text, or as the parts the provider reported: neither reaches the model.
  const parts = first.events.flatMap((e) => (e.type === 'text' ? [{ kind: 'text' as const, value: e.text }] : []));
  for (const content of [[{ kind: 'text' as const, value: first.shown }], parts]) {
    a.clearFaults();
    const req = lmToChatRequest(
      'gpt-4o-mini',
      profile,
      [user('go'), { role: 2, content }, user('more')],
      {},
      new ThinkingCache(),
    );
    assert.deepEqual(req.messages[1], { role: 'assistant', content: first.result.text });
    const next = await turn(set, 'a/gpt-4o-mini', [user('go'), { role: 2, content }, user('more')], profile);
    assert.equal(next.bodies.length, 1);
    assert.ok(next.bodies[0].includes(first.result.text));
    assert.doesNotMatch(next.bodies[0], /Model Relay|could not serve/);
  }
});

test("only our exact notice lines are left out; the model's own text goes as it came", () => {
  const cut = endingNotice('length', 64)!;
  const filtered = endingNotice('content_filter')!;
  const other = endingNotice('pause_turn')!;
  assert.equal(withoutNotices(`Hello\n\n${cut}`), 'Hello');
  assert.equal(withoutNotices(`Hello\n\n${filtered}`), 'Hello');
  assert.equal(withoutNotices(`Hello\n\n${other}`), 'Hello');
  assert.equal(withoutNotices(`one\n\n${cut}\n\ntwo`), 'one\n\ntwo', 'between two rounds of a tool loop');
  assert.equal(withoutNotices(cut), '');
  const own = [
    'The docs say "Model Relay: the answer was cut by the output budget".',
    '> ⚠ Model Relay: the answer was cut short by me.',
    '> ⚠ Model Relay: the answer was cut by the output budget (max tokens 64). And more.',
    `  ${cut} trailing words`,
    'a\n\n\n\nb  \n',
  ];
  for (const text of own) assert.equal(withoutNotices(text), text, text);
  // In the display language: the Chinese notice is recognised the same way.
  useTranslations({
    'the answer was cut by the output budget (max tokens {0}).': '回答被输出上限截断（最大 token 数 {0}）。',
    "the answer was stopped by the gateway's content filter.": '回答被网关的内容过滤中止。',
  });
  try {
    const zh = endingNotice('length', 8)!;
    assert.match(zh, /回答被输出上限截断（最大 token 数 8）/);
    assert.equal(withoutNotices(`你好\n\n${zh}`), '你好');
  } finally {
    useTranslations(undefined);
  }
  assert.equal(withoutNotices(`Hello\n\n${cut}`), 'Hello', 'and in English again');
});

test('a parameter the gateway refused just now is said after the answer (once: later requests leave it out), and never sent back', async () => {
  const result = {
    text: 'Hi',
    finishReason: 'stop',
    adjustments: [
      { model: 'm-1', param: 'temperature', change: 'not_sent', source: 'learnt', learntNow: true },
      { model: 'm-1', param: 'include', change: 'not_sent', source: 'learnt' },
      { model: 'm-1', param: 'max_tokens', change: 'set', to: 8192, source: 'known' },
    ],
  } as unknown as ChatResult;
  async function* events(): AsyncIterable<ChatEvent> {
    yield { type: 'text', text: 'Hi' };
    yield { type: 'done', result };
  }
  const out = await collect(withNotices(events()));
  const text = out.flatMap((e) => (e.type === 'text' ? [e.text] : [])).join('');
  const line = adjustedNotice(result.adjustments![0]);
  assert.equal(
    line,
    '> ⚠ Model Relay: The gateway refused temperature for m-1: the request was sent again without it (the refused one was not billed), and the next requests leave it out.',
  );
  assert.equal(text, `Hi\n\n${line}`, 'only what was learnt now; the known and remembered ones are not news');
  assert.equal(withoutNotices(text), 'Hi');
  const set = adjustedNotice({
    model: 'k',
    param: 'temperature',
    change: 'set',
    to: 1,
    source: 'learnt',
    learntNow: true,
  });
  assert.equal(withoutNotices(`Hi\n\n${set}`), 'Hi');
});
