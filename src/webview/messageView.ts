/**
 * One message in the conversation. A streaming reply renders incrementally, in time linear in its
 * length (./streamingBody.ts). A finished message is rendered once and then frozen. A user message shows
 * its images, a reply its reasoning (collapsed, above the text) and its receipt (under it, once the
 * host found it): ./entryExtras.ts; a failed reply its error card: ./errorCard.ts. Words from the host (`ChatStrings`).
 */
import type { ChatEntry, ChatNotice } from '../shared/chatProtocol';
import { fill, surfaceWord, type ChatStrings } from '../shared/chatStrings';
import { ReceiptSection, renderImages, ThinkingSection } from './entryExtras';
import { errorCard } from './errorCard';
import type { MarkdownRenderer } from './markdownRenderer';
import { StreamingBody } from './streamingBody';

export interface MessageViewEnv {
  doc: Document;
  md: MarkdownRenderer;
  strings: ChatStrings;
  /** modelRelay.stream is on (the buffering notice offers to turn it off) */
  streaming: () => boolean;
}

export class MessageView {
  readonly el: HTMLElement;
  private readonly head: HTMLElement;
  private readonly body: HTMLElement;
  private readonly meta: HTMLElement;
  private streamingBody: StreamingBody | undefined;
  /** streamed text not yet handed to the streaming body */
  private unrendered = '';
  private renderedText: string | undefined;
  private frozen = false;
  private thinking: ThinkingSection | undefined;
  private receipt: ReceiptSection | undefined;
  private images: HTMLElement | undefined;
  private imagesShown = '';
  entry: ChatEntry;

  constructor(
    private readonly env: MessageViewEnv,
    entry: ChatEntry,
  ) {
    const d = env.doc;
    const s = env.strings;
    this.entry = { ...entry };
    this.el = d.createElement('div');
    this.el.className = `msg msg-${entry.role}`;
    this.el.setAttribute('data-testid', 'chat-message');
    this.el.setAttribute('data-role', entry.role);
    this.el.setAttribute('data-entry-id', entry.id);
    this.head = el(d, 'div', 'msg-head');
    this.el.append(this.head);
    if (entry.role === 'user' && entry.context) {
      const c = entry.context;
      const ctx = el(d, 'div', 'msg-context');
      ctx.setAttribute('data-testid', 'chat-message-context');
      const lines = c.startLine === c.endLine ? fill(s.line, c.startLine) : fill(s.lines, c.startLine, c.endLine);
      const title = el(d, 'div', 'msg-context-title');
      title.textContent = `${c.fileName} (${lines}, ${c.language})`;
      const pre = d.createElement('pre');
      pre.setAttribute('tabindex', '0');
      pre.setAttribute('aria-label', title.textContent);
      const code = d.createElement('code');
      code.textContent = c.code;
      pre.append(code);
      ctx.append(title, pre);
      this.el.append(ctx);
    }
    this.body = el(d, 'div', 'msg-body');
    this.body.setAttribute('data-testid', 'chat-message-body');
    this.meta = el(d, 'div', 'msg-meta');
    this.el.append(this.body, this.meta);
    this.update(entry);
  }

  get id(): string {
    return this.entry.id;
  }

  /** Who speaks: "You", or the model and the surface it answered on (another one when the gateway moved the request). */
  private renderHead(): void {
    const e = this.entry;
    const s = this.env.strings;
    const text =
      e.role === 'user'
        ? s.you
        : [e.model || s.assistant, e.surface && surfaceWord(e.surface, s)].filter(Boolean).join(' · ');
    if (this.head.textContent !== text) this.head.textContent = text;
  }

  /** Appends streamed text; the caller renders (once per frame) with {@link renderStreaming}. */
  appendText(text: string): void {
    if (this.frozen) return;
    this.entry.text += text;
    this.unrendered += text;
  }

  /** Appends streamed reasoning; rendered with the text, once per frame. */
  appendReasoning(text: string): void {
    if (this.frozen) return;
    this.entry.reasoning = (this.entry.reasoning ?? '') + text;
  }

  /** The reasoning section, made when there is reasoning (before the body), kept open or closed as the user left it. */
  private renderThinking(): void {
    if (this.entry.role !== 'assistant' || !this.entry.reasoning) return;
    if (!this.thinking) {
      this.thinking = new ThinkingSection(this.env.doc, this.env.strings);
      this.body.before(this.thinking.el);
    }
    this.thinking.render(this.entry);
  }

  /** Re-renders only the unfinished tail of a streaming reply. */
  renderStreaming(): void {
    this.renderThinking();
    if (this.frozen || this.entry.status !== 'streaming') return;
    if (!this.streamingBody) {
      this.streamingBody = new StreamingBody(this.env.doc, this.env.md, this.env.strings.receiving);
      this.body.replaceChildren(...this.streamingBody.parts);
      this.unrendered = this.entry.text;
    }
    this.streamingBody.append(this.unrendered);
    this.unrendered = '';
  }

