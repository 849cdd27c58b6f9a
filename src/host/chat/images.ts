/**
 * Images in the chat panel, host side: which models accept them (the model family table of
 * src/host/lm/modelProfile.ts, overridden per model in modelRelay.models.overrides), checking the
 * attachments of a message before anything is sent, and keeping the saved chat bounded. Plain Node.
 */
import { t } from '../../gateway/l10n';
import type { ChatEntry, ChatImage, ChatOptions, ImageAttachment } from '../../shared/chatProtocol';
import {
  base64Bytes,
  base64Head,
  formatBytes,
  isImageMime,
  MAX_IMAGE_BYTES,
  MAX_IMAGES_PER_MESSAGE,
  sniffImage,
} from '../../shared/chatImages';
import { familyOf, type ModelOverride } from '../lm/modelProfile';
import { byteUnits } from './chatWords';
import { MAX_INLINE_IMAGE_CHARS, type SessionModels } from './sessionTypes';

/** What the session knows of a model beyond its id. */
export interface ModelTraits {
  /** true/false when known (override, else family); undefined for an unknown family: allowed, nothing said */
  imageInput: boolean | undefined;
  /** native surface: extended thinking with this budget (modelRelay.models.overrides) */
  thinkingBudget?: number | undefined;
}

/** A model's traits from the overrides and the family table. */
export function modelTraits(model: string, overrides: Readonly<Record<string, ModelOverride>>): ModelTraits {
  const o = overrides[model] ?? {};
  return { imageInput: o.imageInput ?? familyOf(model)?.imageInput, thinkingBudget: o.thinkingBudget };
}

/** The first of `candidates` known to accept images (for the refusal's suggestion). */
export function imageCapableModel(
  candidates: readonly string[],
  overrides: Readonly<Record<string, ModelOverride>>,
): string | undefined {
  return candidates.find((id) => modelTraits(id, overrides).imageInput === true);
}

/** Why a model cannot take this message's images, in words for the composer. */
export function noImageInputMessage(model: string, count: number, suggestion: string | undefined): string {
  const what = count === 1 ? t('the attached image') : t('the {0} attached images', count);
  const pick = suggestion
    ? t('Pick an image-capable model such as {0}', suggestion)
    : t('Pick an image-capable model (e.g. a GPT-4o, Claude or Gemini model)');
  return t(
    '{0} does not accept images, so nothing was sent. {1}, or remove {2}. If {0} does take images, set "imageInput": true for it in modelRelay.models.overrides. Your message and images are kept.',
    model,
    pick,
    what,
  );
}

/**
 * The attachments as entry images, each checked again (the webview already did): count, size, and
 * that the bytes are the image type claimed (a mislabelled file is relabelled; a non-image refused).
 */
export function checkAttachments(images: readonly ImageAttachment[]): { images: ChatImage[] } | { refused: string } {
  if (images.length > MAX_IMAGES_PER_MESSAGE)
    return { refused: t('At most {0} images per message.', MAX_IMAGES_PER_MESSAGE) };
  const out: ChatImage[] = [];
  for (const [i, a] of images.entries()) {
    const label = a.name ? t('"{0}"', a.name) : t('Image {0}', i + 1);
    const bytes = base64Bytes(a.data);
    if (bytes > MAX_IMAGE_BYTES)
      return {
        refused: t(
          '{0} is {1}; each image may be at most {2}.',
          label,
          formatBytes(bytes, byteUnits()),
          formatBytes(MAX_IMAGE_BYTES, byteUnits()),
        ),
      };
    const real = sniffImage(base64Head(a.data));
    if (!real) return { refused: t('{0} is not a PNG, JPEG, GIF or WebP image.', label) };
    out.push({ mimeType: real, data: a.data, bytes, ...(a.name ? { name: a.name } : {}) });
  }
  return { images: out };
}

/** The attachments as entry images for the chosen model, or why they cannot be sent (nothing is sent then). */
export function checkImagesFor(
  options: Pick<ChatOptions, 'model' | 'surface'>,
  attachments: readonly ImageAttachment[],
  models: SessionModels | undefined,
): { images: ChatImage[] } | { refused: string } {
  if (!attachments.length) return { images: [] };
  const checked = checkAttachments(attachments);
  if ('refused' in checked) return checked;
  // An unknown family (undefined) is allowed, and nothing is said.
  if (models?.traits(options.model).imageInput === false)
    return { refused: noImageInputMessage(options.model, attachments.length, models.imageModel(options.surface)) };
  return checked;
}

/** An `/image` reply's text: the generated image inline (when small enough) and where it was saved. */
export function generatedImageText(prompt: string, r: { dataUrl: string; savedPath?: string | undefined }): string {
  const alt = prompt.replace(/[[\]\n]/g, ' ').slice(0, 100);
  const saved = r.savedPath ? `\n\n${t('Saved to `{0}`.', r.savedPath)}` : '';
  return r.dataUrl && r.dataUrl.length <= MAX_INLINE_IMAGE_CHARS
    ? `![${alt}](${r.dataUrl})${saved}`
    : `${t('The image is too large to show inline.')}${saved}`;
}

/** How many of the latest user entries with images keep their image data in the saved chat. */
export const PERSISTED_IMAGE_TURNS = 3;
/** At most this much base64 image data in the saved chat (one full-size image fits). */
export const MAX_PERSISTED_IMAGE_CHARS = 7_000_000;

/**
 * The entries as saved: image data is kept for the newest {@link PERSISTED_IMAGE_TURNS} user turns
 * with images, within {@link MAX_PERSISTED_IMAGE_CHARS} (newest first; a turn whose images do not fit
 * keeps none). Older images keep type, name and size only: the entry shows a placeholder and later
 * requests send a note instead of the image. Entries are copied where changed, never mutated.
 */
export function boundImages(entries: readonly ChatEntry[]): ChatEntry[] {
  let turns = 0;
  let budget = MAX_PERSISTED_IMAGE_CHARS;
  const out = [...entries];
  for (let i = out.length - 1; i >= 0; i--) {
    const e = out[i];
    if (!e.images?.some((im) => im.data)) continue;
    const size = e.images.reduce((n, im) => n + (im.data?.length ?? 0), 0);
    if (turns < PERSISTED_IMAGE_TURNS && size <= budget) {
      turns++;
      budget -= size;
      continue;
    }
    out[i] = { ...e, images: e.images.map(({ data: _data, ...rest }) => rest) };
  }
  return out;
}

/** Restored entry images: well-formed ones only (the saved state is not trusted blindly). */
export function restoreImages(raw: unknown): ChatImage[] | undefined {
  if (!Array.isArray(raw)) return undefined;
  const ok = (raw as unknown[]).filter((x): x is ChatImage => {
    if (!x || typeof x !== 'object') return false;
    const im = x as Record<string, unknown>;
    return (
      typeof im.mimeType === 'string' &&
      isImageMime(im.mimeType) &&
      typeof im.bytes === 'number' &&
      (im.data === undefined || typeof im.data === 'string')
    );
  });
  return ok.length ? ok : undefined;
}
