/** The native messages surface: `POST {base}/v1/messages`, x-api-key + native-version. */
import { z } from 'zod';
import { t } from '../../l10n';
import { newCallId } from '../tools';
import { eventData } from './eventData';
import type {
  BuildContext,
  ChatRequest,
  ParsedReply,
  RedactedThinkingPart,
  SurfaceAdapter,
  SurfaceEvent,
  ThinkingPart,
  ToolCall,
} from '../types';
import { nativeRequest } from './nativeRequest';

const replySchema = z.object({
  id: z.string().nullish(),
  type: z.literal('message').optional(),
  model: z.string().nullish(),
  content: z.array(
    z.object({
      type: z.string(),
      text: z.string().nullish(),
      id: z.string().nullish(),
      name: z.string().nullish(),
      input: z.record(z.string(), z.unknown()).nullish(),
      thinking: z.string().nullish(),
      signature: z.string().nullish(),
      data: z.string().nullish(),
    }),
  ),
  stop_reason: z.string().nullish(),
  usage: z.object({ input_tokens: z.number().nullish(), output_tokens: z.number().nullish() }).nullish(),
});

const eventSchema = z.object({
  type: z.string(),
  message: z
    .object({
      id: z.string().nullish(),
      model: z.string().nullish(),
      usage: z.object({ input_tokens: z.number().nullish(), output_tokens: z.number().nullish() }).nullish(),
    })
    .nullish(),
  index: z.number().nullish(),
  content_block: z
    .object({
      type: z.string(),
      text: z.string().nullish(),
      id: z.string().nullish(),
      name: z.string().nullish(),
      input: z.record(z.string(), z.unknown()).nullish(),
      thinking: z.string().nullish(),
      data: z.string().nullish(),
    })
    .nullish(),
  delta: z
    .object({
      type: z.string().nullish(),
      text: z.string().nullish(),
      partial_json: z.string().nullish(),
      thinking: z.string().nullish(),
      signature: z.string().nullish(),
      stop_reason: z.string().nullish(),
    })
    .nullish(),
  usage: z.object({ input_tokens: z.number().nullish(), output_tokens: z.number().nullish() }).nullish(),
  error: z.object({ type: z.string().nullish(), message: z.string().nullish() }).nullish(),
});

type Parsed = z.infer<typeof eventSchema>;

function blockStart(index: number, b: Parsed['content_block']): SurfaceEvent[] {
  switch (b?.type) {
    case 'tool_use':
      return [
        {
          type: 'tool_start',
          index,
          id: b.id ?? undefined,
          name: b.name ?? undefined,
          input: b.input ?? undefined,
        },
      ];
    case 'thinking':
      return [
        { type: 'thinking_start', index },
        ...(b.thinking ? [{ type: 'reasoning' as const, text: b.thinking, index }] : []),
      ];
    case 'redacted_thinking':
      return [{ type: 'thinking_start', index, data: b.data ?? '' }];
    case 'text':
      return b.text ? [{ type: 'text', text: b.text }] : [];
    default:
      return [];
  }
}

function blockDelta(index: number, d: Parsed['delta']): SurfaceEvent[] {
  switch (d?.type) {
    case 'text_delta':
      return d.text ? [{ type: 'text', text: d.text }] : [];
    case 'input_json_delta':
      return d.partial_json ? [{ type: 'tool_args', index, fragment: d.partial_json }] : [];
    case 'thinking_delta':
      return d.thinking ? [{ type: 'reasoning', text: d.thinking, index }] : [];
    case 'signature_delta':
      return d.signature ? [{ type: 'signature', index, signature: d.signature }] : [];
    default:
      return [];
  }
}

/** The overwhelming case, a text delta, checked by hand: no schema parse. undefined: take the schema path. */
function fastTextDelta(event: string | undefined, json: unknown): SurfaceEvent[] | undefined {
  const f = json as { type?: unknown; delta?: { type?: unknown; text?: unknown } | null } | null;
  if (
    !f ||
    typeof f !== 'object' ||
    f.type !== 'content_block_delta' ||
    (event && event !== 'content_block_delta') ||
    !f.delta ||
    typeof f.delta !== 'object' ||
    f.delta.type !== 'text_delta' ||
    typeof f.delta.text !== 'string'
  )
    return undefined;
  return f.delta.text ? [{ type: 'text', text: f.delta.text }] : [];
}

