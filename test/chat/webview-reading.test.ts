/**
 * Reading the conversation: the list follows a streaming reply only while the user is at its end;
 * a long conversation paints its end first; the page's saved state is the draft only (never the
 * conversation, never written while a reply streams); the options are the host's, not the page's.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChatEntry } from '../../src/shared/chatProtocol';
import { FIRST_PAINT_ENTRIES } from '../../src/webview/transcript';
import { harness, models, reply, snapshot, user } from './webview-harness';

const streamingReply = (id: string): ChatEntry => reply(id, '', { status: 'streaming' });
const para = (i: number) => `Paragraph ${i} of the reply, long enough to need a scroll bar. `.repeat(3) + '\n\n';

test('while a reply streams, a user who scrolled up keeps their place; back at the bottom (or sending) it follows again', () => {
  const h = harness();
  h.app.handle({ type: 'init', state: snapshot([user('u1', 'first'), reply('a1', para(0).repeat(4))]), models });
  h.layout.settle();
  assert.equal(h.layout.top, h.layout.max, 'a restored conversation shows its end');
  h.app.handle({ type: 'entryAdded', entry: user('u2', 'tell me more') });
  h.app.handle({ type: 'entryAdded', entry: streamingReply('a2') });
  const stream = (n: number) => {
    for (let i = 0; i < n; i++) {
      h.app.handle({ type: 'entryDelta', id: 'a2', text: para(i) });
      h.frame();
      h.layout.settle();
    }
  };
  stream(3);
  assert.ok(h.layout.max > 0);
  assert.equal(h.layout.top, h.layout.max, 'following the end while the user is there');

  // The user scrolls up to read.
  h.layout.userScroll(40);
  stream(5);
  assert.equal(h.layout.top, 40, 'the reply grows below; the view stays where the user reads');
  h.app.handle({
    type: 'entryUpdated',
    entry: { ...streamingReply('a2'), text: '', retry: { attempt: 1, maxRetries: 2 } },
  });
  h.frame();
  h.layout.settle();
  assert.equal(h.layout.top, 40, 'an updated entry does not pull the view down either');

  // Back at the bottom: it follows again.
  h.layout.userScroll(h.layout.max);
  stream(2);
  assert.equal(h.layout.top, h.layout.max);

  // Scrolled up again, then a new message is sent: the end comes back.
  h.app.handle({ type: 'entryUpdated', entry: reply('a2', para(1).repeat(7)) });
  h.app.handle({ type: 'busy', busy: false });
  h.layout.userScroll(10);
  (h.q('chat-input') as HTMLTextAreaElement).value = 'and then?';
  h.q('chat-send')!.click();
  assert.equal(h.posted.at(-1)?.type, 'send');
  h.app.handle({ type: 'entryAdded', entry: user('u3', 'and then?') });
  h.app.handle({ type: 'entryAdded', entry: streamingReply('a3') });
  h.app.handle({ type: 'entryDelta', id: 'a3', text: para(9) });
  h.frame();
  h.layout.settle();
  assert.equal(h.layout.top, h.layout.max, 'sending brings the end back');
});

test('a question asked from the editor (a user entry the host adds) brings the end back too', () => {
  const h = harness();
  h.app.handle({ type: 'init', state: snapshot([user('u1', 'q'), reply('a1', para(0).repeat(6))]), models });
  h.layout.userScroll(0);
  h.app.handle({ type: 'entryAdded', entry: reply('n1', para(2)) });
  assert.equal(h.layout.top, 0, 'a reply added while reading does not move the view');
  h.app.handle({ type: 'entryAdded', entry: user('u2', 'Ask about selection') });
  assert.equal(h.layout.top, h.layout.max);
});

test('a long conversation paints its last entries at once and the older ones above them in the next frames', () => {
  const entries: ChatEntry[] = [];
  for (let i = 0; i < 60; i++)
    entries.push(user(`u${i}`, `question ${i}`), reply(`a${i}`, `answer **${i}** `.repeat(9)));
  const h = harness();
  h.app.handle({ type: 'init', state: snapshot(entries), models });
  const ids = () => h.messages().map((m) => m.getAttribute('data-entry-id'));
  assert.deepEqual(
    ids(),
    entries.slice(-FIRST_PAINT_ENTRIES).map((e) => e.id),
    'the end first',
  );
  h.layout.settle();
  assert.ok(h.layout.max > 200, 'the first paint already fills more than the view');
  assert.equal(h.layout.top, h.layout.max);
  // The user scrolls up while older entries are still being painted: what they read stays in place.
  h.layout.userScroll(h.layout.max - 100);
  const before = { top: h.layout.top, height: h.layout.height };
  h.frame();
  assert.ok(h.messages().length > FIRST_PAINT_ENTRIES, 'older entries painted in the next frame');
  assert.equal(h.layout.top - before.top, h.layout.height - before.height, 'kept in place as the list grew above');
  for (let i = 0; i < 200 && h.frames.length; i++) h.frame();
  assert.deepEqual(
    ids(),
    entries.map((e) => e.id),
    'all of them, in order',
  );
  // An entry removed before it was painted is not painted.
  const again = harness();
  again.app.handle({ type: 'init', state: snapshot(entries), models });
  again.app.handle({ type: 'entryRemoved', id: 'a0' });
  for (let i = 0; i < 200 && again.frames.length; i++) again.frame();
  assert.equal(again.messages().length, entries.length - 1);
  assert.equal(again.list.querySelector('[data-entry-id="a0"]'), null);
});

test('the page saves only the draft: never the conversation, never while a reply streams', async () => {
  const h = harness();
  h.app.handle({ type: 'init', state: snapshot([user('u1', 'remember me'), reply('a1', 'I will.')]), models });
  h.app.handle({ type: 'busy', busy: true });
  h.app.handle({ type: 'entryAdded', entry: user('u2', 'go on') });
  h.app.handle({ type: 'entryAdded', entry: streamingReply('a2') });
  for (let i = 0; i < 20; i++) {
    h.app.handle({ type: 'entryDelta', id: 'a2', text: `word ${i} ` });
    h.frame();
  }
  h.app.handle({ type: 'entryUpdated', entry: reply('a2', 'done') });
  h.app.handle({ type: 'busy', busy: false });
  await new Promise((r) => setTimeout(r, 700));
  assert.equal(h.state.writes, 0, 'host messages never write the page state');

  const input = h.q<HTMLTextAreaElement>('chat-input')!;
  for (const v of ['a', 'a d', 'a draft']) {
    input.value = v;
    input.dispatchEvent(new h.win.Event('input'));
  }
  await new Promise((r) => setTimeout(r, 700));
  assert.equal(h.state.writes, 1, 'typing writes once, when it rests');
  assert.deepEqual(h.state.value, { draft: 'a draft', attachments: [] });

  // A reload: the draft is back at once; the conversation comes with the host's init.
  const again = harness(JSON.parse(JSON.stringify(h.state.value)));
  assert.equal(again.q<HTMLTextAreaElement>('chat-input')!.value, 'a draft');
  assert.equal(again.messages().length, 0);
  assert.equal(again.q('chat-empty')!.hidden, true, 'no "empty conversation" text before the host answers');
  assert.deepEqual(again.posted, [], 'restoring posts nothing (main.ts then says ready)');
  again.app.handle({ type: 'init', state: snapshot([user('u1', 'remember me'), reply('a1', 'I will.')]), models });
  assert.equal(again.messages().length, 2);
  assert.match(again.list.textContent ?? '', /remember me/);
});

test("the options are the host's: the page has no defaults of its own and sends nothing before the host's init", () => {
  const h = harness();
  const temperature = h.q<HTMLInputElement>('chat-temperature')!;
  const maxTokens = h.q<HTMLInputElement>('chat-max-tokens')!;
  assert.equal(temperature.value, '', 'no temperature of the page');
  assert.equal(maxTokens.value, '', 'no max tokens of the page');
  h.q<HTMLTextAreaElement>('chat-input')!.value = 'too early';
  h.q('chat-send')!.click();
  temperature.value = '1';
  temperature.dispatchEvent(new h.win.Event('change'));
  assert.deepEqual(h.posted, [], 'nothing sent before the host answered');
  assert.equal(h.q<HTMLTextAreaElement>('chat-input')!.value, 'too early', 'the draft stays');

  h.app.handle({ type: 'init', state: snapshot([]), models });
  assert.equal(temperature.value, '0.3');
  assert.equal(maxTokens.value, '2048');
  h.q('chat-send')!.click();
  assert.deepEqual(h.posted.at(-1), {
    type: 'send',
    text: 'too early',
    options: {
      surface: 'compatible',
      model: 'gpt-4o-mini',
      gateway: 'default',
      system: '',
      temperature: 0.3,
      maxTokens: 2048,
    },
  });
});
