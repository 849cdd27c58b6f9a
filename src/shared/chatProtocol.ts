/**
 * The chat webview protocol: one discriminated union per direction, shared by the extension host
 * (src/extension/chat) and the webview (src/webview). Runs anywhere: no `vscode`, no DOM.
 *
 * - {@link WebviewToHost}: sent by the webview. Untrusted input: the host validates every message
 *   with {@link parseWebviewMessage} (zod) before acting on it.
 * - {@link HostToWebview}: sent by the host, only after the webview has posted `ready`.
 *
 * Nothing here ever carries a token: errors carry the masked form only (`sk-abc...wxyz`).
 * The webview imports this file with `import type` only, so zod stays out of its bundle.
 */
import { z } from 'zod';
import type { AnswerEnding, Capability, CheckState, ErrorDetail, ErrorKind, RequestRecord, Surface } from '../gateway';
import { IMAGE_MIME_TYPES, MAX_IMAGE_BASE64, MAX_IMAGES_PER_MESSAGE, type ImageMime } from './chatImages';

/** The core's surface (`import type` only: nothing of the core reaches the webview bundle). */
export type ChatSurface = Surface;

/** What the user chose in the chat view; persisted with the conversation. */
export interface ChatOptions {
  surface: ChatSurface;
  model: string;
  /**
   * the id of the gateway the model was picked from (the model picker groups models by gateway);
   * absent, or a gateway no longer configured: the active gateway
   */
  gateway?: string | undefined;
  /** system prompt ('' = none); sent as a `system` message (compatible) or top-level `system` (native) */
  system: string;
  /**
   * null: the model's own default — nothing is sent (reasoning models refuse any other value:
   * shared/reference/provider-constraints.md §1); a number only when the user set one
   */
  temperature: number | null;
  maxTokens: number;
}

/** A selection attached by "Ask About Selection". */
export interface SelectionContext {
  /** workspace-relative file name */
  fileName: string;
  /** VS Code language id, e.g. `typescript` */
  language: string;
  code: string;
  /** 1-based, inclusive */
  startLine: number;
  endLine: number;
}

export interface ChatUsage {
  inputTokens?: number | undefined;
  outputTokens?: number | undefined;
  /** what the reply cost, where the gateway publishes the model's price ("≈ $0.0004") */
  cost?: string | undefined;
}

/** A gateway error as the chat shows it (built from GatewayError.toJSON(): masked token only). */
export interface ChatErrorInfo {
  /** the core's classification, or `internal` for a fault inside the extension */
  kind: ErrorKind | 'internal';
  status?: number | undefined;
  /** one line: what went wrong */
  message: string;
  cause: string;
  fix: string;
  detail?: ErrorDetail | undefined;
  gatewayMessage?: string | undefined;
  requestId?: string | undefined;
  /** the endpoint that was called (never contains a token) */
  url?: string | undefined;
  host?: string | undefined;
  surface?: ChatSurface | undefined;
  model?: string | undefined;
  /** masked token, e.g. `sk-abc...wxyz` */
  maskedToken?: string | undefined;
  /** how many attempts were made (the core retries 429/5xx with backoff) */
  attempts?: number | undefined;
  /** a billed call (`/image`) that may have reached the gateway: what that means */
  billing?: string | undefined;
  /**
   * a billed call that failed: whether the gateway's usage log has it (looked up a few seconds after the
   * failure; `pending` while looking), in a sentence the card shows under the billing note
   */
  arrival?: ChatArrival | undefined;
  /** the stream failed outright (how, in a few words): the card offers to ask again without streaming (billed again) */
  streamFailed?: string | undefined;
}

/** Whether a failed billed call reached the gateway, as its error card shows it (words from the host). */
export interface ChatArrival {
  state: 'pending' | 'arrived' | 'no-record' | 'unknown';
  text: string;
}

/**
 * `failover`: the chosen gateway could not serve the request before anything of a reply arrived, and
 * the next gateway of modelRelay.fallbacks was asked (the text names both and why); `surface`: the
 * gateway refused the model on the chosen surface because it answers only on the Responses API, and
 * the request went to /v1/responses (remembered for the model); `adjusted`: a parameter was left out or
 * sent otherwise than asked, because the model's family refuses it or this gateway refused it
 * (gateway/chat/modelRules.ts, refusals.ts) — said once per conversation
 */
export type NoticeKind = 'buffering' | 'fallback' | 'streamIgnored' | 'failover' | 'surface' | 'adjusted';

export interface ChatNotice {
  kind: NoticeKind;
  text: string;
}

/** A retry under way: the core's `onRetry`, fired where it waits before trying again. */
export interface RetryInfo {
  /** the attempt that failed (1 = the first request) */
  attempt: number;
  maxRetries: number;
  status?: number | undefined;
  errorKind?: ErrorKind | undefined;
}

/** An image the webview attaches to a message (validated: {@link imageAttachmentSchema}). */
export interface ImageAttachment {
  mimeType: ImageMime;
  /** base64, no `data:` prefix */
  data: string;
  /** the file name, when it had one */
  name?: string | undefined;
}

