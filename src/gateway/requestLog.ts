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
  extra: { errorKind?: ErrorKind | undefined; buffered?: boolean | undefined; usage?: TokenUsage | undefined },
) => void;

/** Starts the record of one attempt; the returned function ends it (the first call only). */
export function recordAttempt(sink: RequestLogSink | undefined, f: AttemptFacts, now: () => number): RecordEnd {
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
    try {
      sink?.(r);
    } catch {
      /* a broken sink must not break requests */
    }
  };
}

/** Formats a record as one log line, e.g. for an output channel. */
export function formatRecord(r: RequestRecord): string {
  const status = r.status ?? r.errorKind ?? '-';
  return `${r.time} ${r.method} ${r.host}${r.path} [${r.surface}] model=${r.model ?? '-'} status=${status} ${r.durationMs}ms token=${r.maskedToken}${r.requestId ? ` req=${r.requestId}` : ''}${r.attempt > 1 ? ` attempt=${r.attempt}` : ''}${r.stream ? ' stream' : ''}${r.purpose ? ` ${r.purpose}` : ''}${r.buffered ? ' BUFFERED' : ''}${r.gateway !== undefined ? ` gateway=${r.gateway}` : ''}`;
}
