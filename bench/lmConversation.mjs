// An agent conversation as VS Code hands it to the language-model provider, for bench/lmScale.mjs:
// VS Code's part classes (a small stand-in for the `vscode` module, shaped as VS Code's own) and
// src/extension/lm/lmParts.ts bundled against them with esbuild, so the bench runs the provider's
// own conversion (toLmMessages, toLmPart) without VS Code.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';

/** The language-model classes of VS Code's API that lmParts.ts tests with `instanceof`. */
const FAKE_VSCODE = `
class LanguageModelTextPart { constructor(value) { this.value = value; } }
class LanguageModelToolCallPart { constructor(callId, name, input) { this.callId = callId; this.name = name; this.input = input; } }
class LanguageModelToolResultPart { constructor(callId, content) { this.callId = callId; this.content = content; } }
class LanguageModelPromptTsxPart { constructor(value) { this.value = value; } }
class LanguageModelDataPart {
  constructor(data, mimeType) { this.data = data; this.mimeType = mimeType; }
  static image(data, mimeType) { return new LanguageModelDataPart(data, mimeType); }
  static json(value, mimeType = 'application/json') { return new LanguageModelDataPart(new TextEncoder().encode(JSON.stringify(value)), mimeType); }
}
class LanguageModelThinkingPart { constructor(value) { this.value = value; } }
class LanguageModelChatMessage { constructor(role, content, name) { this.role = role; this.content = content; this.name = name; } }
module.exports = { LanguageModelTextPart, LanguageModelToolCallPart, LanguageModelToolResultPart, LanguageModelPromptTsxPart,
  LanguageModelDataPart, LanguageModelThinkingPart, LanguageModelChatMessage };
`;

/** lmParts.ts (toLmMessages, toLmPart) bundled against the stand-in, and the stand-in's classes. */
export async function lmParts(root) {
  const out = await build({
    stdin: {
      contents: "export * from './src/extension/lm/lmParts'; export * as vscode from 'vscode';",
      resolveDir: root,
      loader: 'ts',
    },
    bundle: true,
    platform: 'node',
    format: 'cjs',
    write: false,
    logLevel: 'silent',
    plugins: [
      {
        name: 'fake-vscode',
        setup(b) {
          b.onResolve({ filter: /^vscode$/ }, () => ({ path: 'vscode', namespace: 'fake-vscode' }));
          b.onLoad({ filter: /.*/, namespace: 'fake-vscode' }, () => ({ contents: FAKE_VSCODE, loader: 'js' }));
        },
      },
    ],
  });
  const mod = { exports: {} };
  new Function('module', 'exports', 'require', out.outputFiles[0].text)(
    mod,
    mod.exports,
    (await import('node:module')).createRequire(import.meta.url),
  );
  return mod.exports;
}

/** The token fixtures by kind: English prose, code, Chinese prose. */
export function fixtures(root) {
  const dir = join(root, 'test/fixtures/tokens');
  const read = (prefix) =>
    readdirSync(dir)
      .filter((f) => f.startsWith(prefix))
      .map((f) => readFileSync(join(dir, f), 'utf8'))
      .join('\n');
  return { English: read('en'), code: read('code'), Chinese: read('zh') };
}

/** About `size` characters of `base`, made unique by a numbered line every repeat (as tool output differs). */
export function textOf(base, size, tag) {
  let s = '';
  for (let i = 0; s.length < size; i++) s += `${tag}.${i}\n${base}\n`;
  return s.slice(0, size);
}

const TOOL_NAMES = ['read_file', 'grep_search', 'run_in_terminal', 'list_dir', 'get_errors', 'semantic_search'];
/** Output sizes of the tool results, cycled (characters): small reads, long logs and files. */
const SIZES = [2500, 4000, 6500, 3000, 9000, 5000, 14000, 3500];

/** A tool-result image (random bytes with a PNG signature: only its size matters here). */
function image(bytes, seed) {
  const b = new Uint8Array(bytes);
  let x = seed * 2654435761;
  for (let i = 0; i < bytes; i++) b[i] = (x = (x * 1103515245 + 12345) >>> 0) >>> 24;
  b.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return b;
}

