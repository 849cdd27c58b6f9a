/**
 * The chat conversation kept in workspace state: saved soon after every change (coalesced while
 * text streams), restored on start, at most {@link MAX_SAVED_ENTRIES} entries. Attached images are
 * bounded too: only the last few turns keep their image data (see boundImages in ./images.ts).
 * Plain Node: the caller hands in the workspace state (VS Code's Memento has this shape).
 */
import type { ChatEntry, ChatOptions } from '../../shared/chatProtocol';
import { boundImages } from './images';

export const STATE_KEY = 'modelRelay.chat.v1';
/** Entries kept in workspace state. */
export const MAX_SAVED_ENTRIES = 200;

export interface StateStore {
  get<T>(key: string): T | undefined;
  update(key: string, value: unknown): PromiseLike<void>;
}

export interface SavedChat {
  entries?: unknown;
  options?: Partial<ChatOptions>;
  bufferNoticeShown?: boolean;
}

export class ChatStore {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly state: StateStore,
    /** what to save, read when the save happens */
    private readonly current: () => { entries: readonly ChatEntry[]; options: ChatOptions; bufferNoticeShown: boolean },
  ) {}

  load(): SavedChat {
    return this.state.get<SavedChat>(STATE_KEY) ?? {};
  }

  /** Saves after `delayMs`; a pending delayed save is not pushed back, an immediate one wins. */
  schedule(delayMs: number): void {
    if (this.timer && delayMs > 0) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.save();
    }, delayMs);
  }

  async save(): Promise<void> {
    const c = this.current();
    const saved: SavedChat = {
      entries: boundImages(c.entries.slice(-MAX_SAVED_ENTRIES)),
      options: c.options,
      bufferNoticeShown: c.bufferNoticeShown,
    };
    await this.state.update(STATE_KEY, saved);
  }

  /** Writes what is pending now (on dispose). */
  flush(): void {
    if (!this.timer) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    void this.save();
  }
}

/** The chat options to start with: what was saved, where valid, else the settings' defaults. */
export function restoreOptions(
  saved: Partial<ChatOptions> | undefined,
  s: {
    defaultSurface: ChatOptions['surface'];
    models: { chat: string; native: string };
    temperature: number;
    maxTokens: number;
  },
): ChatOptions {
  const surface = saved?.surface === 'native' || saved?.surface === 'compatible' ? saved.surface : s.defaultSurface;
  const model =
    typeof saved?.model === 'string' && saved.model
      ? saved.model
      : surface === 'native'
        ? s.models.native
        : s.models.chat;
  return {
    surface,
    model,
    system: typeof saved?.system === 'string' ? saved.system : '',
    temperature:
      typeof saved?.temperature === 'number' && saved.temperature >= 0 && saved.temperature <= 2
        ? saved.temperature
        : s.temperature,
    maxTokens:
      typeof saved?.maxTokens === 'number' && Number.isInteger(saved.maxTokens) && saved.maxTokens > 0
        ? saved.maxTokens
        : s.maxTokens,
  };
}
