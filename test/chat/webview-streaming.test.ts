/**
 * A streaming reply renders in time linear in its length: a long code block whose fence is still
 * open is not re-parsed per frame (its code is appended as text), and what it shows is what the
 * renderer makes of the text so far; the finished reply is rendered exactly as before.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { JSDOM } from 'jsdom';
import { createMarkdownRenderer } from '../../src/webview/markdownRenderer';
import { StreamingBody, StreamSplitter, stableSplit } from '../../src/webview/streamingBody';
import { chatStrings } from '../../src/host/chat/chatWords';
import { harness, models, reply, snapshot } from './webview-harness';

/** Counts the characters the page parses as HTML (what the sanitiser does with every render). */
function countParsing(win: Window): { chars: number } {
  const counter = { chars: 0 };
  const proto = (win as unknown as { DOMParser: typeof DOMParser }).DOMParser.prototype;
  const parse = Object.getOwnPropertyDescriptor(proto, 'parseFromString')!.value as DOMParser['parseFromString'];
  proto.parseFromString = function (this: DOMParser, text: string, type: DOMParserSupportedType) {
    counter.chars += text.length;
    return Reflect.apply(parse, this, [text, type]) as Document;
  };
  return counter;
}

const codeLine = (i: number) => `  const value${i} = compute(${i}, "<b>&amp;</b>");\n`;

test('a long open code block is parsed once, not once per frame: the work grows linearly with its length', () => {
  const work = (lines: number) => {
    const h = harness();
    h.app.handle({ type: 'init', state: snapshot([]), models });
    h.app.handle({ type: 'entryAdded', entry: reply('s', '', { status: 'streaming' }) });
    const parsed = countParsing(h.win);
    h.app.handle({ type: 'entryDelta', id: 's', text: 'Here:\n\n```ts\n' });
    h.frame();
    const codes = new Set<Element>();
    for (let i = 0; i < lines; i++) {
      h.app.handle({ type: 'entryDelta', id: 's', text: codeLine(i) });
      h.frame();
      codes.add(h.list.querySelector('[data-entry-id="s"] pre > code')!);
    }
    const code = h.list.querySelector('[data-entry-id="s"] pre > code')!;
    assert.equal(code.textContent, Array.from({ length: lines }, (_, i) => codeLine(i)).join(''), 'shows all the code');
    return { chars: parsed.chars, codes: codes.size };
  };
  const short = work(100);
  const long = work(400);
  assert.equal(long.codes, 1, 'the code element is kept, never rebuilt');
  // 4× the code: at most 4× the parsing (a quadratic renderer parses 16× as much).
  assert.ok(long.chars <= 4 * short.chars + 1000, `parsed ${short.chars} then ${long.chars} characters`);
  assert.ok(long.chars < 400 * codeLine(1).length, 'less than the code itself: the code is never parsed as HTML');
});

/** The text of every code block, as the renderer makes them from `text`. */
function codeTexts(root: ParentNode): string[] {
  return Array.from(root.querySelectorAll('pre > code')).map((c) => c.textContent ?? '');
}

const DOCUMENTS: Array<[string, string]> = [
  ['plain fence', 'Intro\n\n```js\nconst a = 1 < 2;\n\n  indented <b>x</b> & y\n```\nAfter.\n'],
  ['fence right after a paragraph', 'Look:\n```py\nprint("hi")\nprint("bye")\n```\n'],
  ['tilde fence with backticks inside', '~~~~\n```\nnot a close\n~~~\nstill code\n~~~~\ndone\n'],
  [
    'indented fence in a list item',
    '1. Create it:\n   ```ts\n   export const a = 1;\n\n     nested\n   ```\n2. Run it.\n',
  ],
  ['indented fence with a shorter line', '  ```\n  one\n two\nthree\n  ```\n'],
  ['tabs and html', '```\n\tcode\t<script>alert(1)</script>\n```\n'],
  ['two fences', '```a\n1\n```\n\ntext\n\n````b\n2\n```\n3\n````\n'],
  ['unclosed at the end', 'Start\n\n```rust\nfn main() {\n    println!("{}", 1);\n}\n'],
];

test('while a fence is open, the code shown is what the renderer makes of the text so far; the finished reply is rendered as before', () => {
  const { window } = new JSDOM('<!DOCTYPE html><body></body>');
  const win = window as unknown as Window;
  const md = createMarkdownRenderer(win, { strings: chatStrings() });
  for (const [label, doc] of DOCUMENTS) {
    for (const step of [1, 3, 7]) {
      const body = new StreamingBody(win.document, md, 'Receiving');
      const box = win.document.createElement('div');
      box.append(...body.parts);
      for (let at = step; at < doc.length + step; at += step) {
        const text = doc.slice(0, at);
        body.append(doc.slice(at - step, at));
        // Only at line ends: a half-written line may yet become a closing fence.
        if (!text.endsWith('\n')) continue;
        const expected = win.document.createElement('div');
        expected.append(md.render(text));
        assert.equal(
          codeTexts(box).at(-1),
          codeTexts(expected).at(-1),
          `${label}, ${step} characters a frame, at ${JSON.stringify(text.slice(-20))}`,
        );
      }
    }
  }
  // The finished reply: one full render, the same as a reply that never streamed.
  const h = harness();
  h.app.handle({ type: 'init', state: snapshot([]), models });
  h.app.handle({ type: 'entryAdded', entry: reply('s', '', { status: 'streaming' }) });
  const [, doc] = DOCUMENTS[3];
  for (let at = 0; at < doc.length; at += 5) {
    h.app.handle({ type: 'entryDelta', id: 's', text: doc.slice(at, at + 5) });
    h.frame();
  }
  h.app.handle({ type: 'entryUpdated', entry: reply('s', doc) });
  const once = harness();
  once.app.handle({ type: 'init', state: snapshot([reply('s', doc)]), models });
  const body = (x: ReturnType<typeof harness>) => x.list.querySelector('[data-testid="chat-message-body"]')!.innerHTML;
  assert.equal(body(h), body(once));
});

test('the splitter looks at each line once: fed piece by piece it cuts where a whole scan does', () => {
  const doc = DOCUMENTS.map(([, d]) => d).join('\nPara.\n\n');
  const splitter = new StreamSplitter();
  for (let at = 3; at <= doc.length; at += 3) {
    const text = doc.slice(0, at);
    assert.equal(splitter.feed(doc.slice(at - 3, at)).cut, stableSplit(text), `at ${at}`);
  }
  assert.deepEqual(new StreamSplitter().feed('Intro\n\n   ~~~~py\nx\n').fence, {
    start: 7,
    contentStart: 17,
    ch: '~',
    len: 4,
    indent: 3,
  });
});
