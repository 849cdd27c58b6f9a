/**
 * The body of a reply while it streams, rendered in time linear in its length. It is handed only the
 * text appended since the last frame, scanned once, line by line ({@link StreamSplitter}), and never
 * reads the whole reply again: everything up to the last finished
 * block is rendered once and never touched again; only the open tail is re-rendered per frame. A code
 * fence that is still open is not re-parsed at all: its opening (with what came before it since the
 * last finished block) is rendered once, and its code is appended as text as it arrives
 * ({@link OpenFenceCode}); when the fence closes, the whole block is rendered once by the renderer,
 * exactly as a finished reply is.
 */
import { codicon } from './codicon';
import type { MarkdownRenderer } from './markdownRenderer';

/** A code fence opened and not yet closed at the end of the scanned text. */
export interface OpenFence {
  /** offset of its opening line */
  start: number;
  /** offset of its first line of code (after the opening line) */
  contentStart: number;
  /** '`' or '~' */
  ch: string;
  /** how many of them open it (a closing line has at least as many) */
  len: number;
  /** spaces before the opening (removed from each line of code, up to as many) */
  indent: number;
}

const FENCE_LINE = /^( {0,3})(`{3,}|~{3,})(.*)$/;

/**
 * Where streamed text can be cut so that everything before the cut is finished markdown blocks:
 * after the last blank line outside a code fence, or after a fence's closing line. Fed the text in
 * pieces as it arrives; each complete line is looked at once.
 */
export class StreamSplitter {
  /** offset of the line being written */
  private pos = 0;
  /** the line being written (no newline yet) */
  private partial = '';
  private cut = 0;
  private fence: OpenFence | undefined;
  private prevBlank = true;

  feed(piece: string): { cut: number; fence: OpenFence | undefined } {
    let from = 0;
    for (let nl = piece.indexOf('\n'); nl >= 0; nl = piece.indexOf('\n', from)) {
      const line = this.partial + piece.slice(from, nl);
      this.partial = '';
      const at = this.pos;
      this.pos += line.length + 1;
      this.line(line, at, this.pos);
      from = nl + 1;
    }
    this.partial += piece.slice(from);
    return { cut: this.cut, fence: this.fence };
  }

  private line(line: string, at: number, next: number): void {
    const m = FENCE_LINE.exec(line);
    const f = this.fence;
    if (f) {
      if (m && m[2][0] === f.ch && m[2].length >= f.len && !m[3].trim()) {
        this.fence = undefined;
        this.cut = next; // a closed fence is a finished block
        this.prevBlank = true;
      }
    } else if (m && !(m[2][0] === '`' && m[3].includes('`'))) {
      this.fence = { start: at, contentStart: next, ch: m[2][0], len: m[2].length, indent: m[1].length };
    } else if (!line.trim()) {
      if (!this.prevBlank) this.cut = next;
      this.prevBlank = true;
    } else {
      this.prevBlank = false;
    }
  }
}

/** The cut of {@link StreamSplitter} for a whole text at once. */
export function stableSplit(text: string): number {
  return new StreamSplitter().feed(text).cut;
}

/**
 * The code of an open fence, appended as text as it streams: each line loses up to `indent` leading
 * spaces, as the markdown renderer does. What it cannot show exactly as the renderer would (a
 * carriage return or NUL, a tab or a shorter indent inside an indented fence) makes {@link feed}
 * answer false: the caller then renders the tail whole, as before.
 */
export class OpenFenceCode {
  /** spaces removed from the current line so far; -1 once past its indent */
  private stripped = 0;

  constructor(
    private readonly code: HTMLElement,
    private readonly fence: OpenFence,
  ) {}

  /** Appends more of the code (as it arrived); false when it can't be shown exactly. */
  feed(raw: string): boolean {
    if (!raw) return true;
    if (/[\r\0]/.test(raw)) return false;
    const out = this.fence.indent ? this.unindent(raw) : raw;
    if (out === undefined) return false;
    if (out) this.code.append(this.code.ownerDocument.createTextNode(out));
    return true;
  }

  private unindent(raw: string): string | undefined {
    const k = this.fence.indent;
    let out = '';
    let from = 0;
    for (let i = 0; i < raw.length; i++) {
      const c = raw[i];
      if (this.stripped < 0) {
        if (c === '\n') this.stripped = 0;
        continue;
      }
      if (c === ' ' && this.stripped < k) {
        out += raw.slice(from, i);
        from = i + 1;
        this.stripped++;
      } else if (c === '\n') {
        this.stripped = 0; // a blank line
      } else if (this.stripped < k) {
        return undefined; // less indented than the fence (or a tab): the renderer decides
      } else {
        this.stripped = -1;
      }
    }
    return out + raw.slice(from);
  }
}

/** A streaming reply's body: the finished blocks, the open tail, and the "receiving" indicator. */
export class StreamingBody {
  /** the elements to put into the message body */
  readonly parts: HTMLElement[];
  private readonly stable: HTMLElement;
  private readonly tail: HTMLElement;
  private readonly splitter = new StreamSplitter();
  private stableUpTo = 0;
  /** the text from `stableUpTo` on (appended to; read only when the tail is rendered whole) */
  private rest = '';
  private started = false;
  private open: { start: number; code: OpenFenceCode | undefined } | undefined;

  constructor(
    doc: Document,
    private readonly md: MarkdownRenderer,
    receiving: string,
  ) {
    this.stable = el(doc, 'div', 'md-stable');
    this.tail = el(doc, 'div', 'md-tail');
    const cursor = el(doc, 'span', 'streaming-indicator');
    cursor.setAttribute('data-testid', 'chat-streaming-indicator');
    cursor.setAttribute('role', 'img');
    cursor.setAttribute('aria-label', receiving);
    cursor.append(codicon(doc, 'loading'));
    cursor.firstElementChild?.classList.add('codicon-modifier-spin');
    this.parts = [this.stable, this.tail, cursor];
  }

  /** Shows `piece`, the text appended since the last call: finished blocks once, then only the tail. */
  append(piece: string): void {
    if (!piece && this.started) return;
    this.started = true;
    this.rest += piece;
    const { cut, fence } = this.splitter.feed(piece);
    if (cut > this.stableUpTo) {
      const n = cut - this.stableUpTo;
      this.stable.append(this.md.render(this.rest.slice(0, n)));
      this.rest = this.rest.slice(n);
      this.stableUpTo = cut;
      this.open = undefined;
    }
    if (fence && this.open?.start !== fence.start) {
      this.open = { start: fence.start, code: this.openFence(fence) };
      if (this.open.code) return;
    } else if (fence && this.open?.code?.feed(piece)) {
      return;
    }
    if (this.open) this.open.code = undefined; // shown whole from now on, until the fence closes
    this.tail.replaceChildren(this.md.render(this.rest));
  }

  /** Renders the tail up to the fence's first line of code, with the fence closed; its code goes on from there. */
  private openFence(fence: OpenFence): OpenFenceCode | undefined {
    const closing = `${' '.repeat(fence.indent)}${fence.ch.repeat(fence.len)}`;
    const codeAt = fence.contentStart - this.stableUpTo;
    const frag = this.md.render(`${this.rest.slice(0, codeAt)}${closing}`);
    const blocks = frag.querySelectorAll<HTMLElement>('pre > code');
    const code = blocks[blocks.length - 1];
    // The renderer must have made it an empty code block (else it reads the text otherwise: render it whole).
    if (!code || code.textContent !== '') return undefined;
    const open = new OpenFenceCode(code, fence);
    if (!open.feed(this.rest.slice(codeAt))) return undefined;
    this.tail.replaceChildren(frag);
    return open;
  }
}

function el(d: Document, tag: string, className: string): HTMLElement {
  const e = d.createElement(tag);
  e.className = className;
  return e;
}
