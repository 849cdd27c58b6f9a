/**
 * Code completions (issue 25): the shared shape of one completion request and its answer. The core
 * (`src/gateway/completions/`) asks the gateway either by fill-in-the-middle on `POST /v1/completions`
 * (`prompt` + `suffix`) or by a short chat request on the model's surface that returns only the
 * insertion; the host's engine (`src/host/completions/`) decides when to ask and never sees the wire.
 */

/** How a model is asked for an insertion. */
export type CompletionMode = 'fim' | 'chat';

export interface CompletionRequest {
  model: string;
  /** the text before the cursor (already cut to the context budget) */
  prefix: string;
  /** the text after the cursor (already cut to the context budget) */
  suffix: string;
  /** VS Code's language id, e.g. "typescript" */
  languageId: string;
  /** the file's name relative to its workspace folder (never an absolute path outside it) */
  fileName: string;
  /** default: 128 */
  maxTokens?: number;
  /** forced mode; default: the model's (FIM-capable family or `overrides[id].fim`, else chat) */
  mode?: CompletionMode;
  /** aborting closes the socket at once */
  signal?: AbortSignal;
  /**
   * Send only once this resolves (the engine's debounce): the token's scope, the mode and the body
   * are prepared meanwhile, so the wait hides that work. When it rejects nothing is sent and
   * `complete` rejects with its reason.
   */
  sendAfter?: Promise<unknown>;
}

export interface CompletionResult {
  /** the text to insert at the cursor (may span lines; never repeats the prefix or the suffix) */
  text: string;
  /**
   * how the model's answer ended, in the gateway's words (FIM `finish_reason`, the chat's finish
   * reason): read by answerEnding — an answer cut by max tokens may stop mid-line, a filtered one is
   * not an answer (the engine decides what is shown)
   */
  finishReason?: string | undefined;
  mode: CompletionMode;
  model: string;
  /** tokens the gateway reported (or estimated when it reported none) */
  usage?: { input: number; output: number; estimated?: boolean };
  /** the gateway's request id (X-Oneapi-Request-Id), for the request log and the usage log */
  requestId?: string;
  /** wall time of the HTTP exchange, ms */
  durationMs: number;
}

/** What the host's engine needs from the core: one call per shown suggestion at most. */
export interface CompletionClient {
  complete(req: CompletionRequest): Promise<CompletionResult>;
  /**
   * A request is coming (the engine's debounce started): open a connection to the gateway now, so
   * the request does not wait for a handshake. Sends nothing; cheap when one is ready.
   */
  warm?(): void;
}
