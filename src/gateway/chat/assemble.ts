/**
 * Assembles the structured parts of a streamed reply from a surface's events: tool calls (the
 * compatible surface streams argument fragments per index, the native one per content block) and
 * the native surface's signed thinking blocks (and the responses surface's reasoning items). A call is reported once, complete, its input parsed.
 */
import { newCallId, parseToolInput } from './tools';
import type { ChatEvent, RedactedThinkingPart, ReplayedReasoning, SurfaceEvent, ThinkingPart, ToolCall } from './types';

interface OpenCall {
  id: string;
  name: string;
  args: string;
  input: Record<string, unknown> | undefined;
}

interface OpenThinking {
  text: string;
  signature: string;
  redacted: string | undefined;
}

/** Called with a call whose arguments are not a JSON object; throws the error to report. */
export type BadArguments = (name: string, args: string) => never;

export class ReplyAssembler {
  readonly toolCalls: ToolCall[] = [];
  readonly thinking: ReplayedReasoning[] = [];
  reasoning = '';
  private readonly calls = new Map<number, OpenCall>();
  private readonly blocks = new Map<number, OpenThinking>();

  constructor(private readonly badArguments: BadArguments) {}

  /** Folds one structured surface event in; returns what the consumer should see now. */
  take(se: SurfaceEvent): ChatEvent[] {
    switch (se.type) {
      case 'reasoning':
        this.reasoning += se.text;
        if (se.index !== undefined) {
          const b = this.blocks.get(se.index);
          if (b) b.text += se.text;
        }
        return [{ type: 'reasoning', text: se.text }];
      case 'tool_start':
        return this.start(se.index, se.id, se.name, se.input, se.args);
      case 'tool_args':
        this.openAt(se.index).args += se.fragment;
        return [];
      case 'thinking_start':
        this.blocks.set(se.index, { text: '', signature: '', redacted: se.data });
        return [];
      case 'signature': {
        const b = this.blocks.get(se.index);
        if (b) b.signature += se.signature;
        return [];
      }
      case 'block_stop':
        return this.stop(se.index);
      case 'reasoning_item':
        this.thinking.push(se.item);
        return [{ type: 'thinking_block', block: se.item }];
      default:
        return [];
    }
  }

  /** Every call still open (the compatible surface completes calls at the finish reason or the end). */
  flush(): ChatEvent[] {
    const out: ChatEvent[] = [];
    for (const index of [...this.calls.keys()]) out.push(...this.complete(index));
    return out;
  }

  private start(
    index: number,
    id: string | undefined,
    name: string | undefined,
    input: Record<string, unknown> | undefined,
    args?: string,
  ): ChatEvent[] {
    const open = this.calls.get(index);
    // Some gateways reuse index 0 for every call: a different id at an open index is a new call.
    const out = open && id && open.id && id !== open.id ? this.complete(index) : [];
    const call = this.openAt(index);
    if (id) call.id = id;
    if (name && !call.name) call.name = name;
    if (input && Object.keys(input).length) call.input = input;
    if (args !== undefined) call.args = args;
    return out;
  }

  private openAt(index: number): OpenCall {
    let call = this.calls.get(index);
    if (!call) {
      call = { id: '', name: '', args: '', input: undefined };
      this.calls.set(index, call);
    }
    return call;
  }

  private stop(index: number): ChatEvent[] {
    const b = this.blocks.get(index);
    if (!b) return this.complete(index);
    this.blocks.delete(index);
    const block: ThinkingPart | RedactedThinkingPart =
      b.redacted !== undefined
        ? { type: 'redacted_thinking', data: b.redacted }
        : { type: 'thinking', text: b.text, signature: b.signature };
    this.thinking.push(block);
    return [{ type: 'thinking_block', block }];
  }

  private complete(index: number): ChatEvent[] {
    const open = this.calls.get(index);
    if (!open) return [];
    this.calls.delete(index);
    const input = open.args.trim() ? parseToolInput(open.args) : (open.input ?? {});
    if (!input) return this.badArguments(open.name, open.args);
    const call: ToolCall = { id: open.id || newCallId(), name: open.name, input };
    this.toolCalls.push(call);
    return [{ type: 'tool_call', call }];
  }
}