/**
 * An agent conversation of `messages` messages, about `chars` characters of text: Copilot's system
 * prompt, the user's question, then assistant turns that call a tool and user turns that carry its
 * result (English, code and Chinese in turn; an image with every 30th result; Copilot's cache
 * markers on some), and the question of this turn. `texts` gives the prose of each kind.
 */
export function conversation(vscode, texts, { messages = 300, chars = 1_000_000, kinds } = {}) {
  const V = vscode;
  const all = kinds ?? Object.keys(texts);
  const out = [new V.LanguageModelChatMessage(3, [new V.LanguageModelTextPart(textOf(texts.English, 16_000, 's'))])];
  out.push(new V.LanguageModelChatMessage(1, [new V.LanguageModelTextPart('Find why the tests fail and fix it.')]));
  const pairs = Math.floor((messages - 3) / 2);
  const scale = (chars - 16_000) / (pairs * (SIZES.reduce((a, b) => a + b) / SIZES.length + 160));
  for (let k = 0; k < pairs; k++) {
    const id = `call_${k}`;
    const name = TOOL_NAMES[k % TOOL_NAMES.length];
    out.push(
      new V.LanguageModelChatMessage(2, [
        new V.LanguageModelTextPart(
          `Step ${k}: I will look at src/module${k}.ts next, to see where the value comes from.`,
        ),
        new V.LanguageModelToolCallPart(id, name, { path: `src/module${k}.ts`, startLine: k, endLine: k + 80 }),
      ]),
    );
    const kind = all[k % all.length];
    const result = [
      new V.LanguageModelTextPart(textOf(texts[kind], Math.round(SIZES[k % SIZES.length] * scale), `r${k}`)),
    ];
    if (k % 30 === 29) result.push(V.LanguageModelDataPart.image(image(48 * 1024, k), 'image/png'));
    const content = [new V.LanguageModelToolResultPart(id, result)];
    if (k % 10 === 0) content.push(V.LanguageModelDataPart.json({ type: 'ephemeral' }, 'cache_control'));
    out.push(new V.LanguageModelChatMessage(1, content));
  }
  while (out.length < messages)
    out.push(new V.LanguageModelChatMessage(1, [new V.LanguageModelTextPart(`And the case ${out.length}?`)]));
  return out;
}

/** One more step of the loop: an assistant turn calling a tool and the user turn with its result (about 6 KB). */
export function toolStep(vscode, texts, k) {
  const V = vscode;
  const id = `call_${k}`;
  const kinds = Object.keys(texts);
  return [
    new V.LanguageModelChatMessage(2, [new V.LanguageModelToolCallPart(id, 'read_file', { path: `src/step${k}.ts` })]),
    new V.LanguageModelChatMessage(1, [
      new V.LanguageModelToolResultPart(id, [
        new V.LanguageModelTextPart(textOf(texts[kinds[k % kinds.length]], 6000, `n${k}`)),
      ]),
    ]),
  ];
}

/** The same messages as new objects with new strings, as each call receives them across VS Code's RPC. */
export function copied(vscode, messages) {
  const V = vscode;
  const part = (p) => {
    if (p instanceof V.LanguageModelTextPart) return new V.LanguageModelTextPart(JSON.parse(JSON.stringify(p.value)));
    if (p instanceof V.LanguageModelToolCallPart)
      return new V.LanguageModelToolCallPart(p.callId, p.name, JSON.parse(JSON.stringify(p.input)));
    if (p instanceof V.LanguageModelToolResultPart)
      return new V.LanguageModelToolResultPart(p.callId, p.content.map(part));
    if (p instanceof V.LanguageModelDataPart) return new V.LanguageModelDataPart(p.data.slice(), p.mimeType);
    return p;
  };
  return messages.map((m) => new V.LanguageModelChatMessage(m.role, m.content.map(part), m.name));
}

/** Agent mode's tools: names, descriptions and JSON schemas as VS Code passes them. */
export function agentTools(n = 40) {
  return Array.from({ length: n }, (_, i) => ({
    name: `${TOOL_NAMES[i % TOOL_NAMES.length]}_${i}`,
    description: `Tool ${i}: reads, searches or runs something in the workspace and returns what it found, as text.`,
    inputSchema: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'The absolute path of the file or folder.' },
        query: { type: 'string', description: 'What to look for.' },
        maxResults: { type: 'number', description: 'At most this many results.' },
      },
      required: ['path'],
    },
  }));
}
