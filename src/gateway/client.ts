/**
 * GatewayClient: the one object the extension holds. Pure Node (no vscode): base URL + backups,
 * a token getter, an optional undici dispatcher (proxy), injected sleep/now for tests.
 */
import { request, FormData, type Dispatcher } from 'undici';
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Transform } from 'node:stream';
import { DEFAULT_CONCURRENCY, DEFAULT_MAX_TOKENS, DEFAULT_TIMEOUTS } from './defaults';
import { chat, chatStream } from './chat/chat';
import type { ChatEvent, ChatRequest, ChatResult } from './chat/types';
import { compatibleBase, nativeBase, nativeMessagesUrl, normalizeBaseUrl, type EndpointFinding } from './endpoint';
import { GatewayError, errorFromNetwork, errorFromResponse, inputError, retryAfterFrom, type ErrorContext } from './errors/gatewayError';
import { buildEditForm, parseImageResponse, sniffImageMime, validateSize, type ImageEditRequest, type ImageGenerateRequest, type ImageResult } from './media/images';
import { Limiter } from './http/limiter';
import { parseModelList, type Capability, type ModelInfo } from './models';
import type { RequestLogSink } from './requestLog';
import type { RetryOptions } from './http/retryPolicy';
import type { BurstThresholds } from './http/sseStream';
import { Transport, headerValue, readText, realSleep, type Sleep } from './http/transport';
import { parseTask, pollTask, type PollOutcome, type VideoTask } from './media/videos';

export interface Timeouts {
  chatMs: number;
  streamIdleMs: number;
  imageMs: number;
  videoMs: number;
  videoOverallMs: number;
}

export interface GatewayClientOptions {
  baseUrl: string;
  backupUrls?: readonly string[];
  token: () => string | undefined | Promise<string | undefined>;
  dispatcher?: Dispatcher | undefined;
  extraHeaders?: Record<string, string> | undefined;
  timeouts?: Partial<Timeouts>;
  retry?: Partial<RetryOptions>;
  concurrency?: { image?: number; video?: number };
  defaultNativeMaxTokens?: number;
  burst?: BurstThresholds;
  onRequest?: RequestLogSink;
  sleep?: Sleep;
  now?: () => number;
  random?: () => number;
}

export interface VideoCreateRequest {
  model: string;
  prompt: string;
  seconds?: number | undefined;
  size?: string | undefined;
  signal?: AbortSignal | undefined;
}

export type DownloadOutcome =
  | { outcome: 'downloaded'; path: string; bytes: number; contentType: string | undefined }
  | { outcome: 'expired'; error: GatewayError }
  | { outcome: 'not_ready'; error: GatewayError };

export interface EndpointInfo {
  base: string | undefined;
  compatibleBase: string | undefined;
  nativeBase: string | undefined;
  nativeMessagesUrl: string | undefined;
  findings: EndpointFinding[];
  backups: string[];
  /** the base serving requests now (primary or a backup) */
  activeBase: string | undefined;
  activeIsBackup: boolean;
}

export class GatewayClient {
  readonly transport: Transport;
  private timeouts: Timeouts;
  private readonly imageLimiter: Limiter;
  private readonly videoLimiter: Limiter;
  private readonly sleep: Sleep;
  private readonly now: () => number;
  private baseUrl: string;
  private backupUrls: readonly string[];
  /** capabilities learnt from /v1/models (new-api's supported_endpoint_types) */
  private readonly capabilities = new Map<string, Capability[]>();

  constructor(private readonly opts: GatewayClientOptions) {
    this.sleep = opts.sleep ?? realSleep;
    this.now = opts.now ?? Date.now;
    this.baseUrl = opts.baseUrl;
    this.backupUrls = opts.backupUrls ?? [];
    this.timeouts = { ...DEFAULT_TIMEOUTS, ...(opts.timeouts ?? {}) };
    this.imageLimiter = new Limiter(opts.concurrency?.image ?? DEFAULT_CONCURRENCY.image);
    this.videoLimiter = new Limiter(opts.concurrency?.video ?? DEFAULT_CONCURRENCY.video);
    this.transport = new Transport({
      baseUrl: opts.baseUrl,
      backupUrls: this.backupUrls,
      token: opts.token,
      dispatcher: opts.dispatcher,
      extraHeaders: opts.extraHeaders,
      retry: opts.retry,
      sleep: this.sleep,
      now: this.now,
      ...(opts.random ? { random: opts.random } : {}),
      ...(opts.onRequest ? { onRequest: opts.onRequest } : {}),
    });
  }

