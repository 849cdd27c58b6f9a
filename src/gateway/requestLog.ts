/** One record per request (spec 7 rule 2): never the full token, only the masked form. */
import type { ErrorKind, Surface } from './errors/gatewayError';
import { maskToken } from './mask';
import type { Capability } from './models';

export interface RequestRecord {
  time: string;
  surface: Surface | 'none';
  capability: Capability | 'models' | 'account';
  host: string;
  method: string;
  path: string;
  model: string | undefined;
  status: number | undefined;
  /** classification when the request failed */
  errorKind: ErrorKind | undefined;
  durationMs: number;
  maskedToken: string;
  requestId: string | undefined;
  attempt: number;
  stream: boolean;
  /** true when a stream's events all arrived in one burst (a buffering proxy) */
  buffered?: boolean;
  /** the gateway's name, when the client is one of a GatewaySet's (several gateways) */
  gateway?: string;
  /** the tokens the reply said it used, when it said (a chat's final usage, an image answer's `usage`) */
  usage?: TokenUsage;
  /** what the request was for, when not the capability's usual use: 'completion' (an inline code completion) */
  purpose?: RequestPurpose;
  /** a count made here of the input sent, where one could be compared (plain text, a bundled tokenizer: economy/inputCount.ts) */
  localInput?: LocalCount;
}

/** Requests made for a feature that the log and the Usage view tell apart (code completions: many small calls). */
export type RequestPurpose = 'completion';

export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
}

const count = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.round(v) : undefined;

/** Tokens in / out as the reply reports them (either side may be missing), or undefined when it says neither. */
export function tokenUsage(input: unknown, output: unknown): TokenUsage | undefined {
  const i = count(input);
  const o = count(output);
  return i === undefined && o === undefined ? undefined : { promptTokens: i ?? 0, completionTokens: o ?? 0 };
}

/** The `usage` of a JSON answer: OpenAI's prompt/completion tokens or the input/output tokens of images and /v1/messages. */
export function usageOfBody(data: unknown): TokenUsage | undefined {
  const u = data && typeof data === 'object' ? (data as { usage?: unknown }).usage : undefined;
  if (!u || typeof u !== 'object') return undefined;
  const o = u as Record<string, unknown>;
  return tokenUsage(o.prompt_tokens ?? o.input_tokens, o.completion_tokens ?? o.output_tokens);
}

/** A count of the input sent, made here (plain text only: images, files and tool schemas are not recounted). */
export interface LocalCount {
  tokens: number;
  /** e.g. "o200k_base" */
  tokenizer: string;
}

const MAX_TOKENIZER_NAME = 40;
/** A local count as read back from a file another program could have written. */
export const isLocalCount = (v: unknown): v is LocalCount =>
  !!v &&
  typeof v === 'object' &&
  Number.isSafeInteger((v as LocalCount).tokens) &&
  (v as LocalCount).tokens >= 0 &&
  typeof (v as LocalCount).tokenizer === 'string' &&
  (v as LocalCount).tokenizer.length <= MAX_TOKENIZER_NAME;

export type RequestLogSink = (record: RequestRecord) => void;

export interface AttemptFacts {
  surface: Surface;
  capability: RequestRecord['capability'];
  host: string;
  method: string;
  path: string;
  model: string | undefined;
  /** masked before it is recorded */
  token: string;
  attempt: number;
  stream: boolean;
  purpose?: RequestPurpose | undefined;
}

export type RecordEnd = (
  status: number | undefined,
  requestId: string | undefined,
  extra: {
    errorKind?: ErrorKind | undefined;
    buffered?: boolean | undefined;
    usage?: TokenUsage | undefined;
    /** the count of the input sent, still being made: the record waits for it (at most COUNT_WAIT_MS) */
    localInput?: Promise<LocalCount | undefined> | undefined;
  },
) => void;

/** The longest a record waits for its local count (the tokenizer loading, a long text counted in slices). */
export const COUNT_WAIT_MS = 10_000;

/** A count, or undefined once it failed or took longer than COUNT_WAIT_MS. */
function boundedCount(p: Promise<LocalCount | undefined>): Promise<LocalCount | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), COUNT_WAIT_MS);
    timer.unref?.(); // a count never holds the process
  });
  return Promise.race([p.catch(() => undefined), late]).finally(() => clearTimeout(timer));
}

/**
 * Starts the record of one attempt; the returned function ends it (the first call only). A record that waits
 * for its local count is handed to `waiting` until it is written.
 */
export function recordAttempt(
  sink: RequestLogSink | undefined,
  f: AttemptFacts,
  now: () => number,
  waiting?: (writing: Promise<void>) => void,
): RecordEnd {
  const started = now();
  let finished = false;
  return (status, requestId, extra) => {
    if (finished) return;
    finished = true;
    const { token, purpose, ...facts } = f;
    const r: RequestRecord = {
      time: new Date(started).toISOString(),
      ...facts,
      status,
      errorKind: extra.errorKind,
      durationMs: Math.max(0, now() - started),
      maskedToken: maskToken(token),
      requestId,
    };
    if (extra.buffered !== undefined) r.buffered = extra.buffered;
    if (extra.usage) r.usage = extra.usage;
    if (purpose) r.purpose = purpose;
    const emit = () => {
      try {
        sink?.(r);
      } catch {
        /* a broken sink must not break requests */
      }
    };
    if (!extra.localInput) return emit();
    // written once the count is made (the transport's `recordsWritten` waits for it)
    const writing = boundedCount(extra.localInput).then((local) => {
      if (local) r.localInput = local;
      emit();
    });
    waiting?.(writing);
  };
}

/** Formats a record as one log line, e.g. for an output channel. */
export function formatRecord(r: RequestRecord): string {
  const status = r.status ?? r.errorKind ?? '-';
  return `${r.time} ${r.method} ${r.host}${r.path} [${r.surface}] model=${r.model ?? '-'} status=${status} ${r.durationMs}ms token=${r.maskedToken}${r.requestId ? ` req=${r.requestId}` : ''}${r.attempt > 1 ? ` attempt=${r.attempt}` : ''}${r.stream ? ' stream' : ''}${r.purpose ? ` ${r.purpose}` : ''}${r.buffered ? ' BUFFERED' : ''}${r.gateway !== undefined ? ` gateway=${r.gateway}` : ''}`;
}
