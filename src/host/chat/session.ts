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
 * - Images go with the user turn (and with later turns, as history); a model known not to take
 *   images is refused before anything is sent (`sendRefused`). Reasoning streams as `entryReasoning`.
 */
import { GatewayError, stoppedAtMaxTokens, type ChatRequest, type ChatResult, type RetryNotice } from '../../gateway';
import type { ChatEntry, ChatOptions, ImageAttachment, SelectionContext } from '../../shared/chatProtocol';
import { errorInfo, shortError, StreamFailed } from '../errorWords';
import { toChatMessages } from './history';
import { checkImagesFor, generatedImageText, type ModelTraits } from './images';
import { addNotice, bufferingNotice, offersPlainRetry, streamIgnoredNotice } from './notices';
import { t } from '../../gateway/l10n';
import {
  MAX_CONTEXT_CHARS,
  withCost,
  type ChatSessionInit,
  type ImageBackend,
  type SessionEvent,
} from './sessionTypes';

export {
  MAX_CONTEXT_CHARS,
  MAX_INLINE_IMAGE_CHARS,
  type ChatBackend,
  type ChatSessionInit,
  type ImageBackend,
  type SessionEvent,
  type SessionModels,
} from './sessionTypes';

let counter = 0;
function defaultId(): string {
  counter = (counter + 1) % 1e9;
  return `m${Date.now().toString(36)}${counter.toString(36)}`;
}

export class ChatSession {
  private list: ChatEntry[];
  private abort: AbortController | undefined;
  private current: { entry: ChatEntry; model: string; startedAt: number; reasoningFrom?: number } | undefined;
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

  /**
   * Sends a user message (with its selection and images) and waits for the reply (resolves with the
   * finished assistant entry). Images the model cannot take are refused before anything is sent:
   * event `sendRefused`, nothing added, the webview keeps the message.
   */
  async send(
    text: string,
    options: ChatOptions,
    context?: SelectionContext,
    attachments: readonly ImageAttachment[] = [],
  ): Promise<ChatEntry | undefined> {
    if (this.busy) return undefined;
    const trimmed = text.trim();
    if (!trimmed && !context && !attachments.length) return undefined;
    const checked = checkImagesFor(options, attachments, this.init.models);
    if ('refused' in checked) {
      this.emit({ type: 'sendRefused', message: checked.refused });
      return undefined;
    }
    const user: ChatEntry = {
      id: this.newId(),
      role: 'user',
      text: trimmed || (context ? t('Explain this code.') : ''),
      createdAt: this.now(),
    };
    if (context) user.context = { ...context, code: context.code.slice(0, MAX_CONTEXT_CHARS) };
    if (checked.images.length) user.images = checked.images;
    const imagePrompt = /^\/image\s+([\s\S]+)$/.exec(trimmed)?.[1]?.trim();
    if (imagePrompt && this.init.image && !user.images) {
      user.image = { prompt: imagePrompt };
      this.list.push(user);
      this.emit({ type: 'entryAdded', entry: user });
      return this.imageReply(imagePrompt, this.init.image);
    }
    this.list.push(user);
    this.emit({ type: 'entryAdded', entry: user });
    return this.reply(options);
  }

  private traits(model: string): ModelTraits {
    return this.init.models?.traits(model) ?? { imageInput: undefined };
  }

  /** `/image <prompt>`: an assistant entry holding the generated image (inline) and its file. */
  private async imageReply(prompt: string, backend: ImageBackend): Promise<ChatEntry> {
    const model = backend.model();
    const entry: ChatEntry = {
      id: this.newId(),
      role: 'assistant',
      text: '',
      createdAt: this.now(),
      status: 'streaming',
      model,
      image: { prompt },
    };
    const ac = this.begin(entry, model);
    try {
      const r = await backend.generate(prompt, ac.signal);
      entry.text = generatedImageText(prompt, r);
      entry.image = { prompt, savedPath: r.savedPath };
      entry.status = 'done';
    } catch (e) {
      failed(entry, e, ac.signal);
    } finally {
      this.end(entry);
    }
    return entry;
  }

  /** A reply starts: it is added, the session is busy, and it can be stopped. */
  private begin(entry: ChatEntry, model: string): AbortController {
    this.list.push(entry);
    const ac = new AbortController();
    this.abort = ac;
    this.current = { entry, model, startedAt: this.now() };
    this.emit({ type: 'entryAdded', entry });
    this.emit({ type: 'busy', busy: true });
    return ac;
  }

