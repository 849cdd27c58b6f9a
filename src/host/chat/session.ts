/**
 * One chat conversation and its requests: plain Node, no `vscode` (unit-tested against the
 * simulator; src/host is the extension host's plain-Node half). The view provider owns one
 * session, forwards its events to the webview and persists its entries.
 *
 * Behaviour:
 * - `send` appends the user entry and a streaming assistant entry, then streams (or, with
 *   streaming off, makes one non-streamed call). Text arrives as `entryDelta` events.
 * - `stop` aborts the request (the core closes the connection); the partial reply is kept with
 *   status `stopped`.
 * - A stream that fails outright (broken off, error event, unreadable) is never re-sent on its own:
 *   it is billed again, so the error card offers "Retry without streaming" (`retryWithoutStreaming`);
 *   when that works the reply says so (notice `fallback`).
 * - A stream the core flags `buffered` (one burst at the end: a buffering proxy) gets a
 *   `buffering` notice, once per workspace.
 * - A retry the core makes (429, 5xx, connection) shows on the reply while the core waits: the
 *   core calls the request's `onRetry` exactly where it waits, and never for what it does not retry.
 */
import { GatewayError, type ChatEvent, type ChatRequest, type ChatResult, type RetryNotice } from '../../gateway';
import type { ChatEntry, ChatOptions, SelectionContext } from '../../shared/chatProtocol';
import { errorInfo, shortError, StreamFailed } from '../errorPresenter';
import { toChatMessages } from './history';
import { addNotice, BUFFERING_NOTICE, offersPlainRetry, STREAM_IGNORED_NOTICE } from './notices';

/** The part of GatewayClient a session uses. */
export interface ChatBackend {
  chat(req: ChatRequest): Promise<ChatResult>;
  chatStream(req: ChatRequest): AsyncIterable<ChatEvent>;
}

/** Generates an image for `/image <prompt>`: bytes as a data URL (inline) and where it was saved. */
export interface ImageBackend {
  model(): string;
  generate(prompt: string, signal: AbortSignal): Promise<{ dataUrl: string; savedPath?: string | undefined }>;
}

/** Inline images above this size are shown as a link to the saved file instead. */
export const MAX_INLINE_IMAGE_CHARS = 3_000_000;

export type SessionEvent =
  | { type: 'entryAdded'; entry: ChatEntry }
  | { type: 'entryDelta'; id: string; text: string }
  | { type: 'entryUpdated'; entry: ChatEntry }
  | { type: 'entryRemoved'; id: string }
  | { type: 'busy'; busy: boolean }
  | { type: 'reset' };

export interface ChatSessionInit {
  backend: ChatBackend;
  /** restored history (see {@link restoreEntries}) */
  entries?: ChatEntry[];
  /** modelRelay.stream, read at each request */
  streaming: () => boolean;
  /** whether the buffering notice was already shown in this workspace */
  bufferNoticeShown?: boolean;
  /** called once when the buffering notice is shown, to persist that */
  onBufferNotice?: () => void;
  listener: (e: SessionEvent) => void;
  /** `/image <prompt>` in the chat: generates an image and shows it inline */
  image?: ImageBackend;
  newId?: () => string;
  now?: () => number;
}

/** Largest selection sent with a question (characters). */
export const MAX_CONTEXT_CHARS = 100_000;

let counter = 0;
function defaultId(): string {
  counter = (counter + 1) % 1e9;
  return `m${Date.now().toString(36)}${counter.toString(36)}`;
}

export class ChatSession {
  private list: ChatEntry[];
  private abort: AbortController | undefined;
  private current: { entry: ChatEntry; model: string; startedAt: number } | undefined;
  private bufferNoticeShown: boolean;
  private streamIgnoredShown = false;
  private readonly newId: () => string;
  private readonly now: () => number;

  constructor(private readonly init: ChatSessionInit) {
    this.list = init.entries ? [...init.entries] : [];
    this.bufferNoticeShown = init.bufferNoticeShown ?? false;
    this.newId = init.newId ?? defaultId;
    this.now = init.now ?? Date.now;
  }

  get entries(): readonly ChatEntry[] {
    return this.list;
  }

  get busy(): boolean {
    return this.current !== undefined;
  }

