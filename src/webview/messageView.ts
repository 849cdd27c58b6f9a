/**
 * One message in the conversation. A streaming reply renders incrementally: finished markdown
 * blocks are rendered once into `stable` and never touched again; only the unfinished tail is
 * re-rendered per frame. A finished message is rendered once and then frozen. A user message shows
 * its images, a reply its reasoning (collapsed, above the text): ./entryExtras.ts.
 */
import type { ChatEntry, ChatErrorInfo, ChatNotice } from '../shared/chatProtocol';
import { renderImages, ThinkingSection } from './entryExtras';
import { stableSplit, type MarkdownRenderer } from './markdownRenderer';

export interface MessageViewEnv {
  doc: Document;
  md: MarkdownRenderer;
  /** modelRelay.stream is on (the buffering notice offers to turn it off) */
  streaming: () => boolean;
}

export class MessageView {
  readonly el: HTMLElement;
  private readonly body: HTMLElement;
  private readonly meta: HTMLElement;
  private stable: HTMLElement | undefined;
  private tail: HTMLElement | undefined;
  private stableUpTo = 0;
  private renderedText: string | undefined;
  private frozen = false;
  private thinking: ThinkingSection | undefined;
  entry: ChatEntry;

  constructor(
    private readonly env: MessageViewEnv,
    entry: ChatEntry,
  ) {
    const d = env.doc;
    this.entry = { ...entry };
    this.el = d.createElement('div');
    this.el.className = `msg msg-${entry.role}`;
    this.el.setAttribute('data-testid', 'chat-message');
    this.el.setAttribute('data-role', entry.role);
    this.el.setAttribute('data-entry-id', entry.id);
    const head = el(d, 'div', 'msg-head');
    head.textContent = entry.role === 'user' ? 'You' : [entry.model || 'assistant', entry.surface].filter(Boolean).join(' · ');
    this.el.append(head);
    if (entry.role === 'user' && entry.context) {
      const c = entry.context;
      const ctx = el(d, 'div', 'msg-context');
      ctx.setAttribute('data-testid', 'chat-message-context');
      const lines = c.startLine === c.endLine ? `line ${c.startLine}` : `lines ${c.startLine}–${c.endLine}`;
      const title = el(d, 'div', 'msg-context-title');
      title.textContent = `${c.fileName} (${lines}, ${c.language})`;
      const pre = d.createElement('pre');
      const code = d.createElement('code');
      code.textContent = c.code;
      pre.append(code);
      ctx.append(title, pre);
      this.el.append(ctx);
    }
    if (entry.role === 'user' && entry.images?.length) this.el.append(renderImages(d, entry.images));
    this.body = el(d, 'div', 'msg-body');
    this.body.setAttribute('data-testid', 'chat-message-body');
    this.meta = el(d, 'div', 'msg-meta');
    this.el.append(this.body, this.meta);
    this.update(entry);
  }

  get id(): string {
    return this.entry.id;
  }

