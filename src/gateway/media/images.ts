/** Images: generation (JSON) and edits (multipart, file streamed from disk). */
import { z } from 'zod';
import { openAsBlob } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import { FormData } from 'undici';
import type { ErrorContext } from '../errors/gatewayError';
import { inputError, protocolError, uploadTooLargeError } from '../errors/factories';
import { t } from '../l10n';

/** The image endpoints (compatible surface). */
export const IMAGE_PATHS = { generate: '/v1/images/generations', edit: '/v1/images/edits' } as const;

export interface ImageGenerateRequest {
  model: string;
  prompt: string;
  size?: string | undefined;
  n?: number | undefined;
  responseFormat?: 'url' | 'b64_json' | undefined;
  signal?: AbortSignal | undefined;
}

export interface ImageEditRequest {
  model: string;
  prompt: string;
  imagePath: string;
  size?: string | undefined;
  /** checked before sending; the gateway answers 413 above its own limit */
  maxFileBytes?: number | undefined;
  signal?: AbortSignal | undefined;
}

export interface GeneratedImage {
  bytes: Buffer;
  mime: string;
  /** the URL it was downloaded from, when the gateway returned a URL */
  sourceUrl?: string | undefined;
  revisedPrompt?: string | undefined;
}

export interface ImageResult {
  images: GeneratedImage[];
  host: string;
  requestId: string | undefined;
  durationMs: number;
}

/**
 * Upload limits for image edits known per model family (the providers' documented limits); the
 * gateway may be stricter and answers 413, which is explained in the spec's words.
 */
export const KNOWN_EDIT_LIMITS: ReadonlyArray<{ pattern: RegExp; bytes: number; note: string }> = [
  { pattern: /^dall-e-2/i, bytes: 4 * 1024 * 1024, note: 'dall-e-2 edits take a square PNG under 4 MB' },
  { pattern: /^gpt-image/i, bytes: 50 * 1024 * 1024, note: 'gpt-image models take images under 50 MB' },
];

/** The limit to check before sending: the setting, lowered to the model's known limit. */
export function editUploadLimit(model: string, setting: number): { bytes: number; note?: string | undefined } {
  const known = KNOWN_EDIT_LIMITS.find((k) => k.pattern.test(model));
  return known && known.bytes < setting ? { bytes: known.bytes, note: known.note } : { bytes: setting };
}

export const SIZE_PATTERN = /^([1-9]\d{1,4})x([1-9]\d{1,4})$/;

export function validateSize(size: string | undefined, context: ErrorContext): void {
  if (size === undefined || size === '' || size === 'auto') return;
  if (!SIZE_PATTERN.test(size))
    throw inputError(
      t('Image size "{0}" is not in the form <width>x<height>.', size),
      t('Use a size such as 1024x1024.'),
      context,
    );
}

export const imageResponseSchema = z.object({
  data: z.array(
    z.object({ url: z.string().nullish(), b64_json: z.string().nullish(), revised_prompt: z.string().nullish() }),
  ),
});

export function sniffImageMime(b: Buffer): string {
  if (b.length >= 8 && b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])))
    return 'image/png';
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'image/jpeg';
  if (
    b.length >= 12 &&
    b.subarray(0, 4).toString('latin1') === 'RIFF' &&
    b.subarray(8, 12).toString('latin1') === 'WEBP'
  )
    return 'image/webp';
  if (b.length >= 6 && /^GIF8[79]a/.test(b.subarray(0, 6).toString('latin1'))) return 'image/gif';
  return 'application/octet-stream';
}

export function extensionForMime(mime: string): string {
  return { 'image/png': '.png', 'image/jpeg': '.jpg', 'image/webp': '.webp', 'image/gif': '.gif' }[mime] ?? '.bin';
}

const UPLOAD_TYPES: Record<string, string> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.webp': 'image/webp',
};

/** Builds the edit form with the image as a file-backed Blob: streamed from disk, never read whole. */
export async function buildEditForm(
  req: ImageEditRequest,
  context: ErrorContext,
): Promise<{ form: () => Promise<FormData>; size: number }> {
  const type = UPLOAD_TYPES[extname(req.imagePath).toLowerCase()];
  if (!type)
    throw inputError(
      t('"{0}" is not a png, jpg or webp image.', basename(req.imagePath)),
      t('Pick a .png, .jpg or .webp file.'),
      context,
    );
  let size: number;
  try {
    const st = await stat(req.imagePath);
    if (!st.isFile()) throw new Error('not a file');
    size = st.size;
  } catch {
    throw inputError(
      t('The image file {0} cannot be read.', req.imagePath),
      t('Check that the file exists and is readable.'),
      context,
    );
  }
  if (req.maxFileBytes !== undefined && size > req.maxFileBytes) {
    throw uploadTooLargeError(size, req.maxFileBytes, context);
  }
  const form = async () => {
    const blob = await openAsBlob(req.imagePath, { type });
    const fd = new FormData();
    fd.append('model', req.model);
    fd.append('prompt', req.prompt);
    if (req.size) fd.append('size', req.size);
    fd.append('image', blob, basename(req.imagePath));
    return fd;
  };
  return { form, size };
}

export function parseImageResponse(
  json: unknown,
  context: ErrorContext,
): Array<{ url?: string | undefined; b64?: string | undefined; revisedPrompt?: string | undefined }> {
  const r = imageResponseSchema.safeParse(json);
  if (!r.success) throw protocolError('unexpected_shape', t('the image request'), context);
  const items = r.data.data.map((d) => ({
    url: d.url ?? undefined,
    b64: d.b64_json ?? undefined,
    revisedPrompt: d.revised_prompt ?? undefined,
  }));
  if (items.length === 0 || items.every((i) => !i.url && !i.b64))
    throw protocolError('unexpected_shape', t('the image request (no image in data[])'), context);
  return items;
}
