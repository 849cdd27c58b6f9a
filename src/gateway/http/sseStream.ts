/**
 * Turns a response body into an async iterable of server-sent events using eventsource-parser
 * (never a hand-rolled parser), recording when each event arrived so a buffering proxy can be told
 * apart from a real stream.
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';

export interface TimedEvent extends EventSourceMessage {
  /** ms since the request started */
  at: number;
}

/**
 * The events of each network chunk as one batch (one async step per chunk, not per event: a
 * stream of many small events stays cheap).
 */
export async function* sseEventBatches(body: AsyncIterable<Buffer | Uint8Array | string>, startedAt: number, now: () => number): AsyncGenerator<TimedEvent[]> {
  let pending: TimedEvent[] = [];
  let at = 0;
  const parser = createParser({
    onEvent: (ev) => {
      pending.push({ id: ev.id, event: ev.event, data: ev.data, at });
    },
  });
  const decoder = new TextDecoder('utf-8');
  for await (const chunk of body) {
    at = now() - startedAt;
    parser.feed(typeof chunk === 'string' ? chunk : decoder.decode(chunk as Uint8Array, { stream: true }));
    if (pending.length) {
      const batch = pending;
      pending = [];
      yield batch;
    }
  }
  const rest = decoder.decode();
  at = now() - startedAt;
  if (rest) parser.feed(rest);
  // A last event whose closing blank line never came is still delivered; whether the stream was
  // complete is judged by the surface's end marker ([DONE] / message_stop), not by framing.
  parser.reset({ consume: true });
  if (pending.length) yield pending;
}

/** The same events one by one. */
export async function* sseEvents(body: AsyncIterable<Buffer | Uint8Array | string>, startedAt: number, now: () => number): AsyncGenerator<TimedEvent> {
  for await (const batch of sseEventBatches(body, startedAt, now)) yield* batch;
}

export interface BurstThresholds {
  /** fewer content events than this are never judged */
  minEvents: number;
  /** the wait before the first event must be at least this long */
  minWaitMs: number;
  /** all events arrived within max(spanMs, spanRatio * total) */
  spanMs: number;
  spanRatio: number;
}

export const DEFAULT_BURST: BurstThresholds = { minEvents: 4, minWaitMs: 250, spanMs: 50, spanRatio: 0.05 };

/**
 * True when a stream's events all arrived in one burst at the end: typical of a proxy that buffers
 * the whole response (spec section 6) rather than a stream that flowed.
 */
export function isBurst(arrivals: readonly number[], totalMs: number, t: BurstThresholds = DEFAULT_BURST): boolean {
  if (arrivals.length < t.minEvents) return false;
  const first = arrivals[0]!;
  const last = arrivals[arrivals.length - 1]!;
  if (first < t.minWaitMs) return false;
  return last - first <= Math.max(t.spanMs, t.spanRatio * totalMs);
}
