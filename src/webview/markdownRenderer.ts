/**
 * Model output → safe DOM. Runs in the webview (and in jsdom for tests): markdown-it with raw HTML
 * disabled, then DOMPurify, then our own rules: no remote loads (images only data: or this
 * webview's own resources, others dropped), links only http(s)/mailto, code blocks get Copy and
 * Insert buttons (made here, never taken from model output; focusable, with the host's words).
 */
import MarkdownIt from 'markdown-it';
import createDOMPurify from 'dompurify';
import { fill, type ChatStrings } from '../shared/chatStrings';
import { iconLabel } from './codicon';

export interface MarkdownRendererOptions {
  /** origin of this webview's resources (asWebviewUri); images from it are allowed */
  resourceOrigin?: string | undefined;
  /** the host's words (code block buttons, blocked images) */
  strings: ChatStrings;
}

export interface MarkdownRenderer {
  /** Renders markdown text to a sanitised fragment of the window's document. */
  render(markdown: string): DocumentFragment;
  /** Sanitises an HTML string (the same rules as render, for any HTML that reaches the view). */
  sanitize(html: string): DocumentFragment;
  /** Whether an image may load from `src`: a data: image or this webview's own resources. */
  imageAllowed: (src: string) => boolean;
}

const SAFE_DATA_IMAGE = /^data:image\/(?:png|gif|jpe?g|webp);base64,[a-z0-9+/=\s]*$/i;

const PURIFY_CONFIG = {
  USE_PROFILES: { html: true },
  FORBID_TAGS: [
    'style',
    'form',
    'input',
    'button',
    'textarea',
    'select',
    'option',
    'iframe',
    'frame',
    'frameset',
    'object',
    'embed',
    'link',
    'meta',
    'base',
    'video',
    'audio',
    'source',
    'track',
    'picture',
    'dialog',
    'template',
    'noscript',
  ],
  FORBID_ATTR: ['style', 'srcset', 'action', 'formaction', 'background', 'poster', 'ping', 'target'],
  ALLOWED_URI_REGEXP: /^(?:https?:|mailto:|#)/i,
  ALLOW_DATA_ATTR: false,
  RETURN_DOM_FRAGMENT: true as const,
};

export function createMarkdownRenderer(win: Window, opts: MarkdownRendererOptions): MarkdownRenderer {
  const s = opts.strings;
  const md = new MarkdownIt({ html: false, linkify: true, typographer: false, breaks: false });
  // DOMPurify needs a window; one instance per renderer (jsdom in tests, the webview's window live).
  const purify = createDOMPurify(win as unknown as Parameters<typeof createDOMPurify>[0]);
  const doc = win.document;
  const origin = opts.resourceOrigin ? originOf(opts.resourceOrigin) : undefined;

  // Compared as parsed origins: the host's asWebviewUri strings percent-encode the authority
  // (`vscode-remote%2B…`) while the browser's own URLs hold it decoded.
  const imageAllowed = (src: string): boolean =>
    SAFE_DATA_IMAGE.test(src) || (origin !== undefined && originOf(src) === origin);

  /** A remote (or unknown) image would be a load from outside: its alt text instead. */
  function image(img: Element): void {
    if (imageAllowed(img.getAttribute('src') ?? '')) return;
    const note = doc.createElement('span');
    note.className = 'blocked-image';
    const alt = img.getAttribute('alt');
    note.textContent = alt ? fill(s.imageNotLoadedAlt, alt) : s.imageNotLoaded;
    img.replaceWith(note);
  }

  function link(a: Element): void {
    const href = a.getAttribute('href');
    if (href && !/^(?:https?:|mailto:|#)/i.test(href)) a.removeAttribute('href');
    a.setAttribute('rel', 'noopener noreferrer');
  }

  /** A code block gets its language and our Copy / Insert buttons. */
  function codeBlock(code: Element): void {
    const pre = code.parentElement!;
    const lang = /(?:^|\s)language-([\w#+.-]+)/.exec(code.className)?.[1] ?? '';
    const block = doc.createElement('div');
    block.className = 'code-block';
    block.setAttribute('data-testid', 'chat-code-block');
    const bar = doc.createElement('div');
    bar.className = 'code-actions';
    const label = doc.createElement('span');
    label.className = 'code-lang';
    label.textContent = lang;
    bar.append(label, button(doc, 'copy', s, 'chat-code-copy'), button(doc, 'insert', s, 'chat-code-insert'));
    // A long line scrolls the block sideways: focusable, so the keyboard can scroll it too (WCAG 2.1.1).
    pre.setAttribute('tabindex', '0');
    pre.setAttribute('aria-label', lang ? fill(s.codeOf, lang) : s.code);
    pre.replaceWith(block);
    block.append(bar, pre);
  }

  /** Our rules over the sanitised fragment, in one pass. */
  function finish(frag: DocumentFragment): DocumentFragment {
    for (const e of Array.from(frag.querySelectorAll('img, a, pre > code'))) {
      const tag = e.tagName.toLowerCase();
      if (tag === 'img') image(e);
      else if (tag === 'a') link(e);
      else codeBlock(e);
    }
    return frag;
  }

  function sanitize(html: string): DocumentFragment {
    return finish(purify.sanitize(html, PURIFY_CONFIG));
  }

  return {
    render: (markdown) => sanitize(md.render(markdown)),
    sanitize,
    imageAllowed,
  };
}

function button(doc: Document, action: 'copy' | 'insert', s: ChatStrings, testId: string): HTMLButtonElement {
  const b = doc.createElement('button');
  b.type = 'button';
  b.className = 'code-action';
  iconLabel(b, action === 'copy' ? 'copy' : 'insert', action === 'copy' ? s.copy : s.insert);
  b.setAttribute('data-action', action);
  b.setAttribute('data-testid', testId);
  b.title = action === 'copy' ? s.copyTitle : s.insertTitle;
  return b;
}

/** The origin of an absolute http(s) URL; undefined for anything else. */
function originOf(url: string): string | undefined {
  try {
    const u = new URL(url);
    return u.protocol === 'https:' || u.protocol === 'http:' ? u.origin : undefined;
  } catch {
    return undefined;
  }
}
