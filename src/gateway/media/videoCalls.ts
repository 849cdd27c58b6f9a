/**
 * Video calls over a Transport: create (billed: retried only when provably never sent), query,
 * wait with the backoff poller, and download the finished content to a file (streamed, renamed
 * into place when complete).
 */
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { FormData } from 'undici';
import { retryAfterFrom } from '../errors/errorBody';
import { inputError, notMediaError, videoContentError } from '../errors/factories';
import { parseErrorBody } from '../errors/errorBody';
import { errorFromNetwork } from '../errors/fromNetwork';
import { GatewayError, type ErrorContext } from '../errors/gatewayError';
import { headerValue, readText } from '../http/attempt';
import { t } from '../l10n';
import type { OpenResponse, Sleep } from '../http/transport';
import { checkCapability } from '../models';
import type { MediaCallContext } from './imageCalls';
import { validateSize } from './images';
import { VIDEOS_PATH, parseTask, pollTask, type PollOutcome, type VideoTask } from './videos';

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

export interface PollRequest {
  signal?: AbortSignal;
  overallTimeoutMs?: number;
  initialDelayMs?: number;
  maxDelayMs?: number;
  minDelayMs?: number;
  onUpdate?: (t: VideoTask) => void;
}

export interface VideoCallContext extends MediaCallContext {
  /** the longest silence between chunks of a download */
  idleTimeoutMs: number;
  overallTimeoutMs: number;
  sleep: Sleep;
  random?: (() => number) | undefined;
}

/** MP4/MOV (`ftyp` box), WebM/Matroska (EBML), or MPEG-TS: what a video download may be. */
function looksLikeVideo(head: Buffer): boolean {
  return (
    head.subarray(4, 8).toString('latin1') === 'ftyp' ||
    head.subarray(0, 4).equals(Buffer.from([0x1a, 0x45, 0xdf, 0xa3])) ||
    head[0] === 0x47
  );
}

/** A 200 whose body is JSON or text (a gateway error answered with 200) is refused, not saved as a video. */
async function refuseNonVideo(res: OpenResponse): Promise<void> {
  const type = headerValue(res.headers, 'content-type') ?? '';
  if (!/^(application\/json|text\/)/i.test(type)) return;
  const text = await readText(res.body, 64 * 1024).catch(() => '');
  res.finish({ errorKind: 'protocol' });
  throw notMediaError('video', t('{0} instead of a video', type.split(';')[0]), res.context, {
    gatewayMessage: parseErrorBody(text, type).message,
  });
}

function checkTaskId(id: string): void {
  if (!/^[\w.-]+$/.test(id))
    throw inputError(t('"{0}" is not a valid task id.', id), t('Copy the task id from the Video Tasks view.'), {
      capability: 'video',
    });
}

/** Creates a video task. Costs money: retried only when the request provably never left. */
export async function createVideo(c: VideoCallContext, req: VideoCreateRequest): Promise<VideoTask> {
  const context: ErrorContext = { surface: 'compatible', model: req.model, capability: 'video' };
  if (!req.model?.trim())
    throw inputError(
      t('No video model is set.'),
      t('Set {0} or pick a video model.', 'modelRelay.models.video'),
      context,
    );
  if (!req.prompt?.trim())
    throw inputError(t('The video prompt is empty.'), t('Select some text or type a prompt.'), context);
  if (req.seconds !== undefined && !(Number.isInteger(req.seconds) && req.seconds > 0 && req.seconds <= 3600))
    throw inputError(
      t('Video length {0} s is not a whole number between 1 and 3600.', req.seconds),
      t('Use a whole number of seconds, e.g. 4 or 8.'),
      context,
    );
  validateSize(req.size, context);
  checkCapability(c.capabilitiesOf(req.model), req.model, 'video', context, c.modelsWith('video'));
  return c.limiter.run(async () => {
    const form = () => {
      const fd = new FormData();
      fd.append('model', req.model);
      fd.append('prompt', req.prompt);
      if (req.seconds !== undefined) fd.append('seconds', String(req.seconds));
      if (req.size) fd.append('size', req.size);
      return fd;
    };
    const { data, res } = await c.transport.json({
      method: 'POST',
      path: VIDEOS_PATH,
      surface: 'compatible',
      capability: 'video',
      model: req.model,
      body: form,
      signal: req.signal,
      timeoutMs: c.timeoutMs,
      sideEffecting: true,
    });
    return parseTask(data, res.context);
  }, req.signal);
}

