/**
 * The chat conversation kept in workspace state: restored on start (older saved shapes migrated),
 * and saved when it changes meaningfully — at once (coalesced) when an entry is added, removed or
 * finished, at most every {@link STREAM_SAVE_MS} while a reply streams, never per delta. What is
 * saved is the live transcript, already bounded by ./history.ts; images are files (./imageFiles.ts),
 * never base64 in the saved state. Plain Node: the caller hands in the workspace state (VS Code's
 * Memento has this shape).
 */
import type { ChatEntry, ChatImage, ChatOptions } from '../../shared/chatProtocol';
import { isImageMime, sniffImage } from '../../shared/chatImages';
import { isImageFileName, type ImageFiles } from './imageFiles';
import { setEnding } from './replyRun';

export const STATE_KEY = 'modelRelay.chat.v1';
/** While a reply streams, the transcript is saved at most this often. */
export const STREAM_SAVE_MS = 5_000;

export interface StateStore {
  get<T>(key: string): T | undefined;
  update(key: string, value: unknown): PromiseLike<void>;
}

export interface SavedChat {
  entries?: unknown;
  options?: Partial<ChatOptions>;
  bufferNoticeShown?: boolean;
}

/** How soon a change is saved: `now` (coalesced with the other changes of the moment) or `streaming` (throttled). */
export type SaveUrgency = 'now' | 'streaming';

export class ChatStore {
  private timer: NodeJS.Timeout | undefined;
  private timerUrgency: SaveUrgency | undefined;

  constructor(
    private readonly state: StateStore,
    /** what to save, read when the save happens */
    private readonly current: () => { entries: readonly ChatEntry[]; options: ChatOptions; bufferNoticeShown: boolean },
    private readonly streamSaveMs = STREAM_SAVE_MS,
  ) {}

  load(): SavedChat {
    const saved = this.state.get<unknown>(STATE_KEY);
    return saved && typeof saved === 'object' ? saved : {};
  }

  /**
   * Something changed: `now` saves on the next turn of the event loop (one write for the changes of
   * the moment); `streaming` saves within {@link STREAM_SAVE_MS} unless a save is already due (a
   * pending save is never pushed back).
   */
  changed(urgency: SaveUrgency): void {
    if (this.timer && (urgency === 'streaming' || this.timerUrgency === 'now')) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerUrgency = urgency;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.timerUrgency = undefined;
        void this.save();
      },
      urgency === 'now' ? 0 : this.streamSaveMs,
    );
  }

  async save(): Promise<void> {
    const c = this.current();
    const saved: SavedChat = { entries: c.entries, options: c.options, bufferNoticeShown: c.bufferNoticeShown };
    await this.state.update(STATE_KEY, saved);
  }

  /** Writes what is pending now (on dispose). */
  flush(): void {
    if (!this.timer) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.timerUrgency = undefined;
    void this.save();
  }
}

/**
 * History restored from storage (not trusted: malformed entries and images are dropped, never a
 * crash): a reply that was streaming when the window closed is marked stopped (it is never re-sent),
 * transient retry state is dropped, how a reply ended is derived again from its finish reason. Saved chats from before images were files are migrated: image
 * data (a user's attachments, an `/image` reply's data URL inside its text) is written to `files` and
 * the entry keeps the reference; what cannot be read as an image is dropped.
 */
export function restoreEntries(raw: unknown, files: ImageFiles): ChatEntry[] {
  if (!Array.isArray(raw)) return [];
  const out: ChatEntry[] = [];
  for (const e of raw as unknown[]) {
    if (!isEntry(e)) continue;
    const copy: ChatEntry & { cutOff?: unknown } = { ...e };
    delete copy.retry;
    // How a reply ended is worked out again from its finish reason (entries saved before it was said had `cutOff`).
    delete copy.cutOff;
    if (typeof copy.finishReason !== 'string') delete copy.finishReason;
    if (copy.role === 'assistant') setEnding(copy);
    else delete copy.ending;
    // the gateway that answered (entries saved before there were several gateways have none)
    const gateway = gatewayRef(copy.gateway);
    if (gateway) copy.gateway = gateway;
    else delete copy.gateway;
    // the billed call its receipt is found by (bounded); a receipt itself is never saved
    delete copy.receipt;
    const call = copy.role === 'assistant' ? callRef(copy.call) : undefined;
    if (call) copy.call = call;
    else delete copy.call;
    if (copy.role === 'assistant' && copy.status === 'streaming') copy.status = 'stopped';
    const inline = copy.role === 'assistant' ? takeInlineImages(copy.text, files) : undefined;
    if (inline) copy.text = inline.text;
    const images = [...restoreImages(copy.images, files), ...(inline?.images ?? [])];
    if (images.length) copy.images = images;
    else delete copy.images;
    out.push(copy);
  }
  return out;
}

/** The longest gateway id or name kept with an entry or the options. */
const MAX_GATEWAY_CHARS = 200;

