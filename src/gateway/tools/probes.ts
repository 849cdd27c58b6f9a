/**
 * Probes (issue 26 §1): each terminal tool's own request, sent once with the address, credential
 * and model as the tool resolved them, through the caller's dispatcher (proxy, CA trust) and the
 * HTTP recorder (HAR), like every other gateway request. A probe is a billed call: one request, a
 * tiny output limit, never retried; abortable; the answer read bounded; the credential never in
 * the result (masked, and redacted from any text the gateway echoes).
 */
import type { Dispatcher } from 'undici';
import { DEFAULT_DIAGNOSIS_TIMEOUTS } from '../defaults';
import { looksLikeHtml, requestIdFrom } from '../errors/errorBody';
import { errorFromNetwork } from '../errors/fromNetwork';
import { errorFromResponse } from '../errors/fromResponse';
import { isGatewayError, type ErrorContext } from '../errors/gatewayError';
import type { CredentialScope } from '../http/egress';
import { bodyReadError, headerValue, readText, sendOnce } from '../http/attempt';
import { trustingAgent } from '../http/trust';
import { t } from '../l10n';
import { redactSecrets } from '../mask';
import { recordAttempt, type RequestLogSink } from '../requestLog';
import { probeRequest, type ProbeRequest, type ProbeTarget } from './probeRequests';
import { elsewhereWords, failureWords, names, preflight, unfinishedWords, type Words } from './probeWords';
import type { ToolGateway, ToolProbeResult } from './types';

export type { ProbeTarget } from './probeRequests';

/** How much of an answer a probe reads (a tiny reply's stream is a few KB). */
const PROBE_READ_LIMIT = 256 * 1024;
/** A probe's whole exchange lasts at most this many times its timeout. */
const PROBE_DEADLINE_TIMES = 3;

export interface ProbeOptions {
  /**
   * The origins of the gateway whose tools are probed (its configured base URL and backups): a probe
   * whose address is elsewhere sends nothing (egress.ts), whatever credential the tool holds.
   */
  scope: CredentialScope;
  /** the dispatcher the client's requests use (proxy, CA trust); default: a private trusting agent */
  dispatcher?: Dispatcher | undefined;
  signal?: AbortSignal | undefined;
  /** time to the answer's head, and the longest silence in the stream. Default 20 s. */
  timeoutMs?: number | undefined;
  /**
   * the whole exchange, the stream included: a gateway that keeps the stream alive with comments and
   * never finishes cannot hold a probe (Set Up Tools, Diagnose) open. At most 3 × timeoutMs.
   */
  deadlineMs?: number | undefined;
  now?: (() => number) | undefined;
  /** the extension's request log (the probe is a billed call and shows there) */
  onRequest?: RequestLogSink | undefined;
  /**
   * The gateway's models and surfaces: with no model configured, Claude Code and Gemini CLI are
   * probed with the first model the gateway serves natively to them (and the result says so).
   */
  models?: ToolGateway['models'] | undefined;
}

/** A probe's outcome: the shared result, plus the model it used, the URL and any note about the choice. */
export interface ToolProbe extends ToolProbeResult {
  model?: string | undefined;
  url?: string | undefined;
  requestId?: string | undefined;
  /** e.g. "No model is configured: probed with claude-sonnet-4-5, the gateway's first native model." */
  note?: string | undefined;
}

/** The target with the model the probe uses: the configured one, else the gateway's first suitable one. */
function withModel(
  target: ProbeTarget,
  models: ToolGateway['models'] | undefined,
): { target: ProbeTarget; note?: string } {
  if (target.model) return { target };
  const surface = target.tool === 'claude-code' ? 'native' : target.tool === 'gemini-cli' ? 'gemini' : undefined;
  const pick = surface && models?.find((m) => m.surfaces.includes(surface))?.id;
  if (!pick) return { target };
  const n = names(target);
  return {
    target: { ...target, model: { value: pick, from: { kind: 'default', where: 'gateway' } } },
    note: t(
      'No model is configured ({0}): {1} uses its own default; the probe used {2}, the first model the gateway serves on its API.',
      n.model,
      n.tool,
      pick,
    ),
  };
}

