/**
 * The conversation list: one MessageView per entry, and the host's entry messages applied to it.
 * Streamed text and reasoning are appended at once and rendered at most once per frame.
 * The list follows its end while the user is there: scrolled up to read, it stays put (a streaming
 * reply grows below); back at the bottom, or sending, it follows again. A long conversation paints
 * its last entries at once and the older ones above them in the following frames.
 */
import type { ChatEntry, ChatSnapshot, HostToWebview } from '../shared/chatProtocol';
import { MessageView, type MessageViewEnv } from './messageView';

export type EntryMessage = Extract<
  HostToWebview,
  { type: 'entryAdded' | 'entryDelta' | 'entryReasoning' | 'entryUpdated' | 'entryRemoved' }
>;

export function isEntryMessage(msg: HostToWebview): msg is EntryMessage {
  return (
    msg.type === 'entryAdded' ||
    msg.type === 'entryDelta' ||
    msg.type === 'entryReasoning' ||
    msg.type === 'entryUpdated' ||
    msg.type === 'entryRemoved'
  );
}

/** Entries painted at once when a conversation is shown (more than a screenful); older ones follow. */
export const FIRST_PAINT_ENTRIES = 8;
/** Time given to painting older entries per frame. */
const OLDER_MS_PER_FRAME = 8;
/** How close to the bottom (px) counts as being there. */
const AT_END_SLACK = 24;

export class Transcript {
  private readonly views = new Map<string, MessageView>();
  private readonly dirty = new Set<string>();
  private frameQueued = false;
  /** entries not painted yet (oldest first), painted above the others a few per frame */
  private older: ChatEntry[] = [];
  private olderQueued = false;
  /** the list keeps its end in view (the user has not scrolled up) */
  private following = true;
  /** where the list itself last scrolled to (the user scrolled up when above it) */
  private autoTop = 0;

  constructor(
    private readonly env: MessageViewEnv,
    private readonly list: HTMLElement,
    /** schedules a render (once per animation frame) */
    private readonly schedule: (fn: () => void) => void,
    private readonly now: () => number = () => Date.now(),
  ) {
    list.addEventListener('scroll', () => this.scrolled(), { passive: true });
  }

  /** Whether the list follows its end (false while the user reads above it). */
  get followsEnd(): boolean {
    return this.following;
  }

  /** Follows the end again and shows it (the user sent a message). */
  followEnd(): void {
    this.following = true;
    this.keepAtEnd();
  }

  /** Applies an entry message to the list and to the snapshot's entries. */
  handle(snap: ChatSnapshot, msg: EntryMessage): void {
    switch (msg.type) {
      case 'entryAdded':
        snap.entries.push(msg.entry);
        this.add(msg.entry);
        // A new question (typed here or asked from the editor) brings the end back.
        if (msg.entry.role === 'user') this.following = true;
        this.keepAtEnd();
        break;
      case 'entryDelta': {
        const entry = snap.entries.find((e) => e.id === msg.id);
        if (entry) entry.text += msg.text;
        this.views.get(msg.id)?.appendText(msg.text);
        this.markDirty(msg.id);
        break;
      }
      case 'entryReasoning': {
        const entry = snap.entries.find((e) => e.id === msg.id);
        if (entry) entry.reasoning = (entry.reasoning ?? '') + msg.text;
        this.views.get(msg.id)?.appendReasoning(msg.text);
        this.markDirty(msg.id);
        break;
      }
      case 'entryUpdated': {
        const i = snap.entries.findIndex((e) => e.id === msg.entry.id);
        if (i >= 0) snap.entries[i] = msg.entry;
        this.dirty.delete(msg.entry.id);
        this.views.get(msg.entry.id)?.update(msg.entry);
        this.older = this.older.map((e) => (e.id === msg.entry.id ? msg.entry : e));
        this.keepAtEnd();
        break;
      }
      case 'entryRemoved':
        snap.entries = snap.entries.filter((e) => e.id !== msg.id);
        this.older = this.older.filter((e) => e.id !== msg.id);
        this.views.get(msg.id)?.el.remove();
        this.views.delete(msg.id);
        this.dirty.delete(msg.id);
        break;
    }
  }

  /** Shows these entries instead of what was shown: the last ones now, the older ones in the next frames. */
  renderAll(entries: readonly ChatEntry[]): void {
    this.views.clear();
    this.dirty.clear();
    this.list.replaceChildren();
    const first = Math.max(0, entries.length - FIRST_PAINT_ENTRIES);
    this.older = entries.slice(0, first);
    for (const e of entries.slice(first)) this.add(e);
    this.following = true;
    this.keepAtEnd();
    this.queueOlder();
  }

  /** Renders pending streamed text and reasoning now (normally once per animation frame). */
  flush(): void {
    this.frameQueued = false;
    for (const id of this.dirty) this.views.get(id)?.renderStreaming();
    this.dirty.clear();
    this.keepAtEnd();
  }

  /** Paints older entries above the others for a few milliseconds; the rest in the next frame. */
  paintOlder(): void {
    this.olderQueued = false;
    if (!this.older.length) return;
    const el = this.list;
    const height = el.scrollHeight;
    const until = this.now() + OLDER_MS_PER_FRAME;
    const painted: HTMLElement[] = [];
    do {
      const v = this.view(this.older.pop()!);
      painted.unshift(v.el);
    } while (this.older.length && this.now() < until);
    el.prepend(...painted);
    // What the user reads stays where it was: the list grew above it.
    if (this.following) this.keepAtEnd();
    else el.scrollTop += el.scrollHeight - height;
    this.queueOlder();
  }

  private queueOlder(): void {
    if (this.olderQueued || !this.older.length) return;
    this.olderQueued = true;
    this.schedule(() => this.paintOlder());
  }

  /** Re-renders every message's notices (modelRelay.stream changed). */
  renderMeta(): void {
    for (const v of this.views.values()) v.renderMeta();
  }

  private add(entry: ChatEntry): void {
    this.list.append(this.view(entry).el);
  }

  private view(entry: ChatEntry): MessageView {
    const v = new MessageView(this.env, entry);
    this.views.set(entry.id, v);
    return v;
  }

  private markDirty(id: string): void {
    if (!this.views.has(id)) return;
    this.dirty.add(id);
    if (!this.frameQueued) {
      this.frameQueued = true;
      this.schedule(() => this.flush());
    }
  }

  /** Shows the end, unless the user scrolled up to read. */
  private keepAtEnd(): void {
    if (!this.following) return;
    const el = this.list;
    const top = Math.max(0, el.scrollHeight - el.clientHeight);
    this.autoTop = top;
    if (el.scrollTop !== top) el.scrollTop = top;
  }

  /** The user scrolled: above where the list put itself, it stops following; at the bottom, it follows. */
  private scrolled(): void {
    const el = this.list;
    if (el.scrollHeight - el.clientHeight - el.scrollTop <= AT_END_SLACK) this.following = true;
    else if (el.scrollTop < this.autoTop - 1) this.following = false;
  }
}
