/**
 * A ChatRequest as a Responses body (shared/reference/responses-api.md §1, §5), stateless: the
 * system prompt becomes `instructions`, every turn becomes `input` items (user text and images as
 * input parts, assistant text as a message, tool calls `function_call`, tool results
 * `function_call_output` linked by `call_id`, reasoning items replayed where they stood), tools the
 * flat `{type: "function"}` shape; `store: false` with the reasoning's encrypted content included
 * for models that reason. Never `previous_response_id`: nothing is kept on the server. Sampling
 * (only when the request carries it, and only where the model takes it), the output budget (at
 * least 16), the effort and the reasoning asked for are the model's (modelRules.ts `wirePlan`).
 */
import { wirePlan } from '../wirePlan';
import { normalizeToolSchema, portableCallId } from '../tools';
import type {
  BuildContext,
  ChatMessage,
  ChatRequest,
  ContentPart,
  ImagePart,
  ReasoningItemPart,
  TextPart,
} from '../types';

type Item = Record<string, unknown>;
type InputPart = { type: 'input_text'; text: string } | { type: 'input_image'; image_url: string; detail: 'auto' };

const inputPart = (p: TextPart | ImagePart): InputPart =>
  p.type === 'text'
    ? { type: 'input_text', text: p.text }
    : { type: 'input_image', image_url: `data:${p.mimeType};base64,${p.data}`, detail: 'auto' };

/**
 * A replayed reasoning item: its id with its encrypted content (the service needs both under
 * `store: false`). One without encrypted content cannot be replayed statelessly (the service
 * answers "Item with id … not found"): it is left out.
 */
function reasoningItem(p: ReasoningItemPart): Item[] {
  if (!p.encryptedContent) return [];
  return [
    {
      type: 'reasoning',
      id: p.id,
      summary: p.summary.map((text) => ({ type: 'summary_text', text })),
      encrypted_content: p.encryptedContent,
    },
  ];
}

/** A tool's result: a string, or input parts when it returned images. */
function resultOutput(content: ReadonlyArray<TextPart | ImagePart>, isError: boolean): string | InputPart[] {
  const prefix = isError ? 'Error: ' : '';
  if (content.some((c) => c.type === 'image')) {
    const parts = content.filter((c) => c.type === 'image' || c.text).map(inputPart);
    return prefix ? [{ type: 'input_text', text: prefix.trim() }, ...parts] : parts;
  }
  return `${prefix}${content.map((c) => (c.type === 'text' ? c.text : '')).join('')}` || '(no output)';
}

/** An assistant turn in output order: text runs as messages, calls, and reasoning items where they stood. */
function assistantItems(parts: readonly ContentPart[]): Item[] {
  const out: Item[] = [];
  let text = '';
  const flush = () => {
    if (text) out.push({ role: 'assistant', content: text });
    text = '';
  };
  for (const p of parts) {
    if (p.type === 'text') text += p.text;
    else if (p.type === 'tool_call') {
      flush();
      out.push({
        type: 'function_call',
        call_id: portableCallId(p.id),
        name: p.name,
        arguments: JSON.stringify(p.input),
      });
    } else if (p.type === 'reasoning_item') {
      flush();
      out.push(...reasoningItem(p));
    }
    // Other surfaces' reasoning (native thinking, compatible reasoning_content) is not this surface's to replay.
  }
  flush();
  return out;
}

/** A user turn: its tool results first (each a `function_call_output`), then its text and images as one message. */
function userItems(parts: readonly ContentPart[]): Item[] {
  const out: Item[] = [];
  const rest: Array<TextPart | ImagePart> = [];
  for (const p of parts) {
    if (p.type === 'tool_result')
      out.push({
        type: 'function_call_output',
        call_id: portableCallId(p.callId),
        output: resultOutput(p.content, p.isError === true),
      });
    else if (p.type === 'text' || p.type === 'image') rest.push(p);
  }
  if (rest.some((p) => p.type === 'image'))
    out.push({ role: 'user', content: rest.filter((p) => p.type === 'image' || p.text).map(inputPart) });
  else {
    const text = rest.map((p) => (p.type === 'text' ? p.text : '')).join('');
    if (text.trim()) out.push({ role: 'user', content: text });
  }
  return out;
}

/**
 * Reasoning items must each stand directly before the item that followed them: one with nothing of
 * its turn after it (the reply was cut off after reasoning) would be refused as "provided without
 * its required following item", so it is not sent.
 */
function withFollowers(items: Item[]): Item[] {
  return items.filter((item, i) => {
    if (item.type !== 'reasoning') return true;
    const next = items.slice(i + 1).find((n) => n.type !== 'reasoning');
    return !!next && (next.type === 'function_call' || next.role === 'assistant');
  });
}

export function responsesInput(messages: readonly ChatMessage[]): Item[] {
  const out: Item[] = [];
  for (const m of messages) {
    if (typeof m.content === 'string') {
      if (m.content.trim()) out.push({ role: m.role, content: m.content });
    } else out.push(...(m.role === 'assistant' ? assistantItems(m.content) : userItems(m.content)));
  }
  return withFollowers(out);
}

export function responsesRequest(req: ChatRequest, ctx: BuildContext = { maxTokens: 0 }): Record<string, unknown> {
  const plan = wirePlan(req, 'responses', ctx.learnt, ctx.maxTokens);
  const body: Record<string, unknown> = { model: req.model };
  if (req.system) body.instructions = req.system;
  body.input = responsesInput(req.messages);
  if (req.tools?.length) {
    body.tools = req.tools.map((t) => ({
      type: 'function',
      name: t.name,
      ...(t.description ? { description: t.description } : {}),
      parameters: normalizeToolSchema(t.inputSchema),
      // Arbitrary tool schemas (VS Code's, MCP's) are rarely strict-compatible.
      strict: false,
    }));
    if (plan.toolChoice) body.tool_choice = plan.toolChoice;
  }
  if (plan.temperature !== undefined) body.temperature = plan.temperature;
  if (plan.tokens) body.max_output_tokens = plan.tokens.value;
  // Reasoning summaries (the "Thinking" section) only when thinking was asked for.
  if (plan.effort || plan.summary)
    body.reasoning = { ...(plan.effort ? { effort: plan.effort } : {}), ...(plan.summary ? { summary: 'auto' } : {}) };
  if (req.stream) body.stream = true;
  if (plan.store) body.store = false;
  if (plan.include) body.include = ['reasoning.encrypted_content'];
  return body;
}
