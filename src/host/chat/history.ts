/**
 * The chat conversation as history: what a user entry sends (question, attached selection and
 * images), the entries as core chat messages (the core's one turn-merging rule), and entries
 * restored from storage. Plain Node, no `vscode`.
 */
import { mergeTurns, type ChatMessage, type ContentPart } from '../../gateway';
import type { ChatEntry, ChatImage } from '../../shared/chatProtocol';
import { restoreImages } from './images';

/** The text sent for a user entry: the question, then the attached selection as a fenced block. */
export function userContent(entry: ChatEntry): string {
  const c = entry.context;
  if (!c) return entry.text;
  const fence = c.code.includes('```') ? '````' : '```';
  const lines = c.startLine === c.endLine ? `line ${c.startLine}` : `lines ${c.startLine}-${c.endLine}`;
  return `${entry.text}\n\nFrom \`${c.fileName}\` (${lines}, ${c.language}):\n${fence}${c.language}\n${c.code}\n${fence}`;
}

/** A note sent in place of an image that is not sent (its data was not kept, or the model takes no images). */
export function imageNote(im: ChatImage, why: 'not kept' | 'no image input'): string {
  const what = `${im.name ? `"${im.name}", ` : ''}${im.mimeType}`;
  return why === 'not kept'
    ? `[image (${what}) shared earlier; no longer available]`
    : `[image (${what}) left out: this model does not accept images]`;
}

/**
 * What a user entry sends: its text (with the selection) alone, or its images first and then the
 * text, as content parts. Without `withImages` (a model without image input) images become notes.
 */
export function userParts(entry: ChatEntry, withImages = true): string | ContentPart[] {
  const text = userContent(entry);
  if (!entry.images?.length) return text;
  const parts: ContentPart[] = [];
  const notes: string[] = [];
  for (const im of entry.images) {
    if (im.data && withImages) parts.push({ type: 'image', mimeType: im.mimeType, data: im.data });
    else notes.push(imageNote(im, im.data ? 'no image input' : 'not kept'));
  }
  const all = [...notes, text].filter((t) => t.trim()).join('\n\n');
  if (all) parts.push({ type: 'text', text: all });
  return parts;
}

/**
 * The conversation as core chat messages: user turns (with their images: `withImages` false sends
 * notes instead, for a model without image input), and replies that finished or were stopped with
 * some text; failed replies are left out and consecutive turns of one role are merged (the native
 * surface wants alternating turns). Reasoning is never sent back.
 */
export function toChatMessages(entries: readonly ChatEntry[], withImages = true): ChatMessage[] {
  const out: ChatMessage[] = [];
  for (const e of entries) {
    if (e.image) continue; // /image turns are not chat history
    let content: string | ContentPart[];
    if (e.role === 'user') content = userParts(e, withImages);
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
    if (
      !e ||
      typeof e !== 'object' ||
      typeof e.id !== 'string' ||
      typeof e.text !== 'string' ||
      (e.role !== 'user' && e.role !== 'assistant')
    )
      continue;
    const copy: ChatEntry = { ...e };
    delete copy.retry;
    const images = restoreImages(copy.images);
    if (images) copy.images = images;
    else delete copy.images;
    if (copy.role === 'assistant' && copy.status === 'streaming') copy.status = 'stopped';
    out.push(copy);
  }
  return out;
}
