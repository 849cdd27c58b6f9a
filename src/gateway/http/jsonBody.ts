/**
 * A JSON request body as UTF-8 bytes: exactly the bytes of `Buffer.from(JSON.stringify(value))`
 * for plain data (objects, arrays, strings, finite and non-finite numbers, booleans, null, toJSON),
 * made without one giant string. For a megabyte-sized body (an agent conversation), JSON.stringify
 * returns a rope that V8 flattens on first read — widened to two bytes a character when any text is
 * Chinese — at several times the cost of the stringify itself, and the UTF-8 encoding then reads it
 * all again. Here the structure and short strings are written as one small string, and each long
 * string is escaped and encoded on its own.
 *
 * A tool loop sends the same texts again with every request (the conversation so far and one new
 * turn), so the bytes of each long string are kept, keyed by the string itself: a Map finds it by
 * a hash (V8 hashes a string past 16 K characters by its length alone) and one comparison, far
 * cheaper than escaping and encoding it again (row 15 of `npm run bench`: without the kept bytes a
 * request costs 3–4× its body's JSON.stringify, as much as one JSON.stringify encoded by undici;
 * with them 0.9–1.3×; CONTRIBUTING's hot-path table). Bounded by memory — the bytes and the strings that key them — the least
 * recently used first out.
 */

/** Strings at least this long are escaped and encoded on their own, and their bytes kept. */
const LONG = 1024;
/** The memory the kept strings and their bytes may take: the bench's agent conversation (1.9 MB of JSON, 4.4 MB kept) three times over. */
export const JSON_BYTES_CACHE = 16 * 1024 * 1024;

/** What a kept entry holds: its bytes, and its string at two bytes a character (V8's widest). */
const cost = (s: string, bytes: Buffer) => bytes.length + 2 * s.length;

class BytesCache {
  private readonly map = new Map<string, Buffer>();
  /** the memory of the kept entries, by {@link cost} */
  private used = 0;

  constructor(private readonly max: number) {}

  /** The JSON bytes of a long string: kept ones, else made and kept. */
  of(s: string): Buffer {
    const hit = this.map.get(s);
    if (hit) {
      this.map.delete(s);
      this.map.set(s, hit);
      return hit;
    }
    const made = Buffer.from(JSON.stringify(s));
    if (cost(s, made) > this.max / 4) return made;
    this.map.set(s, made);
    this.used += cost(s, made);
    for (const [k, v] of this.map) {
      if (this.used <= this.max) break;
      this.map.delete(k);
      this.used -= cost(k, v);
    }
    return made;
  }

  /** The kept strings' characters and bytes (for tests). */
  kept(): { chars: number; bytes: number } {
    let chars = 0;
    let bytes = 0;
    for (const [k, v] of this.map) {
      chars += k.length;
      bytes += v.length;
    }
    return { chars, bytes };
  }

  clear(): void {
    this.map.clear();
    this.used = 0;
  }
}

const longStrings = new BytesCache(JSON_BYTES_CACHE);

/** Object keys as JSON (a body repeats a few keys thousands of times); at most this many kept, each short. */
const KEYS = 1024;
const KEY_LENGTH = 64;
const quotedKeys = new Map<string, string>();
function quotedKey(k: string): string {
  let q = quotedKeys.get(k);
  if (q === undefined) {
    q = `${JSON.stringify(k)}:`;
    if (quotedKeys.size < KEYS && k.length <= KEY_LENGTH) quotedKeys.set(k, q);
  }
  return q;
}

/** Forgets the kept bytes (for tests). */
export function clearJsonBytesCache(): void {
  longStrings.clear();
}

/** The kept long strings' characters and their bytes (for tests). */
export function keptJsonBytes(): { chars: number; bytes: number } {
  return longStrings.kept();
}

class Pieces {
  /** the JSON text since the last long string */
  small = '';
  readonly done: Array<string | Buffer> = [];

  string(s: string): void {
    if (s.length < LONG) this.small += JSON.stringify(s);
    else {
      this.done.push(this.small, longStrings.of(s));
      this.small = '';
    }
  }

  /** Writes a JSON value; false for what JSON leaves out (undefined, functions, symbols). */
  value(v: unknown, key: string): boolean {
    if (v !== null && typeof v === 'object' && typeof (v as { toJSON?: unknown }).toJSON === 'function')
      v = (v as { toJSON(key: string): unknown }).toJSON(key);
    switch (typeof v) {
      case 'string':
        this.string(v);
        return true;
      case 'number':
        this.small += Number.isFinite(v) ? String(v) : 'null';
        return true;
      case 'boolean':
        this.small += v ? 'true' : 'false';
        return true;
      case 'bigint':
        throw new TypeError('Do not know how to serialize a BigInt');
      case 'object':
        if (v === null) this.small += 'null';
        else if (Array.isArray(v)) this.array(v);
        else this.object(v as Record<string, unknown>);
        return true;
      default:
        return false;
    }
  }

  private array(a: readonly unknown[]): void {
    this.small += '[';
    for (let i = 0; i < a.length; i++) {
      if (i) this.small += ',';
      if (!this.value(a[i], String(i))) this.small += 'null';
    }
    this.small += ']';
  }

  private object(o: Record<string, unknown>): void {
    this.small += '{';
    let first = true;
    for (const k of Object.keys(o)) {
      const x = o[k];
      if (x === undefined || typeof x === 'function' || typeof x === 'symbol') continue;
      this.small += first ? quotedKey(k) : `,${quotedKey(k)}`;
      first = false;
      this.value(x, k);
    }
    this.small += '}';
  }
}

/** `value` as JSON in UTF-8, the bytes of `Buffer.from(JSON.stringify(value))`. */
export function jsonBytes(value: unknown): Buffer {
  const p = new Pieces();
  if (!p.value(value, '')) throw new TypeError('The JSON body is not a JSON value.');
  const pieces = p.done;
  pieces.push(p.small);
  let total = 0;
  for (const s of pieces) total += typeof s === 'string' ? Buffer.byteLength(s) : s.length;
  const out = Buffer.allocUnsafe(total);
  let at = 0;
  for (const s of pieces) at += typeof s === 'string' ? out.write(s, at) : s.copy(out, at);
  return out;
}
