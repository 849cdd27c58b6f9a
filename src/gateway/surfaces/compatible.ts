/** The chat-completions-compatible surface: `POST {base}/v1/chat/completions`, Bearer auth. */
import { z } from 'zod';
import type { ChatRequest, ParsedReply, SurfaceAdapter, SurfaceEvent, Usage } from '../chatTypes';

const usageSchema = z
  .object({ prompt_tokens: z.number().nullish(), completion_tokens: z.number().nullish() })
  .nullish();

const replySchema = z.object({
  id: z.string().nullish(),
  model: z.string().nullish(),
  choices: z.array(
    z.object({
      message: z.object({ content: z.string().nullish() }).nullish(),
      finish_reason: z.string().nullish(),
    }),
  ),
  usage: usageSchema,
});

const chunkSchema = z.object({
  id: z.string().nullish(),
  model: z.string().nullish(),
  choices: z
    .array(
      z.object({
        delta: z.object({ content: z.string().nullish() }).nullish(),
        finish_reason: z.string().nullish(),
      }),
    )
    .nullish(),
  usage: usageSchema,
  error: z.unknown().optional(),
});

function toUsage(u: z.infer<typeof usageSchema>): Usage | undefined {
  if (!u) return undefined;
  return { inputTokens: u.prompt_tokens ?? undefined, outputTokens: u.completion_tokens ?? undefined };
}

export const compatibleSurface: SurfaceAdapter = {
  surface: 'compatible',
  path: '/v1/chat/completions',

  toRequest(req: ChatRequest): Record<string, unknown> {
    const messages: Array<{ role: string; content: string }> = [];
    if (req.system) messages.push({ role: 'system', content: req.system });
    for (const m of req.messages) messages.push({ role: m.role, content: m.content });
    const body: Record<string, unknown> = { model: req.model, messages };
    if (req.temperature !== undefined) body.temperature = req.temperature;
    if (req.maxTokens !== undefined) body.max_tokens = req.maxTokens;
    if (req.stream) {
      body.stream = true;
      body.stream_options = { include_usage: true };
    }
    return body;
  },

  parseReply(json: unknown): ParsedReply | 'empty' | undefined {
    const r = replySchema.safeParse(json);
    if (!r.success) return undefined;
    const c = r.data.choices[0];
    if (!c) return 'empty';
    return {
      text: c.message?.content ?? '',
      finishReason: c.finish_reason ?? undefined,
      usage: toUsage(r.data.usage),
      model: r.data.model ?? undefined,
      id: r.data.id ?? undefined,
    };
  },

  parseEvent(ev): SurfaceEvent[] {
    const data = ev.data.trim();
    if (data === '[DONE]') return [{ type: 'end' }];
    if (!data) return [];
    let json: unknown;
    try {
      json = JSON.parse(data);
    } catch {
      return [{ type: 'error', message: `invalid JSON in stream chunk: ${data.slice(0, 80)}`, errorType: 'invalid_chunk' }];
    }
    const r = chunkSchema.safeParse(json);
    if (!r.success) return [];
    const chunk = r.data;
    if (chunk.error !== undefined && chunk.error !== null) {
      const e = chunk.error as { message?: unknown; type?: unknown; code?: unknown } | string;
      if (typeof e === 'string') return [{ type: 'error', message: e }];
      return [{ type: 'error', message: typeof e.message === 'string' ? e.message : 'stream error', errorType: typeof e.type === 'string' ? e.type : undefined, code: typeof e.code === 'string' ? e.code : undefined }];
    }
    const out: SurfaceEvent[] = [];
    if (chunk.id || chunk.model) out.push({ type: 'meta', id: chunk.id ?? undefined, model: chunk.model ?? undefined });
    const c = chunk.choices?.[0];
    if (c?.delta?.content) out.push({ type: 'text', text: c.delta.content });
    if (c?.finish_reason) out.push({ type: 'finish', reason: c.finish_reason });
    const u = toUsage(chunk.usage);
    if (u) out.push({ type: 'usage', usage: u });
    return out;
  },
};
