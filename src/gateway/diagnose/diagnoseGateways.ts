/**
 * The diagnosis of 1..N gateways: the engine's checks (runDiagnosis) once per gateway, a few at a
 * time, and one summary row per gateway (reachability, token, balance, models, generation), each ok /
 * warn / fail / skipped with a short text, the full report kept for the detail. Then every fallback
 * target is checked: it must name a known gateway and a model that gateway's token can see. Diagnose
 * Connection (and `relay-doctor diagnose`) is this run with one gateway, Diagnose All Gateways (and
 * `relay-doctor diagnose --all`) with each. Pure Node; report.ts renders the result (text, Markdown,
 * JSON), src/host/diagnose/diagnoseHtml.ts the panel's page.
 */
import type { Dispatcher } from 'undici';
import { GatewayClient } from '../client';
import { DEFAULT_DIAGNOSIS_TIMEOUTS } from '../defaults';
import { describeQuota } from '../economy/describe';
import { quotaState } from '../economy/quota';
import { hostOf } from '../endpoint';
import { isGatewayError } from '../errors/gatewayError';
import type { Fallbacks, FallbackTarget, GatewayProfile } from '../gateways/profile';
import { createDispatcher, type ProxySettings } from '../http/proxy';
import { t } from '../l10n';
import { redactSecrets } from '../mask';
import type { ModelInfo } from '../models';
import type { CountText } from '../economy/inputCount';
import type { RequestLogSink } from '../requestLog';
import { runDiagnosis } from './engine';
import type { CheckId, CheckResult, DiagnosisCheck, DiagnosisInput, DiagnosisReport, DiagnosisTimeouts } from './types';

export type SummaryStatus = 'ok' | 'warn' | 'fail' | 'skipped';
/** A summary cell's status as a check's result (the words and icons of the one-gateway report). */
export const SUMMARY_RESULT = { ok: 'pass', warn: 'warn', fail: 'fail', skipped: 'skipped' } as const satisfies Record<
  SummaryStatus,
  CheckResult
>;

/** One cell of a gateway's summary row: a status, a few words for the table, and for warn / fail the cause and fix. */
export interface SummaryCell {
  status: SummaryStatus;
  text: string;
  cause?: string | undefined;
  fix?: string | undefined;
}

export const SUMMARY_ASPECTS = ['reachability', 'token', 'balance', 'models', 'generation'] as const;
export type SummaryAspect = (typeof SUMMARY_ASPECTS)[number];

export interface GatewaySummaryRow extends Record<SummaryAspect, SummaryCell> {
  gateway: { id: string; name: string };
  /** no check and no cell failed */
  ok: boolean;
  /** the full diagnosis of this gateway (the detail one click away) */
  report: DiagnosisReport;
  /** the ids its token's model list shows, when it could be read */
  modelIds: string[] | undefined;
}

/** A fallback target that cannot serve: an unknown gateway, or a model its list does not show. */
export interface FallbackFinding {
  status: 'warn' | 'fail';
  /** the model the fallbacks are for (the key in `fallbacks`) */
  model: string;
  target: FallbackTarget;
  /** the gateway the target names, when known */
  gateway: { id: string; name: string } | undefined;
  cause: string;
  fix: string;
}

export interface GatewaysDiagnosis {
  startedAt: string;
  durationMs: number;
  rows: GatewaySummaryRow[];
  fallbacks: FallbackFinding[];
  /** no row has a failed check or cell and no fallback target fails */
  ok: boolean;
}

/** What else one gateway's diagnosis is given, besides its profile and token: what only the caller knows, and its progress. */
export type DiagnosisExtras = Pick<
  DiagnosisInput,
  'learntSurfaces' | 'remoteName' | 'tools' | 'backgroundTasks' | 'sleep' | 'onCheckStart' | 'onProgress'
>;

