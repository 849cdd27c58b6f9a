// The chat webview's own figures (issue 21 §2), in jsdom with the real bundle (dist/webview.js):
// - restore to first paint: a 200-turn conversation with 20 `/image` replies (images as webview URIs,
//   never base64), shown again (the panel's page is rebuilt when it is shown): from the moment the
//   webview's script starts, with the state it saved, through `ready` and the host's `init`, until the
//   end of the conversation is in the page (CPU time of that work, as section 5 counts main-thread
//   time, and wall time); and how long until every entry is;
// - per-frame render time of a 100 KB code block while it streams (its fence still open): the frames
//   near its end against the frames at its start.
// The host's messages are built in bench/messages.ts against the protocol's types; an exception in the
// page fails the row with its own message. Used by bench/run.mjs; `node bench/webviewRender.mjs` prints the figures alone.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const { JSDOM, VirtualConsole } = require('jsdom');

const TURNS = 200;
const IMAGE_REPLIES = 20;
const CODE_BYTES = 100_000;
/** what one frame receives while the code block streams (a fast model at 60 frames a second) */
const FRAME_BYTES = 400;

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** The compiled tests and sources (BENCH_OUT, else out/): the messages (bench/messages.ts) and the chat's words. */
function compiled() {
  const outDir = resolve(root, process.env.BENCH_OUT ?? 'out');
  return {
    messages: require(join(outDir, 'bench/messages.js')),
    strings: JSON.stringify(require(join(outDir, 'src/host/chat/chatWords.js')).chatStrings()),
  };
}

/**
 * A fresh page with the bundle loaded: `saved` is what getState returns; animation frames are
 * collected (run them with `frame()`), so each frame's work can be timed alone. An exception in the
 * page (a message it could not handle) is kept: `check()` throws it.
 */
function page({ bundle, strings, m }, saved) {
  const errors = [];
  const virtualConsole = new VirtualConsole();
  virtualConsole.forwardTo(console, { jsdomErrors: 'none' });
  virtualConsole.on('jsdomError', (e) => errors.push(e));
  const dom = new JSDOM('<!DOCTYPE html><html><body><div id="app"></div></body></html>', {
    runScripts: 'outside-only',
    pretendToBeVisual: true,
    url: `${m.WEBVIEW_ORIGIN}/index.html`,
    virtualConsole,
  });
  const w = dom.window;
  const posted = [];
  const state = { value: saved, writes: 0, bytes: 0 };
  w.acquireVsCodeApi = () => ({
    postMessage: (msg) => posted.push(msg),
    getState: () => state.value,
    setState: (s) => {
      state.value = s;
      state.writes++;
      state.bytes = JSON.stringify(s).length;
    },
  });
  const frames = [];
  w.requestAnimationFrame = (fn) => frames.push(fn);
  w.document.getElementById('app').dataset.strings = strings;
  // The page's script is this webview's own resource: its origin is the one images may load from.
  Object.defineProperty(w.document, 'currentScript', { value: { src: `${m.WEBVIEW_ORIGIN}/dist/webview.js` } });
  const send = (data) => w.dispatchEvent(new w.MessageEvent('message', { data }));
  const frame = () => {
    for (const f of frames.splice(0)) f(performance.now());
  };
  const boot = () => w.eval(bundle);
  const painted = () => w.document.querySelector(`[data-entry-id="a${TURNS - 1}"]`) !== null;
  const check = () => {
    if (errors.length) throw new Error(`the chat webview failed: ${errors[0].cause?.stack ?? errors[0].message}`);
  };
  return { dom, w, posted, state, send, frame, boot, painted, check };
}

async function until(cond, ms) {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
  return true;
}

/** The webview's saved state after it showed the conversation and a draft was typed. */
async function savedState(c, init) {
  const p = page(c, undefined);
  p.boot();
  p.send(structuredClone(init));
  const input = p.w.document.querySelector('[data-testid="chat-input"]');
  input.value = 'a draft';
  input.dispatchEvent(new p.w.Event('input'));
  await until(() => p.state.writes > 0, 10_000);
  p.check();
  const saved = p.state.value === undefined ? undefined : JSON.parse(JSON.stringify(p.state.value));
  p.dom.window.close();
  return saved;
}