  /** Appends streamed text; the caller renders (once per frame) with {@link renderStreaming}. */
  appendText(text: string): void {
    if (this.frozen) return;
    this.entry.text += text;
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
      this.thinking = new ThinkingSection(this.env.doc);
      this.body.before(this.thinking.el);
    }
    this.thinking.render(this.entry);
  }

  /** Re-renders only the unfinished tail of a streaming reply. */
  renderStreaming(): void {
    this.renderThinking();
    if (this.frozen || this.entry.status !== 'streaming') return;
    const d = this.env.doc;
    if (!this.stable || !this.tail) {
      this.stable = el(d, 'div', 'md-stable');
      this.tail = el(d, 'div', 'md-tail');
      const cursor = el(d, 'span', 'streaming-indicator');
      cursor.setAttribute('data-testid', 'chat-streaming-indicator');
      cursor.setAttribute('aria-label', 'Receiving');
      this.body.replaceChildren(this.stable, this.tail, cursor);
    }
    const text = this.entry.text;
    const cut = stableSplit(text);
    if (cut > this.stableUpTo) {
      this.stable.append(this.env.md.render(text.slice(this.stableUpTo, cut)));
      this.stableUpTo = cut;
    }
    this.tail.replaceChildren(this.env.md.render(text.slice(this.stableUpTo)));
  }

  /** Applies a whole entry (added, updated, restored). A finished body is rendered once. */
  update(entry: ChatEntry): void {
    const textChanged = entry.text !== this.entry.text;
    this.entry = { ...entry };
    this.el.setAttribute('data-status', entry.status ?? 'done');
    if (entry.role === 'user') {
      if (this.renderedText !== entry.text) {
        this.body.textContent = entry.text;
        this.renderedText = entry.text;
      }
    } else if (entry.status === 'streaming') {
      if (textChanged || !this.stable) this.resetStreaming();
      this.renderStreaming();
    } else if (!this.frozen || this.renderedText !== entry.text) {
      this.body.replaceChildren(this.env.md.render(entry.text));
      this.renderedText = entry.text;
      this.stable = this.tail = undefined;
      this.frozen = true;
    }
    this.renderThinking();
    this.renderMeta();
  }

  private resetStreaming(): void {
    this.stable = this.tail = undefined;
    this.stableUpTo = 0;
  }

  /** Notices, error card, stopped marker and usage (small: re-rendered on each update). */
  renderMeta(): void {
    const d = this.env.doc;
    const e = this.entry;
    const parts: HTMLElement[] = [];
    if (e.retry && e.status === 'streaming') {
      const r = el(d, 'div', 'notice notice-retry');
      r.setAttribute('data-testid', 'chat-retry-notice');
      const what = e.retry.status ? `HTTP ${e.retry.status}` : (e.retry.errorKind ?? 'a connection failure');
      r.textContent = `Attempt ${e.retry.attempt} failed (${what}); retrying with backoff (retry ${e.retry.attempt} of ${e.retry.maxRetries})…`;
      parts.push(r);
    }
    for (const n of e.notices ?? []) parts.push(this.notice(n));
    if (e.status === 'stopped') {
      const s = el(d, 'div', 'msg-stopped');
      s.setAttribute('data-testid', 'chat-stopped-marker');
      s.textContent = e.text ? 'Stopped — the partial reply is kept.' : 'Stopped before any text arrived.';
      parts.push(s);
    }
    if (e.error) parts.push(this.errorCard(e.error));
    const usage = usageLine(e);
    if (usage) {
      const u = el(d, 'div', 'usage');
      u.setAttribute('data-testid', 'chat-usage');
      u.textContent = usage;
      parts.push(u);
    }
    this.meta.replaceChildren(...parts);
  }

  private notice(n: ChatNotice): HTMLElement {
    const d = this.env.doc;
    const box = el(d, 'div', `notice notice-${n.kind}`);
    box.setAttribute('data-testid', n.kind === 'buffering' ? 'chat-buffering-notice' : n.kind === 'fallback' ? 'chat-fallback-notice' : 'chat-stream-ignored-notice');
    const p = el(d, 'span', 'notice-text');
    p.textContent = n.text;
    box.append(p);
    if (n.kind === 'buffering' || n.kind === 'fallback') {
      if (this.env.streaming()) {
        const b = d.createElement('button');
        b.type = 'button';
        b.textContent = 'Turn streaming off';
        b.setAttribute('data-action', 'disable-streaming');
        b.setAttribute('data-testid', 'chat-disable-streaming');
        box.append(b);
      } else {
        const off = el(d, 'span', 'notice-done');
        off.textContent = ' Streaming is off.';
        box.append(off);
      }
    }
    return box;
  }

  private errorCard(err: ChatErrorInfo): HTMLElement {
    const d = this.env.doc;
    const card = el(d, 'div', 'error-card');
    card.setAttribute('data-testid', 'chat-error-card');
    card.setAttribute('data-kind', err.kind);
    if (err.status !== undefined) card.setAttribute('data-http-status', String(err.status));
    card.setAttribute('role', 'alert');
    const title = el(d, 'div', 'error-title');
    title.setAttribute('data-testid', 'chat-error-status');
    // The core's message often starts with the status already ("HTTP 403 no access. …").
    const label = err.status !== undefined ? `HTTP ${err.status}` : labelFor(err.kind);
    title.textContent = `${label} — ${err.message.replace(/^HTTP \d{3}:?\s*/, '')}`;
    card.append(title);
    card.append(row(d, 'Cause', err.cause, 'chat-error-cause'), row(d, 'Fix', err.fix, 'chat-error-fix'));
    const dl = d.createElement('dl');
    const add = (k: string, v: string | undefined, testId: string) => {
      if (!v) return;
      const dt = d.createElement('dt');
      dt.textContent = k;
      const dd = d.createElement('dd');
      dd.textContent = v;
      dd.setAttribute('data-testid', testId);
      dl.append(dt, dd);
    };
    add('Gateway said', err.gatewayMessage, 'chat-error-gateway-message');
    add('Endpoint', err.url ?? err.host, 'chat-error-endpoint');
    add('Token', err.maskedToken, 'chat-error-token');
    add('Model', err.model ? `${err.model}${err.surface ? ` (${err.surface} surface)` : ''}` : undefined, 'chat-error-model');
    add('Request id', err.requestId, 'chat-error-request-id');
    add('Billing', err.billing, 'chat-error-billing');
    if (err.attempts && err.attempts > 1) add('Retries', `Retried with backoff; gave up after ${err.attempts} attempts.`, 'chat-error-attempts');
    add('Stream', err.streamFailed ? `The stream failed (${err.streamFailed}); nothing was sent again. Asking again without streaming is billed again.` : undefined, 'chat-error-stream-failed');
    if (dl.children.length) card.append(dl);
    const actions = el(d, 'div', 'error-actions');
    if (err.streamFailed) actions.append(button(d, 'retry-without-streaming', 'chat-error-retry-plain', 'Retry Without Streaming (billed again)'));
    actions.append(button(d, 'diagnose', 'chat-error-diagnose', 'Run Diagnose'), button(d, 'show-log', 'chat-error-show-log', 'Request Log'));
    card.append(actions);
    return card;
  }
}