  // ----- configuration -------------------------------------------------------------------------

  configure(c: { baseUrl?: string; backupUrls?: readonly string[]; dispatcher?: Dispatcher | undefined; extraHeaders?: Record<string, string>; timeouts?: Partial<Timeouts>; concurrency?: { image?: number; video?: number } }): void {
    if (c.baseUrl !== undefined || c.backupUrls !== undefined) {
      this.baseUrl = c.baseUrl ?? this.baseUrl;
      this.backupUrls = c.backupUrls ?? this.backupUrls;
      this.transport.setEndpoints(this.baseUrl, this.backupUrls);
      this.capabilities.clear();
    }
    if ('dispatcher' in c) this.transport.setDispatcher(c.dispatcher);
    if (c.extraHeaders) this.transport.setExtraHeaders(c.extraHeaders);
    if (c.timeouts) this.timeouts = { ...this.timeouts, ...c.timeouts };
    if (c.concurrency?.image) this.imageLimiter.max = c.concurrency.image;
    if (c.concurrency?.video) this.videoLimiter.max = c.concurrency.video;
  }

  /** The endpoint rules applied to the configured base URL, for status views and diagnosis. */
  endpoints(): EndpointInfo {
    const n = normalizeBaseUrl(this.baseUrl);
    const backups = this.backupUrls.map((u) => normalizeBaseUrl(u).base).filter((b): b is string => !!b);
    const active = this.transport.activeBase;
    return {
      base: n.base,
      compatibleBase: n.base ? compatibleBase(n.base) : undefined,
      nativeBase: n.base ? nativeBase(n.base) : undefined,
      nativeMessagesUrl: n.base ? nativeMessagesUrl(n.base) : undefined,
      findings: n.findings,
      backups,
      activeBase: active,
      activeIsBackup: !!active && active !== n.base,
    };
  }

  get limits(): { image: { running: number; queued: number }; video: { running: number; queued: number } } {
    return {
      image: { running: this.imageLimiter.running, queued: this.imageLimiter.queued },
      video: { running: this.videoLimiter.running, queued: this.videoLimiter.queued },
    };
  }

  // ----- chat ----------------------------------------------------------------------------------

  private chatSettings() {
    return {
      timeoutMs: this.timeouts.chatMs,
      idleTimeoutMs: this.timeouts.streamIdleMs,
      defaultNativeMaxTokens: this.opts.defaultNativeMaxTokens ?? DEFAULT_MAX_TOKENS,
      now: this.now,
      ...(this.opts.burst ? { burst: this.opts.burst } : {}),
    };
  }

  chat(req: ChatRequest): Promise<ChatResult> {
    return chat(this.transport, req, this.chatSettings());
  }

  chatStream(req: ChatRequest): AsyncIterable<ChatEvent> {
    return chatStream(this.transport, req, this.chatSettings());
  }

  // ----- models --------------------------------------------------------------------------------

  async listModels(signal?: AbortSignal): Promise<ModelInfo[]> {
    const { data, res } = await this.transport.json({ method: 'GET', path: '/v1/models', surface: 'compatible', capability: 'models', signal, timeoutMs: this.timeouts.chatMs });
    const models = parseModelList(data, res.context);
    for (const m of models) if (m.capabilities) this.capabilities.set(m.id, m.capabilities);
    return models;
  }

  async listModelIds(signal?: AbortSignal): Promise<string[]> {
    return (await this.listModels(signal)).map((m) => m.id);
  }

  /** Known capabilities of a model (from the last model list), or undefined when unknown. */
  capabilitiesOf(model: string): Capability[] | undefined {
    return this.capabilities.get(model);
  }

