/**
 * A ChatRequest as a chat-completions body: parts become content arrays, tool calls `tool_calls`,
 * tool results `role: "tool"` messages (their images moved to a following user message, since the
 * surface allows images only in user messages), tools `{type: "function"}` entries, and the
 * reasoning of assistant turns `reasoning_content` where the model's family takes it back
 * (reasoningReplay.ts). Sampling, the output budget's field and value, the effort and the tool
 * choice are the model's (modelRules.ts `wirePlan`).
 */
import { CONTINUE_PROMPT, wirePlan } from '../wirePlan';
import { replayRule, type ReplayRule } from '../reasoningReplay';
import { normalizeToolSchema, portableCallId } from '../tools';
import type { BuildContext, ChatMessage, ChatRequest, ContentPart, ImagePart, TextPart } from '../types';

type WireContent = string | Array<{ type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } }>;
type WireMessage = Record<string, unknown> & { role: string };

const dataUrl = (p: ImagePart) => `data:${p.mimeType};base64,${p.data}`;

/** Text and images as a message content: a plain string when there is no image. */
function userContent(parts: ReadonlyArray<TextPart | ImagePart>): WireContent {
  if (parts.every((p) => p.type === 'text')) return parts.map((p) => p.text).join('');
  return parts.map((p) =>
    p.type === 'text'
      ? { type: 'text' as const, text: p.text }
      : { type: 'image_url' as const, image_url: { url: dataUrl(p) } },
  );
}

function assistantMessage(parts: readonly ContentPart[]): WireMessage {
  const text = parts.map((p) => (p.type === 'text' ? p.text : '')).join('');
  const calls = parts.flatMap((p) =>
    p.type === 'tool_call'
      ? [{ id: portableCallId(p.id), type: 'function', function: { name: p.name, arguments: JSON.stringify(p.input) } }]
      : [],
  );
  if (!calls.length) return { role: 'assistant', content: text };
  return { role: 'assistant', content: text || null, tool_calls: calls };
}

/** A user turn: its tool results first (each its own `tool` message), then its text and images. */
function userMessages(parts: readonly ContentPart[]): WireMessage[] {
  const out: WireMessage[] = [];
  const rest: Array<TextPart | ImagePart> = [];
  for (const p of parts) {
    if (p.type === 'tool_result') {
      const images = p.content.filter((c): c is ImagePart => c.type === 'image');
      const text = p.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
      const note = images.length
        ? `${text ? '\n' : ''}[${images.length} image${images.length > 1 ? 's' : ''} attached in the next message]`
        : '';
      out.push({
        role: 'tool',
        tool_call_id: portableCallId(p.callId),
        content: `${p.isError ? 'Error: ' : ''}${text}${note}` || '(no output)',
      });
      if (images.length)
        rest.push({ type: 'text', text: `Images returned by the tool call ${portableCallId(p.callId)}:` }, ...images);
    } else if (p.type === 'text' || p.type === 'image') rest.push(p);
  }
  if (rest.some((p) => p.type === 'image' || p.text.trim())) out.push({ role: 'user', content: userContent(rest) });
  return out;
}

/** An assistant message on the wire, with what decides whether its reasoning goes back. */
interface AssistantTurn {
  wire: WireMessage;
  /** its reasoning as kept (ReasoningParts joined); undefined: none known */
  reasoning: string | undefined;
  calls: boolean;
  /** the user turn it belongs to: tool results continue a turn, anything else the user says starts one */
  turn: number;
}

const reasoningOf = (m: ChatMessage): string | undefined => {
  const parts = typeof m.content === 'string' ? [] : m.content.flatMap((p) => (p.type === 'reasoning' ? [p.text] : []));
  return parts.length ? parts.join('') : undefined;
};

/** Whether this assistant message carries `reasoning_content` under the rule. */
function wantsField(a: AssistantTurn, rule: ReplayRule, toolTurns: ReadonlySet<number>, lastTurn: number): boolean {
  switch (rule.scope) {
    case 'tool_turns':
      return toolTurns.has(a.turn);
    case 'tool_calls':
      return a.calls;
    case 'all':
      return true;
    case 'current_loop':
      return a.turn === lastTurn;
    case 'think_tags':
    case 'none':
      return false;
    default: {
      const _exhaustive: never = rule.scope;
      return _exhaustive;
    }
  }
}

/** Puts each assistant turn's reasoning back as the rule says: the field (empty when unknown and required), or `<think>` text. */
function replayReasoning(turns: readonly AssistantTurn[], rule: ReplayRule, lastTurn: number): void {
  const toolTurns = new Set(turns.filter((a) => a.calls).map((a) => a.turn));
  for (const a of turns) {
    if (rule.scope === 'think_tags') {
      const content = typeof a.wire.content === 'string' ? a.wire.content : '';
      if (a.reasoning && !content.trimStart().startsWith('<think>'))
        a.wire.content = `<think>\n${a.reasoning}\n</think>\n\n${content}`;
      continue;
    }
    if (!wantsField(a, rule, toolTurns, lastTurn)) continue;
    const value = a.reasoning ?? (rule.fillEmpty ? '' : undefined);
    if (value !== undefined) a.wire.reasoning_content = value;
  }
}

export function compatibleMessages(
  req: Pick<ChatRequest, 'system' | 'messages'> & Partial<Pick<ChatRequest, 'model' | 'replayReasoning'>>,
): WireMessage[] {
  const out: WireMessage[] = [];
  const assistants: AssistantTurn[] = [];
  let turn = 0;
  if (req.system) out.push({ role: 'system', content: req.system });
  for (const m of req.messages) {
    const wire = toWire(m);
    if (m.role === 'user' && (typeof m.content === 'string' || !m.content.some((p) => p.type === 'tool_result')))
      turn++;
    if (m.role === 'assistant')
      assistants.push({ wire: wire[0], reasoning: reasoningOf(m), calls: 'tool_calls' in wire[0], turn });
    for (const w of wire) out.push(w);
  }
  replayReasoning(assistants, replayRule(req.model ?? '', req.replayReasoning), turn);
  return out;
}

function toWire(m: ChatMessage): WireMessage[] {
  if (typeof m.content === 'string') return [{ role: m.role, content: m.content }];
  return m.role === 'assistant' ? [assistantMessage(m.content)] : userMessages(m.content);
}

export function compatibleRequest(req: ChatRequest, ctx: BuildContext = { maxTokens: 0 }): Record<string, unknown> {
  const plan = wirePlan(req, 'compatible', ctx.learnt, ctx.maxTokens);
  const messages = compatibleMessages({ ...req, replayReasoning: plan.replayReasoning });
  if (plan.continueTurn && messages.at(-1)?.role === 'assistant')
    messages.push({ role: 'user', content: CONTINUE_PROMPT });
  const body: Record<string, unknown> = { model: req.model, messages };
  if (req.tools?.length) {
    body.tools = req.tools.map((t) => ({
      type: 'function',
      function: {
        name: t.name,
        ...(t.description ? { description: t.description } : {}),
        parameters: normalizeToolSchema(t.inputSchema),
      },
    }));
    if (plan.toolChoice) body.tool_choice = plan.toolChoice;
  }
  if (plan.temperature !== undefined) body.temperature = plan.temperature;
  if (plan.tokens) body[plan.tokens.field] = plan.tokens.value;
  if (plan.effort) body.reasoning_effort = plan.effort;
  if (req.stream) {
    body.stream = true;
    if (plan.streamOptions) body.stream_options = { include_usage: true };
  }
  return body;
}