  private emit(e: SessionEvent): void {
    this.init.listener(e);
  }

  /** Sends a user message and waits for the reply (resolves with the finished assistant entry). */
  async send(text: string, options: ChatOptions, context?: SelectionContext): Promise<ChatEntry | undefined> {
    if (this.busy) return undefined;
    const trimmed = text.trim();
    if (!trimmed && !context) return undefined;
    const user: ChatEntry = { id: this.newId(), role: 'user', text: trimmed || (context ? 'Explain this code.' : ''), createdAt: this.now() };
    if (context) user.context = { ...context, code: context.code.slice(0, MAX_CONTEXT_CHARS) };
    const imagePrompt = /^\/image\s+([\s\S]+)$/.exec(trimmed)?.[1]?.trim();
    if (imagePrompt && this.init.image) {
      user.image = { prompt: imagePrompt };
      this.list.push(user);
      this.emit({ type: 'entryAdded', entry: user });
      return this.imageReply(imagePrompt, this.init.image);
    }
    this.list.push(user);
    this.emit({ type: 'entryAdded', entry: user });
    return this.reply(options);
  }

  /** `/image <prompt>`: an assistant entry holding the generated image (inline) and its file. */
  private async imageReply(prompt: string, backend: ImageBackend): Promise<ChatEntry> {
    const model = backend.model();
    const entry: ChatEntry = { id: this.newId(), role: 'assistant', text: '', createdAt: this.now(), status: 'streaming', model, image: { prompt } };
    this.list.push(entry);
    const ac = new AbortController();
    this.abort = ac;
    this.current = { entry, model, startedAt: this.now() };
    this.emit({ type: 'entryAdded', entry });
    this.emit({ type: 'busy', busy: true });
    try {
      const r = await backend.generate(prompt, ac.signal);
      const alt = prompt.replace(/[[\]\n]/g, ' ').slice(0, 100);
      const saved = r.savedPath ? `\n\nSaved to \`${r.savedPath}\`.` : '';
      entry.text = r.dataUrl && r.dataUrl.length <= MAX_INLINE_IMAGE_CHARS ? `![${alt}](${r.dataUrl})${saved}` : `The image is too large to show inline.${saved}`;
      entry.image = { prompt, savedPath: r.savedPath };
      entry.status = 'done';
    } catch (e) {
      if (ac.signal.aborted || (e instanceof GatewayError && e.kind === 'aborted')) entry.status = 'stopped';
      else {
        entry.status = 'error';
        entry.error = errorInfo(e);
      }
    } finally {
      entry.durationMs = this.now() - (this.current?.startedAt ?? this.now());
      this.current = undefined;
      this.abort = undefined;
      this.emit({ type: 'entryUpdated', entry });
      this.emit({ type: 'busy', busy: false });
    }
    return entry;
  }

  /** Replaces the last reply with a new one for the same question. */
  async regenerate(options: ChatOptions): Promise<ChatEntry | undefined> {
    if (this.busy) return undefined;
    const last = this.list.at(-1);
    if (last?.role === 'assistant') {
      this.list.pop();
      this.emit({ type: 'entryRemoved', id: last.id });
    }
    const lastUser = this.list.at(-1);
    if (lastUser?.role !== 'user') return undefined;
    if (lastUser.image && this.init.image) return this.imageReply(lastUser.image.prompt, this.init.image);
    return this.reply(options);
  }

  /** Aborts the request under way (the connection is closed; the partial reply is kept). */
  stop(): void {
    this.abort?.abort();
  }

  /** New Chat: stops any request and forgets the conversation. */
  clear(): void {
    this.stop();
    this.list = [];
    this.emit({ type: 'reset' });
  }

  /** The core is about to retry the request under way: show it on the reply until text flows or it ends. */
  private noteRetry(entry: ChatEntry, n: RetryNotice): void {
    if (this.current?.entry !== entry) return;
    entry.retry = { attempt: n.attempt, maxRetries: n.maxRetries, status: n.error.status, errorKind: n.error.kind };
    this.emit({ type: 'entryUpdated', entry });
  }

