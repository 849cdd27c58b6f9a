/** What a ChatSession (./session.ts) is given and what it reports. Plain Node, no `vscode`. */
import type { ChatEvent, ChatRequest, ChatResult } from '../../gateway';
import type { ChatEntry, ChatSurface, ChatUsage } from '../../shared/chatProtocol';
import type { ModelTraits } from './images';

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

/** What the session knows about models (from modelRelay.models.overrides and the family table). */
export interface SessionModels {
  traits(model: string): ModelTraits;
  /** a listed model known to accept images, preferably on `surface` (suggested when one does not) */
  imageModel(surface: ChatSurface): string | undefined;
  /** what a reply with this usage cost, where the gateway publishes the model's price ("≈ $0.0004") */
  costOf?(model: string, usage: ChatUsage): string | undefined;
}

/** The usage with its cost added, where the model's price is known. */
export function withCost(
  u: ChatUsage | undefined,
  model: string | undefined,
  models: SessionModels | undefined,
): ChatUsage | undefined {
  const cost = u && model ? models?.costOf?.(model, u) : undefined;
  return cost ? { ...u, cost } : u;
}

/** Inline images above this size are shown as a link to the saved file instead. */
export const MAX_INLINE_IMAGE_CHARS = 3_000_000;

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
  /** restored history (see restoreEntries in ./history.ts) */
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
  /** image input and thinking per model; without it every model is taken to accept images */
  models?: SessionModels;
  newId?: () => string;
  now?: () => number;
}

/** Largest selection sent with a question (characters). */
export const MAX_CONTEXT_CHARS = 100_000;
