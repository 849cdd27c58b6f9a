/**
 * One chat conversation and its requests: plain Node, no `vscode` (unit-tested against the
 * simulator). The chat view's host side (./chatView.ts) owns one session, forwards its events to the
 * webview and persists its entries. Each reply in flight is a ReplyRun (./replyRun.ts).
 *
 * Behaviour:
 * - `send` appends the user entry and a streaming assistant entry, then streams (or, with
 *   streaming off, makes one non-streamed call). Text arrives as `entryDelta` events. While a reply
 *   is under way a message is refused (`sendRefused`), never dropped.
 * - `stop` aborts the request (the core closes the connection); the partial reply is kept with
 *   status `stopped`.
 * - A stream that fails outright (broken off, error event, unreadable) is never re-sent on its own:
 *   it is billed again, so the error card offers "Retry without streaming" (`retryWithoutStreaming`);
 *   when that works the reply says so (notice `fallback`). Any other failure that may have been billed
 *   (the core's billing note: a proxy's error page, a connection lost after sending) is not re-sent on
 *   its own either: the card offers "Retry (may be billed again)" (`retryBilled`).
 * - A stream the core flags `buffered` (one burst at the end: a buffering proxy) gets a
 *   `buffering` notice, once per workspace.
 * - A retry the core makes (429, 5xx, connection) shows on the reply while the core waits: the
 *   core calls the request's `onRetry` exactly where it waits, and never for what it does not retry.
 * - Images are checked here (./attachments.ts: the one place that decides whether a message's images
 *   may go) and stored as files (./imageFiles.ts); an `/image` reply's image is stored the same way.
 *   What later requests send of them, and what the transcript keeps, follows ./history.ts, for the
 *   live list and a restored one alike. Reasoning streams as `entryReasoning`.
 * - A reply goes to the gateway its model was picked from (`options.gateway`), with
 *   modelRelay.fallbacks: a failover before the reply began adds a `failover` notice (both gateways
 *   and why), and the reply records the gateway that answered (`entry.gateway`, in its footer).
 */
import type { ChatEvent, ChatRequest, ChatResult, FailoverEvent } from '../../gateway';
import type { ChatEntry, ChatOptions, ImageAttachment, SelectionContext } from '../../shared/chatProtocol';
import { sniffImage } from '../../shared/chatImages';
import { t } from '../../gateway/l10n';
import { checkImagesFor } from './attachments';
import { boundTranscript, MAX_CONTEXT_CHARS, sentImageFiles, toChatMessages } from './history';
import { MAX_STORED_IMAGE_BYTES, type ImageFiles } from './imageFiles';
import type { ModelTraits, SessionModels } from './modelTraits';
import { addNotice, bufferingNotice, streamIgnoredNotice } from './notices';
import { ReplyRun } from './replyRun';

/**
 * Where the session's requests go: a GatewayClient, or the chat across gateways (./gatewayBackend.ts):
 * `gateway` is the id of the gateway the model was picked from (undefined: the active one). A
 * failover before a reply began is a `failover` event (streamed) or listed in `failovers`.
 */
export interface ChatBackend {
  chat(req: ChatRequest, gateway?: string): Promise<ChatResult & { failovers?: FailoverEvent[] | undefined }>;
  chatStream(req: ChatRequest, gateway?: string): AsyncIterable<ChatEvent | FailoverEvent>;
}

/** Generates an image for `/image <prompt>`: its bytes and where it was saved for the user. */
export interface ImageBackend {
  model(): string;
  generate(prompt: string, signal: AbortSignal): Promise<{ bytes: Uint8Array; savedPath?: string | undefined }>;
}

export type SessionEvent =
  | { type: 'entryAdded'; entry: ChatEntry }
  | { type: 'entryDelta'; id: string; text: string }
  /** reasoning appended to a streaming reply */
  | { type: 'entryReasoning'; id: string; text: string }
  | { type: 'entryUpdated'; entry: ChatEntry }
  | { type: 'entryRemoved'; id: string }
  | { type: 'busy'; busy: boolean }
  /** a message was not sent (nothing was added): why, for the composer */
  | { type: 'sendRefused'; message: string }
  | { type: 'reset' };

export interface ChatSessionInit {
  backend: ChatBackend;
  /** where the conversation's images are kept */
  images: ImageFiles;
  /** restored history (see restoreEntries in ./chatStore.ts) */
  entries?: ChatEntry[];
  /** modelRelay.stream, read at each request */
  streaming: () => boolean;
  /** whether the buffering notice was already shown in this workspace */
  bufferNoticeShown?: boolean;
  /** called once when the buffering notice is shown, to persist that */
  onBufferNotice?: () => void;
  listener: (e: SessionEvent) => void;
  /** `/image <prompt>` in the chat: generates an image and shows it */
  image?: ImageBackend;
  /** image input and thinking per model; without it every model is taken to accept images */
  models?: SessionModels;
  newId?: () => string;
  now?: () => number;
}

