/** Shared by the chat tests: one strict simulator per file, reset before each test; chat options per surface; image files. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChatImageFiles } from '../../src/host/chat/imageFiles';
import type { ChatOptions, ChatSurface, ModelGroup, ModelList, ModelOption } from '../../src/shared/chatProtocol';

export const T = { timeout: 20_000 };
export const modelOf = (s: ChatSurface) => (s === 'native' ? 'claude-sonnet-4-5' : 'gpt-4o-mini');
export const opts = (surface: ChatSurface, extra: Partial<ChatOptions> = {}): ChatOptions => ({
  surface,
  model: modelOf(surface),
  system: '',
  temperature: 0.5,
  maxTokens: 512,
  ...extra,
});

export { useSimulator } from '../sim/profiles';

const dirs: string[] = [];
process.on('exit', () => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** The chat's image files in a fresh temporary folder (removed when the test process exits). */
export function imageFiles(): ChatImageFiles {
  const dir = mkdtempSync(join(tmpdir(), 'relay-chat-images-'));
  dirs.push(dir);
  return new ChatImageFiles(join(dir, 'chat-images'));
}

/** A model list of one gateway (the picker as it was before there were several gateways). */
export function oneGateway(
  items: ModelOption[],
  defaults: ModelGroup['defaults'],
  extra: Partial<ModelGroup> = {},
): ModelList {
  return {
    groups: [{ gateway: { id: 'default', name: 'gateway.example.com' }, active: true, items, defaults, ...extra }],
    loading: false,
  };
}
