/** The one chat interface both surfaces are translated into. */
import type { Surface } from '../errors/gatewayError';
import type { RetryNotice } from '../http/retryPolicy';

export type Role = 'user' | 'assistant';

export interface ChatMessage {
  role: Role;
  content: string;
}

export interface ChatRequest {
  surface: Surface;
  model: string;
  system?: string | undefined;
  messages: ChatMessage[];
  temperature?: number | undefined;
  maxTokens?: number | undefined;
  stream?: boolean | undefined;
  signal?: AbortSignal | undefined;
  /** Called where the core waits before retrying this request (429, 5xx, connection failures). */
  onRetry?: ((notice: RetryNotice) => void) | undefined;
}

export interface Usage {
  inputTokens?: number | undefined;
  outputTokens?: number | undefined;
}

export type ChatEvent =
  | { type: 'text'; text: string }
  | { type: 'usage'; usage: Usage }
  | { type: 'finish'; reason: string }
  | { type: 'done'; result: ChatResult };

export interface ChatResult {
  text: string;
  finishReason: string | undefined;
  usage: Usage | undefined;
  model: string | undefined;
  id: string | undefined;
  /** which host served the request */
  host: string;
  requestId: string | undefined;
  /** streams only: the events arrived in one burst at the end (a buffering proxy) */
  buffered?: boolean;
  /** streams only: the gateway answered JSON although a stream was requested */
  streamIgnored?: boolean;
  durationMs: number;
}

/** What a surface module returns from parsing one stream event. */
export type SurfaceEvent =
  | { type: 'text'; text: string }
  | { type: 'usage'; usage: Usage }
  | { type: 'finish'; reason: string }
  | { type: 'meta'; id?: string | undefined; model?: string | undefined; usage?: Usage | undefined }
  | { type: 'end' }
  | { type: 'error'; message: string; errorType?: string | undefined; code?: string | undefined };

export interface ParsedReply {
  text: string;
  finishReason: string | undefined;
  usage: Usage | undefined;
  model: string | undefined;
  id: string | undefined;
}

export interface SurfaceAdapter {
  readonly surface: Surface;
  readonly path: string;
  toRequest(req: ChatRequest, defaults: { maxTokens: number }): Record<string, unknown>;
  /** undefined: not a reply of this surface (unexpected shape); 'empty': a valid reply with no choices */
  parseReply(json: unknown): ParsedReply | 'empty' | undefined;
  /** Translates one SSE event; returns [] for events to ignore (ping, comments, unknown types). */
  parseEvent(ev: { event?: string | undefined; data: string }): SurfaceEvent[];
}
