/**
 * The chat view's host side, without `vscode`: the conversation (a ChatSession), the options the
 * user chose, a selection waiting to go with the next message, a question asked about a selection
 * while a reply streams (queued, sent when the reply ends), what is posted to the webview (in order,
 * text and reasoning batched, nothing before its `ready`, stored images with their webview URI), and
 * when the conversation is saved (./chatStore.ts). The VS Code view (src/extension/chat/
 * chatViewProvider.ts) owns the page and hands each validated message to a method here.
 */
import type {
  ChatEntry,
  ChatOptions,
  ChatSnapshot,
  HostToWebview,
  ImageAttachment,
  ModelList,
  SelectionContext,
} from '../../shared/chatProtocol';
import { t } from '../../gateway/l10n';
import { billedArrival, billedSentence, type ArrivalSource } from '../usage/arrivals';
import { ChatStore, restoreEntries, restoreOptions, type SaveUrgency, type StateStore } from './chatStore';
import { DeltaBatcher } from './deltaBatcher';
import type { ChatImageFiles, ImageFiles } from './imageFiles';
import type { SessionModels } from './modelTraits';
import { ChatSession, type ChatBackend, type ImageBackend, type SessionEvent } from './session';

export interface ChatViewInit {
  backend: ChatBackend;
  /** workspace state (a Memento) */
  state: StateStore;
  files: Pick<ChatImageFiles, 'add' | 'read' | 'release' | 'sweep' | 'settled'>;
  /** the settings the chat reads (modelRelay.stream and the defaults for new options) */
  settings: () => Parameters<typeof restoreOptions>[1] & { stream: boolean };
  models: SessionModels;
  /** the model picker's list, sent with `init` */
  modelList: () => ModelList;
  image?: ImageBackend;
  /** posts to the page (called only once it said `ready`) */
  post: (msg: HostToWebview) => void;
  /** a stored image's webview URI */
  src: (file: string) => string | undefined;
  /**
   * whether the image folder is this chat's alone, so files the saved chat does not name are removed at
   * start (false for a folder shared by windows without a workspace)
   */
  ownsImageFolder?: boolean;
  /**
   * the gateways' usage logs: a billed call that failed (its card's billing note) is looked up there a
   * few seconds later, and its card says whether it was billed
   */
  arrivals?: ArrivalSource;
  /** the waits before each lookup (tests make them instant) */
  sleep?: (ms: number) => Promise<void>;
  streamSaveMs?: number;
  newId?: () => string;
  now?: () => number;
}

/** How soon a session event is saved (never for busy or a refusal; throttled while text streams). */
function saveUrgency(e: SessionEvent): SaveUrgency | undefined {
  switch (e.type) {
    case 'entryDelta':
    case 'entryReasoning':
      return 'streaming';
    case 'entryUpdated':
      return e.entry.status === 'streaming' ? 'streaming' : 'now';
    case 'entryAdded':
    case 'entryRemoved':
    case 'reset':
      return 'now';
    case 'busy':
    case 'sendRefused':
      return undefined;
  }
}

export class ChatView {
  private ready = false;
  /** Open Chat asked for the input's focus before the page said `ready` */
  private focusWhenReady = false;
  private readonly session: ChatSession;
  private readonly store: ChatStore;
  private readonly deltas = new DeltaBatcher((id, text) => this.postNow({ type: 'entryDelta', id, text }));
  private readonly reasoning = new DeltaBatcher((id, text) => this.postNow({ type: 'entryReasoning', id, text }));
  private options: ChatOptions;
  private pendingContext: SelectionContext | undefined;
  /** Ask About Selection with a question while a reply streams: sent when it ends */
  private queued: { question: string; context: SelectionContext } | undefined;
  private bufferNoticeShown: boolean;
  /** the start-up sweep of image files the saved chat no longer names (awaited by tests) */
  readonly restored: Promise<void>;
  /** the lookups of failed billed calls under way, by entry id (awaited by tests; stopped by New Chat) */
  readonly billedChecks = new Map<string, Promise<void>>();
  private checks = new AbortController();

