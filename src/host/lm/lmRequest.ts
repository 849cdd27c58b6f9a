/**
 * VS Code's language-model request (as plain data, see src/extension/lm/lmParts.ts) turned into
 * the core's ChatRequest: the system role Copilot sends (3) becomes the system prompt; images go
 * only to models that accept them; Copilot's internal data parts (`cache_control`,
 * `stateful_marker`, …) and `modelOptions` are never forwarded; the reasoning of our own replies
 * (kept in the ThinkingCache, or handed back by VS Code as thinking parts) goes back in front of
 * the tool calls it preceded, in the shape of the model's surface; our own notice lines in earlier
 * replies (lmNotices.ts) are left out.
 */
import {
  mergeTurns,
  type ChatMessage,
  type ChatRequest,
  type ContentPart,
  type ImagePart,
  type Surface,
  type TextPart,
  type ToolSpec,
} from '../../gateway';
import { t } from '../../gateway/l10n';
import { withoutNotices } from './lmNotices';
import type { ModelProfile } from './modelProfile';
import type { ThinkingCache } from './thinkingCache';

export type LmPart =
  | { kind: 'text'; value: string }
  | { kind: 'data'; mimeType: string; data: Uint8Array }
  | { kind: 'toolCall'; callId: string; name: string; input: object }
  | { kind: 'toolResult'; callId: string; content: LmPart[] }
  /** reasoning VS Code hands back (LanguageModelThinkingPart, proposed API) */
  | { kind: 'thinking'; value: string }
  | { kind: 'other' };

export interface LmMessage {
  /** 1 user, 2 assistant, 3 system (proposed, sent by Copilot) */
  role: number;
  content: LmPart[];
}

export interface LmOptions {
  tools?: ReadonlyArray<{ name: string; description: string; inputSchema?: object | undefined }> | undefined;
  /** 1 auto, 2 required */
  toolMode?: number | undefined;
}

const ROLE_ASSISTANT = 2;
const ROLE_SYSTEM = 3;
const IMAGE_MIME = /^image\/(png|jpe?g|gif|webp|bmp)$/i;
/** Data parts that carry text a model can read (tool results); everything else is an internal marker. */
const TEXT_MIME = /^(text\/|application\/json)/i;

const decoder = new TextDecoder();

function dataPart(p: Extract<LmPart, { kind: 'data' }>, imageInput: boolean): Array<TextPart | ImagePart> {
  if (IMAGE_MIME.test(p.mimeType)) {
    if (imageInput)
      return [
        {
          type: 'image',
          mimeType: p.mimeType.toLowerCase().replace('image/jpg', 'image/jpeg'),
          data: Buffer.from(p.data.buffer, p.data.byteOffset, p.data.byteLength).toString('base64'),
        },
      ];
    return [{ type: 'text', text: t('[an image was left out: this model does not accept images]') }];
  }
  if (TEXT_MIME.test(p.mimeType)) return [{ type: 'text', text: decoder.decode(p.data) }];
  return []; // cache_control, stateful_marker, context_management, …
}

function resultContent(parts: readonly LmPart[], imageInput: boolean): Array<TextPart | ImagePart> {
  return parts.flatMap((p): Array<TextPart | ImagePart> =>
    p.kind === 'text' ? [{ type: 'text', text: p.value }] : p.kind === 'data' ? dataPart(p, imageInput) : [],
  );
}

/** The reasoning parts each surface takes back: its own kind only. */
const SURFACE_REASONING: Record<Surface, ReadonlySet<ContentPart['type']>> = {
  native: new Set(['thinking', 'redacted_thinking']),
  compatible: new Set(['reasoning']),
  responses: new Set(['reasoning_item']),
};

/** An assistant message's reasoning goes first (native: signed thinking must lead its tool calls); kept once per message. */
function withReasoning(
  out: ContentPart[],
  callId: string,
  model: string,
  surface: Surface,
  cache: ThinkingCache,
): void {
  const takes = SURFACE_REASONING[surface];
  if (out.some((x) => takes.has(x.type))) return;
  out.unshift(...cache.get(model, callId).filter((x) => takes.has(x.type)));
}

function toParts(m: LmMessage, model: string, profile: ModelProfile, thinking: ThinkingCache): ContentPart[] {
  const out: ContentPart[] = [];
  const assistant = m.role === ROLE_ASSISTANT;
  for (const p of m.content) {
    if (p.kind === 'text') {
      // Our own notices in a reply of ours (a failover, a cut answer) were for the user, never for the model.
      const text = assistant ? withoutNotices(p.value) : p.value;
      if (text === p.value || text.trim()) out.push({ type: 'text', text });
    } else if (p.kind === 'data') out.push(...dataPart(p, profile.imageInput));
    else if (p.kind === 'thinking') {
      // Only the compatible surface takes reasoning back as plain text; the others need what the cache keeps.
      if (assistant && profile.surface === 'compatible' && p.value) out.push({ type: 'reasoning', text: p.value });
    } else if (p.kind === 'toolCall') {
      if (assistant) withReasoning(out, p.callId, model, profile.surface, thinking);
      out.push({ type: 'tool_call', id: p.callId, name: p.name, input: p.input as Record<string, unknown> });
    } else if (p.kind === 'toolResult')
      out.push({ type: 'tool_result', callId: p.callId, content: resultContent(p.content, profile.imageInput) });
  }
  return out;
}

const textOnly = (parts: readonly ContentPart[]) => parts.every((p) => p.type === 'text');

export function lmToChatRequest(
  model: string,
  profile: ModelProfile,
  messages: readonly LmMessage[],
  options: LmOptions,
  thinking: ThinkingCache,
): Omit<ChatRequest, 'signal'> {
  const system: string[] = [];
  const turns: ChatMessage[] = [];
  for (const m of messages) {
    const parts = toParts(m, model, profile, thinking);
    if (m.role === ROLE_SYSTEM) {
      const text = parts.map((p) => (p.type === 'text' ? p.text : '')).join('');
      if (text.trim()) system.push(text);
      continue;
    }
    const role = m.role === ROLE_ASSISTANT ? 'assistant' : 'user';
    const content = textOnly(parts) ? parts.map((p) => (p as TextPart).text).join('') : parts;
    if (typeof content === 'string' ? content.trim() : content.length) turns.push({ role, content });
  }
  mergeTurns(turns);
  if (turns[0]?.role === 'assistant') turns.unshift({ role: 'user', content: '(continue)' });
  const tools: ToolSpec[] | undefined =
    profile.toolCalling && options.tools?.length
      ? options.tools.map((t) => ({
          name: t.name,
          description: t.description,
          inputSchema: t.inputSchema as Record<string, unknown> | undefined,
        }))
      : undefined;
  return {
    surface: profile.surface,
    model,
    system: system.length ? system.join('\n\n') : undefined,
    messages: turns,
    maxTokens: profile.maxOutputTokens,
    ...(tools ? { tools, toolMode: options.toolMode === 2 ? ('required' as const) : ('auto' as const) } : {}),
    ...(profile.replayReasoning !== undefined ? { replayReasoning: profile.replayReasoning } : {}),
    ...(profile.surface === 'native' && profile.thinkingBudget
      ? { thinking: { budgetTokens: profile.thinkingBudget } }
      : {}),
  };
}
