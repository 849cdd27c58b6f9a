/**
 * The chat conversation as history, by one set of rules that the live session and a restored one
 * share (what is sent after a reload is what was sent before it):
 * - what the transcript keeps ({@link boundTranscript}): at most {@link MAX_ENTRIES} entries and
 *   {@link MAX_TRANSCRIPT_CHARS} of text, the newest images' files (older images keep type, name and
 *   size: a placeholder). Applied to the live list after every reply and to a restored one, so the
 *   saved chat is the live one.
 * - what a request sends ({@link toChatMessages}): the newest turns within {@link MAX_HISTORY_CHARS},
 *   the images of the newest {@link SENT_IMAGE_TURNS} user turns with images (a note for older ones),
 *   the core's one turn-merging rule.
 * Plain Node, no `vscode`.
 */
import { mergeTurns, type ChatMessage, type ContentPart } from '../../gateway';
import type { ChatEntry, ChatImage } from '../../shared/chatProtocol';

/** Entries the transcript keeps (200 turns), live and saved. */
export const MAX_ENTRIES = 400;
/** Text (messages, reasoning, selections) the transcript keeps, live and saved; the newest entries win. */
export const MAX_TRANSCRIPT_CHARS = 1_500_000;
/** Image files the transcript keeps (newest first), and at most this many bytes of them. */
export const MAX_KEPT_IMAGES = 40;
export const MAX_KEPT_IMAGE_BYTES = 64 * 1024 * 1024;
/** A request sends the images of this many of the newest user turns with images… */
export const SENT_IMAGE_TURNS = 3;
/** …and of earlier turns only within this many bytes (the newest turn's images always go). */
export const MAX_SENT_IMAGE_BYTES = 8 * 1024 * 1024;
/** A request sends the newest turns within this much text (the question always goes). */
export const MAX_HISTORY_CHARS = 400_000;
/** Largest selection sent with a question (characters). */
export const MAX_CONTEXT_CHARS = 100_000;

/** The text sent for a user entry: the question, then the attached selection as a fenced block. */
export function userContent(entry: ChatEntry): string {
  const c = entry.context;
  if (!c) return entry.text;
  const fence = c.code.includes('```') ? '````' : '```';
  const lines = c.startLine === c.endLine ? `line ${c.startLine}` : `lines ${c.startLine}-${c.endLine}`;
  return `${entry.text}\n\nFrom \`${c.fileName}\` (${lines}, ${c.language}):\n${fence}${c.language}\n${c.code}\n${fence}`;
}

/** Why an image of the conversation is not in a request. */
export type LeftOut = 'not kept' | 'not sent again' | 'no image input';

/** A note sent in place of an image that is not sent. */
export function imageNote(im: ChatImage, why: LeftOut): string {
  const what = `${im.name ? `"${im.name}", ` : ''}${im.mimeType}`;
  if (why === 'not kept') return `[image (${what}) shared earlier; no longer available]`;
  if (why === 'not sent again') return `[image (${what}) shared earlier; not sent again]`;
  return `[image (${what}) left out: this model does not accept images]`;
}

/** The image files a request sends: those of the newest {@link SENT_IMAGE_TURNS} user turns with images. */
export function sentImageFiles(entries: readonly ChatEntry[]): Set<string> {
  const out = new Set<string>();
  let turns = 0;
  let bytes = 0;
  for (let i = entries.length - 1; i >= 0 && turns < SENT_IMAGE_TURNS; i--) {
    const e = entries[i];
    if (e.role !== 'user' || e.image) continue;
    const kept = e.images?.filter((im) => im.file) ?? [];
    if (!kept.length) continue;
    const size = kept.reduce((n, im) => n + im.bytes, 0);
    if (turns > 0 && bytes + size > MAX_SENT_IMAGE_BYTES) break;
    turns++;
    bytes += size;
    for (const im of kept) out.add(im.file!);
  }
  return out;
}

/** How the images of user turns go: `data` holds the base64 of each file sent (read by the session). */
export interface ImagesToSend {
  /** false for a model without image input: every image becomes a note */
  withImages: boolean;
  data: ReadonlyMap<string, string>;
}

/**
 * What a user entry sends: its text (with the selection) alone, or its images first and then the
 * text, as content parts; an image not sent becomes a note.
 */
