/** The native messages surface's version header value (spec section 9). The one place it is defined. */
export const NATIVE_VERSION = '2023-06-01';

/** `max_tokens` sent on the native surface when the caller gives none (spec 2.4: always required). */
export const DEFAULT_NATIVE_MAX_TOKENS = 4096;

/** Default number of retries for 429 / 5xx / connection failures (after the first attempt). */
export const DEFAULT_MAX_RETRIES = 2;

export const DEFAULT_TIMEOUTS = {
  /** chat, models: whole non-streamed request, or time to the first byte of a stream */
  chatMs: 120_000,
  /** the longest silence allowed between two stream events */
  streamIdleMs: 60_000,
  imageMs: 300_000,
  videoMs: 120_000,
  /** overall limit for waiting on a video task */
  videoOverallMs: 30 * 60_000,
} as const;

export const DEFAULT_CONCURRENCY = { image: 2, video: 1 } as const;

export const USER_AGENT = 'model-relay-vscode/0.1';