  /** Asks for a reply; with `plainBecause`, without streaming, and the reply says why. */
  private async reply(options: ChatOptions, plainBecause?: string): Promise<ChatEntry> {
    const entry: ChatEntry = { id: this.newId(), role: 'assistant', text: '', createdAt: this.now(), status: 'streaming', surface: options.surface, model: options.model };
    const messages = toChatMessages(this.list);
    this.list.push(entry);
    const ac = new AbortController();
    this.abort = ac;
    this.current = { entry, model: options.model, startedAt: this.now() };
    this.emit({ type: 'entryAdded', entry });
    this.emit({ type: 'busy', busy: true });
    const req: ChatRequest = {
      surface: options.surface,
      model: options.model,
      system: options.system.trim() || undefined,
      messages,
      temperature: options.temperature,
      maxTokens: options.maxTokens,
      signal: ac.signal,
      onRetry: (n) => this.noteRetry(entry, n),
    };
    try {
      if (this.init.streaming() && !plainBecause) await this.streamInto(entry, req, ac.signal);
      else this.finish(entry, await this.init.backend.chat({ ...req, stream: false }));
      if (plainBecause) addNotice(entry, { kind: 'fallback', text: plainBecause });
    } catch (e) {
      if (ac.signal.aborted || (e instanceof GatewayError && e.kind === 'aborted')) {
        entry.status = 'stopped';
      } else {
        entry.status = 'error';
        entry.error = errorInfo(e);
      }
    } finally {
      delete entry.retry;
      entry.durationMs = this.now() - (this.current?.startedAt ?? this.now());
      this.current = undefined;
      this.abort = undefined;
      if (entry.status === 'streaming') entry.status = 'done';
      // Another request may not start before listeners see this one end.
      this.emit({ type: 'entryUpdated', entry });
      this.emit({ type: 'busy', busy: false });
    }
    return entry;
  }

  private async streamInto(entry: ChatEntry, req: ChatRequest, signal: AbortSignal): Promise<void> {
    try {
      for await (const ev of this.init.backend.chatStream({ ...req, stream: true })) {
        switch (ev.type) {
          case 'text':
            entry.text += ev.text;
            if (entry.retry) {
              delete entry.retry;
              this.emit({ type: 'entryUpdated', entry });
            }
            this.emit({ type: 'entryDelta', id: entry.id, text: ev.text });
            break;
          case 'usage':
            entry.usage = { ...ev.usage };
            break;
          case 'finish':
            entry.finishReason = ev.reason;
            break;
          case 'done':
            this.finish(entry, ev.result);
            break;
          case 'reasoning':
          case 'tool_call':
          case 'thinking_block':
            break;
          default: {
            const _exhaustive: never = ev;
            void _exhaustive;
          }
        }
      }
    } catch (e) {
      if (signal.aborted || !(e instanceof GatewayError) || !offersPlainRetry(e)) throw e;
      // The stream failed outright: the same call without streaming is offered, not made (it is billed again).
      const info = errorInfo(e);
      info.streamFailed = shortError(e);
      throw new StreamFailed(info);
    }
  }

  /** The user's answer to a failed stream: the same question once more, without streaming (billed again). */
  async retryWithoutStreaming(options: ChatOptions): Promise<ChatEntry | undefined> {
    const last = this.list.at(-1);
    const why = last?.role === 'assistant' ? last.error?.streamFailed : undefined;
    if (this.busy || !last || !why) return undefined;
    this.list.pop();
    this.emit({ type: 'entryRemoved', id: last.id });
    return this.reply(options, `The stream failed (${why}), so this reply was requested again without streaming, as you asked.`);
  }

  private finish(entry: ChatEntry, r: ChatResult): void {
    entry.text = r.text;
    entry.usage = r.usage ? { ...r.usage } : entry.usage;
    entry.finishReason = r.finishReason ?? entry.finishReason;
    entry.status = 'done';
    if (r.buffered && !this.bufferNoticeShown) {
      this.bufferNoticeShown = true;
      addNotice(entry, { kind: 'buffering', text: BUFFERING_NOTICE });
      this.init.onBufferNotice?.();
    }
    if (r.streamIgnored && !this.streamIgnoredShown) {
      this.streamIgnoredShown = true;
      addNotice(entry, { kind: 'streamIgnored', text: STREAM_IGNORED_NOTICE });
    }
  }
}
