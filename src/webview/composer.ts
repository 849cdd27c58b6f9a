/**
 * The composer's images: attached with the picker button, by pasting or by dropping files on the
 * panel; shown as removable thumbnails above the input; checked as they are added (PNG, JPEG, GIF or
 * WebP by their bytes, at most 4 per message, 5 MB each: what is refused is said inline, and the typed
 * text is never touched). Sent with the message; when the host refuses a message (a model without
 * image input) the text and the images are put back. Its words come from the host (`ChatStrings`).
 */
import {
  base64Head,
  formatBytes,
  isImageMime,
  MAX_IMAGE_BYTES,
  MAX_IMAGES_PER_MESSAGE,
  sniffImage,
} from '../shared/chatImages';
import type { ImageAttachment } from '../shared/chatProtocol';
import { fill, type ChatStrings } from '../shared/chatStrings';
import type { ChatElements } from './chatLayout';
import { codicon } from './codicon';

/** What the composer needs of the app. */
export interface ComposerHost {
  busy(): boolean;
  /** a selection is attached (a message may then be sent without text) */
  hasContext(): boolean;
  send(text: string, images: ImageAttachment[]): void;
  /** the draft or the attachments changed (save the webview state) */
  changed(): void;
}

export class Composer {
  private items: ImageAttachment[] = [];
  /** files being read (they count against the limit already) */
  private reading = 0;
  private lastSent: { text: string; items: ImageAttachment[] } | undefined;

  constructor(
    private readonly win: Window,
    private readonly ui: ChatElements,
    private readonly s: ChatStrings,
    private readonly host: ComposerHost,
    saved: readonly ImageAttachment[] = [],
  ) {
    this.items = saved.slice(0, MAX_IMAGES_PER_MESSAGE);
    this.bind();
    this.render();
  }

  get attachments(): readonly ImageAttachment[] {
    return this.items;
  }

  private bind(): void {
    const { attach, fileInput } = this.ui;
    attach.addEventListener('click', () => fileInput.click());
    fileInput.addEventListener('change', () => {
      const files = Array.from(fileInput.files ?? []);
      fileInput.value = '';
      void this.add(files);
    });
    const doc = this.win.document;
    doc.addEventListener('paste', (e) => {
      const files = Array.from(e.clipboardData?.files ?? []);
      if (!files.length) return;
      // Only images: nothing else would be pasted (the file name, at most); text pastes as usual.
      if (!e.clipboardData?.getData('text/plain')) e.preventDefault();
      void this.add(files);
    });
    const hasFiles = (e: DragEvent) => Array.from(e.dataTransfer?.types ?? []).includes('Files');
    doc.addEventListener('dragover', (e) => {
      if (!hasFiles(e)) return;
      e.preventDefault();
      if (e.dataTransfer) e.dataTransfer.dropEffect = 'copy';
      doc.body.classList.add('drop-target');
    });
    doc.addEventListener('dragleave', (e) => {
      if (!e.relatedTarget) doc.body.classList.remove('drop-target');
    });
    doc.addEventListener('drop', (e) => {
      doc.body.classList.remove('drop-target');
      if (!hasFiles(e)) return;
      e.preventDefault();
      void this.add(Array.from(e.dataTransfer?.files ?? []));
    });
  }

  /** Adds image files in order; says inline what was not added and why. */
  async add(files: readonly File[]): Promise<void> {
    const problems: string[] = [];
    const s = this.s;
    for (const [i, f] of files.entries()) {
      const label = f.name ? fill(s.quotedName, f.name) : s.pastedImage;
      if (f.type && !isImageMime(f.type)) problems.push(fill(s.notAddedType, label));
      else if (f.size > MAX_IMAGE_BYTES)
        problems.push(fill(s.notAddedSize, label, formatBytes(f.size, s), formatBytes(MAX_IMAGE_BYTES, s)));
      else if (this.items.length + this.reading >= MAX_IMAGES_PER_MESSAGE) {
        problems.push(
          files.length - i === 1
            ? fill(s.tooManyOne, MAX_IMAGES_PER_MESSAGE, label)
            : fill(s.tooManyMany, MAX_IMAGES_PER_MESSAGE, files.length - i),
        );
        break;
      } else {
        const problem = await this.read(f, label);
        if (problem) problems.push(problem);
      }
    }
    this.note(problems.join(' '));
    this.render();
    this.host.changed();
  }

  private async read(f: File, label: string): Promise<string | undefined> {
    this.reading++;
    try {
      const data = await readBase64(this.win, f);
      const mimeType = sniffImage(base64Head(data));
      // The bytes decide: a mislabelled file goes with its real type, a non-image not at all.
      if (!mimeType) return fill(this.s.notAnImage, label);
      this.items.push({ mimeType, data, ...(f.name ? { name: f.name.slice(0, 200) } : {}) });
      return undefined;
    } catch {
      return fill(this.s.unreadable, label);
    } finally {
      this.reading--;
    }
  }

  remove(index: number): void {
    this.items.splice(index, 1);
    this.note('');
    this.render();
    this.host.changed();
    this.ui.input.focus();
  }

  /** Sends the draft with its images (kept aside until the host takes it: see {@link refused}). */
  submit(): void {
    if (this.host.busy()) return;
    if (this.reading) return this.note(this.s.stillReading);
    const text = this.ui.input.value;
    if (!text.trim() && !this.host.hasContext() && !this.items.length) return;
    this.lastSent = { text, items: this.items };
    this.host.send(text, [...this.items]);
    this.ui.input.value = '';
    this.items = [];
    this.note('');
    this.render();
  }

  /** The host did not send the last message: the text and images come back, with why. */
  refused(message: string): void {
    const last = this.lastSent;
    this.lastSent = undefined;
    if (last) {
      if (!this.ui.input.value.trim()) this.ui.input.value = last.text;
      this.items = [...last.items, ...this.items].slice(0, MAX_IMAGES_PER_MESSAGE);
    }
    this.note(message);
    this.render();
    this.host.changed();
  }

  private note(text: string): void {
    this.ui.composerNote.textContent = text;
    this.ui.composerNote.hidden = !text;
  }

  private render(): void {
    const d = this.win.document;
    const thumbs = this.items.map((im, i) => {
      const box = d.createElement('div');
      box.className = 'attachment';
      box.setAttribute('data-testid', 'chat-attachment');
      const name = im.name ?? fill(this.s.imageName, i + 1);
      box.title = `${name} (${formatBytes(Math.floor((im.data.length * 3) / 4), this.s)})`;
      const img = d.createElement('img');
      img.src = `data:${im.mimeType};base64,${im.data}`;
      img.alt = name;
      const x = d.createElement('button');
      x.type = 'button';
      x.className = 'attachment-remove';
      x.append(codicon(d, 'close'));
      x.setAttribute('aria-label', fill(this.s.removeImage, name));
      x.title = fill(this.s.removeImage, name);
      x.setAttribute('data-testid', 'chat-attachment-remove');
      x.addEventListener('click', () => this.remove(i));
      box.append(img, x);
      return box;
    });
    this.ui.attachments.replaceChildren(...thumbs);
    this.ui.attachments.hidden = !thumbs.length;
  }
}

/** A file's bytes as base64 (no `data:` prefix). */
function readBase64(win: Window, file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const r = new (win as unknown as { FileReader: typeof FileReader }).FileReader();
    r.onload = () => {
      const url = typeof r.result === 'string' ? r.result : '';
      resolve(url.slice(url.indexOf(',') + 1));
    };
    r.onerror = () => reject(r.error ?? new Error('unreadable'));
    r.readAsDataURL(file);
  });
}
