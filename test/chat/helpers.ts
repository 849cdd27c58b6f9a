/** Shared by the chat tests: one strict simulator per file, reset before each test; chat options per surface. */
import { before, after, beforeEach } from 'node:test';
import type { ChatOptions, ChatSurface } from '../../src/shared/chatProtocol';
import { startSimulator, type Simulator } from '../sim/server';

export const T = { timeout: 20_000 };
export const modelOf = (s: ChatSurface) => (s === 'native' ? 'claude-sonnet-4-5' : 'gpt-4o-mini');
export const opts = (surface: ChatSurface, extra: Partial<ChatOptions> = {}): ChatOptions => ({ surface, model: modelOf(surface), system: '', temperature: 0.5, maxTokens: 512, ...extra });

/** A strict simulator for the whole file: `sim()` is valid inside tests. */
export function useSimulator(): () => Simulator {
  let sim: Simulator;
  before(async () => {
    sim = await startSimulator();
  });
  after(() => sim.close());
  beforeEach(() => sim.reset());
  return () => sim;
}