let counter = 0;
function defaultId(): string {
  counter = (counter + 1) % 1e9;
  return `m${Date.now().toString(36)}${counter.toString(36)}`;
}

export class ChatSession {
  private list: ChatEntry[];
  private run: ReplyRun | undefined;
  private bufferNoticeShown: boolean;
  private streamIgnoredShown = false;
  private readonly newId: () => string;
  private readonly now: () => number;

  constructor(private readonly init: ChatSessionInit) {
    const bounded = boundTranscript(init.entries ?? []);
    this.list = bounded.entries;
    init.images.release(bounded.released);
    this.bufferNoticeShown = init.bufferNoticeShown ?? false;
    this.newId = init.newId ?? defaultId;
    this.now = init.now ?? Date.now;
  }

  get entries(): readonly ChatEntry[] {
    return this.list;
  }

  get busy(): boolean {
    return this.run !== undefined;
  }

  private emit(e: SessionEvent): void {
    this.init.listener(e);
  }

  /** {@link start}, waiting for the reply: the finished assistant entry, or undefined when nothing was sent. */
  async send(
    text: string,
    options: ChatOptions,
    context?: SelectionContext,
    attachments: readonly ImageAttachment[] = [],
  ): Promise<ChatEntry | undefined> {
    return this.start(text, options, context, attachments);
  }

  /**
   * Takes a user message (with its selection and images) and starts the reply; returns the reply's
   * promise, or undefined when the message was not taken. A message is refused (event `sendRefused`,
   * nothing added, the webview keeps the message) while a reply is under way, and when its images
   * cannot go to the model; an empty one is ignored.
   */
  start(
    text: string,
    options: ChatOptions,
    context?: SelectionContext,
    attachments: readonly ImageAttachment[] = [],
  ): Promise<ChatEntry> | undefined {
    const trimmed = text.trim();
    if (!trimmed && !context && !attachments.length) return undefined;
    if (this.busy) {
      this.emit({
        type: 'sendRefused',
        message: t('A reply is still being written: wait for it (or stop it), then send again.'),
      });
      return undefined;
    }
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
    if (checked.images.length)
      user.images = checked.images.map(({ data, ...im }) => ({
        ...im,
        file: this.init.images.add(Buffer.from(data, 'base64'), im.mimeType),
      }));
    const imagePrompt = /^\/image\s+([\s\S]+)$/.exec(trimmed)?.[1]?.trim();
    this.list.push(user);
    if (imagePrompt && this.init.image && !user.images) {
      user.image = { prompt: imagePrompt };
      this.emit({ type: 'entryAdded', entry: user });
      return this.imageReply(imagePrompt, this.init.image);
    }
    this.emit({ type: 'entryAdded', entry: user });
    return this.reply(options);
  }

  private traits(model: string): ModelTraits {
    return this.init.models?.traits(model) ?? { imageInput: undefined };
  }

  /** `/image <prompt>`: an assistant entry holding the generated image (as a stored file) and where it was saved. */
  private async imageReply(prompt: string, backend: ImageBackend): Promise<ChatEntry> {
    const model = backend.model();
    const run = this.begin({ model, image: { prompt } });
    const entry = run.entry;
    try {
      const r = await backend.generate(prompt, run.signal);
      const mimeType = sniffImage(r.bytes.subarray(0, 16));
      const saved = r.savedPath ? t('Saved to `{0}`.', r.savedPath) : '';
      if (mimeType && r.bytes.length <= MAX_STORED_IMAGE_BYTES) {
        entry.images = [{ mimeType, bytes: r.bytes.length, file: this.init.images.add(r.bytes, mimeType) }];
        entry.text = saved;
      } else {
        entry.text = [
          t('The generated image cannot be shown here: it is too large or not a PNG, JPEG, GIF or WebP image.'),
          saved,
        ]
          .filter(Boolean)
          .join('\n\n');
      }
      entry.image = { prompt, savedPath: r.savedPath };
      entry.status = 'done';
    } catch (e) {
      run.fail(e);
    } finally {
      this.end(run);
    }
    return entry;
  }

  /** A reply starts: it is added, the session is busy, and it can be stopped. */
  private begin(fields: Partial<ChatEntry>): ReplyRun {
    const entry: ChatEntry = {
      id: this.newId(),
      role: 'assistant',
      text: '',
      createdAt: this.now(),
      status: 'streaming',
      ...fields,
    };
    this.list.push(entry);
    const run = new ReplyRun(
      entry,
      this.now,
      (e) => this.emit(e),
      (text) => this.list.some((x) => x !== entry && !!x.notices?.some((n) => n.text === text)),
    );
    this.run = run;
    this.emit({ type: 'entryAdded', entry });
    this.emit({ type: 'busy', busy: true });
    return run;
  }

