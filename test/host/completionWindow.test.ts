/**
 * A large document seen through a window (issue 25): the glue gives the engine only the text around
 * the cursor (`windowChars` of the context budget each side, `textStart` saying where it begins) so a
 * keystroke in a 1 MB file copies no 1 MB string. The engine must then ask, answer, type through,
 * hit its cache and extend the suggest widget's item exactly as it does with the whole text: the
 * same requests, the same suggestions at the same document offsets.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { contextWindows, windowChars } from '../../src/host/completions/context';
import type { Suggestion } from '../../src/host/completions/types';
import { Rig, type Editor } from './completionRig';

const CONTEXT_TOKENS = 256;
/** about 200 KB of code, the cursor in its middle (far from both ends of any window) */
const LINES = Array.from({ length: 5_000 }, (_, i) => `  const value${i} = compute(${i}, 'text');\n`);
const HALF = LINES.slice(0, 2_500).join('');
const DOC = `${HALF}  items.${LINES.slice(2_500).join('')}`;
const CURSOR = HALF.length + '  items.'.length;

interface Seen {
  requests: Array<{ prefix: string; suffix: string }>;
  answers: Array<Suggestion | undefined>;
  snapshots: Array<{ length: number; textStart: number | undefined }>;
}

/** One session of typing, as VS Code would ask, through whole snapshots or windows of `window` characters. */
async function session(window: number | undefined): Promise<Seen> {
  const rig = new Rig({ contextTokens: CONTEXT_TOKENS });
  rig.client.reply = (req) => (req.prefix.endsWith('con') ? 'sole.log(x)' : 'reduce((a, b) => a + b, 0)');
  const ed: Editor = rig.editor(DOC, CURSOR);
  ed.window = window;
  const snapshots: Seen['snapshots'] = [];
  const snapshot = ed.snapshot.bind(ed);
  ed.snapshot = () => {
    const s = snapshot();
    snapshots.push({ length: s.text.length, textStart: s.textStart });
    return s;
  };
  const answers: Seen['answers'] = [];
  const step = async (act: () => unknown) => {
    void act();
    answers.push(await rig.settleAll(ed));
  };
  await step(() => ed.ask()); // network
  rig.engine.shown(answers[0]!);
  await step(() => ed.type('r')); // typed through
  await step(() => ed.type('e')); // typed through
  await step(() => ed.backspace(2)); // the cache: the context of the first answer
  await step(() => ed.type('x')); // network
  // the suggest widget's item selected over the text before the cursor
  await step(() => ed.type(' con'));
  await step(() =>
    ed.ask({ trigger: 'automatic', selected: { startOffset: ed.offset - 3, endOffset: ed.offset, text: 'console' } }),
  );
  return {
    requests: rig.client.requests.map((r) => ({ prefix: r.prefix, suffix: r.suffix })),
    answers,
    snapshots,
  };
}

test('a window around the cursor gives the same requests and suggestions as the whole document', async () => {
  const w = windowChars(CONTEXT_TOKENS);
  const whole = await session(undefined);
  const windowed = await session(w);
  assert.ok(
    windowed.snapshots.every((s) => s.length <= 2 * w && s.textStart! > 0),
    'each snapshot held a window, not the document',
  );
  assert.deepEqual(
    whole.answers.map((a) => a?.source),
    ['network', 'typed-through', 'typed-through', 'cache', 'network', 'network', 'network'],
  );
  assert.equal(whole.requests.length, 4);
  assert.deepEqual(windowed.requests, whole.requests, 'the same context was sent');
  assert.deepEqual(windowed.answers, whole.answers, 'the same suggestions, at the same document offsets');
  // the context is what the budget gives over the whole text: the window never cut it
  const first = contextWindows(DOC, CURSOR, CONTEXT_TOKENS);
  assert.deepEqual(whole.requests[0], { prefix: first.prefix, suffix: first.suffix });
  assert.equal(whole.answers[0]!.offset, CURSOR);
  assert.deepEqual(whole.answers.at(-1)!.range, { startOffset: CURSOR + 1 + 1, endOffset: CURSOR + 1 + 4 });
});

test('the window is wide enough for any context budget the settings allow', () => {
  // lines of spaces cost one token per 101 characters: the scan runs to its bound, the window's edge
  const blank = `${' '.repeat(100)}\n`;
  for (const tokens of [64, 256, 1024, 8_000, 32_000]) {
    const w = windowChars(tokens);
    const side = blank.repeat(Math.ceil(w / blank.length) + 2);
    const text = `${side}x = ${side}`;
    const at = side.length + 4;
    const full = contextWindows(text, at, tokens);
    assert.ok(full.prefix.length > 0.9 * tokens * 0.7 * 16, `${tokens} tokens: the scan reached its bound`);
    assert.deepEqual(contextWindows(text.slice(at - w, at + w), w, tokens), full, `${tokens} tokens`);
  }
});
