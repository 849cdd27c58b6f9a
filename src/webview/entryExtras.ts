/**
 * The parts of a message around its body: a user entry's images (thumbnails that open larger on
 * click, alt text from the file name; a placeholder for an image no longer kept), and a reply's
 * reasoning as a collapsed "Thinking" section (plain text: never markdown, never HTML). Words from
 * the host (`ChatStrings`).
 */
import { formatBytes } from '../shared/chatImages';
import type { ChatEntry, ChatImage } from '../shared/chatProtocol';
import { fill, type ChatStrings } from '../shared/chatStrings';

/** The images of a user entry, as thumbnails. */
export function renderImages(d: Document, images: readonly ChatImage[], s: ChatStrings): HTMLElement {
  const box = d.createElement('div');
  box.className = 'msg-images';
  box.setAttribute('data-testid', 'chat-message-images');
  images.forEach((im, i) => {
    const name = im.name ?? fill(s.imageName, i + 1);
    if (!im.data) {
      const missing = d.createElement('span');
      missing.className = 'msg-image-missing';
      missing.setAttribute('data-testid', 'chat-message-image-missing');
      missing.textContent = fill(s.imageMissing, name, formatBytes(im.bytes));
      missing.title = s.imageMissingTitle;
      box.append(missing);
      return;
    }
    const b = d.createElement('button');
    b.type = 'button';
    b.className = 'msg-image';
    b.setAttribute('aria-label', fill(s.imageShowLarger, name));
    b.setAttribute('aria-expanded', 'false');
    b.title = fill(s.imageTitle, name, formatBytes(im.bytes));
    const img = d.createElement('img');
    img.src = `data:${im.mimeType};base64,${im.data}`;
    img.alt = name;
    img.setAttribute('data-testid', 'chat-message-image');
    b.append(img);
    b.addEventListener('click', () => {
      const open = !b.classList.contains('expanded');
      b.classList.toggle('expanded', open);
      b.setAttribute('aria-expanded', String(open));
      b.setAttribute('aria-label', fill(open ? s.imageShowSmaller : s.imageShowLarger, name));
    });
    box.append(b);
  });
  return box;
}

/** "<0.1 s", "3.2 s", "14 s" (`seconds` is the host's "{0} s"). */
export function formatSeconds(ms: number, seconds: string): string {
  const s = ms / 1000;
  if (s < 0.1) return fill(seconds, '<0.1');
  return fill(seconds, s < 10 ? s.toFixed(1) : Math.round(s));
}

/** "Thinking…" while the model reasons, then how long it did ("Thinking" when not measured). */
export function thinkingLabel(e: ChatEntry, s: ChatStrings): string {
  if (e.reasoningMs !== undefined) return fill(s.thoughtFor, formatSeconds(e.reasoningMs, s.seconds));
  return e.status === 'streaming' ? s.thinkingNow : s.thinking;
}

/** A reply's reasoning: collapsed (the user opens it; re-renders keep it as they left it). */
export class ThinkingSection {
  readonly el: HTMLDetailsElement;
  private readonly summary: HTMLElement;
  private readonly text: HTMLElement;
  private shown = '';

  constructor(
    d: Document,
    private readonly s: ChatStrings,
  ) {
    this.el = d.createElement('details');
    this.el.className = 'thinking';
    this.el.setAttribute('data-testid', 'chat-thinking');
    this.summary = d.createElement('summary');
    this.summary.setAttribute('data-testid', 'chat-thinking-summary');
    this.text = d.createElement('div');
    this.text.className = 'thinking-text';
    this.text.setAttribute('data-testid', 'chat-thinking-text');
    this.el.append(this.summary, this.text);
  }

  /** Shows the entry's reasoning: appended when it grew, replaced otherwise; as text only. */
  render(e: ChatEntry): void {
    const label = thinkingLabel(e, this.s);
    if (this.summary.textContent !== label) this.summary.textContent = label;
    this.el.setAttribute('data-state', e.status === 'streaming' && e.reasoningMs === undefined ? 'thinking' : 'done');
    const r = e.reasoning ?? '';
    if (r === this.shown) return;
    if (this.shown && r.startsWith(this.shown))
      this.text.append(this.text.ownerDocument.createTextNode(r.slice(this.shown.length)));
    else this.text.textContent = r;
    this.shown = r;
  }
}
