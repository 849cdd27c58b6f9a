/**
 * The Responses surface: `POST {base}/v1/responses`, Bearer auth (shared/reference/responses-api.md).
 * A reply is a list of output items (messages, function calls, reasoning items); a stream is typed
 * events, dispatched on the data's `type` (new-api rebuilds the `event:` line from it, proxies drop
 * it). A stream ends only with a terminal event (`response.completed`, `.incomplete`, `.failed`,
 * `error`); one that stops before is cut off, `[DONE]` or not.
 */
import { z } from 'zod';
import { t } from '../../l10n';
import { newCallId, parseToolInput } from '../tools';
import { eventData } from './eventData';
import type {
  BuildContext,
  ChatRequest,
  ParsedReply,
  ReasoningItemPart,
  SurfaceAdapter,
  SurfaceEvent,
  ToolCall,
  Usage,
} from '../types';
import { responsesRequest } from './responsesRequest';

const usageSchema = z
  .object({ input_tokens: z.number().nullish(), output_tokens: z.number().nullish() })
  .passthrough()
  .nullish();

const itemSchema = z
  .object({
    type: z.string(),
    id: z.string().nullish(),
    call_id: z.string().nullish(),
    name: z.string().nullish(),
    arguments: z.string().nullish(),
    content: z
      .array(
        z
          .object({
            type: z.string(),
            text: z.string().nullish(),
            refusal: z.string().nullish(),
          })
          .passthrough(),
      )
      .nullish(),
    summary: z.array(z.object({ type: z.string().nullish(), text: z.string().nullish() }).passthrough()).nullish(),
    encrypted_content: z.string().nullish(),
  })
  .passthrough();

const responseSchema = z
  .object({
    id: z.string().nullish(),
    model: z.string().nullish(),
    status: z.string().nullish(),
    output: z.array(itemSchema).nullish(),
    incomplete_details: z.object({ reason: z.string().nullish() }).passthrough().nullish(),
    error: z.object({ code: z.string().nullish(), message: z.string().nullish() }).passthrough().nullish(),
    usage: usageSchema,
  })
  .passthrough();

const eventSchema = z
  .object({
    type: z.string(),
    output_index: z.number().nullish(),
    summary_index: z.number().nullish(),
    delta: z.string().nullish(),
    arguments: z.string().nullish(),
    name: z.string().nullish(),
    item: itemSchema.nullish(),
    response: responseSchema.nullish(),
    code: z.string().nullish(),
    message: z.string().nullish(),
    error: z.unknown().optional(),
  })
  .passthrough();

type Item = z.infer<typeof itemSchema>;
type Response = z.infer<typeof responseSchema>;
type Event = z.infer<typeof eventSchema>;

function toUsage(u: z.infer<typeof usageSchema>): Usage | undefined {
  if (!u) return undefined;
  return { inputTokens: u.input_tokens ?? undefined, outputTokens: u.output_tokens ?? undefined };
}

/** A reasoning item as it is kept for replay; its summary paragraphs (and raw reasoning text) as the reasoning. */
function reasoningOf(item: Item): { part: ReasoningItemPart; text: string } {
  const summary = (item.summary ?? []).map((s) => s.text ?? '').filter(Boolean);
  const raw = (item.content ?? []).map((c) => (c.type === 'reasoning_text' ? (c.text ?? '') : '')).join('');
  return {
    part: {
      type: 'reasoning_item',
      id: item.id ?? '',
      summary,
      ...(item.encrypted_content ? { encryptedContent: item.encrypted_content } : {}),
    },
    text: summary.length ? summary.join('\n\n') : raw,
  };
}

/** A message item's text: its output_text parts, and what it refused (said, never silence). */
const messageText = (item: Item): string =>
  (item.content ?? [])
    .map((c) => (c.type === 'output_text' ? (c.text ?? '') : c.type === 'refusal' ? (c.refusal ?? '') : ''))
    .join('');

/**
 * The finish reason in the other surfaces' words: cut off at the output budget is `length` (the
 * "stopped at max tokens" logic), a reply that ends in calls `tool_calls`, else `stop`.
 */
function finishOf(r: Pick<Response, 'status' | 'incomplete_details'>, calls: boolean): string {
  if (r.status === 'incomplete') {
    const reason = r.incomplete_details?.reason;
    return reason === 'max_output_tokens' || !reason ? 'length' : reason;
  }
  // cancelled, failed without an error, in_progress, queued: not an answer that simply ended (finishReason.ts says "other")
  if (r.status && r.status !== 'completed') return r.status;
  return calls ? 'tool_calls' : 'stop';
}

function parseReply(json: unknown): ParsedReply | 'empty' | undefined {
  const r = responseSchema.safeParse(json);
  if (!r.success || !Array.isArray(r.data.output)) return undefined;
  const reply: ParsedReply = {
    text: '',
    toolCalls: [],
    reasoning: '',
    thinking: [],
    finishReason: undefined,
    usage: toUsage(r.data.usage),
    model: r.data.model ?? undefined,
    id: r.data.id ?? undefined,
  };
  const reasoning: string[] = [];
  for (const item of r.data.output) {
    if (item.type === 'message') reply.text += messageText(item);
    else if (item.type === 'function_call') {
      const args = item.arguments ?? '';
      const input = parseToolInput(args);
      if (!input) reply.badToolCall ??= { name: item.name ?? '', args };
      else reply.toolCalls.push({ id: item.call_id || newCallId(), name: item.name ?? '', input } satisfies ToolCall);
    } else if (item.type === 'reasoning') {
      const { part, text } = reasoningOf(item);
      reply.thinking.push(part);
      if (text) reasoning.push(text);
    }
    // Built-in tools' items (web search, image generation, …) are skipped: only requested tools make them.
  }
  reply.reasoning = reasoning.join('\n\n');
  reply.finishReason = finishOf(r.data, reply.toolCalls.length > 0);
  return reply;
}

