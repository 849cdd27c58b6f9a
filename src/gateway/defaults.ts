/**
 * Every default of the client, in one place: the core reads them when a caller gives nothing, and
 * the extension's settings schema takes its defaults from here (a test checks they equal
 * package.json's `contributes.configuration` defaults).
 */

/** Output cap; `max_tokens` sent on the native surface when the caller gives none (spec 2.4: always required). */
export const DEFAULT_MAX_TOKENS = 4096;

/** Retries after the first attempt for 429 / 5xx / connection failures, with backoff and jitter. */
export const DEFAULT_RETRY = { maxRetries: 2, baseDelayMs: 500, maxDelayMs: 8_000, maxRetryAfterMs: 60_000 } as const;

export const DEFAULT_TIMEOUTS = {
  /** chat, models: whole non-streamed request, or time to the first byte of a stream */
  chatMs: 120_000,
  /** the longest silence allowed between two stream events (keep-alive comments do not count) */
  streamIdleMs: 60_000,
  /** a whole chat reply, streamed or not, body included */
  chatOverallMs: 10 * 60_000,
  imageMs: 300_000,
  videoMs: 120_000,
  /** overall limit for waiting on a video task */
  videoOverallMs: 30 * 60_000,
} as const;

/** Balance, status and pricing reads: small documents, never worth a long wait. */
export const ACCOUNT_TIMEOUT_MS = 15_000;

/** Requests of one kind running at once (more wait in a queue). */
export const DEFAULT_CONCURRENCY = { image: 2, video: 1 } as const;

/**
 * The largest single server-sent event read from a stream (both surfaces): a reply's events are a
 * few KB (an image in a streamed reply a few MB); a larger one is a broken or hostile gateway, and
 * the stream is closed instead of growing without bound.
 */
export const MAX_STREAM_EVENT_BYTES = 8 * 1024 * 1024;

/** Largest generated image read from a result URL or b64 answer (anything larger is refused, unread). */
export const DEFAULT_MAX_IMAGE_BYTES = 50 * 1024 * 1024;

/** Largest image sent for editing unless the model's own limit is lower. */
export const DEFAULT_MAX_UPLOAD_BYTES = 20 * 1024 * 1024;

export const DEFAULT_IMAGE_SIZE = '1024x1024';
export const DEFAULT_VIDEO_SECONDS = 4;
export const DEFAULT_OUTPUT_FOLDERS = { images: '.model-relay/images', videos: '.model-relay/videos' } as const;

/** The variables a native command-line tool reads (set up in terminals by the extension). */
export const DEFAULT_CLI_VARIABLES = { baseUrl: 'ANTHROPIC_BASE_URL', token: 'ANTHROPIC_AUTH_TOKEN' } as const;

/** The diagnose engine: one request's limit, and the whole run's budget. */
export const DEFAULT_DIAGNOSIS_TIMEOUTS = { requestMs: 20_000, totalMs: 90_000, arrivalMs: 2_000 } as const;

/**
 * Reading the model lists of several gateways at once (listModelsAcross): a gateway that has not
 * answered within this is aborted and reported as not answering, so the others' models never wait
 * longer. A model list is one small GET: a gateway that needs more than 2.5 s is not answering
 * usefully for a model picker.
 */
export const LIST_ACROSS_BOUND_MS = 2_500;

/** Per-capability limits (ms), as the client holds them. */
export type Timeouts = { -readonly [K in keyof typeof DEFAULT_TIMEOUTS]: number };
