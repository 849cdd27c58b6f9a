/** One record per request (spec 7 rule 2): never the full token, only the masked form. */
import type { Surface } from './errors/gatewayError';

export interface RequestRecord {
  time: string;
  surface: Surface | 'none';
  capability: string;
  host: string;
  method: string;
  path: string;
  model: string | undefined;
  status: number | undefined;
  /** classification when the request failed */
  errorKind: string | undefined;
  durationMs: number;
  maskedToken: string;
  requestId: string | undefined;
  attempt: number;
  stream: boolean;
  /** true when a stream's events all arrived in one burst (a buffering proxy) */
  buffered?: boolean;
}

export type RequestLogSink = (record: RequestRecord) => void;

/** Formats a record as one log line, e.g. for an output channel. */
export function formatRecord(r: RequestRecord): string {
  const status = r.status ?? r.errorKind ?? '-';
  return `${r.time} ${r.method} ${r.host}${r.path} [${r.surface}] model=${r.model ?? '-'} status=${status} ${r.durationMs}ms token=${r.maskedToken}${r.requestId ? ` req=${r.requestId}` : ''}${r.attempt > 1 ? ` attempt=${r.attempt}` : ''}${r.stream ? ' stream' : ''}${r.buffered ? ' BUFFERED' : ''}`;
}