export interface GatewaysDiagnosisInput {
  gateways: readonly GatewayProfile[];
  fallbacks?: Fallbacks | undefined;
  /** the token of a gateway (undefined: none stored / the variable is not set) */
  token: (gatewayId: string) => string | undefined;
  /** shown next to the masked token, e.g. the token's name or the environment variable it came from */
  tokenName?: ((gatewayId: string) => string | undefined) | undefined;
  /** the fix said when a gateway has no token (default: the token check's own) */
  noTokenFix?: ((gateway: GatewayProfile) => string) | undefined;
  /** when a gateway names no chat or native model, check with the first ones its token lists (default true) */
  pickModels?: boolean | undefined;
  /** what else a gateway's diagnosis is given (the terminal tools' states, the surfaces its client learnt, progress per check) */
  extras?: ((gateway: GatewayProfile) => DiagnosisExtras) | undefined;
  /** how many gateways are diagnosed at once (1–4, default 2) */
  concurrency?: number | undefined;
  dispatcher?: Dispatcher | undefined;
  proxy?: ProxySettings | undefined;
  includeMedia?: boolean | undefined;
  timeouts?: DiagnosisTimeouts | undefined;
  now?: (() => number) | undefined;
  signal?: AbortSignal | undefined;
  /** hears the record of each request a gateway's checks send through its client, naming the gateway (`gateway`) */
  onRequest?: RequestLogSink | undefined;
  /** counts a generation check's input for its receipt */
  countText?: CountText | undefined;
  /** hears each gateway's diagnosis start and finish (progress) */
  onGatewayStart?: ((gateway: GatewayProfile, index: number, total: number) => void) | undefined;
  onGatewayDone?: ((row: GatewaySummaryRow, index: number, total: number) => void) | undefined;
  /** when no chat / native model is configured, the first ones of the token's list are checked; hear which */
  onPickModels?: ((gateway: GatewayProfile, picked: { chat?: string; native?: string }) => void) | undefined;
}

export const MAX_DIAGNOSIS_CONCURRENCY = 4;

/** A broken listener must not break the diagnosis. */
function safe(f: () => void): void {
  try {
    f();
  } catch {
    /* ignored */
  }
}

const worst = (a: SummaryStatus, b: SummaryStatus): SummaryStatus => {
  const rank: Record<SummaryStatus, number> = { skipped: 0, ok: 1, warn: 2, fail: 3 };
  return rank[b] > rank[a] ? b : a;
};

const statusOf = (c: DiagnosisCheck): SummaryStatus => (c.result === 'pass' ? 'ok' : c.result);

function cellFrom(c: DiagnosisCheck | undefined, text: string): SummaryCell {
  if (!c) return { status: 'skipped', text: t('not tested') };
  const status = statusOf(c);
  if (status === 'ok') return { status, text };
  if (status === 'skipped') return { status, text: t('not tested'), cause: c.cause, fix: c.fix || undefined };
  return { status, text, cause: c.cause, fix: c.fix || undefined };
}

function reachabilityCell(r: DiagnosisReport, check: (id: CheckId) => DiagnosisCheck | undefined): SummaryCell {
  const shape = check('base-url');
  if (shape?.result === 'fail') return cellFrom(shape, t('unusable base URL'));
  const reach = check('reachability');
  const host = r.usedBase ? hostOf(r.usedBase) : undefined;
  const text = !host ? t('unreachable') : r.usedBase !== r.base ? t('{0} (backup)', host) : host;
  const cell = cellFrom(reach, text);
  return shape?.result === 'warn' && cell.status === 'ok' ? cellFrom(shape, text) : cell;
}

function tokenCell(r: DiagnosisReport, c: DiagnosisCheck | undefined): SummaryCell {
  if (!r.maskedToken)
    return { status: 'fail', text: t('no token'), cause: c?.cause ?? t('No token is set.'), fix: c?.fix || undefined };
  const cell = cellFrom(c, r.maskedToken);
  if (cell.status === 'fail' && c?.httpStatus === 401) return { ...cell, text: t('{0} refused', r.maskedToken) };
  return cell;
}

function modelsCell(c: DiagnosisCheck | undefined, list: readonly ModelInfo[] | undefined): SummaryCell {
  const count = list ? (list.length === 1 ? t('1 model') : t('{0} models', list.length)) : t('not read');
  if (c?.result === 'skipped' && list) return { status: list.length ? 'ok' : 'warn', text: count };
  return cellFrom(c, count);
}

const GENERATION: readonly CheckId[] = [
  'generate-chat',
  'generate-native',
  'generate-responses',
  'stream-compatible',
  'stream-native',
  'stream-responses',
];

function generationCell(r: DiagnosisReport): SummaryCell {
  const checks = r.checks.filter((c) => GENERATION.includes(c.id));
  // No generation check applies: no model was configured or picked (the token's list was read), or nothing was tested.
  if (!checks.length)
    return {
      status: 'skipped',
      text: r.checks.some((c) => c.id === 'token' && c.result === 'pass') ? t('no model') : t('not tested'),
    };
  const status = checks.map(statusOf).reduce(worst, 'skipped');
  const deciding = checks.find((c) => statusOf(c) === status)!;
  if (status === 'skipped') return cellFrom(deciding, '');
  const ran = checks.filter((c) => c.result !== 'skipped');
  const passed = ran.filter((c) => c.result === 'pass').length;
  return cellFrom(deciding, t('{0} of {1} passed', passed, ran.length));
}