/** Sends the tool's request once; the answer's head, then the stream read to its end (bounded). */
async function send(req: ProbeRequest, target: ProbeTarget, o: ProbeOptions) {
  const secret = target.credential!.value;
  const context: ErrorContext = {
    surface: req.surface,
    method: 'POST',
    url: req.url,
    model: target.model?.value,
    token: secret,
  };
  const timeoutMs = o.timeoutMs ?? DEFAULT_DIAGNOSIS_TIMEOUTS.requestMs;
  const deadlineMs = Math.min(o.deadlineMs ?? Infinity, PROBE_DEADLINE_TIMES * timeoutMs);
  const now = o.now ?? Date.now;
  let host = '';
  try {
    host = new URL(req.url).host;
  } catch {
    /* an unusable address fails in sendOnce with its own words */
  }
  const record = recordAttempt(
    o.onRequest,
    {
      surface: req.surface,
      capability: 'chat',
      host,
      method: 'POST',
      path: req.request.slice('POST '.length).split('?')[0],
      model: target.model?.value,
      token: secret,
      attempt: 1,
      stream: true,
    },
    now,
  );
  const a = await sendOnce({
    url: req.url,
    method: 'POST',
    headers: req.headers,
    body: req.body,
    credential: { secret, scheme: req.scheme, scope: o.scope },
    addressFrom: names(target).baseFrom,
    dispatcher: o.dispatcher!,
    signal: o.signal,
    timeoutMs,
    idleTimeoutMs: timeoutMs,
    // a probe asks for a few tokens: its answer, streamed or not, is over well within this
    deadlineMs,
    context,
  }).catch((e: unknown) => {
    const err = isGatewayError(e) ? e : errorFromNetwork(e, context);
    if (err.detail !== 'credential_elsewhere') record(undefined, undefined, { errorKind: err.kind });
    throw err;
  });
  const requestId = requestIdFrom(a.headers);
  let text: string;
  const streamed = a.status >= 200 && a.status < 300;
  try {
    if (streamed) a.keepOpen();
    text = await readText(a.body, PROBE_READ_LIMIT);
  } catch (e) {
    a.release();
    // a stream is stopped by the deadline only (keepOpen cleared the head's timer)
    const err = bodyReadError(e, a, context, { signal: o.signal, timeoutMs: streamed ? deadlineMs : timeoutMs });
    record(a.status, requestId, { errorKind: err.kind });
    throw err;
  }
  a.release();
  const failed = a.status < 200 || a.status >= 300 || looksLikeHtml(text, headerValue(a.headers, 'content-type'));
  const err = failed
    ? errorFromResponse({ status: a.status, headers: a.headers, body: text, context, now: now() })
    : undefined;
  record(a.status, err?.requestId ?? requestId, err ? { errorKind: err.kind } : {});
  return { status: a.status, text, requestId: err?.requestId ?? requestId, err };
}

/**
 * Probes one tool: sends exactly the request it will send (its path appended to its base address as
 * it is configured, its headers, its body shape, the configured model) and says pass, or the cause
 * and fix in that tool's terms. Never throws; never retried.
 */
export async function probeTool(target: ProbeTarget, o: ProbeOptions): Promise<ToolProbe> {
  const now = o.now ?? Date.now;
  const started = now();
  const picked = withModel(target, o.models);
  const tg = picked.target;
  const secret = tg.credential?.value;
  const done = (r: Omit<ToolProbe, 'tool' | 'durationMs'>): ToolProbe => {
    const clean = (s: string | undefined) => (s === undefined ? undefined : redactSecrets(s, [secret]));
    const out: ToolProbe = {
      tool: tg.tool,
      ...r,
      cause: clean(r.cause),
      fix: clean(r.fix),
      ...(picked.note ? { note: picked.note } : {}),
      durationMs: Math.max(0, now() - started),
    };
    for (const k of Object.keys(out) as Array<keyof ToolProbe>) if (out[k] === undefined) delete out[k];
    return out;
  };
  const not = preflight(tg);
  if (not) return done({ ok: false, request: '', ...not });
  const req = probeRequest(tg.tool, tg.baseUrl!.value, tg.model!.value, tg.credential!, tg);
  const base = { request: req.request, url: req.url, model: tg.model!.value };
  // The tool's address is not one of its gateway's origins: its credential is not sent there (the gate
  // would refuse it too); the row says where the address came from and how to remove it.
  if (!o.scope.allows(req.url))
    return done({ ok: false, ...base, sent: false, ...elsewhereWords(tg, req.url, o.scope) });
  const path = req.request.slice('POST '.length);
  const own = o.dispatcher ? undefined : trustingAgent();
  try {
    const r = await send(req, tg, { ...o, dispatcher: o.dispatcher ?? own });
    const common = { ...base, status: r.status, requestId: r.requestId };
    if (r.err) return done({ ok: false, ...common, ...failureWords(tg, r.err, path) });
    if (!req.succeeded(r.text)) return done({ ok: false, ...common, ...unfinishedWords(tg, r.status, r.text) });
    return done({ ok: true, ...common });
  } catch (e) {
    const w: Words = isGatewayError(e)
      ? e.kind === 'aborted'
        ? { cause: t('The probe was cancelled.'), fix: t('Run it again.') }
        : failureWords(tg, e, path)
      : { cause: t('Unexpected error: {0}', e instanceof Error ? e.message : String(e)), fix: '' };
    return done({ ok: false, ...base, ...(isGatewayError(e) && e.status ? { status: e.status } : {}), ...w });
  } finally {
    await own?.close().catch(() => undefined);
  }
}