export function userParts(entry: ChatEntry, images: ImagesToSend): string | ContentPart[] {
  const text = userContent(entry);
  if (!entry.images?.length) return text;
  const parts: ContentPart[] = [];
  const notes: string[] = [];
  for (const im of entry.images) {
    const data = im.file ? images.data.get(im.file) : undefined;
    if (data && images.withImages) parts.push({ type: 'image', mimeType: im.mimeType, data });
    else if (!images.withImages) notes.push(imageNote(im, 'no image input'));
    else notes.push(imageNote(im, im.file ? 'not sent again' : 'not kept'));
  }
  const all = [...notes, text].filter((t) => t.trim()).join('\n\n');
  if (all) parts.push({ type: 'text', text: all });
  return parts;
}

/**
 * The conversation as core chat messages: user turns and replies that finished or were stopped with
 * some text (failed replies are left out; `/image` turns are not chat history; reasoning is never sent
 * back), the newest within {@link MAX_HISTORY_CHARS} starting at a user turn, consecutive turns of one
 * role merged (the native surface wants alternating turns).
 */
export function toChatMessages(
  entries: readonly ChatEntry[],
  images: ImagesToSend = { withImages: true, data: new Map() },
): ChatMessage[] {
  const out: ChatMessage[] = [];
  for (const e of entries) {
    if (e.image) continue;
    let content: string | ContentPart[];
    if (e.role === 'user') content = userParts(e, images);
    else if ((e.status === 'done' || e.status === 'stopped') && e.text.trim()) content = e.text;
    else continue;
    out.push({ role: e.role, content });
  }
  return mergeTurns(out.slice(historyStart(out)));
}

function textSize(c: string | ContentPart[]): number {
  return typeof c === 'string' ? c.length : c.reduce((n, p) => n + (p.type === 'text' ? p.text.length : 0), 0);
}

/** Where the sent history starts: the oldest user message from which the rest fits in the budget. */
function historyStart(messages: readonly ChatMessage[]): number {
  let size = 0;
  let start = messages.length;
  for (let i = messages.length - 1; i >= 0; i--) {
    size += textSize(messages[i].content);
    if (size > MAX_HISTORY_CHARS && start < messages.length) break;
    if (messages[i].role === 'user') start = i;
  }
  return start;
}

function entryChars(e: ChatEntry): number {
  return e.text.length + (e.reasoning?.length ?? 0) + (e.context?.code.length ?? 0);
}

/** What {@link boundTranscript} changed: entries dropped, entries whose images lost their files, and those files. */
export interface Bounded {
  entries: ChatEntry[];
  removed: string[];
  updated: ChatEntry[];
  released: string[];
}

/**
 * The transcript as kept: the newest entries within {@link MAX_ENTRIES} and {@link MAX_TRANSCRIPT_CHARS}
 * (the newest two always), starting at a user entry; the newest images within {@link MAX_KEPT_IMAGES}
 * and {@link MAX_KEPT_IMAGE_BYTES} keep their files, older ones keep type, name and size only.
 * Changed entries are copies; the input is not mutated.
 */
export function boundTranscript(entries: readonly ChatEntry[]): Bounded {
  let start = entries.length;
  let chars = 0;
  while (start > 0 && entries.length - start < MAX_ENTRIES) {
    chars += entryChars(entries[start - 1]);
    if (chars > MAX_TRANSCRIPT_CHARS && entries.length - start >= 2) break;
    start--;
  }
  while (start < entries.length - 1 && entries[start].role !== 'user') start++;
  const kept = entries.slice(start);
  const removed = entries.slice(0, start).map((e) => e.id);
  const released = entries
    .slice(0, start)
    .flatMap((e) => e.images ?? [])
    .flatMap((im) => (im.file ? [im.file] : []));
  const updated: ChatEntry[] = [];
  let count = 0;
  let bytes = 0;
  for (let i = kept.length - 1; i >= 0; i--) {
    const e = kept[i];
    if (!e.images?.some((im) => im.file)) continue;
    const images = e.images.map((im) => {
      if (!im.file) return im;
      if (count < MAX_KEPT_IMAGES && bytes + im.bytes <= MAX_KEPT_IMAGE_BYTES) {
        count++;
        bytes += im.bytes;
        return im;
      }
      released.push(im.file);
      const { file: _file, ...rest } = im;
      return rest;
    });
    if (images.every((im, k) => im === e.images![k])) continue;
    kept[i] = { ...e, images };
    updated.push(kept[i]);
  }
  return { entries: kept, removed, updated, released };
}
