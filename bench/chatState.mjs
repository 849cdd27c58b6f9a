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
  // the chat view as the extension wires it, and what the user sends: bench/messages.ts, against their types
  const { benchChatView, sendChat } = require(join(outDir, 'bench/messages.js'));
  const { ChatImageFiles } = require(join(outDir, 'src/host/chat/imageFiles.js'));
  const { STATE_KEY } = require(join(outDir, 'src/host/chat/chatStore.js'));
  const { InMemoryMemento } = require(join(outDir, 'test/fakes/state.js'));
  const { makeClient } = require(join(outDir, 'test/gateway/helpers.js'));

  const dir = mkdtempSync(join(tmpdir(), 'relay-bench-chat-'));
  const { client } = makeClient(sim);
  const state = new InMemoryMemento();
  const files = new ChatImageFiles(join(dir, 'chat-images'));
  let ended = 0;
  const view = benchChatView({ client, state, files, onIdle: () => ended++ });
  view.webviewReady();
  const started = performance.now();
  try {
    for (let i = 0; i < TURNS; i++) {
      const image = i % IMAGE_EVERY === IMAGE_EVERY - 1;
      sim.config.replyText = image ? undefined : replyText(i);
      sendChat(view, image ? `/image a lighthouse at dusk, take ${i}` : `Explain step ${i} of the build, please.`);
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
