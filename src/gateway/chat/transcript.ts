/**
 * Converting a generic chat transcript (as VS Code's language-model API hands it over) into the
 * core's ChatRequest for either surface: system text becomes the surface's system prompt,
 * consecutive turns of one role are merged (the native surface needs alternating turns), and the
 * conversation always starts with a user turn.
 */
import type { ChatMessage, ChatRequest, ContentPart } from './types';
import type { Surface } from '../errors/gatewayError';

export interface TranscriptMessage {
  role: 'system' | 'user' | 'assistant';
  text: string;
}

/**
 * The one turn-merging rule: consecutive messages of one role become one message, their texts
 * joined by a blank line (the native surface needs alternating turns). Merges in place.
 */
export function mergeTurns(messages: ChatMessage[]): ChatMessage[] {
  let w = 0;
  for (const m of messages) {
    const prev = w > 0 ? messages[w - 1] : undefined;
    if (prev && prev.role === m.role) prev.content = joinContent(prev.content, m.content);
    else messages[w++] = { ...m };
  }
  messages.length = w;
  return messages;
}

const asParts = (c: string | ContentPart[]): ContentPart[] => (typeof c === 'string' ? (c ? [{ type: 'text', text: c }] : []) : c);

function joinContent(a: string | ContentPart[], b: string | ContentPart[]): string | ContentPart[] {
  if (typeof a === 'string' && typeof b === 'string') return `${a}\n\n${b}`;
  return [...asParts(a), ...asParts(b)];
}

export function transcriptToRequest(transcript: readonly TranscriptMessage[], surface: Surface, model: string, extra: Partial<Pick<ChatRequest, 'maxTokens' | 'temperature' | 'signal' | 'stream'>> = {}): ChatRequest {
  const system: string[] = [];
  const messages: ChatMessage[] = [];
  for (const m of transcript) {
    const text = m.text;
    if (!text.trim()) continue;
    if (m.role === 'system') {
      system.push(text);
      continue;
    }
    messages.push({ role: m.role, content: text });
  }
  mergeTurns(messages);
  if (messages[0]?.role === 'assistant') messages.unshift({ role: 'user', content: '(continue)' });
  return { surface, model, system: system.length ? system.join('\n\n') : undefined, messages, ...extra };
}

/** A rough token estimate (about 4 characters a token) for providers that must give a count. */
export function estimateTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}