function button(d: Document, action: string, testId: string, label: string): HTMLButtonElement {
  const b = d.createElement('button');
  b.type = 'button';
  b.setAttribute('data-action', action);
  b.setAttribute('data-testid', testId);
  b.textContent = label;
  return b;
}

function el(d: Document, tag: string, className: string): HTMLElement {
  const e = d.createElement(tag);
  e.className = className;
  return e;
}

function row(d: Document, label: string, text: string, testId: string): HTMLElement {
  const p = el(d, 'div', 'error-row');
  p.setAttribute('data-testid', testId);
  const b = d.createElement('strong');
  b.textContent = `${label}: `;
  p.append(b, d.createTextNode(text));
  return p;
}

function labelFor(kind: ChatErrorInfo['kind']): string {
  const labels: Record<string, string> = { network: 'Connection failed', timeout: 'Timed out', protocol: 'Unexpected answer', stream_interrupted: 'Stream broke off', bad_request: 'Request refused', internal: 'Error' };
  return labels[kind] ?? kind;
}

/** "12 input · 34 output tokens · 1.2 s", plus a warning when max tokens cut the reply off. */
export function usageLine(e: ChatEntry): string | undefined {
  if (e.role !== 'assistant' || e.status === 'streaming') return undefined;
  const parts: string[] = [];
  const u = e.usage;
  if (u && (u.inputTokens !== undefined || u.outputTokens !== undefined)) {
    parts.push(`${u.inputTokens ?? '?'} input · ${u.outputTokens ?? '?'} output tokens`);
  } else if (e.status === 'done') {
    parts.push('no token usage reported');
  }
  if (u?.cost) parts.push(u.cost);
  if (e.durationMs !== undefined && e.status === 'done') parts.push(`${(e.durationMs / 1000).toFixed(1)} s`);
  if (e.finishReason && /^(length|max_tokens)$/.test(e.finishReason)) parts.push('cut off at max tokens');
  return parts.length ? parts.join(' · ') : undefined;
}