  private checkCapability(model: string, cap: Capability, context: ErrorContext): void {
    const caps = this.capabilities.get(model);
    if (caps && !caps.includes(cap)) {
      const names: Record<Capability, string> = { chat: 'chat', native: 'native messages', image: 'image generation', 'image-edit': 'image editing', video: 'video generation' };
      throw inputError(
        `The model "${model}" does not support ${names[cap]} (it supports: ${caps.map((c) => names[c]).join(', ') || 'nothing known'}).`,
        `Choose a ${names[cap]} model; each capability needs a model of that capability (spec section 4, rule 4).`,
        context,
        'capability_mismatch',
      );
    }
  }

  // ----- images --------------------------------------------------------------------------------

  async generateImage(req: ImageGenerateRequest): Promise<ImageResult> {
    const context: ErrorContext = { surface: 'compatible', model: req.model, capability: 'image' };
    if (!req.model?.trim()) throw inputError('No image model is set.', 'Set modelRelay.models.image or pick an image model.', context);
    if (!req.prompt?.trim()) throw inputError('The image prompt is empty.', 'Select some text or type a prompt.', context);
    validateSize(req.size, context);
    this.checkCapability(req.model, 'image', context);
    return this.imageLimiter.run(async () => {
      const started = this.now();
      const body: Record<string, unknown> = { model: req.model, prompt: req.prompt };
      if (req.size) body.size = req.size;
      if (req.n) body.n = req.n;
      if (req.responseFormat) body.response_format = req.responseFormat;
      const { data, res } = await this.transport.json({ method: 'POST', path: '/v1/images/generations', surface: 'compatible', capability: 'image', model: req.model, body: JSON.stringify(body), json: true, signal: req.signal, timeoutMs: this.timeouts.imageMs });
      const images = await this.materialize(parseImageResponse(data, res.context), res.context, req.signal);
      return { images, host: res.host, requestId: res.requestId, durationMs: this.now() - started };
    }, req.signal);
  }

  async editImage(req: ImageEditRequest): Promise<ImageResult> {
    const context: ErrorContext = { surface: 'compatible', model: req.model, capability: 'image-edit' };
    if (!req.model?.trim()) throw inputError('No image-edit model is set.', 'Set modelRelay.models.imageEdit or pick an image-edit model.', context);
    if (!req.prompt?.trim()) throw inputError('The edit instruction is empty.', 'Type what should change in the image.', context);
    validateSize(req.size, context);
    this.checkCapability(req.model, 'image-edit', context);
    const { form } = await buildEditForm(req, context);
    return this.imageLimiter.run(async () => {
      const started = this.now();
      const { data, res } = await this.transport.json({ method: 'POST', path: '/v1/images/edits', surface: 'compatible', capability: 'image-edit', model: req.model, body: form, signal: req.signal, timeoutMs: this.timeouts.imageMs });
      const images = await this.materialize(parseImageResponse(data, res.context), res.context, req.signal);
      return { images, host: res.host, requestId: res.requestId, durationMs: this.now() - started };
    }, req.signal);
  }

  private async materialize(items: ReturnType<typeof parseImageResponse>, context: ErrorContext, signal?: AbortSignal) {
    const out = [];
    for (const it of items) {
      if (it.b64) {
        const bytes = Buffer.from(it.b64.replace(/^data:[^,]*,/, ''), 'base64');
        out.push({ bytes, mime: sniffImageMime(bytes), revisedPrompt: it.revisedPrompt });
      } else if (it.url) {
        const bytes = await this.downloadExternal(it.url, context, signal);
        out.push({ bytes, mime: sniffImageMime(bytes), sourceUrl: it.url, revisedPrompt: it.revisedPrompt });
      }
    }
    return out;
  }