  /** Applies a whole entry (added, updated, restored). A finished body is rendered once. */
  update(entry: ChatEntry): void {
    const textChanged = entry.text !== this.entry.text;
    this.entry = { ...entry };
    this.el.setAttribute('data-status', entry.status ?? 'done');
    this.renderHead();
    if (entry.role === 'user') {
      if (this.renderedText !== entry.text) {
        this.body.textContent = entry.text;
        this.renderedText = entry.text;
      }
    } else if (entry.status === 'streaming') {
      if (textChanged) this.streamingBody = undefined;
      this.renderStreaming();
    } else if (!this.frozen || this.renderedText !== entry.text) {
      this.body.replaceChildren(this.env.md.render(entry.text));
      this.renderedText = entry.text;
      this.streamingBody = undefined;
      this.frozen = true;
    }
    this.renderImages();
    this.renderThinking();
    this.renderMeta();
  }

  /** The entry's images above its text: on creation, and when an update brings them (a finished /image reply). */
  private renderImages(): void {
    const list = this.entry.images ?? [];
    const key = JSON.stringify(list.map((im) => [im.src ?? '', im.data?.length ?? 0, im.bytes, im.name ?? '']));
    if (key === this.imagesShown) return;
    this.imagesShown = key;
    const next = list.length ? renderImages(this.env.doc, list, this.env.strings, this.env.md.imageAllowed) : undefined;
    if (this.images && next) this.images.replaceWith(next);
    else if (this.images) this.images.remove();
    else if (next) this.body.before(next);
    this.images = next;
  }

  /** Notices, error card, stopped marker and usage (small: re-rendered on each update). */
  renderMeta(): void {
    const d = this.env.doc;
    const s = this.env.strings;
    const e = this.entry;
    const parts: HTMLElement[] = [];
    if (e.retry && e.status === 'streaming') {
      const r = el(d, 'div', 'notice notice-retry');
      r.setAttribute('data-testid', 'chat-retry-notice');
      const what = e.retry.status ? fill(s.retryHttp, e.retry.status) : (e.retry.errorKind ?? s.retryConnection);
      r.textContent = fill(s.retrying, e.retry.attempt, what, e.retry.maxRetries);
      parts.push(r);
    }
    for (const n of e.notices ?? []) parts.push(this.notice(n));
    if (e.status === 'stopped') {
      const stopped = el(d, 'div', 'msg-stopped');
      stopped.setAttribute('data-testid', 'chat-stopped-marker');
      stopped.textContent = e.text ? s.stoppedPartial : s.stoppedEmpty;
      parts.push(stopped);
    }
    if (e.error) parts.push(errorCard(d, e.error, s));
    const usage = usageLine(e, s);
    if (usage) {
      const u = el(d, 'div', 'usage');
      u.setAttribute('data-testid', 'chat-usage');
      u.textContent = usage;
      parts.push(u);
    }
    if (e.receipt) {
      this.receipt ??= new ReceiptSection(d);
      this.receipt.render(e.receipt);
      parts.push(this.receipt.el);
    }
    this.meta.replaceChildren(...parts);
  }

  private notice(n: ChatNotice): HTMLElement {
    const d = this.env.doc;
    const box = el(d, 'div', `notice notice-${n.kind}`);
    box.setAttribute(
      'data-testid',
      {
        buffering: 'chat-buffering-notice',
        fallback: 'chat-fallback-notice',
        streamIgnored: 'chat-stream-ignored-notice',
        failover: 'chat-failover-notice',
        surface: 'chat-surface-notice',
        adjusted: 'chat-adjusted-notice',
      }[n.kind],
    );
    const p = el(d, 'span', 'notice-text');
    p.textContent = n.text;
    box.append(p);
    if (n.kind === 'buffering' || n.kind === 'fallback') {
      if (this.env.streaming()) {
        const b = d.createElement('button');
        b.type = 'button';
        b.textContent = this.env.strings.turnStreamingOff;
        b.setAttribute('data-action', 'disable-streaming');
        b.setAttribute('data-testid', 'chat-disable-streaming');
        box.append(b);
      } else {
        const off = el(d, 'span', 'notice-done');
        off.textContent = ` ${this.env.strings.streamingIsOff}`;
        box.append(off);
      }
    }
    return box;
  }
}

function el(d: Document, tag: string, className: string): HTMLElement {
  const e = d.createElement(tag);
  e.className = className;
  return e;
}

/** "answered by Beta · 12 input · 34 output tokens · 1.2 s" (the gateway when it is known), plus how the reply ended when the host says it did not simply end (cut off at max tokens, a content filter, another reason). */
export function usageLine(e: ChatEntry, s: ChatStrings): string | undefined {
  if (e.role !== 'assistant' || e.status === 'streaming') return undefined;
  const parts: string[] = [];
  if (e.gateway) parts.push(fill(s.answeredBy, e.gateway.name));
  const u = e.usage;
  if (u && (u.inputTokens !== undefined || u.outputTokens !== undefined)) {
    parts.push(fill(s.usageTokens, u.inputTokens ?? '?', u.outputTokens ?? '?'));
  } else if (e.status === 'done') {
    parts.push(s.noUsage);
  }
  if (u?.cost) parts.push(u.cost);
  if (e.durationMs !== undefined && e.status === 'done') parts.push(fill(s.seconds, (e.durationMs / 1000).toFixed(1)));
  if (e.ending === 'budget') parts.push(s.cutOff);
  else if (e.ending === 'filter') parts.push(s.filtered);
  else if (e.ending === 'other') parts.push(fill(s.endedOther, e.finishReason ?? '?'));
  return parts.length ? parts.join(' · ') : undefined;
}
