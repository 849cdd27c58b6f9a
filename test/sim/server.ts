/**
 * The gateway simulator: a local HTTP server that implements the Model Relay Gateway spec as a real
 * gateway would, in two profiles — `strict` (the spec's wording) and `real` (new-api's wire
 * behaviour: 503 model_not_found, OpenAI-shaped auth errors on /v1/messages, request-id suffixes,
 * X-Oneapi-Request-Id, empty-body 429s, `unknown` video status, "30%" progress, 502 on expired
 * content) — with switchable faults and a usage log as the spec's console keeps.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { randomBytes } from 'node:crypto';
import { deflateSync } from 'node:zlib';

export type Profile = 'strict' | 'real';
export type Capability = 'chat' | 'native' | 'image' | 'image-edit' | 'video';
export interface SimModel { id: string; capabilities: Capability[]; ownedBy?: string }
export interface SimGroup { name: string; visible: string[]; usable?: string[] }
export interface SimToken { value: string; name: string; group: string; disabled?: boolean }
export interface VideoBehaviour { pollsUntilInProgress: number; pollsUntilDone: number; outcome: 'completed' | 'failed' | 'stuck'; failureReason?: string; expired?: boolean }
export interface SimConfig { profile: Profile; models: SimModel[]; groups: SimGroup[]; tokens: SimToken[]; maxBodyBytes: number; rateLimit?: { perToken: number; windowMs: number } | undefined; video: VideoBehaviour; replyText?: string | undefined }
export type Fault = { host?: number; path?: string; count?: number } & (
  | { kind: 'latency'; ms: number }
  | { kind: 'slowChunks'; ms: number }
  | { kind: 'buffer' }
  | { kind: 'midStreamError'; afterEvents: number; message?: string }
  | { kind: 'reset'; afterEvents?: number }
  | { kind: 'status'; status: number; retryAfter?: string; retryAfterMs?: string; body?: 'json' | 'empty' | 'html'; code?: string }
  | { kind: 'html'; status?: number }
  | { kind: 'truncate'; afterEvents: number }
  | { kind: 'invalidJson' }
  | { kind: 'emptyChoices' }
  | { kind: 'down' }
);
export interface UsageRecord { time: number; host: number; method: string; path: string; tokenMasked: string | null; tokenName: string | null; group: string | null; model: string | null; status: number; stream: boolean; requestId: string; durationMs: number; headers: Record<string, string>; closedEarly?: boolean }
export interface Simulator {
  url: string;
  urls: string[];
  config: SimConfig;
  log: UsageRecord[];
  tokens: { [name: string]: string };
  fault(f: Fault): void;
  clearFaults(): void;
  reset(): void;
  close(): Promise<void>;
}

const mask = (t: string) => (t.length > 12 ? `${t.slice(0, 6)}...${t.slice(-4)}` : '***');

export function defaultConfig(profile: Profile = 'strict'): SimConfig {
  return {
    profile,
    models: [
      { id: 'gpt-4o-mini', capabilities: ['chat'], ownedBy: 'openai' },
      { id: 'claude-sonnet-4-5', capabilities: ['native', 'chat'], ownedBy: 'anthropic' },
      { id: 'gpt-image-1', capabilities: ['image', 'image-edit'], ownedBy: 'openai' },
      { id: 'dall-e-3', capabilities: ['image'], ownedBy: 'openai' },
      { id: 'sora-2', capabilities: ['video'], ownedBy: 'openai' },
      { id: 'gpt-4o', capabilities: ['chat'], ownedBy: 'openai' },
    ],
    groups: [
      { name: 'default', visible: ['gpt-4o-mini', 'claude-sonnet-4-5', 'gpt-image-1', 'dall-e-3', 'sora-2', 'gpt-4o'], usable: ['gpt-4o-mini', 'claude-sonnet-4-5', 'gpt-image-1', 'dall-e-3', 'sora-2'] },
      { name: 'chat-only', visible: ['gpt-4o-mini'] },
      { name: 'native-cli', visible: ['claude-sonnet-4-5'] },
    ],
    tokens: [
      { name: 'production', value: 'sk-Pr0dQ7vXn2LmK8sJ4hGf6DsA1zXcV9bN3mQwErTyUiOpLk5d', group: 'default' },
      { name: 'test', value: 'sk-T3stR8pWq2ZxC6vBn4MjHg7FdSa1LkJ9hGfDsAzXcVbNm0qW', group: 'chat-only' },
      { name: 'native-cli', value: 'sk-N4tvC1iQ9wErT5yUi2OpAs8DfGh3JkL7zXcVbNm6QwErTy0u', group: 'native-cli' },
      { name: 'disabled', value: 'sk-D1sabL3dZx9Cv7Bn5Mq3We1Rt8Yu6Io4Pa2Sd0Fg9Hj7Kl5z', group: 'default', disabled: true },
    ],
    maxBodyBytes: 1024 * 1024,
    video: { pollsUntilInProgress: 1, pollsUntilDone: 3, outcome: 'completed' },
  };
}

function requestId(profile: Profile): string {
  const d = new Date();
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  if (profile === 'real') {
    const stamp = `${d.getUTCFullYear()}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}`;
    const nanos = String(Math.floor(Math.random() * 1e9)).padStart(9, '0');
    return `${stamp}${nanos}${randomBytes(4).toString('hex')}${randomBytes(6).toString('base64url').slice(0, 8)}`;
  }
  return `req_${randomBytes(12).toString('hex')}`;
}

/** A small valid PNG (a 96x96 gradient whose colours depend on the prompt). */
export function makePng(seed: string, size = 96): Buffer {
  let h = 0;
  for (const ch of seed) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
  const [r, g, b] = [h & 255, (h >> 8) & 255, (h >> 16) & 255];
  const rows: Buffer[] = [];
  for (let y = 0; y < size; y++) {
    const row = Buffer.alloc(1 + size * 3);
    for (let x = 0; x < size; x++) {
      const t = (x + y) / (2 * size);
      row.set([Math.round(r * (1 - t) + 255 * t * 0.3), Math.round(g * (1 - t) + 128 * t), Math.round(b * (1 - t) + 255 * t)], 1 + x * 3);
    }
    rows.push(row);
  }
  const raw = Buffer.concat(rows);
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (buf: Buffer) => {
    let c = 0xffffffff;
    for (const byte of buf) c = crcTable[(c ^ byte) & 255]! ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const td = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const c = Buffer.alloc(4);
    c.writeUInt32BE(crc(td));
    return Buffer.concat([len, td, c]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}

/** A few KB of deterministic bytes that start like an MP4 (an ftyp box). */
function makeMp4(seed: string): Buffer {
  const ftyp = Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypmp42', 'latin1'), Buffer.from([0, 0, 0, 0]), Buffer.from('isommp42', 'latin1')]);
  const body = Buffer.alloc(6000);
  for (let i = 0; i < body.length; i++) body[i] = (i * 7 + seed.length) & 255;
  return Buffer.concat([ftyp, body]);
}

const HTML_PAGE = `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Model Relay Gateway Console</title></head><body><div id="root">Model Relay Gateway Console — sign in to manage tokens.</div><script src="/assets/index.js"></script></body></html>`;

interface VideoTaskState { id: string; model: string; prompt: string; seconds: string; size: string; polls: number; createdAt: number; tokenValue: string; status: string; progress: number; completedAt?: number }

interface Ctx {
  req: IncomingMessage;
  res: ServerResponse;
  host: number;
  path: string;
  rid: string;
  started: number;
  faults: Fault[];
  record: UsageRecord;
  native: boolean;
}

const KNOWN_PATHS: Array<[string, RegExp]> = [
  ['POST', /^\/v1\/chat\/completions$/],
  ['POST', /^\/v1\/messages$/],
  ['GET', /^\/v1\/models$/],
  ['POST', /^\/v1\/images\/generations$/],
  ['POST', /^\/v1\/images\/edits$/],
  ['POST', /^\/v1\/videos$/],
  ['GET', /^\/v1\/videos\/[^/]+$/],
  ['GET', /^\/v1\/videos\/[^/]+\/content$/],
];

export async function startSimulator(opts: Partial<SimConfig> & { hosts?: number; port?: number } = {}): Promise<Simulator> {
  const { hosts: hostCount = 1, port = 0, ...cfgOver } = opts;
  const config: SimConfig = { ...defaultConfig(cfgOver.profile ?? 'strict'), ...cfgOver };
  let faults: Fault[] = [];
  const log: UsageRecord[] = [];
  const files = new Map<string, Buffer>();
  const videos = new Map<string, VideoTaskState>();
  const rate = new Map<string, number[]>();
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const servers: Server[] = [];
  const urls: string[] = [];

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const t = setTimeout(() => {
        timers.delete(t);
        resolve();
      }, ms);
      timers.add(t);
    });

  const takeFaults = (host: number, path: string): Fault[] => {
    const hit: Fault[] = [];
    for (const f of faults) {
      if (f.host !== undefined && f.host !== host) continue;
      if (f.path && !path.startsWith(f.path)) continue;
      if (f.count !== undefined) {
        if (f.count <= 0) continue;
        f.count--;
      }
      hit.push(f);
    }
    faults = faults.filter((f) => f.count === undefined || f.count > 0);
    return hit;
  };
  const find = <K extends Fault['kind']>(fs: Fault[], kind: K) => fs.find((f) => f.kind === kind) as Extract<Fault, { kind: K }> | undefined;

  const headersFor = (c: Ctx): Record<string, string> => {
    const h: Record<string, string> = {};
    if (config.profile === 'real') h['X-Oneapi-Request-Id'] = c.rid;
    else {
      h['x-request-id'] = c.rid;
      if (c.native) h['request-id'] = c.rid;
    }
    return h;
  };

  const finish = (c: Ctx, status: number) => {
    c.record.status = status;
    c.record.durationMs = Date.now() - c.started;
  };

  const sendJson = (c: Ctx, status: number, body: unknown, extra: Record<string, string> = {}) => {
    const text = JSON.stringify(body);
    c.res.writeHead(status, { ...headersFor(c), 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(text)), ...extra });
    c.res.end(text);
    finish(c, status);
  };

  const withId = (msg: string, c: Ctx) => (config.profile === 'real' ? `${msg} (request id: ${c.rid})` : msg);

  /** An error in the shape of this profile and surface. */
  const sendError = (c: Ctx, status: number, e: { message: string; oaType?: string; antType?: string; code?: string | null; forceOpenAI?: boolean }, extra: Record<string, string> = {}) => {
    if (config.profile === 'real') {
      if (c.native && !e.forceOpenAI) return sendJson(c, status, { type: 'error', error: { type: 'new_api_error', message: withId(e.message, c) } }, extra);
      return sendJson(c, status, { error: { message: withId(e.message, c), type: 'new_api_error', code: e.code ?? '' } }, extra);
    }
    if (c.native) return sendJson(c, status, { type: 'error', error: { type: e.antType ?? 'invalid_request_error', message: e.message }, request_id: c.rid }, extra);
    return sendJson(c, status, { error: { message: e.message, type: e.oaType ?? 'invalid_request_error', param: null, code: e.code ?? null } }, extra);
  };

  const readBody = (c: Ctx): Promise<Buffer | 'too-large'> =>
    new Promise((resolve, reject) => {
      const declared = Number(c.req.headers['content-length'] ?? '0');
      if (declared > config.maxBodyBytes) {
        c.req.resume();
        resolve('too-large');
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      let over = false;
      c.req.on('data', (d: Buffer) => {
        size += d.length;
        if (size > config.maxBodyBytes) over = true;
        else chunks.push(d);
      });
      c.req.on('end', () => resolve(over ? 'too-large' : Buffer.concat(chunks)));
      c.req.on('error', reject);
    });

  const tooLarge = (c: Ctx) =>
    config.profile === 'real'
      ? sendJson(c, 413, { error: { message: withId('http: request body too large', c), type: 'new_api_error', code: 'read_request_body_failed' } })
      : sendError(c, 413, { message: `Request body too large (limit ${config.maxBodyBytes} bytes).`, oaType: 'invalid_request_error', antType: 'request_too_large', code: 'request_too_large' });

  const auth = (c: Ctx): SimToken | undefined => {
    let key: string | undefined;
    const xKey = c.req.headers['x-api-key'];
    const authz = c.req.headers['authorization'];
    if (c.native && typeof xKey === 'string') key = xKey;
    else if (c.native && config.profile === 'real' && typeof authz === 'string' && /^Bearer /i.test(authz)) key = authz.replace(/^Bearer /i, '');
    else if (!c.native && typeof authz === 'string' && /^Bearer /.test(authz)) key = authz.slice(7);
    key = key?.trim();
    const tok = key ? config.tokens.find((t) => t.value === key) : undefined;
    if (key) c.record.tokenMasked = mask(key);
    if (!tok || tok.disabled) {
      if (config.profile === 'real') {
        sendJson(c, 401, { error: { message: withId('Invalid token', c), type: 'new_api_error', code: '' } });
      } else if (c.native) {
        sendJson(c, 401, { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' }, request_id: c.rid });
      } else {
        sendJson(c, 401, { error: { message: key ? `Incorrect API key provided: ${mask(key)}` : 'You did not provide an API key. Use Authorization: Bearer <API_KEY>.', type: 'invalid_request_error', param: null, code: 'invalid_api_key' } });
      }
      return undefined;
    }
    c.record.tokenName = tok.name;
    c.record.group = tok.group;
    return tok;
  };

  const rateLimited = (c: Ctx, tok: SimToken): boolean => {
    const rl = config.rateLimit;
    if (!rl) return false;
    const now = Date.now();
    const list = (rate.get(tok.value) ?? []).filter((t) => now - t < rl.windowMs);
    if (list.length >= rl.perToken) {
      rate.set(tok.value, list);
      const wait = Math.max(1, Math.ceil((rl.windowMs - (now - list[0]!)) / 1000));
      if (config.profile === 'real') {
        c.res.writeHead(429, headersFor(c));
        c.res.end();
        finish(c, 429);
      } else {
        sendError(c, 429, { message: `Rate limit reached for this token: ${rl.perToken} requests per ${rl.windowMs / 1000}s.`, oaType: 'rate_limit_exceeded', antType: 'rate_limit_error', code: 'rate_limit_exceeded' }, { 'Retry-After': String(wait) });
      }
      return true;
    }
    list.push(now);
    rate.set(tok.value, list);
    return false;
  };

  /** Checks the model against the token's group and the capability. Sends the error and returns false when refused. */
  const checkModel = (c: Ctx, tok: SimToken, model: unknown, cap: Capability): model is string => {
    if (typeof model !== 'string' || !model) {
      if (config.profile === 'real') sendJson(c, 400, { error: { message: withId('Model name not specified, model name cannot be empty', c), type: 'new_api_error', code: '' } });
      else sendError(c, 400, { message: 'model: field required', code: 'missing_required_parameter' });
      return false;
    }
    c.record.model = model;
    const group = config.groups.find((g) => g.name === tok.group);
    const m = config.models.find((x) => x.id === model);
    const visible = !!group && group.visible.includes(model);
    const usable = visible && (group!.usable ?? group!.visible).includes(model);
    if (!m || !visible || !usable) {
      if (config.profile === 'real') {
        sendJson(c, 503, { error: { message: withId(`No available channel for model ${model} under group ${tok.group} (distributor)`, c), type: 'new_api_error', code: 'model_not_found' } });
      } else if (!m || !visible) {
        sendError(c, 404, { message: `The model '${model}' does not exist or you do not have access to it.`, oaType: 'invalid_request_error', antType: 'not_found_error', code: 'model_not_found' });
      } else {
        sendError(c, 403, { message: `Your token's group '${tok.group}' has no access to model ${model} (model not found for this group).`, oaType: 'permission_denied', antType: 'permission_error', code: 'model_not_found' });
      }
      return false;
    }
    if (!m.capabilities.includes(cap)) {
      const names: Record<Capability, string> = { chat: 'chat completions', native: 'native messages', image: 'image generation', 'image-edit': 'image editing', video: 'video generation' };
      sendError(c, 400, { message: `model ${model} does not support ${names[cap]}`, code: 'invalid_model' });
      return false;
    }
    return true;
  };

  const parseJson = (c: Ctx, body: Buffer): Record<string, unknown> | undefined => {
    try {
      const j = JSON.parse(body.toString('utf8')) as unknown;
      if (j && typeof j === 'object' && !Array.isArray(j)) return j as Record<string, unknown>;
    } catch {
      /* fall through */
    }
    sendError(c, 400, { message: 'We could not parse the JSON body of your request.', code: 'invalid_json' });
    return undefined;
  };

  const textOfContent = (content: unknown): string => {
    if (typeof content === 'string') return content;
    if (Array.isArray(content)) return content.map((b) => (b && typeof b === 'object' && typeof (b as { text?: unknown }).text === 'string' ? (b as { text: string }).text : '')).join('');
    return '';
  };
  const words = (s: string) => s.split(/\s+/).filter(Boolean).length;

  /** The reply, split into word tokens (each keeps its leading space). */
  const reply = (messages: Array<{ role?: unknown; content?: unknown }>, maxTokens: number | undefined) => {
    const lastUser = [...messages].reverse().find((m) => m.role === 'user');
    const full = config.replyText ?? `Echo: ${textOfContent(lastUser?.content)}`;
    const parts = full.match(/\s*\S+/g) ?? [''];
    const truncated = maxTokens !== undefined && parts.length > maxTokens;
    const kept = truncated ? parts.slice(0, maxTokens) : parts;
    return { parts: kept, text: kept.join(''), truncated };
  };

  /** Writes SSE events honouring the stream faults. `events` are complete SSE frames. */
  const streamEvents = async (c: Ctx, frames: string[], onError: () => string[]) => {
    const fs = c.faults;
    const slow = find(fs, 'slowChunks');
    const buffer = !!find(fs, 'buffer');
    const mid = find(fs, 'midStreamError');
    const reset = find(fs, 'reset');
    const trunc = find(fs, 'truncate');
    const headers = { ...headersFor(c), 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', Connection: 'keep-alive' };
    let out = frames;
    if (mid) out = [...frames.slice(0, mid.afterEvents), ...onError()];
    if (trunc) out = frames.slice(0, trunc.afterEvents);
    const pending: string[] = [];
    if (!buffer) {
      c.res.writeHead(200, headers);
      c.res.flushHeaders();
    }
    let closed = false;
    c.res.on('close', () => {
      closed = true;
    });
    for (let i = 0; i < out.length; i++) {
      if (closed) break;
      if (reset?.afterEvents !== undefined && i === reset.afterEvents) {
        c.req.socket.destroy();
        finish(c, 200);
        return;
      }
      if (slow && i > 0) await sleep(slow.ms);
      if (closed) break;
      if (buffer) pending.push(out[i]!);
      else c.res.write(out[i]!);
    }
    if (closed && !c.res.writableEnded) {
      c.record.closedEarly = true;
      finish(c, 200);
      return;
    }
    if (buffer) {
      const all = pending.join('');
      c.res.writeHead(200, { ...headers, 'Content-Length': String(Buffer.byteLength(all)) });
      c.res.end(all);
    } else c.res.end();
    finish(c, 200);
  };

  // ---------------- endpoints ----------------

  const chatCompletions = async (c: Ctx, tok: SimToken, body: Record<string, unknown>) => {
    if (!checkModel(c, tok, body.model, 'chat')) return;
    const messages = body.messages;
    if (!Array.isArray(messages) || messages.length === 0) return sendError(c, 400, { message: "'messages' is a required property and must be a non-empty array", code: 'missing_required_parameter' });
    const maxTokens = typeof body.max_tokens === 'number' ? body.max_tokens : undefined;
    const r = reply(messages as Array<{ role?: unknown; content?: unknown }>, maxTokens);
    const promptTokens = (messages as Array<{ content?: unknown }>).reduce((n, m) => n + words(textOfContent(m.content)), 0) + 3;
    const usage = { prompt_tokens: promptTokens, completion_tokens: r.parts.length, total_tokens: promptTokens + r.parts.length };
    const id = config.profile === 'real' ? `chatcmpl-${c.rid}` : `chatcmpl-${randomBytes(12).toString('hex')}`;
    const created = Math.floor(Date.now() / 1000);
    const model = body.model as string;
    const finishReason = r.truncated ? 'length' : 'stop';
    c.record.stream = body.stream === true;
    if (body.stream !== true) {
      if (find(c.faults, 'emptyChoices')) return sendJson(c, 200, { id, object: 'chat.completion', created, model, choices: [], usage });
      if (find(c.faults, 'invalidJson')) {
        c.res.writeHead(200, { ...headersFor(c), 'Content-Type': 'application/json' });
        c.res.end('{"id": "chatcmpl-1", "choi');
        return finish(c, 200);
      }
      return sendJson(c, 200, { id, object: 'chat.completion', created, model, choices: [{ index: 0, message: { role: 'assistant', content: r.text, refusal: null }, logprobs: null, finish_reason: finishReason }], usage, system_fingerprint: 'fp_sim' });
    }
    const so = body.stream_options as { include_usage?: unknown } | undefined;
    const includeUsage = config.profile === 'real' ? so?.include_usage !== false : so?.include_usage === true;
    const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) => `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices, ...(includeUsage && !('usage' in extra) ? { usage: null } : {}), ...extra })}\n\n`;
    const frames = [chunk([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }])];
    for (const p of r.parts) frames.push(chunk([{ index: 0, delta: { content: p }, finish_reason: null }]));
    frames.push(chunk([{ index: 0, delta: {}, finish_reason: finishReason }]));
    if (includeUsage) frames.push(chunk([], { usage }));
    frames.push('data: [DONE]\n\n');
    const mid = find(c.faults, 'midStreamError');
    await streamEvents(c, frames, () => {
      const err = `data: ${JSON.stringify({ error: { message: withId(mid?.message ?? 'upstream error: the model is overloaded', c), type: 'server_error', param: null, code: null } })}\n\n`;
      return config.profile === 'real' ? [err, chunk([], { usage }), 'data: [DONE]\n\n'] : [err];
    });
  };

  const messagesEndpoint = async (c: Ctx, tok: SimToken, body: Record<string, unknown>) => {
    if (config.profile === 'strict' && !c.req.headers['native-version']) {
      return sendJson(c, 400, { type: 'error', error: { type: 'invalid_request_error', message: 'native-version: header is required' }, request_id: c.rid });
    }
    if (!checkModel(c, tok, body.model, 'native')) return;
    const messages = body.messages;
    if (!Array.isArray(messages) || messages.length === 0) return sendError(c, 400, { message: 'messages: field required' });
    if (typeof body.max_tokens !== 'number' || !Number.isInteger(body.max_tokens) || body.max_tokens < 1) return sendError(c, 400, { message: 'max_tokens: field required' });
    const r = reply(messages as Array<{ role?: unknown; content?: unknown }>, body.max_tokens);
    const systemWords = words(textOfContent(body.system));
    const inputTokens = (messages as Array<{ content?: unknown }>).reduce((n, m) => n + words(textOfContent(m.content)), 0) + systemWords + 3;
    const id = `msg_${randomBytes(12).toString('hex')}`;
    const model = body.model as string;
    const stopReason = r.truncated ? 'max_tokens' : 'end_turn';
    c.record.stream = body.stream === true;
    if (body.stream !== true) {
      if (find(c.faults, 'invalidJson')) {
        c.res.writeHead(200, { ...headersFor(c), 'Content-Type': 'application/json' });
        c.res.end('{"id": "msg_1", "conte');
        return finish(c, 200);
      }
      return sendJson(c, 200, { id, type: 'message', role: 'assistant', model, content: [{ type: 'text', text: r.text }], stop_reason: stopReason, stop_sequence: null, usage: { input_tokens: inputTokens, output_tokens: r.parts.length } });
    }
    const ev = (type: string, data: unknown) => `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
    const frames = [
      ev('message_start', { type: 'message_start', message: { id, type: 'message', role: 'assistant', content: [], model, stop_reason: null, stop_sequence: null, usage: { input_tokens: inputTokens, output_tokens: 1 } } }),
      ev('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
      ev('ping', { type: 'ping' }),
      ...r.parts.map((p) => ev('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: p } })),
      ev('content_block_stop', { type: 'content_block_stop', index: 0 }),
      ev('message_delta', { type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: r.parts.length } }),
      ev('message_stop', { type: 'message_stop' }),
    ];
    const mid = find(c.faults, 'midStreamError');
    await streamEvents(c, frames, () => [ev('error', { type: 'error', error: { type: 'overloaded_error', message: mid?.message ?? 'Overloaded' } })]);
  };

  const models = (c: Ctx, tok: SimToken) => {
    const group = config.groups.find((g) => g.name === tok.group);
    const list = config.models.filter((m) => group?.visible.includes(m.id));
    const endpointTypes = (m: SimModel) => [...new Set(m.capabilities.map((cap) => ({ chat: 'openai', native: 'anthropic', image: 'image-generation', 'image-edit': 'image-generation', video: 'openai-video' })[cap]))];
    const data = list.map((m) => ({ id: m.id, object: 'model', created: 1626777600, owned_by: m.ownedBy ?? 'custom', ...(config.profile === 'real' ? { supported_endpoint_types: endpointTypes(m) } : {}) }));
    sendJson(c, 200, config.profile === 'real' ? { success: true, object: 'list', data } : { object: 'list', data });
  };

  const imageResult = (c: Ctx, model: string, prompt: string, format: unknown) => {
    const png = makePng(`${model}:${prompt}`);
    const b64 = model.startsWith('gpt-image') || format === 'b64_json';
    let item: Record<string, unknown>;
    if (b64) item = { b64_json: png.toString('base64') };
    else {
      const id = randomBytes(8).toString('hex');
      files.set(id, png);
      item = { url: `${urls[c.host]}/files/${id}.png` };
      if (model === 'dall-e-3') item.revised_prompt = prompt;
    }
    sendJson(c, 200, { created: Math.floor(Date.now() / 1000), data: [item], ...(model.startsWith('gpt-image') ? { usage: { input_tokens: words(prompt), output_tokens: 4160, total_tokens: words(prompt) + 4160 } } : {}) });
  };

  const readForm = async (c: Ctx, body: Buffer): Promise<FormData | undefined> => {
    try {
      return await new Request('http://sim.local/', { method: 'POST', headers: { 'content-type': String(c.req.headers['content-type'] ?? '') }, body: new Uint8Array(body) }).formData();
    } catch {
      sendError(c, 400, { message: 'Could not parse the multipart/form-data body.' });
      return undefined;
    }
  };

  const videoJson = (c: Ctx, t: VideoTaskState) => {
    const done = t.status === 'completed';
    const o: Record<string, unknown> = {
      id: t.id,
      object: 'video',
      model: t.model,
      status: t.status,
      progress: config.profile === 'real' ? `${t.progress}%` : t.progress,
      created_at: t.createdAt,
      completed_at: done ? (t.completedAt ?? null) : null,
      expires_at: done ? (t.completedAt ?? 0) + 3600 : null,
      seconds: t.seconds,
      size: t.size,
      remixed_from_video_id: null,
      error: t.status === 'failed' ? { code: 'generation_failed', message: config.video.failureReason ?? 'The video could not be generated.' } : null,
    };
    if (config.profile === 'real') o.task_id = t.id;
    return o;
  };

  const advance = (t: VideoTaskState) => {
    t.polls++;
    const v = config.video;
    if (t.status === 'completed' || t.status === 'failed') return;
    if (t.polls < v.pollsUntilInProgress) t.status = config.profile === 'real' && t.polls === 0 ? 'unknown' : 'queued';
    else if (v.outcome === 'stuck' || t.polls < v.pollsUntilDone) {
      t.status = 'in_progress';
      t.progress = Math.min(90, Math.max(10, Math.round((t.polls / Math.max(1, v.pollsUntilDone)) * 100)));
    } else if (v.outcome === 'failed') t.status = 'failed';
    else {
      t.status = 'completed';
      t.progress = 100;
      t.completedAt = Math.floor(Date.now() / 1000);
    }
  };

  // ---------------- routing ----------------

  const handle = async (req: IncomingMessage, res: ServerResponse, host: number) => {
    const url = new URL(req.url ?? '/', 'http://sim.local');
    const path = url.pathname;
    const method = req.method ?? 'GET';

    // control API (not logged)
    if (path.startsWith('/__sim/')) {
      const chunks: Buffer[] = [];
      for await (const d of req) chunks.push(d as Buffer);
      const body = chunks.length ? (JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown) : undefined;
      const ok = (data: unknown = { ok: true }) => {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify(data));
      };
      if (path === '/__sim/faults' && method === 'POST') return ok((api.fault(body as Fault), { ok: true }));
      if (path === '/__sim/faults' && method === 'DELETE') return ok((api.clearFaults(), { ok: true }));
      if (path === '/__sim/reset' && method === 'POST') return ok((api.reset(), { ok: true }));
      if (path === '/__sim/log' && method === 'GET') return ok(log);
      if (path === '/__sim/config' && method === 'PUT') {
        Object.assign(config, body as Partial<SimConfig>);
        return ok({ ok: true });
      }
      res.writeHead(404).end();
      return;
    }
    if (path.startsWith('/files/') && method === 'GET') {
      const png = files.get(path.slice('/files/'.length).replace(/\.png$/, ''));
      if (!png) {
        res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
        return;
      }
      res.writeHead(200, { 'Content-Type': 'image/png', 'Content-Length': String(png.length) }).end(png);
      return;
    }

    const rid = requestId(config.profile);
    const record: UsageRecord = { time: Date.now(), host, method, path, tokenMasked: null, tokenName: null, group: null, model: null, status: 0, stream: false, requestId: rid, durationMs: 0, headers: {} };
    for (const [k, v] of Object.entries(req.headers)) {
      if (typeof v !== 'string') continue;
      record.headers[k] = k === 'authorization' ? v.replace(/(Bearer\s+)?(\S+)$/i, (_m, b: string | undefined, t: string) => `${b ?? ''}${mask(t)}`) : k === 'x-api-key' ? mask(v) : v;
    }
    log.push(record);
    const c: Ctx = { req, res, host, path, rid, started: Date.now(), faults: takeFaults(host, path), record, native: path === '/v1/messages' };

    const down = find(c.faults, 'down');
    if (down) {
      req.socket.destroy();
      record.status = 0;
      return;
    }
    const latency = find(c.faults, 'latency');
    if (latency) await sleep(latency.ms);
    const reset = find(c.faults, 'reset');
    if (reset && reset.afterEvents === undefined) {
      req.resume();
      req.socket.destroy();
      record.status = 0;
      return;
    }
    const html = find(c.faults, 'html');
    if (html) {
      req.resume();
      res.writeHead(html.status ?? 200, { ...headersFor(c), 'Content-Type': 'text/html; charset=utf-8' });
      res.end(HTML_PAGE);
      return finish(c, html.status ?? 200);
    }
    const st = find(c.faults, 'status');
    if (st) {
      req.resume();
      const extra: Record<string, string> = {};
      if (st.retryAfter) extra['Retry-After'] = st.retryAfter;
      if (st.retryAfterMs) extra['retry-after-ms'] = st.retryAfterMs;
      if (st.body === 'empty') {
        res.writeHead(st.status, { ...headersFor(c), ...extra });
        res.end();
        return finish(c, st.status);
      }
      if (st.body === 'html') {
        res.writeHead(st.status, { ...headersFor(c), ...extra, 'Content-Type': 'text/html' });
        res.end(`<html><head><title>${st.status} Bad Gateway</title></head><body><center><h1>${st.status}</h1></center><hr><center>cdn</center></body></html>`);
        return finish(c, st.status);
      }
      const msg = st.status === 429 ? 'Rate limit reached, please retry later.' : st.status >= 500 ? 'The upstream service is temporarily unavailable.' : 'Request failed.';
      return sendError(c, st.status, { message: msg, oaType: st.status >= 500 ? 'server_error' : 'invalid_request_error', antType: st.status >= 500 ? 'api_error' : st.status === 429 ? 'rate_limit_error' : 'invalid_request_error', code: st.code ?? null }, extra);
    }

    if (!path.startsWith('/v1/')) {
      req.resume();
      res.writeHead(200, { ...headersFor(c), 'Content-Type': 'text/html; charset=utf-8' });
      res.end(HTML_PAGE);
      return finish(c, 200);
    }
    if (!KNOWN_PATHS.some(([m, re]) => m === method && re.test(path))) {
      req.resume();
      return sendJson(c, 404, { error: { message: `Invalid URL (${method} ${path})`, type: 'invalid_request_error', param: '', code: '' } });
    }

    const tok = auth(c);
    if (!tok) {
      req.resume();
      return;
    }
    const raw = method === 'POST' ? await readBody(c) : Buffer.alloc(0);
    if (raw === 'too-large') return tooLarge(c);
    if (rateLimited(c, tok)) return;

    if (path === '/v1/chat/completions') {
      const body = parseJson(c, raw);
      if (body) await chatCompletions(c, tok, body);
      return;
    }
    if (path === '/v1/messages') {
      const body = parseJson(c, raw);
      if (body) await messagesEndpoint(c, tok, body);
      return;
    }
    if (path === '/v1/models') return models(c, tok);
    if (path === '/v1/images/generations') {
      const body = parseJson(c, raw);
      if (!body) return;
      if (typeof body.prompt !== 'string' || !body.prompt.trim()) return sendError(c, 400, { message: "'prompt' is a required property", code: 'missing_required_parameter' });
      if (body.size !== undefined && (typeof body.size !== 'string' || !/^\d+x\d+$/.test(body.size))) return sendError(c, 400, { message: `Invalid size '${String(body.size)}': use <width>x<height>`, code: 'invalid_size' });
      if (!checkModel(c, tok, body.model, 'image')) return;
      return imageResult(c, body.model as string, body.prompt, body.response_format);
    }
    if (path === '/v1/images/edits') {
      const form = await readForm(c, raw);
      if (!form) return;
      const model = form.get('model');
      const prompt = form.get('prompt');
      const image = form.get('image') ?? form.get('image[]');
      if (!checkModel(c, tok, typeof model === 'string' ? model : undefined, 'image-edit')) return;
      if (!image || typeof image === 'string') return sendError(c, 400, { message: 'image is required' });
      if (typeof prompt !== 'string' || !prompt.trim()) return sendError(c, 400, { message: "'prompt' is a required property" });
      return imageResult(c, model as string, `${prompt}:${(image as Blob).size}`, 'b64_json');
    }
    if (path === '/v1/videos' && method === 'POST') {
      let fields: Record<string, string> = {};
      if (/multipart\/form-data/i.test(String(req.headers['content-type'] ?? ''))) {
        const form = await readForm(c, raw);
        if (!form) return;
        form.forEach((v, k) => {
          if (typeof v === 'string') fields[k] = v;
        });
      } else {
        const body = parseJson(c, raw);
        if (!body) return;
        fields = Object.fromEntries(Object.entries(body).map(([k, v]) => [k, String(v)]));
      }
      if (config.profile === 'real' && !fields.model) return sendJson(c, 400, { code: 'missing_model', message: 'model is required', data: null });
      if (!checkModel(c, tok, fields.model, 'video')) return;
      if (!fields.prompt?.trim()) return config.profile === 'real' ? sendJson(c, 400, { code: 'invalid_request', message: 'prompt is required', data: null }) : sendError(c, 400, { message: "'prompt' is a required property" });
      const seconds = fields.seconds ?? fields.duration ?? '4';
      if (!/^\d+$/.test(seconds) || Number(seconds) > 3600) return config.profile === 'real' ? sendJson(c, 400, { code: 'invalid_seconds', message: 'seconds must be between 0 and 3600', data: null }) : sendError(c, 400, { message: 'Invalid seconds' });
      const id = `${config.profile === 'real' ? 'task_' : 'video_'}${randomBytes(16).toString('hex')}`;
      const t: VideoTaskState = { id, model: fields.model!, prompt: fields.prompt, seconds, size: fields.size ?? '720x1280', polls: 0, createdAt: Math.floor(Date.now() / 1000), tokenValue: tok.value, status: 'queued', progress: 0 };
      videos.set(id, t);
      return sendJson(c, 200, { ...videoJson(c, t), progress: config.profile === 'real' ? 0 : 0 });
    }
    const m = /^\/v1\/videos\/([^/]+)(\/content)?$/.exec(path);
    if (m) {
      const t = videos.get(m[1]!);
      if (!t || t.tokenValue !== tok.value) {
        if (m[2]) return sendJson(c, 404, { error: { message: 'Task not found', type: 'invalid_request_error' } });
        return config.profile === 'real' ? sendJson(c, 400, { code: 'task_not_exist', message: 'task_not_exist', data: null }) : sendError(c, 404, { message: `Video '${m[1]}' not found`, code: 'not_found' });
      }
      c.record.model = t.model;
      if (!m[2]) {
        advance(t);
        return sendJson(c, 200, videoJson(c, t), { 'openai-poll-after-ms': '1000' });
      }
      if (t.status !== 'completed') {
        const internal = { queued: 'QUEUED', in_progress: 'IN_PROGRESS', failed: 'FAILURE', unknown: 'NOT_START' }[t.status] ?? t.status.toUpperCase();
        return sendJson(c, 400, { error: { message: `Task is not completed yet, current status: ${internal}`, type: 'invalid_request_error' } });
      }
      if (config.video.expired) {
        if (config.profile === 'real') return sendJson(c, 502, { error: { message: 'Upstream service returned status 404', type: 'server_error' } });
        return sendError(c, 404, { message: 'The video content has expired and is no longer available.', code: 'video_expired' });
      }
      const mp4 = makeMp4(t.id);
      res.writeHead(200, { ...headersFor(c), 'Content-Type': 'video/mp4', 'Content-Length': String(mp4.length), 'Cache-Control': 'public, max-age=86400' });
      for (let i = 0; i < mp4.length; i += 2048) {
        res.write(mp4.subarray(i, i + 2048));
        await sleep(1);
      }
      res.end();
      return finish(c, 200);
    }
    sendJson(c, 404, { error: { message: `Invalid URL (${method} ${path})`, type: 'invalid_request_error', param: '', code: '' } });
  };

  for (let i = 0; i < Math.max(1, hostCount); i++) {
    const server = createServer((req, res) => {
      handle(req, res, i).catch((e: unknown) => {
        if (!res.headersSent) {
          res.writeHead(500, { 'Content-Type': 'application/json' });
          res.end(JSON.stringify({ error: { message: `simulator error: ${e instanceof Error ? e.message : String(e)}`, type: 'server_error' } }));
        } else res.destroy();
      });
    });
    server.on('connection', (s: Socket) => {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(i === 0 ? port : 0, '127.0.0.1', () => resolve());
    });
    servers.push(server);
    urls.push(`http://127.0.0.1:${(server.address() as { port: number }).port}`);
  }

  const api: Simulator = {
    url: urls[0]!,
    urls,
    config,
    log,
    tokens: Object.fromEntries(config.tokens.map((t) => [t.name, t.value])),
    fault(f) {
      faults.push({ ...f });
    },
    clearFaults() {
      faults = [];
    },
    reset() {
      faults = [];
      log.length = 0;
      rate.clear();
      videos.clear();
    },
    async close() {
      for (const t of timers) clearTimeout(t);
      timers.clear();
      for (const s of sockets) s.destroy();
      await Promise.all(servers.map((s) => new Promise<void>((r) => s.close(() => r()))));
    },
  };
  return api;
}