/** A saved `{ id, name }` of a gateway, bounded; undefined when it is not one. */
function gatewayRef(raw: unknown): ChatEntry['gateway'] {
  if (!raw || typeof raw !== 'object') return undefined;
  const { id, name } = raw as Record<string, unknown>;
  if (typeof id !== 'string' || typeof name !== 'string' || !id) return undefined;
  return { id: id.slice(0, MAX_GATEWAY_CHARS), name: name.slice(0, MAX_GATEWAY_CHARS) };
}

/** A saved billed call (its time, model, request id, host, gateway), bounded; undefined when it is not one. */
function callRef(raw: unknown): ChatEntry['call'] {
  if (!raw || typeof raw !== 'object') return undefined;
  const { time, model, requestId, host, gateway } = raw as Record<string, unknown>;
  if (typeof time !== 'string' || typeof host !== 'string' || Number.isNaN(Date.parse(time))) return undefined;
  const text = (v: unknown) => (typeof v === 'string' && v ? v.slice(0, MAX_GATEWAY_CHARS) : undefined);
  const name = text(gateway);
  return {
    time: time.slice(0, 40),
    model: text(model),
    requestId: text(requestId),
    host: host.slice(0, MAX_GATEWAY_CHARS),
    ...(name ? { gateway: name } : {}),
  };
}

function isEntry(e: unknown): e is ChatEntry {
  if (!e || typeof e !== 'object') return false;
  const x = e as Record<string, unknown>;
  return typeof x.id === 'string' && typeof x.text === 'string' && (x.role === 'user' || x.role === 'assistant');
}

/** Saved entry images, well-formed ones only; old ones with `data` are written to files. */
function restoreImages(raw: unknown, files: ImageFiles): ChatImage[] {
  if (!Array.isArray(raw)) return [];
  const out: ChatImage[] = [];
  for (const x of raw as unknown[]) {
    if (!x || typeof x !== 'object') continue;
    const im = x as Record<string, unknown>;
    if (typeof im.mimeType !== 'string' || !isImageMime(im.mimeType) || typeof im.bytes !== 'number') continue;
    const image: ChatImage = { mimeType: im.mimeType, bytes: im.bytes };
    if (typeof im.name === 'string') image.name = im.name.slice(0, 260);
    if (isImageFileName(im.file)) image.file = im.file;
    else if (typeof im.data === 'string') {
      const stored = storeBase64(im.data, files);
      if (stored) Object.assign(image, stored);
    }
    out.push(image);
  }
  return out;
}

const INLINE_IMAGE = /!\[[^\]\n]*\]\(data:image\/[a-z0-9.+-]+;base64,([A-Za-z0-9+/=]*)\)\s*/g;

/** An old `/image` reply: its data URL leaves the text for a stored file. */
function takeInlineImages(text: string, files: ImageFiles): { text: string; images: ChatImage[] } | undefined {
  if (!text.includes('](data:image/')) return undefined;
  const images: ChatImage[] = [];
  const rest = text.replace(INLINE_IMAGE, (_m, data: string) => {
    const stored = storeBase64(data, files);
    if (stored) images.push(stored);
    return '';
  });
  return { text: rest.trim(), images };
}

function storeBase64(data: string, files: ImageFiles): ChatImage | undefined {
  const bytes = Buffer.from(data, 'base64');
  const mimeType = sniffImage(bytes.subarray(0, 16));
  if (!mimeType) return undefined;
  return { mimeType, bytes: bytes.length, file: files.add(bytes, mimeType) };
}

/** The chat options to start with: what was saved (the model with its gateway), where valid, else the settings' defaults. */
export function restoreOptions(
  saved: Partial<ChatOptions> | undefined,
  s: {
    defaultSurface: ChatOptions['surface'];
    models: { chat: string; native: string };
    temperature: number | undefined;
    maxTokens: number;
  },
): ChatOptions {
  const surface =
    saved?.surface === 'native' || saved?.surface === 'compatible' || saved?.surface === 'responses'
      ? saved.surface
      : s.defaultSurface;
  const model =
    typeof saved?.model === 'string' && saved.model
      ? saved.model
      : surface === 'native'
        ? s.models.native
        : s.models.chat;
  const gateway =
    typeof saved?.gateway === 'string' && saved.gateway && saved.gateway.length <= MAX_GATEWAY_CHARS
      ? saved.gateway
      : undefined;
  return {
    surface,
    model,
    ...(gateway ? { gateway } : {}),
    system: typeof saved?.system === 'string' ? saved.system : '',
    temperature:
      typeof saved?.temperature === 'number' && saved.temperature >= 0 && saved.temperature <= 2
        ? saved.temperature
        : saved?.temperature === null
          ? null
          : (s.temperature ?? null),
    maxTokens:
      typeof saved?.maxTokens === 'number' && Number.isInteger(saved.maxTokens) && saved.maxTokens > 0
        ? saved.maxTokens
        : s.maxTokens,
  };
}
