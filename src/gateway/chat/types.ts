/** The one chat interface both surfaces are translated into. */
import type { Surface } from '../errors/gatewayError';
import type { RetryNotice } from '../http/retryPolicy';
import type { RequestPurpose } from '../requestLog';
import type { Learnt, ReasoningEffort } from './modelRules';
import type { RequestAdjustment } from './wirePlan';

export type Role = 'user' | 'assistant';

/** One piece of a message: text, an image, a tool call or its result, or the model's own reasoning. */
export type TextPart = { type: 'text'; text: string };
export type ImagePart = { type: 'image'; mimeType: string; /** base64, no data: prefix */ data: string };
export type ToolCallPart = { type: 'tool_call'; id: string; name: string; input: Record<string, unknown> };
export type ToolResultPart = {
  type: 'tool_result';
  callId: string;
  content: Array<TextPart | ImagePart>;
  isError?: boolean | undefined;
};
/** The native surface's signed reasoning, kept to be sent back with the tool results it preceded. */
export type ThinkingPart = { type: 'thinking'; text: string; signature: string };
export type RedactedThinkingPart = { type: 'redacted_thinking'; data: string };
/**
 * The compatible surface's reasoning (`reasoning_content`) of an assistant turn, sent back with
 * its tool calls where the model's vendor requires it (shared/reference/reasoning-replay.md).
 */
export type ReasoningPart = { type: 'reasoning'; text: string };
/**
 * The responses surface's reasoning item, replayed statelessly (`store: false`) directly in front
 * of the item that followed it (shared/reference/responses-api.md §5).
 */
export type ReasoningItemPart = {
  type: 'reasoning_item';
  id: string;
  summary: string[];
  encryptedContent?: string | undefined;
};
export type ContentPart =
  | TextPart
  | ImagePart
  | ToolCallPart
  | ToolResultPart
  | ThinkingPart
  | RedactedThinkingPart
  | ReasoningPart
  | ReasoningItemPart;

export interface ChatMessage {
  role: Role;
  /** plain text, or parts (images, tool calls and results, reasoning) */
  content: string | ContentPart[];
}

/** A function the model may call. */
export interface ToolSpec {
  name: string;
  description?: string | undefined;
  /** JSON schema of the input; an object schema */
  inputSchema?: Record<string, unknown> | undefined;
}

export interface ToolCall {
  id: string;
  name: string;
  input: Record<string, unknown>;
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
  tools?: ToolSpec[] | undefined;
  /** 'required': the model must call one of the tools */
  toolMode?: 'auto' | 'required' | undefined;
  /**
   * responses surface: ask for the reasoning items' encrypted content, to replay them (default: for
   * a model that reasons or is not known; a model without reasoning refuses it, and a refusal is
   * remembered: refusals.ts)
   */
  encryptedReasoning?: boolean | undefined;
  /**
   * native surface: extended thinking with this budget (adaptive thinking at an effort near it where
   * the model takes only that); responses surface: reasoning summaries
   */
  thinking?: { budgetTokens: number } | undefined;
  /**
   * how much a reasoning model reasons: clamped to the efforts the model accepts, never sent to a
   * model without reasoning (modelRules.ts); unset: the model's default
   */
  effort?: ReasoningEffort | undefined;
  /**
   * compatible surface: send the reasoning of earlier assistant turns back (`reasoning_content`);
   * unset: as the model's family requires (reasoningReplay.ts); false: never; true: always where it
   * may matter, empty where none is known.
   */
  replayReasoning?: boolean | undefined;
  /**
   * A probe (the diagnosis): a complete reply with neither text nor a tool call is returned, not
   * thrown — a reasoning model given a tiny max tokens spends it all on reasoning.
   */
  acceptEmptyReply?: boolean | undefined;
  /** Called where the core waits before retrying this request (429, 5xx, connection failures). */
  onRetry?: ((notice: RetryNotice) => void) | undefined;
  /**
   * 'completion': an inline code completion (completions/): labelled so in the request log, and never
   * re-sent (a late suggestion is a lost one, and a billed call is not repeated).
   */
  purpose?: RequestPurpose | undefined;
}

export interface Usage {
  inputTokens?: number | undefined;
  outputTokens?: number | undefined;
}

