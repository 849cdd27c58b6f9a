/**
 * The conversation list: one MessageView per entry, and the host's entry messages applied to it.
 * Streamed text and reasoning are appended at once and rendered at most once per frame.
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

export class Transcript {
  private readonly views = new Map<string, MessageView>();
  private readonly dirty = new Set<string>();
  private frameQueued = false;

  constructor(
    private readonly env: MessageViewEnv,
    private readonly list: HTMLElement,
    /** schedules a render (once per animation frame) */
    private readonly schedule: (fn: () => void) => void,
  ) {}

  /** Applies an entry message to the list and to the snapshot's entries. */
  handle(snap: ChatSnapshot, msg: EntryMessage): void {
    switch (msg.type) {
      case 'entryAdded':
        snap.entries.push(msg.entry);
        this.add(msg.entry);
        this.scrollToEnd();
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
        this.scrollToEnd();
        break;
      }
      case 'entryRemoved':
        snap.entries = snap.entries.filter((e) => e.id !== msg.id);
        this.views.get(msg.id)?.el.remove();
        this.views.delete(msg.id);
        this.dirty.delete(msg.id);
        break;
    }
  }

  /** Shows these entries instead of what was shown. */
  renderAll(entries: readonly ChatEntry[]): void {
    this.views.clear();
    this.dirty.clear();
    this.list.replaceChildren();
    for (const e of entries) this.add(e);
    this.scrollToEnd();
  }

  /** Renders pending streamed text and reasoning now (normally once per animation frame). */
  flush(): void {
    this.frameQueued = false;
    for (const id of this.dirty) this.views.get(id)?.renderStreaming();
    this.dirty.clear();
    this.scrollToEnd();
  }

  /** Re-renders every message's notices (modelRelay.stream changed). */
  renderMeta(): void {
    for (const v of this.views.values()) v.renderMeta();
  }

  private add(entry: ChatEntry): void {
    const v = new MessageView(this.env, entry);
    this.views.set(entry.id, v);
    this.list.append(v.el);
  }

  private markDirty(id: string): void {
    if (!this.views.has(id)) return;
    this.dirty.add(id);
    if (!this.frameQueued) {
      this.frameQueued = true;
      this.schedule(() => this.flush());
    }
  }

  scrollToEnd(): void {
    const el = this.list;
    if (typeof el.scrollTo === 'function') el.scrollTo({ top: el.scrollHeight });
  }
}
