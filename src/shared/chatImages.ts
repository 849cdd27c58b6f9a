/**
 * Images attached to a chat message: the limits both sides enforce (the webview when a file is
 * added, the host's zod schema at the boundary), and small pure helpers. Runs anywhere: no `vscode`,
 * no DOM, no Node (the webview bundles it).
 */

/** What may be attached (what both surfaces' upstreams accept). */
export const IMAGE_MIME_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;
export type ImageMime = (typeof IMAGE_MIME_TYPES)[number];

/** At most this many images per message. */
export const MAX_IMAGES_PER_MESSAGE = 4;
/** Each image at most 5 MB (the native surface's per-image limit). */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
/** The base64 length of a {@link MAX_IMAGE_BYTES} image. */
export const MAX_IMAGE_BASE64 = Math.ceil(MAX_IMAGE_BYTES / 3) * 4;

export function isImageMime(s: string): s is ImageMime {
  return (IMAGE_MIME_TYPES as readonly string[]).includes(s);
}

/** The decoded size of base64 data (no `data:` prefix). */
export function base64Bytes(data: string): number {
  const pad = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - pad);
}

/** The words for a size, templates with `{0}` (the webview's from its strings, the host's from `t()`). */
export interface ByteUnits {
  /** "{0} bytes" */
  bytes: string;
  /** "{0} KB" */
  kilobytes: string;
  /** "{0} MB" */
  megabytes: string;
}

/** "812 KB", "4.2 MB", in the units' words. */
export function formatBytes(n: number, units: ByteUnits): string {
  const put = (template: string, v: string | number) => template.replace('{0}', String(v));
  if (n < 1024) return put(units.bytes, n);
  if (n < 1024 * 1024) return put(units.kilobytes, Math.round(n / 1024));
  return put(units.megabytes, (n / (1024 * 1024)).toFixed(1));
}

/** The image type the bytes really are (magic numbers); undefined when not one of {@link IMAGE_MIME_TYPES}. */
export function sniffImage(b: Uint8Array): ImageMime | undefined {
  const ascii = (from: number, to: number) => String.fromCharCode(...b.subarray(from, to));
  if (b.length >= 8 && [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a].every((v, i) => b[i] === v)) return 'image/png';
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'image/jpeg';
  if (b.length >= 6 && /^GIF8[79]a$/.test(ascii(0, 6))) return 'image/gif';
  if (b.length >= 12 && ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') return 'image/webp';
  return undefined;
}

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** The first bytes of base64 data (enough to sniff), decoded without Buffer or atob. */
export function base64Head(data: string, bytes = 16): Uint8Array {
  const chars = data.slice(0, Math.ceil(bytes / 3) * 4);
  const out: number[] = [];
  for (let i = 0; i < chars.length; i += 4) {
    const n = [0, 1, 2, 3].map((k) => Math.max(0, B64.indexOf(chars[i + k] ?? 'A')));
    const v = (n[0] << 18) | (n[1] << 12) | (n[2] << 6) | n[3];
    out.push((v >> 16) & 255, (v >> 8) & 255, v & 255);
  }
  return Uint8Array.from(out.slice(0, bytes));
}
