/** The one turn-merging rule for transcripts built outside the core (the chat history, VS Code's chat). */
import type { ChatMessage, ContentPart } from './types';

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

const asParts = (c: string | ContentPart[]): ContentPart[] =>
  typeof c === 'string' ? (c ? [{ type: 'text', text: c }] : []) : c;

function joinContent(a: string | ContentPart[], b: string | ContentPart[]): string | ContentPart[] {
  if (typeof a === 'string' && typeof b === 'string') return `${a}\n\n${b}`;
  return [...asParts(a), ...asParts(b)];
}