interface BalanceInput {
  report: DiagnosisReport;
  profile: GatewayProfile;
  token: string | undefined;
  dispatcher: Dispatcher;
  requestMs: number;
  signal: AbortSignal | undefined;
  now: () => number;
}

/** What is left on the token: read once the token passed (a cheap GET), never a billed call. */
async function balanceCell(b: BalanceInput): Promise<SummaryCell> {
  const tokenCheck = b.report.checks.find((c) => c.id === 'token');
  if (!b.token || !b.report.usedBase || !tokenCheck || (tokenCheck.result !== 'pass' && tokenCheck.result !== 'warn'))
    return { status: 'skipped', text: t('not tested') };
  const client = new GatewayClient({
    baseUrl: b.report.usedBase,
    token: () => b.token,
    dispatcher: b.dispatcher,
    extraHeaders: b.profile.extraHeaders,
    retry: { maxRetries: 0 },
    timeouts: { chatMs: b.requestMs },
    now: b.now,
  });
  const signal = b.signal
    ? AbortSignal.any([b.signal, AbortSignal.timeout(b.requestMs)])
    : AbortSignal.timeout(b.requestMs);
  try {
    const q = await client.account.quota({ maxAgeMs: 0, signal });
    if (!q) return { status: 'skipped', text: t('not told') };
    const words = describeQuota(q, 0, b.now());
    if (words.level !== 'error') return { status: 'ok', text: words.short };
    return {
      status: 'fail',
      text: words.short,
      cause: quotaState(q, b.now()) === 'expired' ? t('The token has expired.') : t("The token's quota is used up."),
      fix: t('Top up or renew the token in the gateway console, or use another token.'),
    };
  } catch (e) {
    const said = isGatewayError(e) ? e.message : e instanceof Error ? e.message : String(e);
    return {
      status: 'warn',
      text: t('unknown'),
      cause: t('The balance could not be read: {0}', redactSecrets(said, [b.token])),
      fix: t("See the balance in the gateway's web console."),
    };
  }
}

interface GatewayRunOptions {
  input: GatewaysDiagnosisInput;
  dispatcher: Dispatcher;
}

async function diagnoseOne(profile: GatewayProfile, o: GatewayRunOptions): Promise<GatewaySummaryRow> {
  const { input } = o;
  const token = input.token(profile.id)?.trim() || undefined;
  let list: readonly ModelInfo[] | undefined;
  const { chat, native, image, imageEdit, video } = profile.models ?? {};
  const diagnosis: DiagnosisInput = {
    ...input.extras?.(profile),
    gatewayName: profile.name || undefined,
    baseUrl: profile.baseUrl,
    backupUrls: profile.backupUrls,
    extraHeaders: profile.extraHeaders,
    token,
    tokenName: input.tokenName?.(profile.id),
    models: { chat, native, image, imageEdit, video },
    pickModels: input.pickModels === false ? undefined : (picked) => safe(() => input.onPickModels?.(profile, picked)),
    onModelList: (l) => (list = l),
    dispatcher: o.dispatcher,
    proxy: input.proxy,
    includeMedia: input.includeMedia,
    timeouts: input.timeouts,
    now: input.now,
    signal: input.signal,
    onRequest: input.onRequest && ((r) => input.onRequest?.({ ...r, gateway: profile.name || profile.id })),
    countText: input.countText,
  };
  const report = await runDiagnosis(diagnosis);
  const noTokenFix = input.noTokenFix?.(profile);
  if (!token && noTokenFix) for (const c of report.checks) if (c.id === 'token') c.fix = noTokenFix;
  const check = (id: CheckId) => report.checks.find((c) => c.id === id);
  const balance = await balanceCell({
    report,
    profile,
    token,
    dispatcher: o.dispatcher,
    requestMs: input.timeouts?.requestMs ?? DEFAULT_DIAGNOSIS_TIMEOUTS.requestMs,
    signal: input.signal,
    now: input.now ?? Date.now,
  });
  const row = {
    gateway: { id: profile.id, name: profile.name },
    reachability: reachabilityCell(report, check),
    token: tokenCell(report, check('token')),
    balance,
    models: modelsCell(check('visibility'), list),
    generation: generationCell(report),
    report,
    modelIds: list?.map((m) => m.id),
  };
  // A check no cell stands for (the native path, a terminal tool …) fails the gateway too.
  return { ...row, ok: report.ok && SUMMARY_ASPECTS.every((a) => row[a].status !== 'fail') };
}

