/**
 * Whether a request reached the gateway, from a read of its usage log: found by request id, or "no record"
 * only when the read was made after the record should exist, the log carries request ids, and the request
 * is not older than the oldest of the newest 1000 records the gateway sends.
 */
import { USAGE_LOG_BOUNDS } from './usageLogParse';
import type { Arrival, UsageLogRead } from './usageTypes';

type OkRead = UsageLogRead & { state: 'ok' };

/**
 * The arrival of `requestId` (sent at `sentAt`, its record due by `readyAt`) in `read`; `lastOk` is the
 * newest successful read, which may still show the record when this read was limited or failed.
 */
export function arrivalIn(
  read: UsageLogRead,
  lastOk: OkRead | undefined,
  requestId: string,
  sentAt: number,
  readyAt: number,
): Arrival {
  const seen = lastOk?.records.find((r) => r.requestId === requestId);
  if (seen) return { state: 'arrived', record: seen };
  if (read.state === 'unsupported') return { state: 'unknown', reason: 'unsupported' };
  if (read.state === 'limited') return { state: 'unknown', reason: 'limited' };
  if (read.state === 'failed') return { state: 'unknown', reason: 'failed' };
  const found = read.records.find((r) => r.requestId === requestId);
  if (found) return { state: 'arrived', record: found };
  if (read.records.length && !read.records.some((r) => r.requestId))
    return { state: 'unknown', reason: 'no-ids-in-log' };
  // A read from before the record was due says nothing yet: ask again after the next read.
  if (read.readAt < readyAt) return { state: 'pending' };
  const oldest = read.records[read.records.length - 1];
  // The gateway sends its newest 1000: a request older than the oldest of them may have rolled out.
  // (Records carry whole seconds: one second of slack.)
  if (read.records.length >= USAGE_LOG_BOUNDS.records && oldest && oldest.time > sentAt - 1000)
    return { state: 'unknown', reason: 'rolled-out' };
  return { state: 'no-record', checkedAt: read.readAt };
}
