/**
 * Image calls over a Transport: generation (JSON), edits (multipart, the file streamed from disk),
 * and the download of result URLs (often a CDN: same dispatcher, never the token).
 */
import { imageTooLargeError, inputError, notMediaError } from '../errors/factories';
import { DEFAULT_MAX_IMAGE_BYTES } from '../defaults';
import { hostOf } from '../endpoint';
import { t } from '../l10n';
import { errorFromResponse } from '../errors/fromResponse';
import { GatewayError, type ErrorContext } from '../errors/gatewayError';
import { bodyReadError, headerValue, readBytes, readText, sendOnce } from '../http/attempt';
import type { Limiter } from '../http/limiter';
import type { RequestBody, Transport } from '../http/transport';
import { checkCapability, type Capability } from '../models';
import {
  IMAGE_PATHS,
  buildEditForm,
  parseImageResponse,
  sniffImageMime,
  validateSize,
  type GeneratedImage,
  type ImageEditRequest,
  type ImageGenerateRequest,
  type ImageResult,
} from './images';

export interface MediaCallContext {
  transport: Transport;
  limiter: Limiter;
  timeoutMs: number;
  now: () => number;
  /** what the model list said the model can do (undefined: not known) */
  capabilitiesOf: (model: string) => Capability[] | undefined;
  /** the listed models known to have a capability (for "choose one of these") */
  modelsWith: (cap: Capability) => string[];
}

/** Redirect hops followed for a result URL (without the token: it is never sent there). */
const MAX_REDIRECTS = 3;

/** The sentences for a missing model or prompt (made only when needed: they are translated). */
interface PromptWords {
  model: () => [string, string];
  prompt: () => [string, string];
}

const GENERATE_WORDS: PromptWords = {
  model: () => [t('No image model is set.'), t('Set {0} or pick an image model.', 'modelRelay.models.image')],
  prompt: () => [t('The image prompt is empty.'), t('Select some text or type a prompt.')],
};

const EDIT_WORDS: PromptWords = {
  model: () => [
    t('No image-edit model is set.'),
    t('Set {0} or pick an image-edit model.', 'modelRelay.models.imageEdit'),
  ],
  prompt: () => [t('The edit instruction is empty.'), t('Type what should change in the image.')],
};

function checkPrompt(
  req: { model?: string; prompt?: string; size?: string | undefined },
  words: PromptWords,
  context: ErrorContext,
): void {
  if (!req.model?.trim()) throw inputError(...words.model(), context);
  if (!req.prompt?.trim()) throw inputError(...words.prompt(), context);
  validateSize(req.size, context);
}

export async function generateImage(c: MediaCallContext, req: ImageGenerateRequest): Promise<ImageResult> {
  const context: ErrorContext = { surface: 'compatible', model: req.model, capability: 'image' };
  checkPrompt(req, GENERATE_WORDS, context);
  checkCapability(c.capabilitiesOf(req.model), req.model, 'image', context, c.modelsWith('image'));
  const body: Record<string, unknown> = { model: req.model, prompt: req.prompt };
  if (req.size) body.size = req.size;
  if (req.n) body.n = req.n;
  if (req.responseFormat) body.response_format = req.responseFormat;
  return imageCall(c, IMAGE_PATHS.generate, 'image', req.model, JSON.stringify(body), req.signal);
}

export async function editImage(c: MediaCallContext, req: ImageEditRequest): Promise<ImageResult> {
  const context: ErrorContext = { surface: 'compatible', model: req.model, capability: 'image-edit' };
  checkPrompt(req, EDIT_WORDS, context);
  checkCapability(c.capabilitiesOf(req.model), req.model, 'image-edit', context, c.modelsWith('image-edit'));
  const { form } = await buildEditForm(req, context);
  return imageCall(c, IMAGE_PATHS.edit, 'image-edit', req.model, form, req.signal);
}