/** `{"error":{…}}` in OpenAI's shape (not a native event): an error; anything else unknown is ignored. */
function openAiShapedError(json: unknown): SurfaceEvent[] {
  const e = (json as { error?: { message?: unknown; type?: unknown; code?: unknown } } | null)?.error;
  if (!e || typeof e !== 'object') return [];
  return [
    {
      type: 'error',
      message: typeof e.message === 'string' ? e.message : t('stream error'),
      errorType: typeof e.type === 'string' ? e.type : undefined,
      code: typeof e.code === 'string' ? e.code : undefined,
    },
  ];
}

/** A native event by its type (the SSE event name, else the data's `type`). */
function byType(type: string, e: Parsed): SurfaceEvent[] {
  switch (type) {
    case 'message_start':
      return [
        {
          type: 'meta',
          id: e.message?.id ?? undefined,
          model: e.message?.model ?? undefined,
          usage: e.message?.usage
            ? {
                inputTokens: e.message.usage.input_tokens ?? undefined,
                outputTokens: e.message.usage.output_tokens ?? undefined,
              }
            : undefined,
        },
      ];
    case 'content_block_start':
      return blockStart(e.index ?? 0, e.content_block);
    case 'content_block_delta':
      return blockDelta(e.index ?? 0, e.delta);
    case 'content_block_stop':
      return [{ type: 'block_stop', index: e.index ?? 0 }];
    case 'message_delta': {
      const out: SurfaceEvent[] = [];
      if (e.delta?.stop_reason) out.push({ type: 'finish', reason: e.delta.stop_reason });
      // usage here is cumulative: the consumer keeps the last value
      if (e.usage)
        out.push({
          type: 'usage',
          usage: { inputTokens: e.usage.input_tokens ?? undefined, outputTokens: e.usage.output_tokens ?? undefined },
        });
      return out;
    }
    case 'message_stop':
      return [{ type: 'end' }];
    default:
      if (type === 'error' || e.error)
        return [
          { type: 'error', message: e.error?.message ?? t('stream error'), errorType: e.error?.type ?? undefined },
        ];
      return []; // ping and unknown event types are ignored
  }
}

export const nativeSurface: SurfaceAdapter = {
  surface: 'native',
  path: '/v1/messages',

  toRequest(req: ChatRequest, ctx: BuildContext): Record<string, unknown> {
    return nativeRequest(req, ctx);
  },

  parseReply(json: unknown): ParsedReply | 'empty' | undefined {
    const r = replySchema.safeParse(json);
    if (!r.success) return undefined;
    const text = r.data.content
      .filter((b) => b.type === 'text')
      .map((b) => b.text ?? '')
      .join('');
    const toolCalls: ToolCall[] = r.data.content
      .filter((b) => b.type === 'tool_use')
      .map((b) => ({
        id: b.id || newCallId(),
        name: b.name ?? '',
        input: b.input ?? {},
      }));
    const thinking = r.data.content.flatMap((b): Array<ThinkingPart | RedactedThinkingPart> =>
      b.type === 'thinking'
        ? [{ type: 'thinking', text: b.thinking ?? '', signature: b.signature ?? '' }]
        : b.type === 'redacted_thinking'
          ? [{ type: 'redacted_thinking', data: b.data ?? '' }]
          : [],
    );
    return {
      text,
      toolCalls,
      reasoning: thinking.map((b) => (b.type === 'thinking' ? b.text : '')).join(''),
      thinking,
      finishReason: r.data.stop_reason ?? undefined,
      usage: r.data.usage
        ? { inputTokens: r.data.usage.input_tokens ?? undefined, outputTokens: r.data.usage.output_tokens ?? undefined }
        : undefined,
      model: r.data.model ?? undefined,
      id: r.data.id ?? undefined,
    };
  },

  parseEvent(ev): SurfaceEvent[] {
    const d = eventData(ev.data);
    if ('events' in d) return d.events;
    const fast = fastTextDelta(ev.event, d.json);
    if (fast) return fast;
    const r = eventSchema.safeParse(d.json);
    // An OpenAI-shaped error (new-api's own errors) inside the stream is still an error.
    if (!r.success) return openAiShapedError(d.json);
    return byType(ev.event && ev.event !== 'message' ? ev.event : r.data.type, r.data);
  },
};