  /** A reply ends. Another request may not start before listeners see this one end. */
  private end(entry: ChatEntry): void {
    delete entry.retry;
    this.endReasoning(entry, false);
    entry.durationMs = this.now() - (this.current?.startedAt ?? this.now());
    this.current = undefined;
    this.abort = undefined;
    if (entry.status === 'streaming') entry.status = 'done';
    this.emit({ type: 'entryUpdated', entry });
    this.emit({ type: 'busy', busy: false });
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
    const entry: ChatEntry = {
      id: this.newId(),
      role: 'assistant',
      text: '',
      createdAt: this.now(),
      status: 'streaming',
      surface: options.surface,
      model: options.model,
    };
    const traits = this.traits(options.model);
    // Images of earlier turns go as notes to a model known not to take images.
    const messages = toChatMessages(this.list, traits.imageInput !== false);
    const ac = this.begin(entry, options.model);
    const req: ChatRequest = {
      surface: options.surface,
      model: options.model,
      system: options.system.trim() || undefined,
      messages,
      temperature: options.temperature,
      maxTokens: options.maxTokens,
      thinking:
        options.surface === 'native' && traits.thinkingBudget ? { budgetTokens: traits.thinkingBudget } : undefined,
      signal: ac.signal,
      onRetry: (n) => this.noteRetry(entry, n),
    };
    try {
      if (this.init.streaming() && !plainBecause) await this.streamInto(entry, req, ac.signal);
      else this.finish(entry, await this.init.backend.chat({ ...req, stream: false }));
      if (plainBecause) addNotice(entry, { kind: 'fallback', text: plainBecause });
    } catch (e) {
      failed(entry, e, ac.signal);
    } finally {
      this.end(entry);
    }
    return entry;
  }

  private async streamInto(entry: ChatEntry, req: ChatRequest, signal: AbortSignal): Promise<void> {
    try {
      for await (const ev of this.init.backend.chatStream({ ...req, stream: true })) {
        switch (ev.type) {
          case 'text':
            this.clearRetry(entry);
            this.endReasoning(entry);
            entry.text += ev.text;
            this.emit({ type: 'entryDelta', id: entry.id, text: ev.text });
            break;
          case 'reasoning':
            this.addReasoning(entry, ev.text);
            break;
          case 'usage':
            entry.usage = { ...ev.usage };
            break;
          case 'finish':
            entry.finishReason = ev.reason;
            if (stoppedAtMaxTokens(ev.reason)) entry.cutOff = true;
            break;
          case 'done':
            this.endReasoning(entry);
            this.finish(entry, ev.result);
            break;
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

  private clearRetry(entry: ChatEntry): void {
    if (!entry.retry) return;
    delete entry.retry;
    this.emit({ type: 'entryUpdated', entry });
  }

  /** Streamed reasoning: appended to the entry; the clock runs from its first piece to the answer. */
  private addReasoning(entry: ChatEntry, text: string): void {
    if (!text) return;
    this.clearRetry(entry);
    entry.reasoning = (entry.reasoning ?? '') + text;
    if (this.current && this.current.reasoningFrom === undefined) this.current.reasoningFrom = this.now();
    this.emit({ type: 'entryReasoning', id: entry.id, text });
  }

  /** The answer begins (or the reply ends): how long the model reasoned, shown as "Thought for N s". */
  private endReasoning(entry: ChatEntry, emit = true): void {
    const from = this.current?.entry === entry ? this.current.reasoningFrom : undefined;
    if (from === undefined || entry.reasoningMs !== undefined) return;
    entry.reasoningMs = this.now() - from;
    if (emit) this.emit({ type: 'entryUpdated', entry });
  }

  /** The user's answer to a failed stream: the same question once more, without streaming (billed again). */
  async retryWithoutStreaming(options: ChatOptions): Promise<ChatEntry | undefined> {
    const last = this.list.at(-1);
    const why = last?.role === 'assistant' ? last.error?.streamFailed : undefined;
    if (this.busy || !last || !why) return undefined;
    this.list.pop();
    this.emit({ type: 'entryRemoved', id: last.id });
    return this.reply(
      options,
      t('The stream failed ({0}), so this reply was requested again without streaming, as you asked.', why),
    );
  }

  private finish(entry: ChatEntry, r: ChatResult): void {
    entry.text = r.text;
    if (r.reasoning) entry.reasoning = r.reasoning;
    entry.usage = withCost(r.usage ? { ...r.usage } : entry.usage, entry.model, this.init.models);
    entry.finishReason = r.finishReason ?? entry.finishReason;
    if (stoppedAtMaxTokens(entry.finishReason)) entry.cutOff = true;
    entry.status = 'done';
    if (r.buffered && !this.bufferNoticeShown) {
      this.bufferNoticeShown = true;
      addNotice(entry, { kind: 'buffering', text: bufferingNotice() });
      this.init.onBufferNotice?.();
    }
    if (r.streamIgnored && !this.streamIgnoredShown) {
      this.streamIgnoredShown = true;
      addNotice(entry, { kind: 'streamIgnored', text: streamIgnoredNotice() });
    }
  }
}

/** A reply that threw: stopped (the user aborted) or failed (the error card). */
function failed(entry: ChatEntry, e: unknown, signal: AbortSignal): void {
  const stopped = signal.aborted || (e instanceof GatewayError && e.kind === 'aborted');
  entry.status = stopped ? 'stopped' : 'error';
  if (!stopped) entry.error = errorInfo(e);
}