  constructor(private readonly init: ChatViewInit) {
    this.store = new ChatStore(
      init.state,
      () => ({ entries: this.session.entries, options: this.options, bufferNoticeShown: this.bufferNoticeShown }),
      init.streamSaveMs,
    );
    const saved = this.store.load();
    this.bufferNoticeShown = saved.bufferNoticeShown === true;
    this.options = restoreOptions(saved.options, init.settings());
    let migrated = 0;
    const files: ImageFiles = {
      add: (bytes, mime) => (migrated++, init.files.add(bytes, mime)),
      read: (f) => init.files.read(f),
      release: (f) => init.files.release(f),
    };
    const entries = restoreEntries(saved.entries, files);
    this.session = new ChatSession({
      backend: init.backend,
      images: init.files,
      entries,
      streaming: () => init.settings().stream,
      bufferNoticeShown: this.bufferNoticeShown,
      onBufferNotice: () => {
        this.bufferNoticeShown = true;
        this.store.changed('now');
      },
      listener: (e) => this.onSessionEvent(e),
      models: init.models,
      image: init.image,
      newId: init.newId,
      now: init.now,
    });
    // An older saved shape (images inside the transcript) or a transcript over the bounds is rewritten at once.
    if (migrated || this.session.entries.length !== entries.length) this.store.changed('now');
    // A lookup the last window did not finish is made again.
    for (const e of this.session.entries)
      if (e.error?.arrival?.state === 'pending') {
        delete e.error.arrival;
        this.checkBilled(e);
      }
    const keep = new Set(this.session.entries.flatMap((e) => e.images ?? []).flatMap((im) => im.file ?? []));
    this.restored =
      init.ownsImageFolder === false ? Promise.resolve() : init.files.settled().then(() => init.files.sweep(keep));
  }

  get isReady(): boolean {
    return this.ready;
  }

  get entries(): readonly ChatEntry[] {
    return this.session.entries;
  }

  /** A failed reply's error and when it was asked (for Copy Support Report from its card). */
  errorOf(entryId: string): { error: NonNullable<ChatEntry['error']>; at: number } | undefined {
    const e = this.session.entries.find((x) => x.id === entryId);
    return e?.error ? { error: e.error, at: e.createdAt } : undefined;
  }

  /** The page loaded and listens: it gets the whole state (any streamed text not yet posted is in it). */
  webviewReady(): void {
    this.ready = true;
    this.deltas.clear();
    this.reasoning.clear();
    this.postNow({ type: 'init', state: this.snapshot(), models: this.init.modelList() });
    if (this.focusWhenReady) this.postNow({ type: 'focusInput' });
    this.focusWhenReady = false;
  }

  /** The page is hidden or gone: nothing is posted until it says `ready` again. */
  webviewGone(): void {
    this.ready = false;
  }

  /** Open Chat: the input gets the focus (once the page is ready). */
  focusInput(): void {
    if (this.ready) this.post({ type: 'focusInput' });
    else this.focusWhenReady = true;
  }

  send(text: string, options: ChatOptions, images: readonly ImageAttachment[] = []): void {
    this.setOptions(options);
    // Refused before anything changes: the selection stays attached, the webview puts the message back.
    if (!this.session.start(text, this.options, this.pendingContext, images) || !this.pendingContext) return;
    this.pendingContext = undefined;
    this.post({ type: 'context', context: undefined });
  }

  /**
   * Ask About Selection: the selection waits for the next message; with a question, it is sent at once,
   * or when the reply under way ends (one question waits; another is refused, with why).
   */
  askAbout(context: SelectionContext, question?: string): void {
    if (!question?.trim()) {
      this.pendingContext = context;
      this.post({ type: 'context', context });
      this.post({ type: 'focusInput' });
      return;
    }
    if (!this.session.busy) {
      void this.session.start(question, this.options, context);
      return;
    }
    if (this.queued) {
      this.post({
        type: 'sendRefused',
        message: t(
          'A question about a selection is already waiting for the reply under way. Ask again when the reply ends.',
        ),
      });
      return;
    }
    this.queued = { question, context };
  }

  stop(): void {
    this.session.stop();
  }

  regenerate(options: ChatOptions): void {
    this.setOptions(options);
    void this.session.regenerate(this.options);
  }

  retryWithoutStreaming(options: ChatOptions): void {
    this.setOptions(options);
    void this.session.retryWithoutStreaming(this.options);
  }

  retryBilled(options: ChatOptions): void {
    this.setOptions(options);
    void this.session.retryBilled(this.options);
  }

