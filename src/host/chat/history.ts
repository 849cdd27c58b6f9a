/**
 * The chat conversation as history: what a user entry sends (question plus attached selection),
 * the entries as core chat messages (the core's one turn-merging rule), and entries restored from
 * storage. Plain Node, no `vscode`.
 */
import { mergeTurns, type ChatMessage } from '../../gateway';
import type { ChatEntry } from '../../shared/chatProtocol';

/** The text sent for a user entry: the question, then the attached selection as a fenced block. */
export function userContent(entry: ChatEntry): string {
  const c = entry.context;
  if (!c) return entry.text;
  const fence = c.code.includes('```') ? '````' : '```';
  const lines = c.startLine === c.endLine ? `line ${c.startLine}` : `lines ${c.startLine}-${c.endLine}`;
  return `${entry.text}\n\nFrom \`${c.fileName}\` (${lines}, ${c.language}):\n${fence}${c.language}\n${c.code}\n${fence}`;
}

/**
 * The conversation as core chat messages: user turns, and replies that finished or were stopped
 * with some text; failed replies are left out and consecutive turns of one role are merged (the
 * native surface wants alternating turns).
 */
export function toChatMessages(entries: readonly ChatEntry[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  for (const e of entries) {
    if (e.image) continue; // /image turns are not chat history
    let content: string;
    if (e.role === 'user') content = userContent(e);
    else if ((e.status === 'done' || e.status === 'stopped') && e.text.trim()) content = e.text;
    else continue;
    out.push({ role: e.role, content });
  }
  return mergeTurns(out);
}

/**
 * History restored from storage: a reply that was streaming when the window closed is marked
 * stopped (it is never re-sent), transient retry state is dropped.
 */
export function restoreEntries(raw: unknown): ChatEntry[] {
  if (!Array.isArray(raw)) return [];
  const out: ChatEntry[] = [];
  for (const e of raw as ChatEntry[]) {
    if (!e || typeof e !== 'object' || typeof e.id !== 'string' || typeof e.text !== 'string' || (e.role !== 'user' && e.role !== 'assistant')) continue;
    const copy: ChatEntry = { ...e };
    delete copy.retry;
    if (copy.role === 'assistant' && copy.status === 'streaming') copy.status = 'stopped';
    out.push(copy);
  }
  return out;
}