/**
 * An image in the conversation: one a user attached, or one an `/image` reply generated. The host
 * keeps each image as a file under the extension's storage (`chat-images/<file>`): an entry holds
 * that reference and the image's type and size, never its bytes. When the file is no longer kept
 * (the transcript keeps the newest images only) `file` is absent and the entry shows a placeholder.
 */
export interface ChatImage {
  mimeType: ImageMime;
  /** the stored file's name (`<id>.<ext>` in the chat's image folder), while it is kept */
  file?: string | undefined;
  name?: string | undefined;
  /** decoded size */
  bytes: number;
  /**
   * host → webview only: the stored file as a webview URI (`asWebviewUri`), filled on every post
   * (`init` too); never saved
   */
  src?: string | undefined;
  /**
   * base64 (no `data:` prefix): only on an attachment being composed in the webview, before it is
   * sent. The host never posts or saves it.
   */
  data?: string | undefined;
}

export type EntryStatus = 'streaming' | 'done' | 'stopped' | 'error';

export interface ChatEntry {
  id: string;
  role: 'user' | 'assistant';
  /** user: what was typed; assistant: the reply text so far */
  text: string;
  createdAt: number;
  /** user only: the attached selection */
  context?: SelectionContext | undefined;
  /**
   * user: the attached images (the newest few image turns are sent again with later turns, see
   * src/host/chat/history.ts); assistant: the image an `/image` reply generated
   */
  images?: ChatImage[] | undefined;
  /** assistant only: the model's reasoning (plain text, shown collapsed above the reply) */
  reasoning?: string | undefined;
  /** assistant only: how long the model reasoned before answering (streamed replies) */
  reasoningMs?: number | undefined;
  /** assistant only */
  status?: EntryStatus | undefined;
  surface?: ChatSurface | undefined;
  model?: string | undefined;
  /** assistant only: the gateway that answered (shown in the reply's footer; saved with the entry) */
  gateway?: ChatGatewayRef | undefined;
  usage?: ChatUsage | undefined;
  finishReason?: string | undefined;
  /**
   * assistant only: how the reply ended when it did not simply end — cut by max tokens, stopped by a
   * content filter, or another finish reason (the host decides, by the core's rule: answerEnding)
   */
  ending?: Exclude<AnswerEnding, 'complete'> | undefined;
  durationMs?: number | undefined;
  error?: ChatErrorInfo | undefined;
  notices?: ChatNotice[] | undefined;
  retry?: RetryInfo | undefined;
  /** set on `/image` entries: such turns are shown, never sent to a chat model as history */
  image?: { prompt: string; savedPath?: string | undefined } | undefined;
  /**
   * assistant only: the billed call a finished reply was, as its receipt is looked up by (the usage
   * room's ReceiptQuery: src/host/usage/receiptSource.ts); saved with the chat, so a reloaded chat finds
   * its receipts again
   */
  call?: ChatCallRef | undefined;
  /**
   * host → webview only: the reply's receipt, once the gateway's log holds its record (filled on every
   * post, like an image's `src`; never saved)
   */
  receipt?: ChatReceipt | undefined;
}

/** A reply's billed call: when it was made, the model asked for, its request id, the host and gateway that answered. */
export type ChatCallRef = Pick<RequestRecord, 'time' | 'model' | 'requestId' | 'gateway' | 'host'>;

/** One row of a receipt's detail: what (label), its value, and for a check its state in words. */
export interface ChatReceiptRow {
  label: string;
  value: string;
  check?: { state: CheckState; text: string } | undefined;
}

/**
 * A reply's receipt as the chat shows it, in words from the host: a line under the reply, and the
 * whole receipt in sections (the record; the billing checks; the route findings, kept apart), with the
 * disclaimer. No raw record.
 */
export interface ChatReceipt {
  /** "Receipt: $0.0123 charged · consistent with the price list of 14:02" */
  line: string;
  /** `warning` when a check is inconsistent (billing or route) */
  kind: 'ok' | 'warning';
  /** the sentences of the inconsistent checks (shown under the line in the warning colour) */
  warnings: string[];
  sections: Array<{ title: string; rows: ChatReceiptRow[] }>;
  disclaimer: string;
}

export interface ModelOption {
  id: string;
  /** the gateway's published price ("$0.15 in / $0.60 out per 1M tokens"), when known */
  price?: string | undefined;
  /** from new-api's supported_endpoint_types, when known */
  capabilities?: Capability[] | undefined;
  /** the surface the gateway's refusals taught for this model (it answers only there), when one did */
  learnt?: ChatSurface | undefined;
}

/** A gateway as the chat names it: its id (settings, picker) and its name (shown). */
export interface ChatGatewayRef {
  id: string;
  name: string;
}

/** One gateway's models in the picker (a group, labelled with the gateway's name). */
export interface ModelGroup {
  gateway: ChatGatewayRef;
  /** the active gateway (a model of no chosen gateway is taken from it) */
  active: boolean;
  /** its models; a price only where this gateway publishes it */
  items: ModelOption[];
  /** the gateway's configured defaults (its models.chat / .native), listed first in its group */
  defaults: { compatible: string; native: string; responses?: string | undefined };
  /** why this gateway's models are not listed (failed, or no answer in time), in plain words */
  error?: string | undefined;
}