export async function getVideo(c: VideoCallContext, id: string, signal?: AbortSignal): Promise<VideoTask> {
  checkTaskId(id);
  const { data, res } = await c.transport.json({
    method: 'GET',
    path: `${VIDEOS_PATH}/${encodeURIComponent(id)}`,
    surface: 'compatible',
    capability: 'video',
    signal,
    timeoutMs: c.timeoutMs,
  });
  const task = parseTask(data, res.context);
  const pollAfter = Number(headerValue(res.headers, 'openai-poll-after-ms'));
  task.pollAfterMs = Number.isFinite(pollAfter) && pollAfter > 0 ? pollAfter : retryAfterFrom(res.headers, c.now());
  return task;
}

/** Waits for a task with backoff; outcomes: completed, failed, timed_out, cancelled. */
export function pollVideo(c: VideoCallContext, id: string, o: PollRequest = {}): Promise<PollOutcome> {
  const { overallTimeoutMs, ...rest } = o;
  return pollTask((signal) => getVideo(c, id, signal), {
    ...rest,
    overallTimeoutMs: overallTimeoutMs ?? c.overallTimeoutMs,
    sleep: c.sleep,
    now: c.now,
    ...(c.random ? { random: c.random } : {}),
  });
}

/**
 * Streams a completed task's content to `filePath` (written to a temporary file first, renamed
 * when complete). Outcomes: downloaded, expired (the result is no longer held), not_ready.
 * Callers must only call this after the task completed; a 400 here reports `not_ready`.
 */
export async function downloadVideo(
  c: VideoCallContext,
  id: string,
  filePath: string,
  signal?: AbortSignal,
): Promise<DownloadOutcome> {
  checkTaskId(id);
  let res;
  try {
    // The whole download ends within the video wait limit (a body that only trickles in cannot hold it open).
    res = await c.transport.open({
      method: 'GET',
      path: `${VIDEOS_PATH}/${encodeURIComponent(id)}/content`,
      surface: 'compatible',
      capability: 'video',
      signal,
      timeoutMs: c.timeoutMs,
      idleTimeoutMs: c.idleTimeoutMs,
      deadlineMs: c.overallTimeoutMs,
      accept: 'application/binary',
      stream: true,
    });
  } catch (e) {
    if (e instanceof GatewayError) {
      if (e.status === 400 && /not completed|not ready|status/i.test(e.gatewayMessage ?? ''))
        return { outcome: 'not_ready', error: videoContentError(e, 'content_not_ready') };
      if (
        e.status === 404 ||
        e.status === 410 ||
        (e.status === 502 && /404|410|expire|not found/i.test(e.gatewayMessage ?? ''))
      )
        return { outcome: 'expired', error: videoContentError(e, 'content_expired') };
    }
    throw e;
  }
  await refuseNonVideo(res);
  await mkdir(dirname(filePath), { recursive: true });
  const tmp = `${filePath}.part-${process.pid}-${c.now()}`;
  let bytes = 0;
  let head = Buffer.alloc(0);
  const count = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      if (head.length < 12) {
        head = Buffer.concat([head, chunk]).subarray(0, 12);
        if (head.length >= 12 && !looksLikeVideo(head))
          return cb(notMediaError('video', t('bytes of no video format'), res.context));
      }
      bytes += chunk.length;
      cb(null, chunk);
    },
  });
  try {
    await pipeline(res.body, count, createWriteStream(tmp));
    if (head.length < 12) throw notMediaError('video', t('{0} bytes', bytes), res.context);
    await rename(tmp, filePath);
    res.finish({});
    return { outcome: 'downloaded', path: filePath, bytes, contentType: headerValue(res.headers, 'content-type') };
  } catch (e) {
    await rm(tmp, { force: true });
    if (e instanceof GatewayError) {
      res.finish({ errorKind: e.kind });
      throw e;
    }
    const code = (e as { code?: string }).code;
    const err = errorFromNetwork(e, res.context, {
      aborted: !!signal?.aborted,
      timedOut: res.timedOut() || code === 'UND_ERR_BODY_TIMEOUT',
      timeoutMs: res.timedOut() ? c.overallTimeoutMs : c.idleTimeoutMs,
    });
    res.finish({ errorKind: err.kind });
    throw err;
  }
}