/** An error the stream carried: `response.failed`'s `response.error`, a bare `error` event, or an OpenAI-shaped `{"error":…}`. */
function streamError(e: Event): SurfaceEvent[] {
  const own = e.type === 'response.failed' ? e.response?.error : e.type === 'error' ? e : undefined;
  const wrapped = e.error && typeof e.error === 'object' ? (e.error as Record<string, unknown>) : undefined;
  const message = own?.message ?? (typeof wrapped?.message === 'string' ? wrapped.message : undefined);
  const code = own?.code ?? (typeof wrapped?.code === 'string' ? wrapped.code : undefined);
  const errorType = typeof wrapped?.type === 'string' ? wrapped.type : undefined;
  return [{ type: 'error', message: message || t('stream error'), code: code ?? undefined, errorType }];
}

/** The terminal events that end a reply: usage, finish reason, the end. */
function terminal(e: Event): SurfaceEvent[] {
  const r = e.response;
  const out: SurfaceEvent[] = [];
  if (r?.id || r?.model) out.push({ type: 'meta', id: r.id ?? undefined, model: r.model ?? undefined });
  const usage = toUsage(r?.usage);
  if (usage) out.push({ type: 'usage', usage });
  const calls = (r?.output ?? []).some((i) => i.type === 'function_call');
  const status =
    e.type === 'response.incomplete' ? 'incomplete' : e.type === 'response.completed' ? 'completed' : r?.status;
  out.push({ type: 'finish', reason: finishOf({ status, incomplete_details: r?.incomplete_details }, calls) });
  out.push({ type: 'end' });
  return out;
}

/** An output item complete (`response.output_item.done`): a call's final arguments, a reasoning item to keep. */
function itemDone(index: number, item: Item): SurfaceEvent[] {
  if (item.type === 'function_call')
    return [
      {
        type: 'tool_start',
        index,
        id: item.call_id ?? undefined,
        name: item.name ?? undefined,
        ...(typeof item.arguments === 'string' ? { args: item.arguments } : {}),
      },
      { type: 'block_stop', index },
    ];
  if (item.type === 'reasoning') return [{ type: 'reasoning_item', item: reasoningOf(item).part }];
  return [];
}

function byType(e: Event): SurfaceEvent[] {
  const index = e.output_index ?? 0;
  switch (e.type) {
    case 'response.created':
    case 'response.in_progress':
    case 'response.queued':
      return e.response?.id || e.response?.model
        ? [{ type: 'meta', id: e.response.id ?? undefined, model: e.response.model ?? undefined }]
        : [];
    case 'response.output_text.delta':
    case 'response.refusal.delta':
    case 'response.reasoning_summary_text.delta':
    case 'response.reasoning_text.delta':
      if (!e.delta) return [];
      return e.type.startsWith('response.reasoning')
        ? [{ type: 'reasoning', text: e.delta }]
        : [{ type: 'text', text: e.delta }];
    case 'response.reasoning_summary_part.added':
      // A new summary part is a new paragraph of the thinking.
      return (e.summary_index ?? 0) > 0 ? [{ type: 'reasoning', text: '\n\n' }] : [];
    case 'response.output_item.added':
      return e.item?.type === 'function_call'
        ? [{ type: 'tool_start', index, id: e.item.call_id ?? undefined, name: e.item.name ?? undefined }]
        : [];
    case 'response.function_call_arguments.delta':
      return e.delta ? [{ type: 'tool_args', index, fragment: e.delta }] : [];
    case 'response.function_call_arguments.done':
      // The whole arguments (they replace the fragments); parsed when the item is done.
      return typeof e.arguments === 'string'
        ? [{ type: 'tool_start', index, name: e.name ?? undefined, args: e.arguments }]
        : [];
    case 'response.output_item.done':
      return e.item ? itemDone(index, e.item) : [];
    case 'response.completed':
    case 'response.incomplete':
      return terminal(e);
    case 'response.failed':
    case 'error':
      return streamError(e);
    default:
      // A gateway's own error in OpenAI's shape is still an error; any other event type is ignored.
      return e.error && typeof e.error === 'object' ? streamError(e) : [];
  }
}

/** The overwhelming case, a text delta, checked by hand: no schema parse. undefined: take the schema path. */
function fastTextDelta(json: unknown): SurfaceEvent[] | undefined {
  const f = json as { type?: unknown; delta?: unknown } | null;
  if (!f || typeof f !== 'object' || f.type !== 'response.output_text.delta' || typeof f.delta !== 'string')
    return undefined;
  return f.delta ? [{ type: 'text', text: f.delta }] : [];
}

export const responsesSurface: SurfaceAdapter = {
  surface: 'responses',
  path: '/v1/responses',

  toRequest(req: ChatRequest, ctx: BuildContext): Record<string, unknown> {
    return responsesRequest(req, ctx);
  },

  parseReply,

  parseEvent(ev): SurfaceEvent[] {
    // `[DONE]` is not this surface's end: only a terminal event is (a stream without one was cut off).
    if (ev.data.charCodeAt(0) !== 0x7b && ev.data.trim() === '[DONE]') return [];
    const d = eventData(ev.data);
    if ('events' in d) return d.events;
    const fast = fastTextDelta(d.json);
    if (fast) return fast;
    const r = eventSchema.safeParse(d.json);
    if (!r.success) {
      const bare = d.json as { error?: unknown } | null;
      return bare && typeof bare === 'object' && bare.error && typeof bare.error === 'object'
        ? streamError({ type: '', error: bare.error })
        : [];
    }
    return byType(r.data);
  },
};
