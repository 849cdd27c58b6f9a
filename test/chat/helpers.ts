/** Shared by the chat tests: one strict simulator per file, reset before each test; chat options per surface. */
import type { ChatOptions, ChatSurface } from '../../src/shared/chatProtocol';

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
