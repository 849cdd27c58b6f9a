/** What one stream event's data holds, read the same way on both surfaces before either looks inside. */
import { jsonOrUndefined } from '../../http/sseStream';
import type { SurfaceEvent } from '../types';

/**
 * The event's data as JSON; or, when it is not JSON, what it means: `[DONE]` ends the stream, a
 * blank event is nothing, anything else is garbled (never part of a reply).
 */
export function eventData(data: string): { json: unknown } | { events: SurfaceEvent[] } {
  // Data that is a JSON object as it stands (the overwhelming case) is parsed without a trimmed copy first.
  const json = data.charCodeAt(0) === 0x7b ? jsonOrUndefined(data) : undefined;
  if (json !== undefined) return { json };
  const trimmed = data.trim();
  if (!trimmed) return { events: [] };
  if (trimmed === '[DONE]') return { events: [{ type: 'end' }] };
  const again = jsonOrUndefined(trimmed);
  return again === undefined ? { events: [{ type: 'garbled', data: trimmed }] } : { json: again };
}
