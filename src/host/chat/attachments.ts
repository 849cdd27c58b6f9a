/**
 * The images attached to a chat message, host side: whether they may be sent to the chosen model
 * (checked again here: the webview already did; the session is this rule's one caller), and the
 * refusal's words. Plain Node.
 */
import { t } from '../../gateway/l10n';
import type { ChatImage, ChatOptions, ImageAttachment } from '../../shared/chatProtocol';
import {
  base64Bytes,
  base64Head,
  formatBytes,
  MAX_IMAGE_BYTES,
  MAX_IMAGES_PER_MESSAGE,
  sniffImage,
} from '../../shared/chatImages';
import { byteUnits } from './chatWords';
import type { SessionModels } from './modelTraits';

/** An attachment that passed the checks: its entry image (not stored yet) and its data. */
export type CheckedImage = ChatImage & { data: string };

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
 * The attachments, each checked: count, size, and that the bytes are the image type claimed (a
 * mislabelled file is relabelled; a non-image refused).
 */
export function checkAttachments(images: readonly ImageAttachment[]): { images: CheckedImage[] } | { refused: string } {
  if (images.length > MAX_IMAGES_PER_MESSAGE)
    return { refused: t('At most {0} images per message.', MAX_IMAGES_PER_MESSAGE) };
  const out: CheckedImage[] = [];
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

/** The attachments checked for the chosen model, or why they cannot be sent (nothing is sent then). */
export function checkImagesFor(
  options: Pick<ChatOptions, 'model' | 'surface'>,
  attachments: readonly ImageAttachment[],
  models: SessionModels | undefined,
): { images: CheckedImage[] } | { refused: string } {
  if (!attachments.length) return { images: [] };
  const checked = checkAttachments(attachments);
  if ('refused' in checked) return checked;
  // An unknown family (undefined) is allowed, and nothing is said.
  if (models?.traits(options.model).imageInput === false)
    return { refused: noImageInputMessage(options.model, attachments.length, models.imageModel(options.surface)) };
  return checked;
}