/**
 * Script start (with the saved state) → the last reply in the page, answering `ready` with `init` at
 * once (the host holds the conversation); then the frames until every entry is painted.
 */
function firstPaint(c, init, saved) {
  const p = page(c, saved);
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  p.boot();
  if (!p.painted() && p.posted.some(c.m.isReady)) p.send(structuredClone(init));
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const cpuMs = (cpu.user + cpu.system) / 1000;
  p.check();
  if (!p.painted()) throw new Error('the conversation was not painted');
  const messages = p.w.document.querySelectorAll('[data-testid="chat-message"]').length;
  const list = p.w.document.querySelector('[data-testid="chat-messages"]');
  const entries = init.state.entries.length;
  for (let i = 0; i < 10_000 && list.childElementCount < entries; i++) p.frame();
  const allMs = performance.now() - t0;
  p.check();
  if (list.childElementCount < entries) throw new Error(`${list.childElementCount} of ${entries} entries painted`);
  const images = p.w.document.querySelectorAll('[data-testid="chat-message-image"]').length;
  p.dom.window.close();
  return { ms, cpuMs, allMs, messages, images };
}

/** Per-frame render time of one streaming 100 KB code block: frames at its start and near its end. */
function codeBlockFrames(c) {
  const { m } = c;
  const p = page(c, undefined);
  p.boot();
  p.send(m.initMessage(m.chatSnapshot([], m.chatOptions('gpt-4o-mini'))));
  p.send(m.streamingReplyAdded('s', 'gpt-4o-mini'));
  let code = 'Here it is:\n\n```ts\n';
  for (let i = 0; code.length < CODE_BYTES; i++)
    code += `export const value${i} = compute(${i}, "some text <b>&</b>", { depth: ${i % 7} });\n`;
  const times = [];
  for (let at = 0; at < code.length; at += FRAME_BYTES) {
    p.send(m.entryDelta('s', code.slice(at, at + FRAME_BYTES)));
    const t0 = performance.now();
    p.frame();
    times.push(performance.now() - t0);
  }
  p.check();
  const shown = p.w.document.querySelector('[data-entry-id="s"] code')?.textContent.length ?? 0;
  p.dom.window.close();
  if (shown < CODE_BYTES * 0.9) throw new Error(`the streaming code block shows ${shown} characters`);
  const tenth = Math.max(5, Math.floor(times.length / 10));
  // The first frames warm the JIT: the start is frames 5 … 5+tenth, the end the last tenth.
  const start = median(times.slice(5, 5 + tenth));
  const end = median(times.slice(-tenth));
  return { startMs: start, endMs: end, frames: times.length };
}

/** All figures, medians of `runs` alternating runs. */
export async function webviewFigures(runs = 5) {
  const { messages: m, strings } = compiled();
  const c = { bundle: readFileSync(join(root, 'dist/webview.js'), 'utf8'), strings, m };
  const init = m.initMessage(m.longConversation(TURNS, IMAGE_REPLIES));
  const saved = await savedState(c, init);
  const paint = [];
  const paintCpu = [];
  const all = [];
  const starts = [];
  const ends = [];
  let first;
  let frames = 0;
  for (let i = 0; i < runs; i++) {
    first = firstPaint(c, init, saved);
    paint.push(first.ms);
    paintCpu.push(first.cpuMs);
    all.push(first.allMs);
    const b = codeBlockFrames(c);
    starts.push(b.startMs);
    ends.push(b.endMs);
    frames = b.frames;
  }
  const start = median(starts);
  const end = median(ends);
  return {
    restore: {
      firstPaintMs: median(paint),
      firstPaintCpuMs: median(paintCpu),
      allEntriesMs: median(all),
      savedStateBytes: saved === undefined ? 0 : JSON.stringify(saved).length,
      messagesAtFirstPaint: first.messages,
      imagesShown: first.images,
      entries: init.state.entries.length,
    },
    codeBlock: { startMs: start, endMs: end, ratio: end / start, frames },
  };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const runs = Number(process.argv.find((a) => a.startsWith('--runs='))?.slice(7) ?? 5);
  console.log(JSON.stringify(await webviewFigures(runs), null, 2));
}
