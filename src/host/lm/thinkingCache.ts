/**
 * The reasoning of our own replies, kept per model and tool call id to go back in front of those
 * calls on the next request: VS Code's stable API has no part to carry it, and the surfaces need it
 * in a tool loop — the native surface's signed thinking blocks (refused without them when thinking
 * is on), the compatible surface's `reasoning_content` (DeepSeek and Kimi thinking refuse a tool
 * loop without it, reasoningReplay.ts), the responses surface's reasoning items (replayed
 * statelessly). Another model's reasoning is never handed out. Bounded in entries and characters:
 * the oldest go first.
 */
import type {
  ChatResult,
  ContentPart,
  ReasoningItemPart,
  ReasoningPart,
  RedactedThinkingPart,
  ThinkingPart,
} from '../../gateway';

export type ReplyReasoning = ThinkingPart | RedactedThinkingPart | ReasoningPart | ReasoningItemPart;

const isReplyReasoning = (p: ContentPart): p is ReplyReasoning =>
  p.type === 'thinking' || p.type === 'redacted_thinking' || p.type === 'reasoning' || p.type === 'reasoning_item';

const sizeOf = (parts: readonly ReplyReasoning[]) =>
  parts.reduce((n, p) => {
    if (p.type === 'thinking') return n + p.text.length + p.signature.length;
    if (p.type === 'redacted_thinking') return n + p.data.length;
    if (p.type === 'reasoning') return n + p.text.length;
    return n + p.summary.join('').length + (p.encryptedContent?.length ?? 0);
  }, 0);

/**
 * What of a reply goes back with its tool calls: its signed thinking blocks or reasoning items
 * (`thinking`) when it has them, else its reasoning text (the compatible surface's).
 */
export function replyReasoning(result: Pick<ChatResult, 'thinking' | 'reasoning'>): ReplyReasoning[] {
  const kept = (result.thinking as readonly ContentPart[]).filter(isReplyReasoning);
  if (kept.length) return kept;
  return result.reasoning ? [{ type: 'reasoning', text: result.reasoning }] : [];
}

interface Entry {
  parts: ReplyReasoning[];
  size: number;
}

export class ThinkingCache {
  private readonly entries = new Map<string, Entry>();
  private chars = 0;
  constructor(
    private readonly capacity = 512,
    /** all entries' reasoning together, in characters (a reply's is counted once per call it made) */
    private readonly maxChars = 8_000_000,
  ) {}

  private static key(model: string, callId: string): string {
    return `${model}\u0000${callId}`;
  }

  /** Remembers what preceded these calls (one reply's) for this model. */
  remember(model: string, callIds: readonly string[], parts: readonly ReplyReasoning[]): void {
    if (!parts.length) return;
    const size = sizeOf(parts);
    if (size > this.maxChars) return;
    for (const id of callIds) {
      this.drop(ThinkingCache.key(model, id));
      this.entries.set(ThinkingCache.key(model, id), { parts: [...parts], size });
      this.chars += size;
    }
    while (this.entries.size > this.capacity || this.chars > this.maxChars)
      this.drop(this.entries.keys().next().value as string);
  }

  /** Remembers a finished reply's reasoning for its tool calls. */
  rememberReply(model: string, result: Pick<ChatResult, 'toolCalls' | 'thinking' | 'reasoning'>): void {
    this.remember(
      model,
      result.toolCalls.map((c) => c.id),
      replyReasoning(result),
    );
  }

  /** What to send in front of this call of this model (none when another model made it). */
  get(model: string, callId: string): ReplyReasoning[] {
    return this.entries.get(ThinkingCache.key(model, callId))?.parts ?? [];
  }

  get size(): number {
    return this.entries.size;
  }

  private drop(key: string): void {
    const e = this.entries.get(key);
    if (!e) return;
    this.chars -= e.size;
    this.entries.delete(key);
  }
}