  /** Downloads a result URL (often a CDN): through the same dispatcher, never with the token. */
  private async downloadExternal(url: string, context: ErrorContext, signal?: AbortSignal): Promise<Buffer> {
    if (url.startsWith('data:')) return Buffer.from(url.replace(/^data:[^,]*,/, ''), 'base64');
    const ctx = { ...context, url };
    const controller = new AbortController();
    const onAbort = () => controller.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    const timer = setTimeout(() => controller.abort(), this.timeouts.imageMs);
    try {
      let target = url;
      for (let hop = 0; ; hop++) {
        const res = await request(target, { method: 'GET', signal: controller.signal, dispatcher: this.transport.dispatcher });
        const location = headerValue(res.headers, 'location');
        if (res.statusCode >= 300 && res.statusCode < 400 && location && hop < 3) {
          await res.body.dump();
          target = new URL(location, target).toString();
          continue;
        }
        if (res.statusCode !== 200) {
          const text = await readText(res.body, 64 * 1024).catch(() => '');
          throw errorFromResponse({ status: res.statusCode, headers: res.headers, body: text, context: { ...ctx, url: target } });
        }
        const chunks: Buffer[] = [];
        for await (const c of res.body) chunks.push(Buffer.from(c as Uint8Array));
        return Buffer.concat(chunks);
      }
    } catch (e) {
      if (e instanceof GatewayError) throw e;
      throw errorFromNetwork(e, ctx, { aborted: !!signal?.aborted, timedOut: !signal?.aborted && controller.signal.aborted, timeoutMs: this.timeouts.imageMs });
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
  }

  // ----- videos --------------------------------------------------------------------------------

  /** Creates a video task. Costs money: retried only when the request provably never left. */
  async createVideo(req: VideoCreateRequest): Promise<VideoTask> {
    const context: ErrorContext = { surface: 'compatible', model: req.model, capability: 'video' };
    if (!req.model?.trim()) throw inputError('No video model is set.', 'Set modelRelay.models.video or pick a video model.', context);
    if (!req.prompt?.trim()) throw inputError('The video prompt is empty.', 'Select some text or type a prompt.', context);
    if (req.seconds !== undefined && !(Number.isInteger(req.seconds) && req.seconds > 0 && req.seconds <= 3600)) throw inputError(`Video length ${req.seconds} s is not a whole number between 1 and 3600.`, 'Use a whole number of seconds, e.g. 4 or 8.', context);
    validateSize(req.size, context);
    this.checkCapability(req.model, 'video', context);
    return this.videoLimiter.run(async () => {
      const form = () => {
        const fd = new FormData();
        fd.append('model', req.model);
        fd.append('prompt', req.prompt);
        if (req.seconds !== undefined) fd.append('seconds', String(req.seconds));
        if (req.size) fd.append('size', req.size);
        return fd;
      };
      const { data, res } = await this.transport.json({ method: 'POST', path: '/v1/videos', surface: 'compatible', capability: 'video', model: req.model, body: form, signal: req.signal, timeoutMs: this.timeouts.videoMs, sideEffecting: true });
      return parseTask(data, res.context);
    }, req.signal);
  }

  async getVideo(id: string, signal?: AbortSignal): Promise<VideoTask> {
    if (!/^[\w.-]+$/.test(id)) throw inputError(`"${id}" is not a valid task id.`, 'Copy the task id from the Video Tasks view.', { capability: 'video' });
    const { data, res } = await this.transport.json({ method: 'GET', path: `/v1/videos/${encodeURIComponent(id)}`, surface: 'compatible', capability: 'video', signal, timeoutMs: this.timeouts.videoMs });
    const task = parseTask(data, res.context);
    const pollAfter = Number(headerValue(res.headers, 'openai-poll-after-ms'));
    task.pollAfterMs = Number.isFinite(pollAfter) && pollAfter > 0 ? pollAfter : retryAfterFrom(res.headers, this.now());
    return task;
  }

  /** Waits for a task with backoff; outcomes: completed, failed, timed_out, cancelled. */
  pollVideo(id: string, o: { signal?: AbortSignal; overallTimeoutMs?: number; initialDelayMs?: number; maxDelayMs?: number; minDelayMs?: number; onUpdate?: (t: VideoTask) => void } = {}): Promise<PollOutcome> {
    return pollTask((signal) => this.getVideo(id, signal), {
      signal: o.signal,
      overallTimeoutMs: o.overallTimeoutMs ?? this.timeouts.videoOverallMs,
      ...(o.initialDelayMs !== undefined ? { initialDelayMs: o.initialDelayMs } : {}),
      ...(o.maxDelayMs !== undefined ? { maxDelayMs: o.maxDelayMs } : {}),
      ...(o.minDelayMs !== undefined ? { minDelayMs: o.minDelayMs } : {}),
      ...(o.onUpdate ? { onUpdate: o.onUpdate } : {}),
      sleep: this.sleep,
      now: this.now,
      ...(this.opts.random ? { random: this.opts.random } : {}),
    });
  }

  /**
   * Streams a completed task's content to `filePath` (written to a temporary file first, renamed
   * when complete). Outcomes: downloaded, expired (the result is no longer held), not_ready.
   * Callers must only call this after the task completed; a 400 here reports `not_ready`.
   */
  async downloadVideo(id: string, filePath: string, signal?: AbortSignal): Promise<DownloadOutcome> {
    if (!/^[\w.-]+$/.test(id)) throw inputError(`"${id}" is not a valid task id.`, 'Copy the task id from the Video Tasks view.', { capability: 'video' });
    let res;
    try {
      res = await this.transport.open({ method: 'GET', path: `/v1/videos/${encodeURIComponent(id)}/content`, surface: 'compatible', capability: 'video', signal, timeoutMs: this.timeouts.videoMs, idleTimeoutMs: this.timeouts.streamIdleMs, accept: 'application/binary', stream: true });
    } catch (e) {
      if (e instanceof GatewayError) {
        if (e.status === 400 && /not completed|not ready|status/i.test(e.gatewayMessage ?? '')) return { outcome: 'not_ready', error: retag(e, 'content_not_ready') };
        if (e.status === 404 || e.status === 410 || (e.status === 502 && /404|410|expire|not found/i.test(e.gatewayMessage ?? ''))) return { outcome: 'expired', error: retag(e, 'content_expired') };
      }
      throw e;
    }
    await mkdir(dirname(filePath), { recursive: true });
    const tmp = `${filePath}.part-${process.pid}-${this.now()}`;
    let bytes = 0;
    try {
      await pipeline(
        res.body,
        new Transform({
          transform(chunk: Buffer, _enc, cb) {
            bytes += chunk.length;
            cb(null, chunk);
          },
        }),
        createWriteStream(tmp),
      );
      await rename(tmp, filePath);
      res.finish({});
      return { outcome: 'downloaded', path: filePath, bytes, contentType: headerValue(res.headers, 'content-type') };
    } catch (e) {
      await rm(tmp, { force: true });
      const code = (e as { code?: string }).code;
      const err = errorFromNetwork(e, res.context, { aborted: !!signal?.aborted, timedOut: code === 'UND_ERR_BODY_TIMEOUT', timeoutMs: this.timeouts.streamIdleMs });
      res.finish({ errorKind: err.kind });
      throw err;
    }
  }
}

function retag(e: GatewayError, detail: 'content_not_ready' | 'content_expired'): GatewayError {
  if (detail === 'content_expired') {
    return new GatewayError({
      kind: e.kind,
      status: e.status,
      detail,
      message: `The video result is no longer held by the gateway (HTTP ${e.status}).`,
      cause: 'The finished video was kept only for a limited time and has expired (download expired).',
      fix: 'Generate the video again; download results soon after they complete.',
      gatewayMessage: e.gatewayMessage,
      requestId: e.requestId,
      context: { url: e.url, model: e.model, surface: e.surface },
    });
  }
  return new GatewayError({
    kind: e.kind,
    status: e.status,
    detail,
    message: 'The video is not finished yet, so its content cannot be downloaded.',
    cause: 'Content can be downloaded only after the task has completed.',
    fix: 'Wait until the task shows completed, then download.',
    gatewayMessage: e.gatewayMessage,
    requestId: e.requestId,
    context: { url: e.url, model: e.model, surface: e.surface },
  });
}
