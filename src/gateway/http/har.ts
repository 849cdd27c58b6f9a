/**
 * HTTP Archive (HAR 1.2) recording of the gateway's requests: the observer hook the transport calls
 * for every attempt of every client in this process (`watchExchange`; nothing is done while no
 * observer is registered), one entry per exchange (`HarEntryBuilder`: headers, timings, sizes, and
 * the bodies only when asked, each bounded, with credentials redacted by harRedact.ts), and the
 * archive (`harLog`). A response body is watched where it flows — the chunks the caller reads are
 * seen as they pass, never held back or re-buffered — so a stream reaches the user as it would
 * unrecorded. Spec: http://www.softwareishard.com/blog/har-12-spec/
 *
 * The hook is a call in the one door out (attempt.ts `sendOnce`), not a subscription to undici's
 * diagnostics_channel events (`undici:request:create` …): those channels are process-global — in the
 * extension host, every extension's undici and Node's own `fetch` publish to them, their credentials
 * in the headers as sent — and they carry neither the secrets to redact nor whose request it is.
 */
import type { FormData } from 'undici';
import { redactBody, redactHeader, redactUrl } from './harRedact';
import type { Headers, ResponseBody, SendBody } from './attempt';

export interface HarNameValue {
  name: string;
  value: string;
  comment?: string;
}

export interface HarPostParam {
  name: string;
  value?: string;
  fileName?: string;
  contentType?: string;
  comment?: string;
}

export interface HarEntry {
  startedDateTime: string;
  time: number;
  request: {
    method: string;
    url: string;
    httpVersion: string;
    cookies: HarNameValue[];
    headers: HarNameValue[];
    queryString: HarNameValue[];
    postData?: { mimeType: string; text?: string; params?: HarPostParam[]; comment?: string };
    headersSize: number;
    bodySize: number;
  };
  response: {
    status: number;
    statusText: string;
    httpVersion: string;
    cookies: HarNameValue[];
    headers: HarNameValue[];
    content: { size: number; mimeType: string; text?: string; comment?: string };
    redirectURL: string;
    headersSize: number;
    bodySize: number;
    _error?: string;
  };
  cache: Record<string, never>;
  timings: { blocked: number; dns: number; connect: number; ssl: number; send: number; wait: number; receive: number };
  comment?: string;
}

export interface HarLog {
  log: {
    version: '1.2';
    creator: { name: string; version: string };
    entries: HarEntry[];
    comment?: string;
  };
}

/** What the transport knows of a request when it sends it. */
export interface ExchangeFacts {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: SendBody;
  /** the request's token (and any other secret it knows): never written, wherever it appears */
  secrets: readonly string[];
}

/** Hears one exchange: the answer's head, each body chunk as it passes, the end (or the failure). */
export interface ExchangeSink {
  answered(status: number, headers: Headers): void;
  chunk(bytes: Buffer): void;
  end(error?: string): void;
}

/** A recorder: asked at every request whether it records it (undefined: not this one). */
export interface HttpObserver {
  begin(facts: ExchangeFacts): ExchangeSink | undefined;
}

const observers = new Set<HttpObserver>();

/** Registers an observer of every gateway request in this process; the returned function removes it. */
export function observeHttp(observer: HttpObserver): () => void {
  observers.add(observer);
  return () => void observers.delete(observer);
}

/** The transport's side of the hook: what it calls when the answer (or the failure) comes. */
export interface ExchangeWatch {
  /** The answer's head; its body is watched as the caller reads it (the caller's reading unchanged). */
  answered(status: number, headers: Headers, body: ResponseBody): void;
  failed(error: string): void;
}

const safely = (fn: () => void) => {
  try {
    fn();
  } catch {
    /* a broken recorder must not break a request */
  }
};