/** The gateway a fallback target (or `--gateway NAME`) names, resolved as failover's routesFor does: its id, else its name, else its id in any case. */
export function gatewayNamed<G extends { id: string; name: string }>(
  gateways: readonly G[],
  ref: string,
): G | undefined {
  const lower = ref.trim().toLowerCase();
  return (
    gateways.find((g) => g.id === ref.trim()) ??
    gateways.find((g) => g.name.trim().toLowerCase() === lower) ??
    gateways.find((g) => g.id.toLowerCase() === lower)
  );
}

/** Every fallback target that cannot serve: an unknown gateway, a model missing from its list, a list not read. */
export function checkFallbacks(fallbacks: Fallbacks, rows: readonly GatewaySummaryRow[]): FallbackFinding[] {
  const gateways = rows.map((r) => ({ ...r.gateway, row: r }));
  const findings: FallbackFinding[] = [];
  for (const [model, targets] of Object.entries(fallbacks)) {
    for (const target of targets) {
      const g = gatewayNamed(gateways, target.gateway);
      if (!g) {
        findings.push({
          status: 'fail',
          model,
          target,
          gateway: undefined,
          cause: t(
            'The fallback for "{0}" names the gateway "{1}", which is not one of the gateways.',
            model,
            target.gateway,
          ),
          fix: t(
            'Use the id of one of the gateways ({0}), or remove this target.',
            gateways.map((x) => x.id).join(', '),
          ),
        });
        continue;
      }
      const gateway = { id: g.id, name: g.name };
      const ids = g.row.modelIds;
      if (!ids) {
        findings.push({
          status: 'warn',
          model,
          target,
          gateway,
          cause: t(
            'The fallback for "{0}" to "{1}" on "{2}" could not be checked: that gateway\'s model list could not be read.',
            model,
            target.model,
            g.name,
          ),
          fix: t("Fix that gateway's token or reachability first (see its row)."),
        });
      } else if (!ids.includes(target.model)) {
        const shown = `${ids.slice(0, 12).join(', ')}${ids.length > 12 ? ', …' : ''}`;
        findings.push({
          status: 'fail',
          model,
          target,
          gateway,
          cause: t(
            'The fallback for "{0}" names the model "{1}" on "{2}", but that gateway\'s model list does not show it.',
            model,
            target.model,
            g.name,
          ),
          fix: t('Pick a model from the list of "{0}" ({1}), or remove this target.', g.name, shown || t('(none)')),
        });
      }
    }
  }
  return findings;
}

/** A fallback target missing from a gateway's list makes that gateway's models cell fail (a row finding). */
function markRows(rows: GatewaySummaryRow[], findings: readonly FallbackFinding[]): void {
  for (const row of rows) {
    const missing = findings.filter((f) => f.status === 'fail' && f.gateway?.id === row.gateway.id);
    if (!missing.length || row.models.status === 'fail') continue;
    const first = missing[0];
    row.models = {
      status: 'fail',
      text:
        missing.length === 1
          ? t('fallback {0} not listed', first.target.model)
          : t('{0} fallbacks not listed', missing.length),
      cause: missing.map((f) => f.cause).join(' '),
      fix: first.fix,
    };
    row.ok = false;
  }
}

/** Runs the diagnosis of each gateway (at most `concurrency` at once) and checks the fallbacks. */
export async function diagnoseGateways(input: GatewaysDiagnosisInput): Promise<GatewaysDiagnosis> {
  const now = input.now ?? Date.now;
  const startedAt = now();
  const owned = input.dispatcher ? undefined : createDispatcher(input.proxy ?? { env: {} });
  const dispatcher = input.dispatcher ?? owned!;
  const total = input.gateways.length;
  const rows: GatewaySummaryRow[] = new Array<GatewaySummaryRow>(total);
  const width = Math.max(1, Math.min(MAX_DIAGNOSIS_CONCURRENCY, Math.floor(input.concurrency ?? 2) || 1));
  let next = 0;
  const worker = async () => {
    while (next < total) {
      const i = next++;
      const profile = input.gateways[i];
      safe(() => input.onGatewayStart?.(profile, i, total));
      rows[i] = await diagnoseOne(profile, { input, dispatcher });
      safe(() => input.onGatewayDone?.(rows[i], i, total));
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(width, total) }, worker));
  } finally {
    await owned?.close().catch(() => undefined);
  }
  const fallbacks = checkFallbacks(input.fallbacks ?? {}, rows);
  markRows(rows, fallbacks);
  return {
    startedAt: new Date(startedAt).toISOString(),
    durationMs: Math.max(0, now() - startedAt),
    rows,
    fallbacks,
    ok: rows.every((r) => r.ok) && fallbacks.every((f) => f.status !== 'fail'),
  };
}
