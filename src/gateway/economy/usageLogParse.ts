/**
 * The usage log's answer (`GET /api/log/token`, shared/reference/gateway-economy.md §6) parsed and
 * bounded: the newest 1000 records (servers before 2026-02-06 send every row, unordered:
 * relay-receipts.md §1.2), each checked on its own (a malformed one is left out, not the read), `other`
 * parsed from its JSON string under a size cap, quota in the gateway's display unit.
 */
import { z } from 'zod';
import type { UsageRecord } from './usageTypes';
import { fromQuota, type Units } from './units';

export const USAGE_LOG_PATH = '/api/log/token';

export const USAGE_LOG_BOUNDS = {
  /** the gateway's MaxRecentItems */
  records: 1000,
  /** the whole answer (1000 records of about 1 KB, with room) */
  bytes: 4 * 1024 * 1024,
  /** one record's `other` string */
  otherChars: 8 * 1024,
  /** names and ids kept from a record */
  textChars: 200,
};

const num = z.number().finite().nullish();
const text = z.string().nullish();
const recordSchema = z.object({
  created_at: z.number().finite(),
  type: z.number().int().nullish(),
  model_name: text,
  quota: num,
  prompt_tokens: num,
  completion_tokens: num,
  use_time: num,
  is_stream: z.boolean().nullish(),
  token_name: text,
  group: text,
  request_id: text,
  upstream_request_id: text,
  other: text,
});

const answerSchema = z.object({
  success: z.boolean(),
  message: z.string().nullish(),
  data: z.unknown().optional(),
});

export type LogAnswer =
  | { ok: true; rows: unknown[] }
  /** `success: false` with the gateway's own message */
  | { ok: false; message: string };

/** The envelope: the rows (not yet parsed; as many as the answer's byte cap let in) or the gateway's refusal. */
export function parseLogAnswer(json: unknown): LogAnswer | undefined {
  const r = answerSchema.safeParse(json);
  if (!r.success) return undefined;
  if (!r.data.success) return { ok: false, message: (r.data.message ?? '').slice(0, 500) };
  return { ok: true, rows: Array.isArray(r.data.data) ? (r.data.data as unknown[]) : [] };
}

/** `other` from its JSON string (bounded); undefined when absent, too long or not an object. */
export function parseOther(raw: string | null | undefined): Record<string, unknown> | undefined {
  if (!raw || raw.length > USAGE_LOG_BOUNDS.otherChars) return undefined;
  try {
    const v = JSON.parse(raw) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

const clip = (s: string | null | undefined) => (s ?? '').slice(0, USAGE_LOG_BOUNDS.textChars);
const count = (n: number | null | undefined) => (n !== null && n !== undefined && n >= 0 ? n : 0);
const kindOf = (type: number | null | undefined): UsageRecord['kind'] =>
  type === 2 ? 'consume' : type === 5 ? 'error' : 'other';

/** One record, or undefined when it is not one. Without the gateway's units the cost stays in raw quota. */
export function parseRecord(row: unknown, units: Units | undefined): UsageRecord | undefined {
  const r = recordSchema.safeParse(row);
  if (!r.success) return undefined;
  const d = r.data;
  const quota = count(d.quota);
  const other = parseOther(d.other);
  const frt = other?.frt;
  const path = other?.request_path;
  return {
    time: d.created_at * 1000,
    kind: kindOf(d.type),
    model: clip(d.model_name),
    quota,
    cost: units ? fromQuota(quota, units) : { amount: quota, unit: 'tokens' },
    promptTokens: count(d.prompt_tokens),
    completionTokens: count(d.completion_tokens),
    useTimeS: count(d.use_time),
    firstResponseMs: typeof frt === 'number' && Number.isFinite(frt) && frt >= 0 ? frt : undefined,
    stream: d.is_stream === true,
    tokenName: clip(d.token_name),
    group: clip(d.group),
    requestId: d.request_id ? clip(d.request_id) : undefined,
    ...(d.upstream_request_id ? { upstreamRequestId: clip(d.upstream_request_id) } : {}),
    requestPath: typeof path === 'string' ? path.slice(0, USAGE_LOG_BOUNDS.textChars) : undefined,
    other,
  };
}

const createdAt = (row: unknown): number => {
  const v = row && typeof row === 'object' ? (row as { created_at?: unknown }).created_at : undefined;
  return typeof v === 'number' && Number.isFinite(v) ? v : -Infinity;
};

/**
 * The newest 1000 records of an answer, newest first: a current gateway sends them so; an older one sends
 * every row in no order, so the rows are sorted by time before any is kept.
 */
export function parseRecords(rows: unknown[], units: Units | undefined): UsageRecord[] {
  const newest =
    rows.length > USAGE_LOG_BOUNDS.records
      ? [...rows].sort((a, b) => createdAt(b) - createdAt(a)).slice(0, USAGE_LOG_BOUNDS.records)
      : rows;
  const out: UsageRecord[] = [];
  for (const row of newest) {
    const rec = parseRecord(row, units);
    if (rec) out.push(rec);
  }
  return out.sort((a, b) => b.time - a.time);
}
