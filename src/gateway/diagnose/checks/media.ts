/** Check 5 (billed part): image, image-edit and video generation — run only when asked for. */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { joinUrl } from '../../endpoint';
import { IMAGE_PATHS } from '../../media/images';
import { VIDEOS_PATH } from '../../media/videos';
import { t } from '../../l10n';
import type { Check } from '../check';
import type { DiagnosisContext } from '../context';
import { outcomeFromError, type Outcome } from '../outcomeFromError';
import type { DiagnosisModels } from '../types';

/** A 1x1 PNG for the image-edit check. */
const TINY_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

type MediaKey = 'image' | 'imageEdit' | 'video';

async function generateImage(ctx: DiagnosisContext, model: string): Promise<Outcome> {
  const r = await ctx.client!.generateImage({
    model,
    prompt: 'A small red square on a white background.',
    signal: ctx.signal,
  });
  return {
    result: 'pass',
    httpStatus: 200,
    url: joinUrl(ctx.usedBase!, IMAGE_PATHS.generate),
    maskedToken: ctx.masked,
    cause: t(
      'Image generation with {0} answered 200 with {1} image(s) ({2}).',
      model,
      r.images.length,
      r.images[0]?.mime ?? '?',
    ),
    fix: '',
    requestId: r.requestId,
  };
}

async function editImage(ctx: DiagnosisContext, model: string): Promise<Outcome> {
  const dir = await mkdtemp(join(tmpdir(), 'relay-diagnose-'));
  try {
    const file = join(dir, `probe-${randomBytes(4).toString('hex')}.png`);
    await writeFile(file, TINY_PNG);
    const r = await ctx.client!.editImage({ model, prompt: 'Make it blue.', imagePath: file, signal: ctx.signal });
    return {
      result: 'pass',
      httpStatus: 200,
      url: joinUrl(ctx.usedBase!, IMAGE_PATHS.edit),
      maskedToken: ctx.masked,
      cause: t('Image editing with {0} answered 200 with {1} image(s).', model, r.images.length),
      fix: '',
      requestId: r.requestId,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function createVideo(ctx: DiagnosisContext, model: string): Promise<Outcome> {
  const task = await ctx.client!.createVideo({
    model,
    prompt: 'A short test clip: a red square.',
    seconds: 4,
    signal: ctx.signal,
  });
  return {
    result: 'pass',
    httpStatus: 200,
    url: joinUrl(ctx.usedBase!, VIDEOS_PATH),
    maskedToken: ctx.masked,
    cause: t(
      'The video task was created with {0}: task {1} ({2}). Check it in the Video Tasks view.',
      model,
      task.id,
      task.rawStatus,
    ),
    fix: '',
  };
}

const CALLS: Record<MediaKey, (ctx: DiagnosisContext, model: string) => Promise<Outcome>> = {
  image: generateImage,
  imageEdit: editImage,
  video: createVideo,
};

/** What a media check says when it is not run: no model configured, or not asked for (it costs money). */
interface NotRun {
  noModel(): string;
  notAsked(): string;
}

function mediaCheck(
  id: 'generate-image' | 'generate-image-edit' | 'generate-video',
  key: MediaKey & keyof DiagnosisModels,
  says: NotRun,
  setting: string,
): Check {
  return {
    id,
    applies: (ctx) => !!(ctx.input.includeMedia || ctx.models.image || ctx.models.imageEdit || ctx.models.video),
    skip: (ctx) => {
      if (!ctx.models[key]) return { cause: says.noModel(), fix: t('Set {0}.', setting) };
      if (!ctx.input.includeMedia)
        return { cause: says.notAsked(), fix: t('Run the diagnosis with image and video checks included.') };
      return ctx.blocked();
    },
    run: async (ctx) => {
      const model = ctx.models[key]!;
      try {
        return await CALLS[key](ctx, model);
      } catch (e) {
        return outcomeFromError(ctx, e, { model, listed: ctx.listed(model) });
      }
    },
  };
}

const IMAGE: NotRun = {
  noModel: () => t('No image model is configured.'),
  notAsked: () => t('Not run: image calls cost money, so they run only when asked for.'),
};
const IMAGE_EDIT: NotRun = {
  noModel: () => t('No image-edit model is configured.'),
  notAsked: () => t('Not run: image-edit calls cost money, so they run only when asked for.'),
};
const VIDEO: NotRun = {
  noModel: () => t('No video model is configured.'),
  notAsked: () => t('Not run: video calls cost money, so they run only when asked for.'),
};

export const generateImageCheck = mediaCheck('generate-image', 'image', IMAGE, 'modelRelay.models.image');
export const generateImageEditCheck = mediaCheck(
  'generate-image-edit',
  'imageEdit',
  IMAGE_EDIT,
  'modelRelay.models.imageEdit',
);
export const generateVideoCheck = mediaCheck('generate-video', 'video', VIDEO, 'modelRelay.models.video');
