/**
 * Text deltas read without JSON.parse. Within one stream, the chunks that carry text are nearly
 * always the same JSON around one string: `{"id":"c1",…,"delta":{"content":"…"},…}`, or
 * `{"type":"content_block_delta",…,"text":"…"}`. Once the surface has parsed such a chunk, its
 * shape is learned: the JSON before the text (`head`) and after it (`tail`). A later chunk that is
 * `head + s + tail`, where `s` is plain (no quote, backslash or control character, so it stands
 * for itself inside a JSON string), parses to exactly the learned value with `s` as that one string:
 * the token boundaries are the same for every plain `s`. Its events are therefore known without
 * parsing it. Whether the learned string really is the text is proved, not assumed: the surface
 * itself parses `head + probe + tail` and must return the learned events with the probe as the text.
 * Anything else (tool calls, reasoning, errors, a different shape) goes to the surface as before.
 */
import type { SurfaceAdapter, SurfaceEvent } from './types';

type MetaEvent = Extract<SurfaceEvent, { type: 'meta' }>;
interface RawEvent {
  event?: string | undefined;
  data: string;
}

/** No `"`, `\` or control character: the JSON string literal of `s` is `"s"`. */
function isPlain(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === 0x22 || c === 0x5c) return false;
  }
  return true;
}

/** The text as a string of its own (a long slice would keep the whole network chunk alive). */
const detached = (s: string) => (s.length < 13 ? s : (JSON.parse(`"${s}"`) as string));

/** Learning costs about one parse; it stops where it does not pay (a shape that changes every chunk). */
const FREE_LEARNS = 3;
const HITS_PER_LEARN = 32;

/** One stream's event parser: the surface's, with learned text-delta shapes answered directly. */
export function streamEventParser(adapter: SurfaceAdapter): (ev: RawEvent) => SurfaceEvent[] {
  let head = '';
  let tail = '';
  let eventName: string | undefined;
  let meta: MetaEvent | undefined;
  let learns = 0;
  let hits = 0;

  const build = (text: string): SurfaceEvent[] =>
    meta
      ? [
          { type: 'meta', id: meta.id, model: meta.model },
          { type: 'text', text },
        ]
      : [{ type: 'text', text }];

  /** The learned shape of this parsed chunk, if it has one and the probe proves it. */
  const learn = (ev: RawEvent, events: SurfaceEvent[]) => {
    if (events.length < 1 || events.length > 2) return;
    const text = events[events.length - 1];
    const first = events[0];
    if (text.type !== 'text' || (events.length === 2 && (first.type !== 'meta' || first.usage !== undefined))) return;
    const t = text.text;
    if (!t || !isPlain(t)) return;
    const needle = `:"${t}"`;
    const at = ev.data.indexOf(needle);
    if (at < 0 || ev.data.indexOf(needle, at + 1) >= 0) return;
    learns++;
    const h = ev.data.slice(0, at + 2);
    const tl = ev.data.slice(at + 2 + t.length);
    if (h.charCodeAt(0) !== 0x7b || tl.charCodeAt(tl.length - 1) !== 0x7d) return;
    const probe = t === 'x' ? 'y' : 'x';
    const saved = meta;
    meta = events.length === 2 ? (first as MetaEvent) : undefined;
    if (
      JSON.stringify(adapter.parseEvent({ event: ev.event, data: h + probe + tl })) !== JSON.stringify(build(probe))
    ) {
      meta = saved;
      return;
    }
    head = h;
    tail = tl;
    eventName = ev.event;
  };

  return (ev) => {
    const data = ev.data;
    const end = data.length - tail.length;
    // (slice and compare: measured several times faster here than startsWith / endsWith)
    if (
      head &&
      ev.event === eventName &&
      end > head.length &&
      data.slice(0, head.length) === head &&
      data.slice(end) === tail
    ) {
      const text = data.slice(head.length, end);
      if (isPlain(text)) {
        hits++;
        return build(detached(text));
      }
    }
    const events = adapter.parseEvent(ev);
    if (learns < FREE_LEARNS || hits >= learns * HITS_PER_LEARN) learn(ev, events);
    return events;
  };
}
