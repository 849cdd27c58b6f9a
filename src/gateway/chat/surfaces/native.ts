/** The native messages surface: `POST {base}/v1/messages`, x-api-key + native-version. */
import { z } from 'zod';
import type { ChatRequest, ParsedReply, SurfaceAdapter, SurfaceEvent } from '../types';

const replySchema = z.object({
  id: z.string().nullish(),
  type: z.literal('message').optional(),
  model: z.string().nullish(),
  content: z.array(z.object({ type: z.string(), text: z.string().nullish() })),
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
  delta: z.object({ type: z.string().nullish(), text: z.string().nullish(), stop_reason: z.string().nullish() }).nullish(),
  usage: z.object({ input_tokens: z.number().nullish(), output_tokens: z.number().nullish() }).nullish(),
  error: z.object({ type: z.string().nullish(), message: z.string().nullish() }).nullish(),
});

export const nativeSurface: SurfaceAdapter = {
  surface: 'native',
  path: '/v1/messages',

  toRequest(req: ChatRequest, defaults: { maxTokens: number }): Record<string, unknown> {
    const body: Record<string, unknown> = {
      model: req.model,
      // Always sent: the native surface requires it, and a small value truncates output.
      max_tokens: req.maxTokens !== undefined && req.maxTokens > 0 ? req.maxTokens : defaults.maxTokens,
      messages: req.messages.map((m) => ({ role: m.role, content: m.content })),
    };
    if (req.system) body.system = req.system;
    if (req.temperature !== undefined) body.temperature = req.temperature;
    if (req.stream) body.stream = true;
    return body;
  },

  parseReply(json: unknown): ParsedReply | 'empty' | undefined {
    const r = replySchema.safeParse(json);
    if (!r.success) return undefined;
    const text = r.data.content
      .filter((b) => b.type === 'text')
      .map((b) => b.text ?? '')
      .join('');
    return {
      text,
      finishReason: r.data.stop_reason ?? undefined,
      usage: r.data.usage ? { inputTokens: r.data.usage.input_tokens ?? undefined, outputTokens: r.data.usage.output_tokens ?? undefined } : undefined,
      model: r.data.model ?? undefined,
      id: r.data.id ?? undefined,
    };
  },

  parseEvent(ev): SurfaceEvent[] {
    const data = ev.data.trim();
    if (!data) return [];
    if (data === '[DONE]') return [{ type: 'end' }];
    let json: unknown;
    try {
      json = JSON.parse(data);
    } catch {
      return [{ type: 'error', message: `invalid JSON in stream event: ${data.slice(0, 80)}`, errorType: 'invalid_chunk' }];
    }
    // Fast path for the overwhelming case, a text delta: checked by hand, no schema parse.
    const f = json as { type?: unknown; delta?: { type?: unknown; text?: unknown } | null } | null;
    if (f && typeof f === 'object' && f.type === 'content_block_delta' && (!ev.event || ev.event === 'content_block_delta') && f.delta && typeof f.delta === 'object') {
      if (f.delta.type === 'text_delta' && typeof f.delta.text === 'string') return f.delta.text ? [{ type: 'text', text: f.delta.text }] : [];
      if (typeof f.delta.type === 'string' && f.delta.type !== 'text_delta') return [];
    }
    const r = eventSchema.safeParse(json);
    if (!r.success) {
      // An OpenAI-shaped error (new-api's own errors) inside the stream is still an error.
      const e = (json as { error?: { message?: unknown; type?: unknown; code?: unknown } }).error;
      if (e && typeof e === 'object') return [{ type: 'error', message: String(e.message ?? 'stream error'), errorType: typeof e.type === 'string' ? e.type : undefined, code: typeof e.code === 'string' ? e.code : undefined }];
      return [];
    }
    const e = r.data;
    const type = ev.event && ev.event !== 'message' ? ev.event : e.type;
    switch (type) {
      case 'message_start':
        return [
          {
            type: 'meta',
            id: e.message?.id ?? undefined,
            model: e.message?.model ?? undefined,
            usage: e.message?.usage ? { inputTokens: e.message.usage.input_tokens ?? undefined, outputTokens: e.message.usage.output_tokens ?? undefined } : undefined,
          },
        ];
      case 'content_block_delta':
        return e.delta?.type === 'text_delta' && e.delta.text ? [{ type: 'text', text: e.delta.text }] : [];
      case 'message_delta': {
        const out: SurfaceEvent[] = [];
        if (e.delta?.stop_reason) out.push({ type: 'finish', reason: e.delta.stop_reason });
        // usage here is cumulative: the consumer keeps the last value
        if (e.usage) out.push({ type: 'usage', usage: { inputTokens: e.usage.input_tokens ?? undefined, outputTokens: e.usage.output_tokens ?? undefined } });
        return out;
      }
      case 'message_stop':
        return [{ type: 'end' }];
      case 'error':
        return [{ type: 'error', message: e.error?.message ?? 'stream error', errorType: e.error?.type ?? undefined }];
      default:
        if (e.error) return [{ type: 'error', message: e.error.message ?? 'stream error', errorType: e.error.type ?? undefined }];
        return []; // ping, content_block_start/stop and unknown event types are ignored
    }
  },
};