/** Starts watching a request (undefined, at no cost, while nothing records). */
export function watchExchange(facts: ExchangeFacts): ExchangeWatch | undefined {
  if (observers.size === 0) return undefined;
  const sinks: ExchangeSink[] = [];
  for (const o of observers)
    safely(() => {
      const sink = o.begin(facts);
      if (sink) sinks.push(sink);
    });
  if (!sinks.length) return undefined;
  const all = (fn: (s: ExchangeSink) => void) => sinks.forEach((s) => safely(() => fn(s)));
  let ended = false;
  const end = (error?: string) => {
    if (ended) return;
    ended = true;
    all((s) => s.end(error));
  };
  return {
    answered(status, headers, body) {
      all((s) => s.answered(status, headers));
      // Paused first, so the listener below does not start the flow: the caller's reads (async
      // iteration, a pipe) drive it as before, and every chunk they take passes here too.
      body.pause();
      body.on('data', (c: Buffer) => all((s) => s.chunk(c)));
      body.once('end', () => end());
      body.once('error', (e: Error) => end(e.message));
      body.once('close', () => end(body.readableEnded ? undefined : 'closed before the end of the body'));
    },
    failed: (error) => end(error),
  };
}

/** What an entry keeps of bodies: none (the default), or each up to `maxBodyBytes`. */
export interface HarOptions {
  includeBodies: boolean;
  maxBodyBytes: number;
}

const headerList = (h: Record<string, string | string[] | undefined>, secrets: readonly string[]): HarNameValue[] =>
  Object.entries(h).flatMap(([name, v]) =>
    (Array.isArray(v) ? v : v === undefined ? [] : [v]).map((value) => ({
      name,
      value: redactHeader(name, value, secrets),
    })),
  );

const headerOf = (h: Headers, name: string) => {
  const v = h[name];
  return Array.isArray(v) ? v[0] : v;
};

/**
 * How far past the bound a body is read before it is redacted: a token the bound would cut in two
 * is still found whole (and masked) before the cut, so no part of it is left at the end.
 */
const REDACT_MARGIN = 1024;

/** A body's text, bounded: redacted, then the first `max` bytes, and a note of what was left out. */
function boundedText(bytes: Buffer, total: number, max: number, secrets: readonly string[]) {
  const redacted = Buffer.from(redactBody(bytes.subarray(0, max + REDACT_MARGIN).toString('utf8'), secrets));
  const text = redacted.subarray(0, max).toString('utf8');
  return total > max || redacted.length > max ? { text, comment: `first ${max} of ${total} bytes` } : { text };
}

const isForm = (b: unknown): b is FormData =>
  typeof b === 'object' && b !== null && typeof (b as FormData).entries === 'function' && !(b instanceof Uint8Array);

/** The request body as the archive keeps it. */
function postDataOf(facts: ExchangeFacts, o: HarOptions): { postData?: HarEntry['request']['postData']; size: number } {
  const b = facts.body;
  if (b === undefined || b === null) return { size: 0 };
  const mimeType = facts.headers['content-type'] ?? (isForm(b) ? 'multipart/form-data' : 'application/octet-stream');
  if (typeof b === 'string' || b instanceof Uint8Array) {
    const bytes = typeof b === 'string' ? Buffer.from(b) : Buffer.from(b.buffer, b.byteOffset, b.byteLength);
    if (!o.includeBodies) return { postData: { mimeType, text: '', comment: 'body not recorded' }, size: bytes.length };
    return {
      postData: { mimeType, ...boundedText(bytes, bytes.length, o.maxBodyBytes, facts.secrets) },
      size: bytes.length,
    };
  }
  if (isForm(b)) {
    const params: HarPostParam[] = [];
    for (const [name, value] of b.entries()) {
      if (typeof value === 'string') {
        const kept = o.includeBodies
          ? boundedText(Buffer.from(value), Buffer.byteLength(value), o.maxBodyBytes, facts.secrets)
          : undefined;
        params.push(kept ? { name, value: kept.text, ...(kept.comment ? { comment: kept.comment } : {}) } : { name });
      } else
        params.push({
          name,
          fileName: value.name,
          contentType: value.type || 'application/octet-stream',
          comment: `${value.size} bytes, not recorded`,
        });
    }
    return { postData: { mimeType, params }, size: -1 };
  }
  return { postData: { mimeType, text: '', comment: 'a streamed body, not recorded' }, size: -1 };
}

