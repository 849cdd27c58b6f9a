/**
 * The inline-completion engine's economy of calls (issue 25), each rule a table over a fake clock and
 * a fake client: the debounce from typing speed, aborts of superseded requests (one in flight per
 * document, never a reply for older text), typing through a shown suggestion, the cache for
 * backspace and retype, the context and document gates, what of an answer cut short or filtered is
 * shown. Pauses (cap, errors) are in completionPauses.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { errorFromResponse } from '../../src/gateway';
import { shownInsertion } from '../../src/host/completions/shownInsertion';
import { settle } from '../fakes/clock';
import { Rig } from './completionRig';

test('the debounce: the wait after the last keystroke follows the typing speed; none for an explicit request', async () => {
  const table: Array<[string, number[], 'automatic' | 'invoke', number]> = [
    ['first keystroke: the default wait', [], 'automatic', 150],
    ['steady 100 ms typing: 120 ms', [100, 100, 100, 100, 100, 100], 'automatic', 120],
    ['fast 40 ms typing: the 75 ms floor', Array(8).fill(40), 'automatic', 75],
    ['slow 350 ms typing: the 400 ms ceiling', Array(8).fill(350), 'automatic', 400],
    ['explicit request: at once', [100, 100, 100, 100], 'invoke', 0],
  ];
  for (const [name, gaps, trigger, wait] of table) {
    const rig = new Rig();
    const ed = rig.editor('let total = ');
    void ed.type('a');
    for (const g of gaps) {
      await rig.clock.advance(g);
      void ed.type('a');
    }
    ed.cancel();
    // (slow typing sends requests in its gaps while the pace is learned: count from here)
    const before = rig.client.requests.length;
    void ed.ask({ trigger });
    if (wait > 0) {
      await rig.clock.advance(wait - 1);
      assert.equal(rig.client.requests.length, before, `${name}: nothing before ${wait} ms`);
      await rig.clock.advance(1);
    } else await rig.clock.advance(0);
    assert.equal(rig.client.requests.length, before + 1, `${name}: asked at ${wait} ms`);
  }
});

test('superseded requests: aborted at once, their replies never returned, one in flight per document', async () => {
  const table: Array<{
    name: string;
    run: (rig: Rig) => Promise<unknown>;
    requests: number;
    aborted: number;
    answer: 'none' | 'latest';
  }> = [
    {
      name: 'a keystroke during the wait: nothing sent for the first',
      run: async (rig) => {
        const ed = rig.editor();
        const first = ed.type('m');
        await rig.clock.advance(100);
        void ed.type('a');
        assert.equal(await first, undefined);
        return rig.settleAll(ed);
      },
      requests: 1,
      aborted: 0,
      answer: 'latest',
    },
    {
      name: 'a keystroke while in flight: that request aborted, its reply never returned',
      run: async (rig) => {
        const ed = rig.editor();
        const first = ed.type('m');
        await rig.clock.advance(150 + 60);
        assert.equal(rig.client.inFlight, 1);
        void ed.type('a');
        await rig.clock.advance(0);
        assert.equal(rig.client.aborted, 1, 'aborted at the keystroke, not when its reply would come');
        assert.equal(await first, undefined);
        return rig.settleAll(ed);
      },
      requests: 2,
      aborted: 1,
      answer: 'latest',
    },
    {
      name: 'the token cancelled during the wait: nothing sent',
      run: async (rig) => {
        const ed = rig.editor();
        void ed.type('m');
        await rig.clock.advance(50);
        ed.cancel();
        return rig.settleAll(ed);
      },
      requests: 0,
      aborted: 0,
      answer: 'none',
    },
    {
      name: 'the token cancelled in flight: aborted',
      run: async (rig) => {
        const ed = rig.editor();
        void ed.type('m');
        await rig.clock.advance(200);
        ed.cancel();
        return rig.settleAll(ed);
      },
      requests: 1,
      aborted: 1,
      answer: 'none',
    },
    {
      name: 'the text moved on under the request (no new provide yet): the reply is not returned',
      run: async (rig) => {
        const ed = rig.editor();
        void ed.type('m');
        await rig.clock.advance(200);
        ed.edit('x');
        return rig.settleAll(ed);
      },
      requests: 1,
      aborted: 0,
      answer: 'none',
    },
    {
      name: 'a burst of 30 keystrokes at 60 ms, then a pause: one request, never two in flight',
      run: async (rig) => {
        const ed = rig.editor();
        for (let i = 0; i < 30; i++) {
          void ed.type('x');
          await rig.clock.advance(60);
        }
        const s = await rig.settleAll(ed);
        assert.equal(rig.client.maxInFlight, 1);
        return s;
      },
      requests: 1,
      aborted: 0,
      answer: 'latest',
    },
    {
      name: 'steady 100 ms typing with 200 ms pauses (past the 120 ms wait, within the reply): those aborted',
      run: async (rig) => {
        const ed = rig.editor();
        for (const gap of [100, 100, 100, 100, 100, 200, 100, 100, 200, 100]) {
          void ed.type('x');
          await rig.clock.advance(gap);
        }
        const s = await rig.settleAll(ed);
        assert.equal(rig.client.maxInFlight, 1);
        return s;
      },
      requests: 3,
      aborted: 2,
      answer: 'latest',
    },
  ];
  for (const row of table) {
    const rig = new Rig();
    const answer = await row.run(rig);
    assert.equal(rig.client.requests.length, row.requests, `${row.name}: requests`);
    assert.equal(rig.client.aborted, row.aborted, `${row.name}: aborted`);
    assert.equal(rig.engine.stats().aborted, row.aborted, `${row.name}: aborted in the stats`);
    assert.equal(rig.engine.stats().requests, row.requests, `${row.name}: requests in the stats`);
    if (row.answer === 'none') assert.equal(answer, undefined, row.name);
    else assert.equal((answer as { source?: string } | undefined)?.source, 'network', row.name);
  }
});

test('a reply is for the text it was asked for: version and offset of the last keystroke', async () => {
  const rig = new Rig();
  const ed = rig.editor();
  void ed.type('m');
  await rig.clock.advance(100);
  void ed.type('a');
  const s = await rig.settleAll(ed);
  assert.deepEqual(s, { insertText: 'completion()', offset: ed.offset, version: ed.version, source: 'network' });
  assert.ok(rig.client.requests[0]!.prefix.endsWith('items.ma'));
});

test('other documents are not superseded: each has its own request', async () => {
  const rig = new Rig();
  const a = rig.editor();
  const b = rig.editor('x = ');
  b.id = 'file:///w/src/b.ts';
  void a.type('m');
  void b.type('y');
  await rig.clock.advance(1000);
  assert.equal(rig.client.requests.length, 2);
  assert.equal(rig.client.aborted, 0);
  assert.ok(await a.last);
  assert.ok(await b.last);
});

test('typing through a shown suggestion: the rest of it, with no request', async () => {
  const table: Array<[string, (ed: import('./completionRig').Editor) => Promise<unknown>, string | undefined]> = [
    ['one character of it', (ed) => ed.type('r'), 'educe((a, b) => a + b, 0)'],
    [
      'several, one by one',
      async (ed) => (await ed.type('r'), await ed.type('e'), ed.type('d')),
      'uce((a, b) => a + b, 0)',
    ],
    ['a paste of its start', (ed) => ed.type('reduce('), '(a, b) => a + b, 0)'],
    ['a character that differs: asks anew', (ed) => ed.type('m'), undefined],
    ['all of it typed: asks anew', (ed) => ed.type('reduce((a, b) => a + b, 0)'), undefined],
  ];
  for (const [name, act, rest] of table) {
    const rig = new Rig();
    rig.client.reply = () => 'reduce((a, b) => a + b, 0)';
    const ed = rig.editor();
    void ed.type(' ');
    const s = await rig.settleAll(ed);
    rig.engine.shown(s!);
    const before = rig.client.requests.length;
    const acted = act(ed);
    if (rest === undefined) {
      assert.equal((await rig.settleAll(ed))?.source, 'network', name);
      await acted;
      assert.equal(rig.client.requests.length, before + 1, `${name}: a new request`);
    } else {
      await acted;
      const got = await ed.last;
      assert.deepEqual(
        got,
        { insertText: rest, offset: ed.offset, version: ed.version, source: 'typed-through' },
        name,
      );
      await rig.settleAll(ed);
      assert.equal(rig.client.requests.length, before, `${name}: no request`);
    }
  }
});

test('typing through needs a shown suggestion and the same text around it', async () => {
  const rig = new Rig();
  rig.client.reply = () => 'length';
  const ed = rig.editor('const n = items.\n// end', 16);
  void ed.ask();
  const s = await rig.settleAll(ed);
  assert.equal(s?.insertText, 'length');
  void ed.type('l');
  assert.equal((await rig.settleAll(ed))?.source, 'network', 'never shown: not typed through');
  // shown, then the text after the cursor changes (an auto-closed bracket): asks anew
  const shown = await ed.last;
  rig.engine.shown(shown!);
  ed.text = ed.text.slice(0, ed.offset) + ')' + ed.text.slice(ed.offset);
  void ed.type('e');
  assert.equal((await rig.settleAll(ed))?.source, 'network');
  assert.equal(rig.client.requests.length, 3);
});

test('backspace and retype of a recent prefix: served from the cache, no request', async () => {
  const rig = new Rig();
  rig.client.reply = (req) => `/*${req.prefix.slice(-2)}*/`;
  const ed = rig.editor();
  void ed.type('m');
  const first = await rig.settleAll(ed);
  assert.equal(first?.insertText, '/*.m*/');
  void ed.type('a');
  assert.equal((await rig.settleAll(ed))?.insertText, '/*ma*/');
  assert.equal(rig.client.requests.length, 2);
  const table: Array<[string, () => Promise<unknown>, string]> = [
    ['backspace to a prefix asked before', () => ed.backspace(), '/*.m*/'],
    ['retype the same character', () => ed.type('a'), '/*ma*/'],
    ['backspace and retype again', async () => (await ed.backspace(), ed.type('a')), '/*ma*/'],
  ];
  for (const [name, act, text] of table) {
    await act();
    const got = await ed.last;
    assert.deepEqual(got, { insertText: text, offset: ed.offset, version: ed.version, source: 'cache' }, name);
  }
  await rig.clock.advance(1000);
  assert.equal(rig.client.requests.length, 2, 'no request for any of them');
  assert.equal(rig.engine.stats().cacheHits, 4);
  // an empty answer is kept: that context is not asked again
  rig.client.reply = () => '';
  void ed.type('p');
  assert.equal(await rig.settleAll(ed), undefined);
  await ed.backspace();
  void ed.type('p');
  assert.equal(await rig.settleAll(ed), undefined);
  assert.equal(rig.client.requests.length, 3);
});

test('a connection is asked for when the debounce starts, so the request does not wait for a handshake', async () => {
  const rig = new Rig();
  rig.client.reply = (req) => `/*${req.prefix.slice(-2)}*/`;
  const ed = rig.editor();
  void ed.type('m');
  assert.deepEqual(rig.client.warms, [0], 'at the keystroke, before the request');
  void ed.type('a'); // superseded during the wait: asked again (one spare at most is the core's business)
  assert.equal((await rig.settleAll(ed))?.insertText, '/*ma*/');
  assert.deepEqual(rig.client.warms, [0, 0]);
  void ed.type('x');
  await rig.settleAll(ed);
  assert.deepEqual(rig.client.warms, [0, 0, 1]);
  const table: Array<[string, () => unknown]> = [
    ['backspace to a cached prefix', () => ed.backspace()],
    ['retype from the cache', () => ed.type('x')],
    ['mid-word', () => (ed.edit('bc'), (ed.offset -= 1), ed.ask())],
    ['an explicit request (no wait to use)', () => ((ed.offset += 1), ed.edit(' q'), ed.ask({ trigger: 'invoke' }))],
  ];
  for (const [name, act] of table) {
    const before = rig.client.warms.length;
    void act();
    await rig.settleAll(ed);
    assert.equal(rig.client.warms.length, before, name);
  }
  assert.equal(rig.client.requests.length, 3, 'the explicit request was sent, unwarmed');
  // paused by the gateway's back-off (a 401): no connection either
  const paused = new Rig();
  paused.client.failWith = () => errorFromResponse({ status: 401, headers: {}, body: '{}', context: {} });
  const e2 = paused.editor();
  void e2.type('m');
  await paused.settleAll(e2);
  assert.equal(paused.client.requests.length, 1);
  const warmed = paused.client.warms.length;
  void e2.type('n');
  await paused.settleAll(e2);
  assert.equal(paused.client.warms.length, warmed, 'no connection while paused');
  assert.equal(paused.client.requests.length, 1);
});

test('the request is prepared when the debounce starts and sent at its end, only when still wanted', async () => {
  // prepared at the keystroke (context, body, token: work the wait hides), on the wire after the wait
  const rig = new Rig();
  const ed = rig.editor();
  const first = ed.type('m');
  await rig.clock.advance(0);
  assert.equal(rig.client.prepared.length, 1, 'prepared at the keystroke');
  assert.equal(rig.client.prepared[0].prefix, ed.text, 'with its context windows');
  assert.equal(rig.client.requests.length, 0, 'not sent during the wait');
  assert.equal(rig.engine.stats().requests, 0);
  // superseded during the wait: the prepared call ends, nothing was sent, nothing counted as aborted
  await rig.clock.advance(100);
  const second = ed.type('a');
  assert.equal(await first, undefined);
  await rig.clock.advance(149);
  assert.equal(rig.client.requests.length, 0);
  await rig.clock.advance(1);
  assert.equal(rig.client.requests.length, 1, 'sent at the end of its wait');
  assert.equal(rig.client.requests[0].prefix.at(-1), 'a');
  assert.equal((await rig.settleAll(ed)) !== undefined && (await second) !== undefined, true);
  assert.deepEqual([rig.engine.stats().requests, rig.engine.stats().aborted], [1, 0]);

  // a pause that begins during the wait (another document's request fails 401): not released
  const paused = new Rig();
  const other = paused.editor('const b = ', undefined);
  other.id = 'file:///w/src/b.ts';
  other.relativePath = 'src/b.ts';
  void other.type('x'); // sent at 150, fails at 300
  await paused.clock.advance(200);
  paused.client.failWith = () => errorFromResponse({ status: 401, headers: {}, body: '{}', context: {} });
  const waiting = paused.editor();
  const asked = waiting.type('m'); // its wait ends at 350, after the failure
  await paused.settleAll(waiting);
  assert.equal(await asked, undefined);
  assert.equal(paused.client.prepared.length, 2);
  assert.equal(paused.client.requests.length, 1, 'only the failed one went out');
  assert.equal(paused.engine.state().kind, 'paused-error');
  assert.equal(paused.engine.stats().requests, 1);

  // the client fails while preparing (e.g. its token store fails): the state says so at once, no request is counted
  const early = new Rig();
  early.client.failBeforeSend = () => errorFromResponse({ status: 401, headers: {}, body: '{}', context: {} });
  const e3 = early.editor();
  void e3.type('m');
  await early.clock.advance(0);
  await settle();
  assert.equal(early.engine.state().kind, 'paused-error', 'before the wait is over');
  await early.settleAll(e3);
  assert.deepEqual([early.client.requests.length, early.engine.stats().requests], [0, 0]);
});

test('the gates: no request, and the state says why', async () => {
  const table: Array<{
    name: string;
    rig: () => Rig;
    path?: string;
    text?: string;
    state: string;
    reason?: RegExp;
  }> = [
    { name: 'disabled', rig: () => new Rig({ enabled: false }), state: 'off:disabled' },
    { name: 'no model', rig: () => new Rig({ model: undefined }), state: 'off:no-model' },
    { name: 'no gateway client', rig: () => Object.assign(new Rig(), { hasClient: false }), state: 'off:no-gateway' },
    { name: 'untrusted workspace', rig: () => new Rig({ trusted: false }), state: 'excluded', reason: /untrusted/ },
    { name: '.env file', rig: () => new Rig(), path: '.env.local', state: 'excluded', reason: /\.env\.local matches/ },
    { name: 'a key under a folder', rig: () => new Rig(), path: 'certs/a.key', state: 'excluded', reason: /a\.key/ },
    { name: 'under .git', rig: () => new Rig(), path: '.git/COMMIT_EDITMSG', state: 'excluded' },
    {
      name: 'user pattern',
      rig: () => new Rig({ exclude: ['src/gen/**'] }),
      path: 'src/gen/api.ts',
      state: 'excluded',
    },
    {
      name: 'too large',
      rig: () => new Rig({ maxFileSize: 100 }),
      text: 'x'.repeat(101),
      state: 'excluded',
      reason: /100 characters/,
    },
    { name: 'mid-word', rig: () => new Rig(), text: 'const value = items.len|gth;', state: 'on' },
    { name: 'blank file', rig: () => new Rig(), text: '\n\n   |\n', state: 'on' },
    { name: 'comment-only', rig: () => new Rig(), text: '// Licensed under MIT|', state: 'on' },
  ];
  for (const row of table) {
    const rig = row.rig();
    const marked = row.text ?? 'let total = |';
    const at = marked.includes('|') ? marked.indexOf('|') : marked.length;
    const ed = rig.editor(marked.replace('|', ''), at);
    if (row.path) Object.assign(ed, { relativePath: row.path });
    void ed.ask();
    assert.equal(await rig.settleAll(ed), undefined, row.name);
    assert.equal(rig.client.requests.length, 0, `${row.name}: no request`);
    const st = rig.engine.state();
    assert.equal(st.kind + ('reason' in st && st.kind === 'off' ? `:${st.reason}` : ''), row.state, row.name);
    if (row.reason) assert.match((st as { reason: string }).reason, row.reason, row.name);
  }
});

test('an explicit request skips the context rules, not the gates', async () => {
  const rig = new Rig();
  const ed = rig.editor('const value = items.length;', 23);
  void ed.ask({ trigger: 'invoke' });
  assert.ok(await rig.settleAll(ed));
  assert.equal(rig.client.requests.length, 1);
  const env = rig.editor('SECRET=');
  Object.assign(env, { relativePath: '.env' });
  void env.ask({ trigger: 'invoke' });
  assert.equal(await rig.settleAll(env), undefined);
  assert.equal(rig.client.requests.length, 1);
});

test('with the suggest widget open the suggestion extends its selected item over its range', async () => {
  const rig = new Rig();
  rig.client.reply = () => '.log(x)';
  const ed = rig.editor('  con', 5);
  void ed.ask({ trigger: 'automatic', selected: { startOffset: 2, endOffset: 5, text: 'console' } });
  const s = await rig.settleAll(ed);
  assert.equal(rig.client.requests[0]!.prefix, '  console');
  assert.deepEqual(s, {
    insertText: 'console.log(x)',
    offset: 5,
    version: ed.version,
    source: 'network',
    range: { startOffset: 2, endOffset: 5 },
  });
});

test('the request carries the context windows, the file name, the language and the token limit', async () => {
  const rig = new Rig({ contextTokens: 100, maxTokens: 32 });
  const before = Array.from({ length: 200 }, (_, i) => `line${i}();\n`).join('');
  const ed = rig.editor(`${before}foo(\n${'after();\n'.repeat(200)}`, before.length + 4);
  void ed.ask();
  await rig.settleAll(ed);
  const req = rig.client.requests[0]!;
  assert.ok(req.prefix.endsWith('line199();\nfoo(') && req.prefix.length < 600, `${req.prefix.length}`);
  assert.ok(req.suffix.startsWith('\nafter();') && req.suffix.length < 300);
  assert.equal(req.fileName, 'src/a.ts');
  assert.equal(req.languageId, 'typescript');
  assert.equal(req.maxTokens, 32);
  assert.equal(req.model, 'deepseek-chat');
  assert.ok(req.signal instanceof AbortSignal);
});

test('shown and accepted are counted once per suggestion; reset forgets answers and aborts what is in flight', async () => {
  const rig = new Rig();
  const ed = rig.editor();
  void ed.type('m');
  const s = (await rig.settleAll(ed))!;
  rig.engine.shown(s);
  rig.engine.shown(s);
  ed.accept(s);
  const st = rig.engine.stats();
  assert.deepEqual([st.requests, st.shown, st.accepted], [1, 1, 1]);
  void ed.type(';');
  await rig.clock.advance(200);
  assert.equal(rig.client.inFlight, 1);
  rig.engine.reset();
  await rig.clock.advance(0);
  assert.equal(rig.client.aborted, 1);
  assert.equal(await ed.last, undefined);
  // the cache is gone: the same context asks again
  void ed.ask();
  await rig.settleAll(ed);
  assert.equal(rig.client.requests.length, 3);
});

test('an answer cut by max tokens shows its complete lines only; a filtered one nothing', async () => {
  const table: Array<[string, string | undefined, string | undefined]> = [
    ['total(items)', 'stop', 'total(items)'],
    ['total(items)', undefined, 'total(items)'],
    ['total(ite', 'length', undefined],
    ['total(items);\n  return to', 'length', 'total(items);'],
    ['a();\n  b();\n  c(', 'max_tokens', 'a();\n  b();'],
    ['a();\n', 'length', 'a();'],
    ['  \n  b(', 'length', undefined],
    ['a();\n  b(', 'pause_turn', 'a();'],
    ['I cannot help with that.', 'content_filter', undefined],
    ['a();\n', 'content_filter', undefined],
  ];
  for (const [text, reason, shown] of table) assert.equal(shownInsertion(text, reason), shown, `${reason}: ${text}`);
  const rig = new Rig();
  const ed = rig.editor();
  rig.client.reply = () => 'total(items);\n  return tot';
  rig.client.finishReason = () => 'length';
  void ed.type('m');
  assert.equal((await rig.settleAll(ed))?.insertText, 'total(items);');
  rig.client.reply = () => 'tota';
  void ed.type('a');
  assert.equal(await rig.settleAll(ed), undefined, 'cut mid-line: nothing');
  rig.client.reply = () => 'something()';
  rig.client.finishReason = () => 'content_filter';
  void ed.type('p');
  assert.equal(await rig.settleAll(ed), undefined, 'filtered: nothing');
  await ed.backspace();
  void ed.type('p');
  assert.equal(await rig.settleAll(ed), undefined);
  assert.equal(rig.client.requests.length, 3, 'kept as nothing: that context is not asked again');
});
