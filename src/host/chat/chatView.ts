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
  ChatReceipt,
  ChatSnapshot,
  HostToWebview,
  ImageAttachment,
  ModelList,
  SelectionContext,
} from '../../shared/chatProtocol';
import { t } from '../../gateway/l10n';
import { billedArrival, billedSentence, type ArrivalSource } from '../usage/arrivals';
import type { ReceiptSource } from '../usage/receiptSource';
import { ChatStore, restoreEntries, restoreOptions, type SaveUrgency, type StateStore } from './chatStore';
import { DeltaBatcher } from './deltaBatcher';
import type { ChatImageFiles, ImageFiles } from './imageFiles';
import type { SessionModels } from './modelTraits';
import { chatReceipt } from './receiptWords';
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
  /**
   * the receipts of billed calls (the usage room's book, read from the gateways' own logs): a finished
   * reply shows its receipt line once its record is found; absent, no receipt lines
   */
  receipts?: ReceiptSource;
  /** the waits before each lookup (tests make them instant) */
  sleep?: (ms: number) => Promise<void>;
  streamSaveMs?: number;
  newId?: () => string;
  now?: () => number;
}

/** The replies whose receipts are looked for: the newest few, and for a while after they were made. */
export const RECEIPT_REPLIES = 20;
export const RECEIPT_WAIT_MS = 30 * 60_000;

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
  /** the receipts found for replies, by entry id (shown with them; never saved: found again after a reload) */
  private readonly receiptOf = new Map<string, ChatReceipt>();
  private readonly receiptWatch: { dispose(): void } | undefined;

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
    // A reloaded chat finds its replies' receipts again (and asks for those of recent replies still missing).
    this.receiptWatch = init.receipts?.onDidChange(() => this.lookForReceipts());
    this.lookForReceipts({ all: true, want: true });
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
    this.receiptOf.clear();
    this.session.clear();
  }

  /**
   * The receipts of the newest replies not yet shown, where the source has them (each found is posted
   * with its reply). Only replies made within {@link RECEIPT_WAIT_MS} are asked for again (`all`: every
   * one of the newest, once, at start); `want`: the source is told those still missing are wanted.
   */
  private lookForReceipts(o: { all?: boolean; want?: boolean } = {}): void {
    const source = this.init.receipts;
    if (!source) return;
    const since = (this.init.now ?? Date.now)() - RECEIPT_WAIT_MS;
    const replies = this.session.entries.filter((e) => e.role === 'assistant' && e.call && e.status === 'done');
    // replies removed (regenerated, or out of the bounded transcript) drop their receipts
    const kept = new Set(replies.map((e) => e.id));
    for (const id of this.receiptOf.keys()) if (!kept.has(id)) this.receiptOf.delete(id);
    for (const e of replies.slice(-RECEIPT_REPLIES)) {
      const call = e.call!;
      const recent = Date.parse(call.time) >= since;
      if (this.receiptOf.has(e.id) || (!recent && !o.all)) continue;
      const found = source.find(call);
      if (found) {
        this.receiptOf.set(e.id, chatReceipt(found));
        this.post({ type: 'entryUpdated', entry: e });
      } else if (o.want && recent) source.want(call);
    }
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
    this.receiptWatch?.dispose();
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
      // a reply that was billed (answered) wants its receipt
      if (e.type === 'busy' && !e.busy) this.wantReceipt(this.session.entries.at(-1));
    }
    const urgency = saveUrgency(e);
    if (urgency) this.store.changed(urgency);
    if (e.type === 'busy' && !e.busy && this.queued) queueMicrotask(() => this.sendQueued());
  }

  private wantReceipt(e: ChatEntry | undefined): void {
    if (e?.role !== 'assistant' || !e.call || e.status !== 'done' || this.receiptOf.has(e.id)) return;
    this.init.receipts?.want(e.call);
    this.lookForReceipts();
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

  /**
   * Stored images get their webview URI, replies their receipt (filled on every post; the session's
   * entries never hold them).
   */
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

  private shown(entry: ChatEntry): ChatEntry {
    const receipt = this.receiptOf.get(entry.id);
    const e = receipt ? { ...entry, receipt } : entry;
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
