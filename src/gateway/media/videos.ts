/**
 * Video tasks (spec 2.7, 3, 8): create → task id; query; download content only after completion.
 * The poller backs off exponentially with jitter, honours Retry-After / openai-poll-after-ms, has an
 * overall timeout and cancellation, and treats unknown status strings as still running.
 */
import { z } from 'zod';
import { GatewayError, type ErrorContext, type ErrorKind } from '../errors/gatewayError';
import { protocolError } from '../errors/factories';
import { t } from '../l10n';
import type { Sleep } from '../http/transport';

/** Video tasks are created here; `/{id}` queries one, `/{id}/content` downloads it. */
export const VIDEOS_PATH = '/v1/videos';

/** A task's state, one name each: unknown gateway statuses count as still in progress (keep polling). */
export type VideoPhase = 'queued' | 'in_progress' | 'completed' | 'failed';

export interface VideoTask {
  id: string;
  /** the status string as the gateway sent it */
  rawStatus: string;
  /** normalised phase; unknown strings (e.g. new-api's `unknown`) are `in_progress` */
  phase: VideoPhase;
  /** 0–100 when the gateway gives it (numbers or strings like "30%") */
  progress: number | undefined;
  model: string | undefined;
  createdAt: number | undefined;
  completedAt: number | undefined;
  expiresAt: number | undefined;
  error: { code?: string | undefined; message: string } | undefined;
  /** the gateway's hint for when to poll again (openai-poll-after-ms / retry-after) */
  pollAfterMs?: number | undefined;
  /** for queued tasks, when the gateway gives it */
  queuePosition?: number | undefined;
}

const taskSchema = z.object({
  id: z.string().nullish(),
  task_id: z.string().nullish(),
  status: z.string().nullish(),
  progress: z.union([z.number(), z.string()]).nullish(),
  model: z.string().nullish(),
  created_at: z.number().nullish(),
  completed_at: z.number().nullish(),
  expires_at: z.number().nullish(),
  queue_position: z.number().nullish(),
  error: z
    .union([z.object({ code: z.union([z.string(), z.number()]).nullish(), message: z.string().nullish() }), z.string()])
    .nullish(),
  fail_reason: z.string().nullish(),
});

export function phaseOf(status: string | undefined | null): VideoPhase {
  const s = (status ?? '').toLowerCase();
  if (s === 'queued' || s === 'pending' || s === 'submitted' || s === 'not_start') return 'queued';
  if (s === 'in_progress' || s === 'processing' || s === 'running') return 'in_progress';
  if (s === 'completed' || s === 'succeeded' || s === 'success') return 'completed';
  if (s === 'failed' || s === 'failure' || s === 'cancelled' || s === 'canceled' || s === 'error') return 'failed';
  return 'in_progress';
}

export function parseProgress(p: number | string | null | undefined): number | undefined {
  if (p === null || p === undefined) return undefined;
  const n = typeof p === 'number' ? p : Number.parseFloat(p.replace('%', ''));
  if (!Number.isFinite(n)) return undefined;
  return Math.max(0, Math.min(100, n));
}

export function parseTask(json: unknown, context: ErrorContext): VideoTask {
  const r = taskSchema.safeParse(json);
  const id = r.success ? (r.data.task_id ?? r.data.id) : undefined;
  if (!r.success || !id) throw protocolError('unexpected_shape', t('the video task request (no task id)'), context);
  const d = r.data;
  const rawStatus = d.status ?? 'unknown';
  const err = d.error;
  const error =
    typeof err === 'string'
      ? { message: err }
      : err
        ? {
            code: err.code !== null && err.code !== undefined ? String(err.code) : undefined,
            message: err.message ?? t('the video task failed'),
          }
        : d.fail_reason
          ? { message: d.fail_reason }
          : undefined;
  return {
    id,
    rawStatus,
    phase: phaseOf(rawStatus),
    progress: parseProgress(d.progress),
    model: d.model ?? undefined,
    createdAt: d.created_at ?? undefined,
    completedAt: d.completed_at ?? undefined,
    expiresAt: d.expires_at ?? undefined,
    error,
    queuePosition: d.queue_position ?? undefined,
  };
}

export type PollOutcome =
  | { outcome: 'completed'; task: VideoTask; polls: number }
  | { outcome: 'failed'; task: VideoTask; reason: string; polls: number }
  | { outcome: 'timed_out'; task: VideoTask | undefined; polls: number; waitedMs: number }
  | { outcome: 'cancelled'; task: VideoTask | undefined; polls: number };

export interface PollOptions {
  signal?: AbortSignal | undefined;
  /** overall limit for this wait */
  overallTimeoutMs: number;
  /** first delay between polls */
  initialDelayMs?: number;
  /** delays grow by this factor */
  factor?: number;
  maxDelayMs?: number;
  /** never poll more often than this, whatever the server says */
  minDelayMs?: number;
  onUpdate?: (task: VideoTask) => void;
  sleep: Sleep;
  now: () => number;
  random?: () => number;
}

/** The delay before poll number `n` (0-based after the first): exponential with jitter, at least the server's hint. */
export function pollDelayMs(
  n: number,
  hintMs: number | undefined,
  o: Pick<PollOptions, 'initialDelayMs' | 'factor' | 'maxDelayMs' | 'minDelayMs' | 'random'>,
): number {
  const initial = o.initialDelayMs ?? 2_000;
  const max = o.maxDelayMs ?? 30_000;
  const min = o.minDelayMs ?? 1_000;
  const base = Math.min(max, initial * (o.factor ?? 1.6) ** n);
  const jittered = base * (0.75 + 0.25 * (o.random ?? Math.random)());
  return Math.round(Math.max(min, hintMs ?? 0, Math.min(max, jittered)));
}

/** Poll failures that keep the wait going (with backoff). */
const TRANSIENT: ReadonlySet<ErrorKind> = new Set<ErrorKind>(['rate_limited', 'server_error', 'network', 'timeout']);

/** Polls a task until it completes, fails, times out or is cancelled. */
export async function pollTask(
  get: (signal?: AbortSignal) => Promise<VideoTask>,
  o: PollOptions,
): Promise<PollOutcome> {
  const started = o.now();
  let polls = 0;
  let task: VideoTask | undefined;
  let hint: number | undefined;
  for (let n = 0; ; n++) {
    if (o.signal?.aborted) return { outcome: 'cancelled', task, polls };
    try {
      polls++;
      task = await get(o.signal);
      hint = task.pollAfterMs;
      o.onUpdate?.(task);
      if (task.phase === 'completed') return { outcome: 'completed', task, polls };
      if (task.phase === 'failed')
        return {
          outcome: 'failed',
          task,
          reason: task.error?.message ?? t('the task ended with status "{0}"', task.rawStatus),
          polls,
        };
    } catch (e) {
      if (e instanceof GatewayError && e.kind === 'aborted') return { outcome: 'cancelled', task, polls };
      if (!(e instanceof GatewayError) || !TRANSIENT.has(e.kind)) throw e;
      hint = e.retryAfterMs; // a transient failure: keep waiting, with backoff
    }
    const waited = o.now() - started;
    const delay = pollDelayMs(n, hint, o);
    if (waited + delay > o.overallTimeoutMs) return { outcome: 'timed_out', task, polls, waitedMs: waited };
    try {
      await o.sleep(delay, o.signal);
    } catch {
      return { outcome: 'cancelled', task, polls };
    }
  }
}
