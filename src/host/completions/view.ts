/**
 * The text the completion engine reads (issue 25). A snapshot holds the document's text, or for a
 * large document only a window around the cursor (`textStart` says where it begins; the glue reads
 * `windowChars` of the context budget each side, context.ts), so the engine reads it by document
 * offsets here and never assumes `text` starts the document.
 */
import type { DocumentSnapshot, ProvideContext } from './types';

/** The text a completion is computed for, with the cursor's offset in it. */
export interface View {
  text: string;
  offset: number;
}

/**
 * The snapshot's text between two document offsets, as far as it holds them (its `text` may be a
 * window starting at `textStart`); what lies outside is left out, so a comparison with it fails.
 */
export function between(doc: DocumentSnapshot, from: number, to: number): string {
  const start = doc.textStart ?? 0;
  return doc.text.slice(Math.max(0, from - start), Math.max(0, to - start));
}

/**
 * The text to complete, with the cursor's offset in it: the snapshot's text (the document or its
 * window), with the suggest widget's item selected as if that item were inserted.
 */
export function viewOf(doc: DocumentSnapshot, offset: number, ctx: ProvideContext): View {
  const start = doc.textStart ?? 0;
  const local = (o: number) => Math.min(doc.text.length, Math.max(0, o - start));
  const sel = ctx.selected;
  if (!sel) return { text: doc.text, offset: local(offset) };
  const from = local(sel.startOffset);
  return {
    text: doc.text.slice(0, from) + sel.text + doc.text.slice(local(sel.endOffset)),
    offset: from + sel.text.length,
  };
}
