/**
 * The gateway's own usage log, as an sk- token reads it (new-api `GET /api/log/token`, reference
 * shared/reference/gateway-economy.md §6): the records, what a read answered, and whether one of our
 * requests arrived. The reader lives in `usageLog.ts`; views and the support report see only these types.
 */
import type { GatewayError } from '../errors/gatewayError';
import type { Units } from './units';

/** One record of the gateway's usage log, parsed and bounded. */
export interface UsageRecord {
  /** when the gateway wrote it (ms since the epoch; the wire says Unix seconds) */
  time: number;
  /** type 2 is a billed call ("consume"), 5 an error; others are kept as 'other' */
  kind: 'consume' | 'error' | 'other';
  model: string;
  /** raw quota units, as billed */
  quota: number;
  /** `quota` in the gateway's display unit (USD / CNY / custom / tokens), as the balance is shown */
  cost: { amount: number; unit: string };
  promptTokens: number;
  completionTokens: number;
  /** whole seconds the gateway spent (`use_time`) */
  useTimeS: number;
  /** first-response time in ms (`other.frt`), when the gateway says */
  firstResponseMs: number | undefined;
  stream: boolean;
  tokenName: string;
  group: string;
  /** equal to the X-Oneapi-Request-Id header of the response; absent on servers older than early 2026 */
  requestId: string | undefined;
  /**
   * the request id another one-api/new-api relay gave the call when this gateway forwarded it there
   * (`upstream_request_id`, since 2026-05; shared/reference/relay-receipts.md §4)
   */
  upstreamRequestId?: string | undefined;
  /** `other.request_path` (e.g. /v1/chat/completions), when the gateway says */
  requestPath: string | undefined;
  /** `other` parsed from its JSON string (bounded); undefined when absent or not an object */
  other: Record<string, unknown> | undefined;
  /** the requests this record stands for, when more than one (the local estimate's counted code completions) */
  count?: number;
}

/** What one read of the usage log answered. */
export type UsageLogRead =
  | {
      state: 'ok';
      /** newest first, at most 1000 (the gateway's MaxRecentItems) */
      records: UsageRecord[];
      /** when the answer arrived (ms) */
      readAt: number;
      units: Units | undefined;
    }
  /** the gateway has no such route (one-api, new-api older than the endpoint) */
  | { state: 'unsupported' }
  /** the shared critical rate limit (about 20 per 20 minutes per IP): reads pause until `until` */
  | { state: 'limited'; until: number }
  /**
   * any other failure, already classified (the text is the error's own, masked; `error`: the error
   * itself, when the read failed with one — a log too large to read did not)
   */
  | { state: 'failed'; message: string; error?: GatewayError | undefined };

/** Whether one of our requests reached the gateway, by its request id. */
export type Arrival =
  /** the gateway logged it: billed amount and tokens are in the record */
  | { state: 'arrived'; record: UsageRecord }
  /** the log was read after the record should exist and has none: it did not arrive, or was not billed */
  | { state: 'no-record'; checkedAt: number }
  /** too soon: the record is written after the response finished (allow a few seconds) */
  | { state: 'pending' }
  /**
   * cannot tell: the gateway has no log for a token, the request has no id, the log carries no ids, reads
   * are paused by the rate limit or failed, or the request is older than the newest 1000 records (`rolled-out`)
   */
  | {
      state: 'unknown';
      reason: 'unsupported' | 'no-request-id' | 'no-ids-in-log' | 'limited' | 'failed' | 'rolled-out';
    };