  newChat(): void {
    this.pendingContext = undefined;
    this.queued = undefined;
    this.stopChecks();
    this.session.clear();
  }

  private stopChecks(): void {
    this.checks.abort();
    this.checks = new AbortController();
    this.billedChecks.clear();
  }

  /**
   * A billed call failed (its card carries the billing note): once the gateway's record should exist,
   * its usage log is asked, and the card says "billed …" or "no record" (pending meanwhile).
   */
  private checkBilled(entry: ChatEntry): void {
    const err = entry.error;
    const source = this.init.arrivals;
    if (!source || !err?.billing || err.arrival || this.billedChecks.has(entry.id)) return;
    err.arrival = { state: 'pending', text: t("Looking for this request in the gateway's usage log…") };
    const signal = this.checks.signal;
    const query = {
      requestId: err.requestId,
      sentAt: entry.createdAt,
      durationMs: entry.durationMs,
    };
    const check = billedArrival(source, entry.gateway?.id, query, { sleep: this.init.sleep, signal }).then((a) => {
      if (signal.aborted) return;
      this.billedChecks.delete(entry.id);
      if (!this.session.entries.includes(entry)) return;
      err.arrival = { state: a.state, text: billedSentence(a) };
      this.post({ type: 'entryUpdated', entry });
      this.store.changed('now');
    });
    this.billedChecks.set(entry.id, check);
  }

  setOptions(o: ChatOptions): void {
    const keys = new Set([...Object.keys(o), ...Object.keys(this.options)]) as Set<keyof ChatOptions>;
    const same = [...keys].every((k) => o[k] === this.options[k]);
    this.options = { ...o };
    if (!same) this.store.changed('now');
  }

  clearContext(): void {
    this.pendingContext = undefined;
  }

  streamingChanged(streaming: boolean): void {
    this.post({ type: 'config', streaming });
  }

  /** Posts in order (pending deltas first); dropped before `ready`: `init` carries the state. */
  post(msg: HostToWebview): void {
    this.reasoning.flush();
    this.deltas.flush();
    this.postNow(msg);
  }

  /** The view goes away: the request under way stops, what is unsaved is saved. */
  dispose(): void {
    this.stopChecks();
    this.session.stop();
    this.queued = undefined;
    this.deltas.clear();
    this.reasoning.clear();
    this.store.flush();
  }

  private onSessionEvent(e: SessionEvent): void {
    if (e.type === 'entryDelta' || e.type === 'entryReasoning')
      (e.type === 'entryDelta' ? this.deltas : this.reasoning).add(e.id, e.text);
    else if (e.type === 'reset') {
      this.deltas.clear();
      this.reasoning.clear();
      this.post({ type: 'reset', state: this.snapshot() });
    } else {
      if (e.type === 'entryUpdated' && e.entry.status === 'error') this.checkBilled(e.entry);
      this.post(e);
    }
    const urgency = saveUrgency(e);
    if (urgency) this.store.changed(urgency);
    if (e.type === 'busy' && !e.busy && this.queued) queueMicrotask(() => this.sendQueued());
  }

  private sendQueued(): void {
    const q = this.queued;
    if (!q || this.session.busy) return;
    this.queued = undefined;
    void this.session.start(q.question, this.options, q.context);
  }

  private postNow(msg: HostToWebview): void {
    if (!this.ready) return;
    this.init.post(this.withSources(msg));
  }

  /** Stored images get their webview URI (filled on every post; the session's entries never hold it). */
  private withSources(msg: HostToWebview): HostToWebview {
    switch (msg.type) {
      case 'entryAdded':
      case 'entryUpdated':
        return { ...msg, entry: this.shown(msg.entry) };
      case 'init':
      case 'reset':
        return { ...msg, state: { ...msg.state, entries: msg.state.entries.map((e) => this.shown(e)) } };
      default:
        return msg;
    }
  }

  private shown(e: ChatEntry): ChatEntry {
    if (!e.images?.some((im) => im.file)) return e;
    return {
      ...e,
      images: e.images.map((im) => {
        const src = im.file ? this.init.src(im.file) : undefined;
        return src ? { ...im, src } : im;
      }),
    };
  }

  private snapshot(): ChatSnapshot {
    return {
      entries: [...this.session.entries],
      options: this.options,
      busy: this.session.busy,
      pendingContext: this.pendingContext,
      streaming: this.init.settings().stream,
    };
  }
}