/** One exchange as a HAR entry: started at construction, answered, its body counted (and kept up to the bound), ended. */
export class HarEntryBuilder implements ExchangeSink {
  private readonly started = Date.now();
  private readonly t0 = performance.now();
  private tHead: number | undefined;
  private tEnd: number | undefined;
  private status = 0;
  private headers: Headers = {};
  private readonly kept: Buffer[] = [];
  private keptBytes = 0;
  private received = 0;
  private error: string | undefined;
  /** The request as the archive keeps it, taken now: the body (megabytes, files) is never held. */
  private readonly request: Pick<HarEntry['request'], 'method' | 'url' | 'headers' | 'postData'> & { bodySize: number };
  private readonly secrets: readonly string[];

  constructor(
    facts: ExchangeFacts,
    private readonly o: HarOptions,
    private readonly onEnd?: () => void,
  ) {
    const post = postDataOf(facts, o);
    this.secrets = facts.secrets;
    this.request = {
      method: facts.method,
      url: redactUrl(facts.url, facts.secrets),
      headers: headerList(facts.headers, facts.secrets),
      ...(post.postData ? { postData: post.postData } : {}),
      bodySize: post.size,
    };
  }

  get done(): boolean {
    return this.tEnd !== undefined;
  }

  answered(status: number, headers: Headers): void {
    this.tHead = performance.now();
    this.status = status;
    this.headers = headers;
  }

  chunk(bytes: Buffer): void {
    this.received += bytes.length;
    const keep = this.o.maxBodyBytes + REDACT_MARGIN;
    if (!this.o.includeBodies || this.keptBytes >= keep) return;
    // (a copy: a slice would keep the whole chunk alive)
    const part = Buffer.from(bytes.subarray(0, keep - this.keptBytes));
    this.kept.push(part);
    this.keptBytes += part.length;
  }

  end(error?: string): void {
    if (this.tEnd !== undefined) return;
    this.tEnd = performance.now();
    this.error = error;
    this.onEnd?.();
  }

  /** The entry as it stands (an exchange still in flight says so). */
  entry(): HarEntry {
    const end = this.tEnd ?? performance.now();
    const wait = Math.max(0, (this.tHead ?? end) - this.t0);
    const receive = this.tHead === undefined ? 0 : Math.max(0, end - this.tHead);
    const mimeType = headerOf(this.headers, 'content-type') ?? 'x-unknown';
    const body = this.o.includeBodies
      ? boundedText(Buffer.concat(this.kept), this.received, this.o.maxBodyBytes, this.secrets)
      : { comment: 'body not recorded' };
    const error = this.error ?? (this.tEnd === undefined ? 'still in flight when the recording ended' : undefined);
    const { postData, ...request } = this.request;
    return {
      startedDateTime: new Date(this.started).toISOString(),
      time: round(round(wait) + round(receive)),
      request: {
        method: request.method,
        url: request.url,
        httpVersion: 'HTTP/1.1',
        cookies: [],
        headers: request.headers,
        queryString: queryOf(request.url),
        ...(postData ? { postData } : {}),
        headersSize: -1,
        bodySize: request.bodySize,
      },
      response: {
        status: this.status,
        statusText: '',
        httpVersion: this.tHead === undefined ? '' : 'HTTP/1.1',
        cookies: [],
        headers: headerList(this.headers, this.secrets),
        content: { size: this.received, mimeType, ...body },
        redirectURL: redactUrl(headerOf(this.headers, 'location') ?? '', this.secrets),
        headersSize: -1,
        bodySize: this.tEnd !== undefined && !this.error ? this.received : -1,
        ...(error ? { _error: redactBody(error, this.secrets) } : {}),
      },
      cache: {},
      timings: { blocked: -1, dns: -1, connect: -1, ssl: -1, send: 0, wait: round(wait), receive: round(receive) },
    };
  }
}

const round = (ms: number) => Math.round(ms * 1000) / 1000;

function queryOf(url: string): HarNameValue[] {
  try {
    return [...new URL(url).searchParams].map(([name, value]) => ({ name, value }));
  } catch {
    return [];
  }
}

/** The archive of the entries, oldest first. */
export function harLog(entries: HarEntry[], creator: { name: string; version: string }, comment?: string): HarLog {
  return { log: { version: '1.2', creator, entries, ...(comment ? { comment } : {}) } };
}
