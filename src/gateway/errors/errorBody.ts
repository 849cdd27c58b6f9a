/**
 * Reading what a gateway says when it fails: error bodies in every shape the gateways use (OpenAI,
 * Anthropic, new-api tasks, HTML pages, plain text), request ids and Retry-After hints.
 */
export interface ParsedErrorBody {
  message?: string | undefined;
  type?: string | undefined;
  code?: string | undefined;
  html: boolean;
  title?: string | undefined;
  /**
   * The body is a gateway's own JSON error: an `error` object with a message, OpenAI-shaped
   * (`{"error":{"message":…}}`) or Anthropic-shaped (`{"type":"error","error":{…}}`), as new-api writes
   * every error it answers with. Not a proxy's page, an empty body, plain text or another JSON.
   */
  envelope?: boolean;
}

export function looksLikeHtml(body: string, contentType?: string | null): boolean {
  if (contentType && /text\/html|application\/xhtml/i.test(contentType)) return true;
  const head = body.slice(0, 512).trimStart().toLowerCase();
  return (
    head.startsWith('<!doctype html') ||
    head.startsWith('<html') ||
    head.startsWith('<head') ||
    head.startsWith('<body')
  );
}

/** Reads OpenAI-style, Anthropic-style, new-api task-style, HTML and plain-text error bodies. */
export function parseErrorBody(body: string, contentType?: string | null): ParsedErrorBody {
  if (looksLikeHtml(body, contentType)) {
    const title = /<title[^>]*>([^<]{0,200})<\/title>/i.exec(body)?.[1]?.trim();
    return { html: true, title };
  }
  const trimmed = body.trim();
  if (!trimmed) return { html: false };
  try {
    const j = JSON.parse(trimmed) as unknown;
    if (j && typeof j === 'object') {
      const o = j as Record<string, unknown>;
      const err = o.error;
      if (err && typeof err === 'object') {
        const e = err as Record<string, unknown>;
        return {
          html: false,
          message: str(e.message),
          type: str(e.type),
          code: str(e.code) ?? (typeof e.code === 'number' ? String(e.code) : undefined),
          envelope: typeof e.message === 'string',
        };
      }
      if (typeof err === 'string') return { html: false, message: err, type: str(o.type), code: str(o.code) };
      if (typeof o.message === 'string' || typeof o.code === 'string') {
        return { html: false, message: str(o.message), code: str(o.code), type: str(o.type) };
      }
    }
  } catch {
    /* not JSON: plain text */
  }
  return { html: false, message: trimmed.slice(0, 500) };
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v.length > 0 ? v : undefined;
}

export const REQUEST_ID_SUFFIX = /\s*\(request id: ([^)]+)\)\s*$/i;

/** Request id from headers (new-api, Anthropic, OpenAI) or the message suffix `(request id: …)`. */
export function requestIdFrom(
  headers: Record<string, string | string[] | undefined>,
  message?: string,
): string | undefined {
  for (const h of ['x-oneapi-request-id', 'request-id', 'x-request-id']) {
    const v = headers[h];
    if (typeof v === 'string' && v) return v;
    if (Array.isArray(v) && v[0]) return v[0];
  }
  const m = message ? REQUEST_ID_SUFFIX.exec(message) : null;
  return m?.[1];
}

/** Parses `retry-after-ms`, then `retry-after` (seconds or HTTP date). Returns ms or undefined. */
export function retryAfterFrom(
  headers: Record<string, string | string[] | undefined>,
  now: number = Date.now(),
): number | undefined {
  const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);
  const ms = first(headers['retry-after-ms']);
  if (ms !== undefined && ms.trim() !== '') {
    const n = Number(ms);
    if (Number.isFinite(n) && n >= 0) return n;
  }
  const ra = first(headers['retry-after']);
  if (ra !== undefined && ra.trim() !== '') {
    const n = Number(ra);
    if (Number.isFinite(n) && n >= 0) return n * 1000;
    const d = Date.parse(ra);
    if (!Number.isNaN(d)) return Math.max(0, d - now);
  }
  return undefined;
}