export type ChatEvent =
  | { type: 'text'; text: string }
  /** the model's reasoning as it streams (compatible reasoning_content, native thinking) */
  | { type: 'reasoning'; text: string }
  /** one complete tool call, its input parsed */
  | { type: 'tool_call'; call: ToolCall }
  /**
   * a complete signed thinking block (native) or reasoning item (responses), to be sent back with
   * the tool results (in output order)
   */
  | { type: 'thinking_block'; block: ReplayedReasoning }
  | { type: 'usage'; usage: Usage }
  | { type: 'finish'; reason: string }
  | { type: 'done'; result: ChatResult };

/** Reasoning a surface needs back on the next turn: native signed thinking, responses reasoning items. */
export type ReplayedReasoning = ThinkingPart | RedactedThinkingPart | ReasoningItemPart;

export interface ChatResult {
  text: string;
  toolCalls: ToolCall[];
  reasoning: string;
  /** what to send back in front of this reply's tool calls (or text), in output order */
  thinking: ReplayedReasoning[];
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
  /** across several gateways (chatStreamAcross, chatAcross): the gateway that answered */
  gateway?: { id: string; name: string };
  /** the request went to another surface than it asked for (the model answers only there): see refusals.ts */
  surfaceMove?: SurfaceMove;
  /**
   * what was sent otherwise than asked, and what a refusal of this gateway taught (modelRules.ts,
   * refusals.ts): e.g. a temperature the model refuses, left out
   */
  adjustments?: RequestAdjustment[];
}

/** A model's request moved to another surface: where from and where to, and whether this request taught it. */
export interface SurfaceMove {
  model: string;
  from: Surface;
  to: Surface;
  /** true: this request was refused where it asked to go, and moved; false: an earlier refusal was remembered */
  learntNow: boolean;
}

/** What a surface module returns from parsing one stream event. */
export type SurfaceEvent =
  | { type: 'text'; text: string }
  /** index: the native thinking block it belongs to */
  | { type: 'reasoning'; text: string; index?: number | undefined }
  /** a tool call starts (native: a tool_use block; compatible: a delta with an id or a name) */
  | {
      type: 'tool_start';
      index: number;
      id?: string | undefined;
      name?: string | undefined;
      input?: Record<string, unknown> | undefined;
      /** responses: the call's complete arguments (they replace the fragments so far) */
      args?: string | undefined;
    }
  | { type: 'tool_args'; index: number; fragment: string }
  /** native: a thinking / redacted_thinking block starts */
  | { type: 'thinking_start'; index: number; data?: string | undefined }
  | { type: 'signature'; index: number; signature: string }
  /** native: a content block is complete; responses: an output item (a function call) is complete */
  | { type: 'block_stop'; index: number }
  /** responses: a complete reasoning item (from `response.output_item.done`), to be replayed */
  | { type: 'reasoning_item'; item: ReasoningItemPart }
  | { type: 'usage'; usage: Usage }
  | { type: 'finish'; reason: string }
  | { type: 'meta'; id?: string | undefined; model?: string | undefined; usage?: Usage | undefined }
  | { type: 'end' }
  /** an error the gateway sent inside the stream, in its own words */
  | { type: 'error'; message: string; errorType?: string | undefined; code?: string | undefined }
  /** an event whose data is not JSON (a proxy or a broken gateway): never part of a reply */
  | { type: 'garbled'; data: string };

export interface ParsedReply {
  text: string;
  toolCalls: ToolCall[];
  reasoning: string;
  thinking: ReplayedReasoning[];
  /** a tool call whose arguments are not a JSON object */
  badToolCall?: { name: string; args: string } | undefined;
  finishReason: string | undefined;
  usage: Usage | undefined;
  model: string | undefined;
  id: string | undefined;
}

/** What a request body is built with besides the request: the native max_tokens default, and what refusals taught. */
export interface BuildContext {
  /** native: max_tokens when none is asked */
  maxTokens: number;
  /** what this gateway's refusals taught for the model (modelMemory.ts) */
  learnt?: Learnt | undefined;
}

export interface SurfaceAdapter {
  readonly surface: Surface;
  readonly path: string;
  toRequest(req: ChatRequest, ctx: BuildContext): Record<string, unknown>;
  /** undefined: not a reply of this surface (unexpected shape); 'empty': a valid reply with no choices */
  parseReply(json: unknown): ParsedReply | 'empty' | undefined;
  /** Translates one SSE event; returns [] for events to ignore (ping, comments, unknown types). */
  parseEvent(ev: { event?: string | undefined; data: string }): SurfaceEvent[];
}
