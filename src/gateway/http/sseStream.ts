/**
 * Turns a response body into an async iterable of server-sent events using eventsource-parser
 * (never a hand-rolled parser), recording when each event arrived so a buffering proxy can be told
 * apart from a real stream. One event is bounded (MAX_STREAM_EVENT_BYTES): a line that never ends
 * stops the stream with EventTooLarge instead of growing in memory.
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { MAX_STREAM_EVENT_BYTES } from '../defaults';

/** One event grew past the limit before it ended (the caller names it as a classified error). */
export class EventTooLarge extends Error {
  override readonly name = 'EventTooLarge';
  constructor(readonly limit: number) {
    super(`A server-sent event grew past ${limit} bytes before it ended.`);
  }
}

export interface TimedEvent extends EventSourceMessage {
  /** ms since the request started */
  at: number;
}

/** The events one network chunk completed, and when that chunk arrived (ms since the request started). */
export interface SseChunk {
  at: number;
  /** the parser's own event objects (never copied) */
  events: EventSourceMessage[];
}

/**
 * The events of each network chunk as one batch (one async step per chunk, not per event: a
 * stream of many small events stays cheap). Chunks that complete no event yield nothing. Throws
 * EventTooLarge when one event (its open line and its data so far) grows past `maxEventBytes`.
 */
export async function* sseChunks(
  body: AsyncIterable<Buffer | Uint8Array | string>,
  startedAt: number,
  now: () => number,
  maxEventBytes: number = MAX_STREAM_EVENT_BYTES,
): AsyncGenerator<SseChunk> {
  let pending: EventSourceMessage[] = [];
  let tooLarge = false;
  const parser = createParser({
    onEvent: (ev) => {
      pending.push(ev);
    },
    // The parser's own bound: the line in progress plus the event's data so far.
    maxBufferSize: maxEventBytes,
    onError: (e) => {
      if (e.type === 'max-buffer-size-exceeded') tooLarge = true;
    },
  });
  const decoder = new TextDecoder('utf-8');
  for await (const chunk of body) {
    const at = now() - startedAt;
    parser.feed(typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true }));
    if (pending.length) {
      const events = pending;
      pending = [];
      yield { at, events };
    }
    // (the events this chunk completed first, as a failure inside a chunk is delivered after them)
    if (tooLarge) throw new EventTooLarge(maxEventBytes);
  }
  const rest = decoder.decode();
  const at = now() - startedAt;
  if (rest) parser.feed(rest);
  // A last event whose closing blank line never came is still delivered; whether the stream was
  // complete is judged by the surface's end marker ([DONE] / message_stop), not by framing.
  parser.reset({ consume: true });
  if (pending.length) yield { at, events: pending };
}

/** The same batches with each event's arrival time on the event. */
export async function* sseEventBatches(
  body: AsyncIterable<Buffer | Uint8Array | string>,
  startedAt: number,
  now: () => number,
): AsyncGenerator<TimedEvent[]> {
  for await (const { at, events } of sseChunks(body, startedAt, now))
    yield events.map((ev) => ({ id: ev.id, event: ev.event, data: ev.data, at }));
}

/** An event's data as JSON, or undefined when it is not JSON as it stands (the caller then looks closer). */
export function jsonOrUndefined(data: string): unknown {
  try {
    return JSON.parse(data) as unknown;
  } catch {
    return undefined;
  }
}

/** The same events one by one. */
export async function* sseEvents(
  body: AsyncIterable<Buffer | Uint8Array | string>,
  startedAt: number,
  now: () => number,
): AsyncGenerator<TimedEvent> {
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
  return isBurstSpan(arrivals.length, arrivals[0], arrivals[arrivals.length - 1], totalMs, t);
}

/** isBurst from what it needs: how many content events, when the first and the last arrived. */
export function isBurstSpan(
  count: number,
  first: number,
  last: number,
  totalMs: number,
  t: BurstThresholds = DEFAULT_BURST,
): boolean {
  if (count < t.minEvents) return false;
  if (first < t.minWaitMs) return false;
  return last - first <= Math.max(t.spanMs, t.spanRatio * totalMs);
}