/** The model picker's list: every gateway with a token (and the active one), in the settings' order. */
export interface ModelList {
  groups: ModelGroup[];
  loading: boolean;
  /** why there is nothing to list at all (no gateway configured), in plain words */
  error?: string | undefined;
}

export interface ChatSnapshot {
  entries: ChatEntry[];
  options: ChatOptions;
  busy: boolean;
  /** a selection waiting to be sent with the next message */
  pendingContext?: SelectionContext | undefined;
  /** modelRelay.stream */
  streaming: boolean;
}

// ---------------------------------------------------------------------------------------------
// Host → webview

export type HostToWebview =
  /** answer to `ready`: the whole state (the webview replaces whatever it restored) */
  | { type: 'init'; state: ChatSnapshot; models: ModelList }
  /** New Chat: the conversation starts over */
  | { type: 'reset'; state: ChatSnapshot }
  | { type: 'models'; models: ModelList }
  | { type: 'entryAdded'; entry: ChatEntry }
  /** text appended to a streaming reply */
  | { type: 'entryDelta'; id: string; text: string }
  /** reasoning appended to a streaming reply (batched like text) */
  | { type: 'entryReasoning'; id: string; text: string }
  /** a `send` was not sent (e.g. images for a model without image input): the webview puts the message back */
  | { type: 'sendRefused'; message: string }
  /** an entry changed other than by appending (finished, stopped, failed, notice, retry) */
  | { type: 'entryUpdated'; entry: ChatEntry }
  | { type: 'entryRemoved'; id: string }
  | { type: 'busy'; busy: boolean }
  | { type: 'context'; context: SelectionContext | undefined }
  | { type: 'config'; streaming: boolean }
  | { type: 'focusInput' };

// ---------------------------------------------------------------------------------------------
// Webview → host (validated)

const MAX_TEXT = 200_000;
const MAX_CODE = 1_000_000;

export const chatOptionsSchema = z.object({
  surface: z.enum(['compatible', 'native', 'responses']),
  model: z.string().max(200),
  gateway: z.string().max(200).optional(),
  system: z.string().max(MAX_TEXT),
  temperature: z.number().min(0).max(2).nullable(),
  maxTokens: z.number().int().min(1).max(1_000_000),
});

/** Strict base64 (what upstreams accept), at most {@link MAX_IMAGE_BASE64} characters. */
export const imageAttachmentSchema = z.object({
  mimeType: z.enum(IMAGE_MIME_TYPES),
  data: z
    .string()
    .min(4)
    .max(MAX_IMAGE_BASE64)
    .refine((d) => d.length % 4 === 0 && /^[A-Za-z0-9+/]+={0,2}$/.test(d), 'not base64'),
  name: z.string().max(260).optional(),
});

export const webviewToHostSchema = z.discriminatedUnion('type', [
  /** the webview has loaded and listens: the host may post from now on */
  z.object({ type: z.literal('ready') }),
  z.object({
    type: z.literal('send'),
    text: z.string().max(MAX_TEXT),
    options: chatOptionsSchema,
    images: z.array(imageAttachmentSchema).max(MAX_IMAGES_PER_MESSAGE).optional(),
  }),
  z.object({ type: z.literal('stop') }),
  z.object({ type: z.literal('regenerate'), options: chatOptionsSchema }),
  /** after a failed stream: the same question once more, without streaming (the user chose to pay again) */
  z.object({ type: z.literal('retryWithoutStreaming'), options: chatOptionsSchema }),
  /** after a failure that may have been billed: the same question once more (the user chose to pay again) */
  z.object({ type: z.literal('retryBilled'), options: chatOptionsSchema }),
  z.object({ type: z.literal('newChat') }),
  /** persist the surface/model/system/temperature/max tokens choice */
  z.object({ type: z.literal('setOptions'), options: chatOptionsSchema }),
  z.object({ type: z.literal('clearContext') }),
  z.object({ type: z.literal('copyCode'), code: z.string().max(MAX_CODE) }),
  z.object({ type: z.literal('insertCode'), code: z.string().max(MAX_CODE) }),
  /** the error card's button: run Diagnose (or show the request log when it does not exist) */
  z.object({ type: z.literal('runDiagnose') }),
  z.object({ type: z.literal('showLog') }),
  /** the error card's button: Copy Support Report, with that error in it */
  z.object({ type: z.literal('copySupportReport'), entryId: z.string().max(200) }),
  /** the buffering notice's action: set modelRelay.stream to false */
  z.object({ type: z.literal('disableStreaming') }),
  z.object({ type: z.literal('refreshModels') }),
]);

export type WebviewToHost = z.infer<typeof webviewToHostSchema>;

/** Validates a message from the webview; undefined when it is not one of ours. */
export function parseWebviewMessage(raw: unknown): WebviewToHost | undefined {
  const r = webviewToHostSchema.safeParse(raw);
  return r.success ? r.data : undefined;
}
