/**
 * A ChatRequest as a native messages body: parts become content blocks (empty text dropped, the
 * surface rejects it), tool results lead their user turn, signed thinking leads its assistant
 * turn, and consecutive turns of one role merge (the surface needs alternating roles). max_tokens
 * (capped to the model's most), thinking (a budget of at least 1024 below max_tokens, or adaptive
 * with an effort), sampling, the tool choice and a final user turn are the model's (modelRules.ts
 * `wirePlan`).
 */
import { CONTINUE_PROMPT, wirePlan } from '../wirePlan';
import { normalizeToolSchema, portableCallId } from '../tools';
import type { BuildContext, ChatMessage, ChatRequest, ContentPart, ImagePart, TextPart } from '../types';

type Block = Record<string, unknown> & { type: string };
interface WireMessage {
  role: 'user' | 'assistant';
  /** a plain string for text-only turns, as most requests are */
  content: string | Block[];
}

const imageBlock = (p: ImagePart): Block => ({
  type: 'image',
  source: { type: 'base64', media_type: p.mimeType, data: p.data },
});
const textBlock = (text: string): Block[] => (text.trim() ? [{ type: 'text', text }] : []);

function resultContent(parts: ReadonlyArray<TextPart | ImagePart>): Block[] {
  const out = parts.flatMap((p) => (p.type === 'text' ? textBlock(p.text) : [imageBlock(p)]));
  return out.length ? out : [{ type: 'text', text: '(no output)' }];
}

function toBlock(p: ContentPart): Block[] {
  switch (p.type) {
    case 'text':
      return textBlock(p.text);
    case 'image':
      return [imageBlock(p)];
    case 'tool_call':
      return [{ type: 'tool_use', id: portableCallId(p.id), name: p.name, input: p.input }];
    case 'tool_result':
      return [
        {
          type: 'tool_result',
          tool_use_id: portableCallId(p.callId),
          content: resultContent(p.content),
          ...(p.isError ? { is_error: true } : {}),
        },
      ];
    case 'thinking':
      return [{ type: 'thinking', thinking: p.text, signature: p.signature }];
    case 'redacted_thinking':
      return [{ type: 'redacted_thinking', data: p.data }];
    case 'reasoning':
    case 'reasoning_item':
      // Another surface's reasoning: the native surface takes only its own signed thinking back.
      return [];
    default: {
      const _exhaustive: never = p;
      return _exhaustive;
    }
  }
}

/** Which blocks lead a turn: tool results in a user turn, thinking in an assistant turn. */
const leads = (role: WireMessage['role'], b: Block) =>
  role === 'user' ? b.type === 'tool_result' : b.type === 'thinking' || b.type === 'redacted_thinking';

function order(m: WireMessage): WireMessage {
  if (typeof m.content === 'string') return m;
  const first = m.content.filter((b) => leads(m.role, b));
  if (!first.length) return m;
  return { role: m.role, content: [...first, ...m.content.filter((b) => !leads(m.role, b))] };
}

const asBlocks = (c: string | Block[]): Block[] => (typeof c === 'string' ? textBlock(c) : c);

/** Appends a turn, merging it into the previous one of the same role. */
function append(out: WireMessage[], role: WireMessage['role'], content: string | Block[]): void {
  const prev = out[out.length - 1];
  if (!prev || prev.role !== role) out.push({ role, content });
  else if (typeof prev.content === 'string' && typeof content === 'string')
    prev.content = `${prev.content}\n\n${content}`;
  else prev.content = [...asBlocks(prev.content), ...asBlocks(content)];
}

export function nativeMessages(messages: readonly ChatMessage[]): WireMessage[] {
  const out: WireMessage[] = [];
  for (const m of messages) {
    if (typeof m.content === 'string') {
      if (m.content.trim()) append(out, m.role, m.content);
      continue;
    }
    const blocks = m.content.flatMap(toBlock);
    if (blocks.length) append(out, m.role, blocks);
  }
  return out.map(order);
}

export function nativeRequest(req: ChatRequest, ctx: BuildContext): Record<string, unknown> {
  const plan = wirePlan(req, 'native', ctx.learnt, ctx.maxTokens);
  const messages = nativeMessages(req.messages);
  if (plan.continueTurn && messages.at(-1)?.role === 'assistant')
    messages.push({ role: 'user', content: CONTINUE_PROMPT });
  // Always sent: the native surface requires it, and a small value truncates output.
  const body: Record<string, unknown> = { model: req.model, max_tokens: plan.tokens?.value, messages };
  if (req.system) body.system = req.system;
  if (plan.thinking?.type === 'enabled') body.thinking = { type: 'enabled', budget_tokens: plan.thinking.budgetTokens };
  else if (plan.thinking) {
    body.thinking = { type: 'adaptive' };
    if (plan.effort) body.output_config = { effort: plan.effort };
  }
  if (plan.temperature !== undefined) body.temperature = plan.temperature;
  if (req.tools?.length) {
    body.tools = req.tools.map((t) => ({
      name: t.name,
      ...(t.description ? { description: t.description } : {}),
      input_schema: normalizeToolSchema(t.inputSchema),
    }));
    if (plan.toolChoice === 'required') body.tool_choice = { type: 'any' };
  }
  if (req.stream) body.stream = true;
  return body;
}
