/** The chat-completions-compatible surface: `POST {base}/v1/chat/completions`, Bearer auth. */
import { z } from 'zod';
import { t } from '../../l10n';
import { newCallId, parseToolInput } from '../tools';
import { eventData } from './eventData';
import type { BuildContext, ChatRequest, ParsedReply, SurfaceAdapter, SurfaceEvent, ToolCall, Usage } from '../types';
import { compatibleRequest } from './compatibleRequest';

const usageSchema = z
  .object({ prompt_tokens: z.number().nullish(), completion_tokens: z.number().nullish() })
  .nullish();

const replySchema = z.object({
  id: z.string().nullish(),
  model: z.string().nullish(),
  choices: z.array(
    z.object({
      message: z
        .object({
          content: z.string().nullish(),
          reasoning_content: z.string().nullish(),
          reasoning: z.string().nullish(),
          tool_calls: z
            .array(
              z.object({
                id: z.string().nullish(),
                function: z.object({ name: z.string().nullish(), arguments: z.string().nullish() }).nullish(),
              }),
            )
            .nullish(),
        })
        .nullish(),
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
        delta: z
          .object({
            content: z.string().nullish(),
            reasoning_content: z.string().nullish(),
            reasoning: z.string().nullish(),
            tool_calls: z
              .array(
                z.object({
                  index: z.number().nullish(),
                  id: z.string().nullish(),
                  function: z.object({ name: z.string().nullish(), arguments: z.string().nullish() }).nullish(),
                }),
              )
              .nullish(),
          })
          .nullish(),
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

const isNum = (v: unknown) => v === null || v === undefined || typeof v === 'number';
const isStr = (v: unknown) => v === null || v === undefined || typeof v === 'string';

/**
 * The per-chunk fast path: a well-formed chunk (the overwhelming case) is checked by hand, which
 * costs a fraction of a schema parse; anything unusual falls through to the zod schema.
 */
function fastChunk(j: unknown): SurfaceEvent[] | undefined {
  if (!j || typeof j !== 'object') return undefined;
  const o = j as { id?: unknown; model?: unknown; choices?: unknown; usage?: unknown; error?: unknown };
  if (o.error !== undefined && o.error !== null) return undefined;
  if (!isStr(o.id) || !isStr(o.model)) return undefined;
  const choices = o.choices;
  if (choices !== undefined && choices !== null && !Array.isArray(choices)) return undefined;
  const c = (choices as unknown[] | null | undefined)?.[0] as
    { delta?: { content?: unknown } | null; finish_reason?: unknown } | undefined;
  if (c !== undefined && (c === null || typeof c !== 'object')) return undefined;
  const delta = c?.delta;
  if (delta !== undefined && delta !== null && typeof delta !== 'object') return undefined;
  // Tool-call and reasoning deltas take the schema path.
  const d = delta as { tool_calls?: unknown; reasoning_content?: unknown; reasoning?: unknown } | null | undefined;
  if (d && (d.tool_calls != null || d.reasoning_content != null || d.reasoning != null)) return undefined;
  const content = delta?.content;
  if (!isStr(content) || !isStr(c?.finish_reason)) return undefined;
  const u = o.usage as { prompt_tokens?: unknown; completion_tokens?: unknown } | null | undefined;
  if (
    u !== undefined &&
    u !== null &&
    (typeof u !== 'object' || !isNum(u.prompt_tokens) || !isNum(u.completion_tokens))
  )
    return undefined;
  const out: SurfaceEvent[] = [];
  if (o.id || o.model)
    out.push({
      type: 'meta',
      id: o.id ?? undefined,
      model: o.model ?? undefined,
    });
  if (content) out.push({ type: 'text', text: content });
  if (c?.finish_reason) out.push({ type: 'finish', reason: c.finish_reason });
  if (u)
    out.push({
      type: 'usage',
      usage: {
        inputTokens: (u.prompt_tokens as number | null | undefined) ?? undefined,
        outputTokens: (u.completion_tokens as number | null | undefined) ?? undefined,
      },
    });
  return out;
}

type WireCalls =
  | Array<{
      id?: string | null | undefined;
      function?: { name?: string | null | undefined; arguments?: string | null | undefined } | null | undefined;
    }>
  | null
  | undefined;

/** A non-streamed reply's tool calls; the first whose arguments are not an object is reported. */
function replyCalls(list: WireCalls): { calls: ToolCall[]; bad?: { name: string; args: string } } {
  const calls: ToolCall[] = [];
  for (const t of list ?? []) {
    const name = t.function?.name ?? '';
    const args = t.function?.arguments ?? '';
    const input = parseToolInput(args);
    if (!input) return { calls, bad: { name, args } };
    calls.push({ id: t.id || newCallId(), name, input });
  }
  return { calls };
}

export const compatibleSurface: SurfaceAdapter = {
  surface: 'compatible',
  path: '/v1/chat/completions',

  toRequest(req: ChatRequest, ctx: BuildContext): Record<string, unknown> {
    return compatibleRequest(req, ctx);
  },

  parseReply(json: unknown): ParsedReply | 'empty' | undefined {
    const r = replySchema.safeParse(json);
    if (!r.success) return undefined;
    const c = r.data.choices[0];
    if (!c) return 'empty';
    const calls = replyCalls(c.message?.tool_calls);
    return {
      text: c.message?.content ?? '',
      toolCalls: calls.calls,
      ...(calls.bad ? { badToolCall: calls.bad } : {}),
      reasoning: c.message?.reasoning_content ?? c.message?.reasoning ?? '',
      thinking: [],
      finishReason: c.finish_reason ?? undefined,
      usage: toUsage(r.data.usage),
      model: r.data.model ?? undefined,
      id: r.data.id ?? undefined,
    };
  },

  parseEvent(ev): SurfaceEvent[] {
    const d = eventData(ev.data);
    if ('events' in d) return d.events;
    const json = d.json;
    const fast = fastChunk(json);
    if (fast) return fast;
    const r = chunkSchema.safeParse(json);
    if (!r.success) return [];
    const chunk = r.data;
    if (chunk.error !== undefined && chunk.error !== null) {
      const e = chunk.error as { message?: unknown; type?: unknown; code?: unknown } | string;
      if (typeof e === 'string') return [{ type: 'error', message: e }];
      return [
        {
          type: 'error',
          message: typeof e.message === 'string' ? e.message : t('stream error'),
          errorType: typeof e.type === 'string' ? e.type : undefined,
          code: typeof e.code === 'string' ? e.code : undefined,
        },
      ];
    }
    const out: SurfaceEvent[] = [];
    if (chunk.id || chunk.model) out.push({ type: 'meta', id: chunk.id ?? undefined, model: chunk.model ?? undefined });
    const c = chunk.choices?.[0];
    const reasoning = c?.delta?.reasoning_content ?? c?.delta?.reasoning;
    if (reasoning) out.push({ type: 'reasoning', text: reasoning });
    if (c?.delta?.content) out.push({ type: 'text', text: c.delta.content });
    c?.delta?.tool_calls?.forEach((t, i) => {
      const index = t.index ?? i;
      if (t.id || t.function?.name)
        out.push({ type: 'tool_start', index, id: t.id ?? undefined, name: t.function?.name ?? undefined });
      if (t.function?.arguments) out.push({ type: 'tool_args', index, fragment: t.function.arguments });
    });
    if (c?.finish_reason) out.push({ type: 'finish', reason: c.finish_reason });
    const u = toUsage(chunk.usage);
    if (u) out.push({ type: 'usage', usage: u });
    return out;
  },
};
