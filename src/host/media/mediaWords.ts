/**
 * The words of images and videos: a task's state in words (never the raw `in_progress`), the Video
 * Tasks view's lines, the progress notification's message, and the size / length prompts with what
 * the call costs. Each is one whole sentence through `t()`. Plain Node, no `vscode`.
 */
import type { Capability, VideoTask } from '../../gateway';
import { t } from '../../gateway/l10n';
import type { LeaseHolder, StoredVideoTask, TaskState } from './videoTaskStore';

/** A task's state as a word: the one place a state is put into words. */
export function stateWord(state: TaskState): string {
  switch (state) {
    case 'queued':
      return t('queued');
    case 'in_progress':
      return t('in progress');
    case 'completed':
      return t('completed');
    case 'downloaded':
      return t('downloaded');
    case 'failed':
      return t('failed');
    case 'timed_out':
      return t('timed out');
    case 'expired':
      return t('expired');
    case 'paused':
      return t('paused');
    default: {
      const _exhaustive: never = state;
      return String(_exhaustive);
    }
  }
}

/** The state part of a task's row: the state, with its place in the queue or its progress where known. */
export function taskStateLine(task: Pick<StoredVideoTask, 'state' | 'queuePosition' | 'progress'>): string {
  if (task.state === 'queued' && task.queuePosition !== undefined)
    return t('queued, #{0} in the queue', task.queuePosition);
  if (task.state === 'in_progress' && task.progress !== undefined)
    return t('in progress, {0}%', Math.round(task.progress));
  return stateWord(task.state);
}

/** The tooltip's status line: the state in words, and the gateway's own status word when it says more. */
export function taskStatusLine(task: Pick<StoredVideoTask, 'state' | 'rawStatus'>): string {
  const raw = task.rawStatus?.trim();
  return raw && raw.toLowerCase() !== task.state
    ? t('Status: {0} (the gateway says "{1}")', stateWord(task.state), raw)
    : t('Status: {0}', stateWord(task.state));
}

/** Who polls an active task, for its tooltip ('' when it is not active or nobody holds it). */
export function watcherLine(holder: LeaseHolder): string {
  if (holder === 'mine') return t('This window checks the task and downloads the video.');
  if (holder === 'other') return t('Another window checks the task and downloads the video.');
  return '';
}

/** The progress notification's message for one poll. */
export function pollMessage(task: Pick<VideoTask, 'phase' | 'queuePosition' | 'progress'>): string {
  if (task.phase === 'queued')
    return task.queuePosition !== undefined
      ? t('waiting in the queue (#{0})', task.queuePosition)
      : t('waiting in the queue');
  return task.progress !== undefined
    ? t('generating the video: {0}%', Math.round(task.progress))
    : t('generating the video');
}

/** The video length prompt, saying what the call costs where the gateway publishes it. */
export function secondsPrompt(model: string, price: string | undefined): string {
  return price
    ? t('{0} costs {1}, billed by the gateway. Length in seconds (leave empty for the model default):', model, price)
    : t('{0} is billed by the gateway. Length in seconds (leave empty for the model default):', model);
}

/** The image size prompt, saying what the call costs where the gateway publishes it. */
export function sizePrompt(model: string, price: string | undefined): string {
  return price
    ? t(
        '{0} costs {1}, billed by the gateway. Size as <width>x<height>, e.g. 1024x1024 (leave empty for the model default):',
        model,
        price,
      )
    : t(
        '{0} is billed by the gateway. Size as <width>x<height>, e.g. 1024x1024 (leave empty for the model default):',
        model,
      );
}

/** The capabilities a media command picks a model for. */
export type MediaCapability = Extract<Capability, 'image' | 'image-edit' | 'video'>;

/** The model pick's placeholder and the typed-id prompt, per capability (never the raw `image-edit`). */
export function modelPickWords(cap: MediaCapability): { pick: string; typeId: string } {
  switch (cap) {
    case 'image':
      return {
        pick: t('Pick an image model (set modelRelay.models.image to skip this)'),
        typeId: t('The image model id'),
      };
    case 'image-edit':
      return {
        pick: t('Pick an image edit model (set modelRelay.models.imageEdit to skip this)'),
        typeId: t('The image edit model id'),
      };
    case 'video':
      return {
        pick: t('Pick a video model (set modelRelay.models.video to skip this)'),
        typeId: t('The video model id'),
      };
  }
}

/** @relay's answer to `/image`: the picture, then where it was saved, as one sentence. */
export function savedImageMarkdown(prompt: string, href: string, where: string): string {
  const link = `[${where.replace(/[[\]]/g, '')}](${href})`;
  return `![${prompt.replace(/[[\]]/g, '')}](${href})\n\n${t('Saved to {0}.', link)}`;
}
