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

export async function* sseEvents(body: AsyncIterable<Buffer | Uint8Array | string>, startedAt: number, now: () => number): AsyncGenerator<TimedEvent> {
  const pending: TimedEvent[] = [];
  const parser = createParser({
    onEvent: (ev) => {
      pending.push({ ...ev, at: now() - startedAt });
    },
  });
  const decoder = new TextDecoder('utf-8');
  for await (const chunk of body) {
    parser.feed(typeof chunk === 'string' ? chunk : decoder.decode(chunk as Uint8Array, { stream: true }));
    while (pending.length) yield pending.shift()!;
  }
  const rest = decoder.decode();
  if (rest) parser.feed(rest);
  // A last event whose closing blank line never came is still delivered; whether the stream was
  // complete is judged by the surface's end marker ([DONE] / message_stop), not by framing.
  parser.reset({ consume: true });
  while (pending.length) yield pending.shift()!;
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