async function imageCall(
  c: MediaCallContext,
  path: string,
  capability: 'image' | 'image-edit',
  model: string,
  body: RequestBody,
  signal: AbortSignal | undefined,
): Promise<ImageResult> {
  return c.limiter.run(async () => {
    const started = c.now();
    const json = typeof body === 'string';
    // Billed: retried only when it provably never reached the gateway, or on 429 (work refused).
    const { data, res } = await c.transport.json({
      method: 'POST',
      path,
      surface: 'compatible',
      capability,
      model,
      body,
      json,
      signal,
      timeoutMs: c.timeoutMs,
      sideEffecting: true,
    });
    const images = await materialize(c, parseImageResponse(data, res.context), res.context, signal);
    return { images, host: res.host, requestId: res.requestId, durationMs: c.now() - started };
  }, signal);
}

async function materialize(
  c: MediaCallContext,
  items: ReturnType<typeof parseImageResponse>,
  context: ErrorContext,
  signal?: AbortSignal,
): Promise<GeneratedImage[]> {
  const out: GeneratedImage[] = [];
  for (const it of items) {
    if (it.b64) {
      const b64 = it.b64.replace(/^data:[^,]*,/, '');
      if (b64.length > (DEFAULT_MAX_IMAGE_BYTES * 4) / 3 + 4)
        throw imageTooLargeError(DEFAULT_MAX_IMAGE_BYTES, context);
      const bytes = Buffer.from(b64, 'base64');
      out.push({ bytes, mime: imageMime(bytes, context), revisedPrompt: it.revisedPrompt });
    } else if (it.url) {
      const bytes = await downloadResult(c, it.url, context, signal);
      out.push({ bytes, mime: imageMime(bytes, context), sourceUrl: it.url, revisedPrompt: it.revisedPrompt });
    }
  }
  return out;
}

/** The image's type from its magic bytes; anything that is not a known image format is refused. */
function imageMime(bytes: Buffer, context: ErrorContext): string {
  const mime = sniffImageMime(bytes);
  if (mime === 'application/octet-stream')
    throw notMediaError('image', bytes.length ? t('bytes of no image format') : t('an empty body'), context);
  return mime;
}

/** Downloads a result URL (often a CDN): through the same dispatcher, never with the token. */
async function downloadResult(
  c: MediaCallContext,
  url: string,
  context: ErrorContext,
  signal?: AbortSignal,
): Promise<Buffer> {
  if (url.startsWith('data:')) return Buffer.from(url.replace(/^data:[^,]*,/, ''), 'base64');
  let target = url;
  for (let hop = 0; ; hop++) {
    const ctx = { ...context, url: target };
    const a = await sendOnce({
      url: target,
      method: 'GET',
      headers: {},
      dispatcher: c.transport.dispatcher,
      signal,
      timeoutMs: c.timeoutMs,
      context: ctx,
    });
    try {
      const location = headerValue(a.headers, 'location');
      if (a.status >= 300 && a.status < 400 && location && hop < MAX_REDIRECTS) {
        a.body.destroy();
        target = new URL(location, target).toString();
        continue;
      }
      if (a.status !== 200) {
        const text = await readText(a.body, 64 * 1024).catch(() => '');
        throw errorFromResponse({ status: a.status, headers: a.headers, body: text, context: ctx });
      }
      const type = headerValue(a.headers, 'content-type') ?? '';
      if (/^(text\/|application\/(json|xml|xhtml))/i.test(type))
        throw notMediaError('image', t('{0} from {1}', type.split(';')[0], hostOf(target)), ctx);
      // Bounded: one byte more than the cap tells "too large" without reading the rest.
      const bytes = await readBytes(a.body, DEFAULT_MAX_IMAGE_BYTES + 1);
      if (bytes.length > DEFAULT_MAX_IMAGE_BYTES) throw imageTooLargeError(DEFAULT_MAX_IMAGE_BYTES, ctx);
      return bytes;
    } catch (e) {
      throw e instanceof GatewayError ? e : bodyReadError(e, a, ctx, { signal, timeoutMs: c.timeoutMs });
    } finally {
      a.release();
    }
  }
}
