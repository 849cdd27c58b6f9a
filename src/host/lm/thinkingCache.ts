/**
 * The native surface's signed thinking blocks, kept per tool call id: VS Code's stable API has no
 * part to carry them, and with thinking on the surface rejects a tool loop that does not send them
 * back with the tool results they preceded. Bounded: the oldest entries go first.
 */
import type { ReplayedReasoning } from '../../gateway';

type Block = ReplayedReasoning;

export class ThinkingCache {
  private readonly byCall = new Map<string, Block[]>();
  constructor(private readonly capacity = 512) {}

  /** Remembers the blocks that preceded these calls (one reply's). */
  remember(callIds: readonly string[], blocks: readonly Block[]): void {
    if (!blocks.length) return;
    for (const id of callIds) {
      this.byCall.delete(id);
      this.byCall.set(id, [...blocks]);
    }
    while (this.byCall.size > this.capacity) this.byCall.delete(this.byCall.keys().next().value as string);
  }

  /** The blocks to send in front of this call (a reply's calls share them: only the first asks gets them). */
  get(callId: string): Block[] {
    return this.byCall.get(callId) ?? [];
  }

  get size(): number {
    return this.byCall.size;
  }
}