  /**
   * A reply ends; the transcript is bounded (./history.ts) so the live list is what is saved. Another
   * request may not start before listeners see this one end.
   */
  private end(run: ReplyRun): void {
    run.end();
    if (this.run === run) this.run = undefined;
    this.emit({ type: 'entryUpdated', entry: run.entry });
    this.bound();
    this.emit({ type: 'busy', busy: false });
  }

  private bound(): void {
    const b = boundTranscript(this.list);
    if (!b.removed.length && !b.updated.length) return;
    this.list = b.entries;
    this.init.images.release(b.released);
    for (const id of b.removed) this.emit({ type: 'entryRemoved', id });
    for (const entry of b.updated) this.emit({ type: 'entryUpdated', entry });
  }

  /** Replaces the last reply with a new one for the same question. */
  async regenerate(options: ChatOptions): Promise<ChatEntry | undefined> {
    if (this.busy) return undefined;
    const last = this.list.at(-1);
    if (last?.role === 'assistant') {
      this.list.pop();
      this.init.images.release((last.images ?? []).flatMap((im) => (im.file ? [im.file] : [])));
      this.emit({ type: 'entryRemoved', id: last.id });
    }
    const lastUser = this.list.at(-1);
    if (lastUser?.role !== 'user') return undefined;
    if (lastUser.image && this.init.image) return this.imageReply(lastUser.image.prompt, this.init.image);
    return this.reply(options);
  }

  /** Aborts the request under way (the connection is closed; the partial reply is kept). */
  stop(): void {
    this.run?.stop();
  }

  /** New Chat: stops any request and forgets the conversation (its image files too). */
  clear(): void {
    this.stop();
    this.init.images.release(this.list.flatMap((e) => e.images ?? []).flatMap((im) => (im.file ? [im.file] : [])));
    this.list = [];
    this.emit({ type: 'reset' });
  }

  /** Asks for a reply; with `plainBecause`, without streaming, and the reply says why. */
  private async reply(options: ChatOptions, plainBecause?: string): Promise<ChatEntry> {
    const traits = this.traits(options.model);
    const history = [...this.list];
    const run = this.begin({ surface: options.surface, model: options.model });
    const entry = run.entry;
    try {
      // Images of earlier turns go as notes to a model known not to take images.
      const withImages = traits.imageInput !== false;
      const files = withImages ? sentImageFiles(history) : new Set<string>();
      const data = files.size ? await this.imageData(files) : new Map<string, string>();
      const req: ChatRequest = {
        surface: options.surface,
        model: options.model,
        system: options.system.trim() || undefined,
        messages: toChatMessages(history, { withImages, data }),
        temperature: options.temperature ?? undefined,
        maxTokens: options.maxTokens,
        thinking:
          options.surface === 'native' && traits.thinkingBudget ? { budgetTokens: traits.thinkingBudget } : undefined,
        signal: run.signal,
        onRetry: (n) => run.noteRetry(n),
      };
      const backend = this.init.backend;
      const result =
        this.init.streaming() && !plainBecause
          ? await run.stream(backend.chatStream({ ...req, stream: true }, options.gateway))
          : await run.plain(backend.chat({ ...req, stream: false }, options.gateway));
      if (result) this.finish(run, result);
      if (plainBecause) addNotice(entry, { kind: 'fallback', text: plainBecause });
    } catch (e) {
      run.fail(e);
    } finally {
      this.end(run);
    }
    return entry;
  }

  /** The stored images a request sends, as base64 by file (a file that is gone is left out: a note goes instead). */
  private async imageData(files: ReadonlySet<string>): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    await Promise.all(
      [...files].map(async (f) => {
        const bytes = await this.init.images.read(f);
        if (bytes) out.set(f, bytes.toString('base64'));
      }),
    );
    return out;
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

  /**
   * The user's answer to a failure that may have been billed (its card's billing note): the same question
   * once more — the only way such a request is sent again. Only for the last reply, and only then.
   */
  async retryBilled(options: ChatOptions): Promise<ChatEntry | undefined> {
    const last = this.list.at(-1);
    if (this.busy || last?.role !== 'assistant' || !last.error?.billing) return undefined;
    return this.regenerate(options);
  }

  private finish(run: ReplyRun, r: ChatResult): void {
    run.finish(r, this.init.models);
    if (r.buffered && !this.bufferNoticeShown) {
      this.bufferNoticeShown = true;
      addNotice(run.entry, { kind: 'buffering', text: bufferingNotice() });
      this.init.onBufferNotice?.();
    }
    if (r.streamIgnored && !this.streamIgnoredShown) {
      this.streamIgnoredShown = true;
      addNotice(run.entry, { kind: 'streamIgnored', text: streamIgnoredNotice() });
    }
  }
}
