// The chat's saved state (bench/run.mjs section "chatState"): a 200-turn conversation with 20 `/image`
// replies, built by the real host code — src/host/chat/chatView.ts with its ChatSession and ChatStore,
// the workspace state an in-memory Memento (test/fakes/state.ts), the images in a temporary folder —
// against the simulator over real HTTP. The figure is what VS Code would write for the chat.
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const TURNS = 200;
const IMAGE_EVERY = 10; // 20 of the 200 turns are `/image` replies
const GOAL_BYTES = 2 * 1024 * 1024;

/** A reply of about 1,200 characters: markdown with a code block, like a chat model's answer. */
function replyText(i) {
  const para = `Turn ${i}: here is what the code does and why, in a few sentences of plain explanation. `.repeat(6);
  return `${para}\n\n\`\`\`ts\nexport function f${i}(x: number): number {\n  return x * ${i} + 1;\n}\n\`\`\`\n\n${para}`;
}

export async function chatStateSize({ outDir, sim, row }) {
  const { createRequire } = await import('node:module');
  const require = createRequire(import.meta.url);
  const { ChatView } = require(join(outDir, 'src/host/chat/chatView.js'));
  const { ChatImageFiles } = require(join(outDir, 'src/host/chat/imageFiles.js'));
  const { sessionModels } = require(join(outDir, 'src/host/chat/modelTraits.js'));
  const { STATE_KEY } = require(join(outDir, 'src/host/chat/chatStore.js'));
  const { InMemoryMemento } = require(join(outDir, 'test/fakes/state.js'));
  const { makeClient } = require(join(outDir, 'test/gateway/helpers.js'));

  const dir = mkdtempSync(join(tmpdir(), 'relay-bench-chat-'));
  const { client } = makeClient(sim);
  const state = new InMemoryMemento();
  const files = new ChatImageFiles(join(dir, 'chat-images'));
  let ended = 0;
  const list = () => ({
    items: [],
    defaults: { compatible: 'gpt-4o-mini', native: 'claude-sonnet-4-5' },
    loading: false,
  });
  const view = new ChatView({
    backend: client,
    state,
    files,
    settings: () => ({
      defaultSurface: 'compatible',
      models: { chat: 'gpt-4o-mini', native: 'claude-sonnet-4-5' },
      temperature: 0.5,
      maxTokens: 1024,
      stream: true,
    }),
    models: sessionModels({ overrides: () => ({}), list }),
    modelList: list,
    image: {
      model: () => 'gpt-image-1',
      generate: async (prompt, signal) => {
        const r = await client.generateImage({ model: 'gpt-image-1', prompt, signal });
        return { bytes: r.images[0].bytes, savedPath: `.model-relay/images/${prompt.slice(0, 40)}.png` };
      },
    },
    post: (msg) => {
      if (msg.type === 'busy' && !msg.busy) ended++;
    },
    src: (file) => `https://file+.vscode-resource.vscode-cdn.net/chat-images/${file}`,
  });
  view.webviewReady();
  const options = { surface: 'compatible', model: 'gpt-4o-mini', system: '', temperature: 0.5, maxTokens: 1024 };
  const started = performance.now();
  try {
    for (let i = 0; i < TURNS; i++) {
      const image = i % IMAGE_EVERY === IMAGE_EVERY - 1;
      sim.config.replyText = image ? undefined : replyText(i);
      view.send(image ? `/image a lighthouse at dusk, take ${i}` : `Explain step ${i} of the build, please.`, options);
      while (ended <= i) await new Promise((r) => setTimeout(r, 1));
    }
    view.dispose(); // writes what is pending, as on closing the window
    await new Promise((r) => setTimeout(r, 50));
    await files.settled();
    const ms = performance.now() - started;
    const savedChars = state.sizeOf(STATE_KEY);
    const savedBytes = Buffer.byteLength(JSON.stringify(state.get(STATE_KEY)));
    const names = readdirSync(files.dir);
    const fileBytes = names.reduce((n, f) => n + statSync(join(files.dir, f)).size, 0);
    const images = view.entries.filter((e) => e.role === 'assistant' && e.images?.length).length;
    row(
      '12 chat saved state: 200 turns, 20 of them /image (host code, in-memory Memento)',
      `${(savedBytes / 1024).toFixed(1)} KB saved in workspace state (${view.entries.length} entries, ${images} with an image; ${state.writes} writes) · images as ${names.length} files, ${(fileBytes / 1024).toFixed(1)} KB · built in ${Math.round(ms)} ms`,
      {
        savedBytes,
        savedChars,
        entries: view.entries.length,
        imageReplies: images,
        writes: state.writes,
        files: names.length,
        fileBytes,
        ms: Math.round(ms),
      },
      '≤ 2 MB saved',
      savedBytes <= GOAL_BYTES && images === TURNS / IMAGE_EVERY,
    );
  } finally {
    sim.config.replyText = undefined;
    rmSync(dir, { recursive: true, force: true });
  }
}
