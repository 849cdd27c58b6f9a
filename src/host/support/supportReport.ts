/**
 * Copy Support Report: what an operator needs to trace a lasting fault (the contract asks users to
 * report one), as Markdown — extension and VS Code versions, the gateway's address, the last failing
 * requests from the local log (surface, model, status, request id, time) and whether the gateway's
 * usage log has them, the error the user clicked from, the last diagnosis's summary. Built only from
 * structured fields: no token (masked forms only), no URL credentials or query, no prompt or reply text,
 * no gateway message (it may echo the prompt). Every text still goes through the redaction of every
 * known token, so a secret planted anywhere cannot pass. Plain Node, no `vscode`.
 */
import { redactSecrets, type DiagnosisReport, type RequestRecord } from '../../gateway';
import type { Arrival } from '../../gateway/economy/usageTypes';
import { t } from '../../gateway/l10n';
import type { ChatErrorInfo } from '../../shared/chatProtocol';
import { arrivalCell, lookUpArrivals, type ArrivalSource } from '../usage/arrivals';
import { statusWord } from '../diagnose/diagnoseHtml';

/** At most this many failing requests are listed (the newest). */
export const MAX_REPORTED_FAILURES = 10;
/** How long the report waits for the usage logs before it says "not looked up" (ms). */
export const REPORT_ARRIVAL_BOUND_MS = 8_000;

export interface SupportReportInput {
  extensionVersion: string;
  /** e.g. "1.106.0 (code-server)" */
  vscodeVersion: string;
  /** the display language and the platform, e.g. "zh-cn", "linux x64" */
  language: string;
  platform: string;
  /** the active gateway: its name and configured address */
  gateway: { name: string; baseUrl: string } | undefined;
  /** the proxy in use, as the diagnosis words it ("none", "http://proxy:3128 (http.proxy)") */
  proxy?: string | undefined;
  /** the local request log, oldest first */
  records: readonly RequestRecord[];
  /** the error card the report was asked from, when it was */
  error?: ChatErrorInfo | undefined;
  /** when that error happened (ms) */
  errorAt?: number | undefined;
  /** the last diagnosis shown, when one was run */
  diagnosis?: DiagnosisReport | undefined;
  /** every token the extension holds: redacted wherever it might appear (also without its sk- prefix) */
  secrets: readonly (string | undefined)[];
  now: number;
}

/** The newest failing requests of the local log (an error status or a classified failure; a user's stop is not one). */
export function failingRequests(records: readonly RequestRecord[], max = MAX_REPORTED_FAILURES): RequestRecord[] {
  const failed = (r: RequestRecord) =>
    r.capability !== 'account' &&
    r.errorKind !== 'aborted' &&
    (r.errorKind !== undefined || r.status === undefined || r.status >= 400);
  return records.filter(failed).slice(-max).reverse();
}

/** A URL without credentials, query or fragment: what identifies the gateway and nothing more. */
export function safeAddress(raw: string): string {
  try {
    const u = new URL(raw.trim());
    return `${u.protocol}//${u.host}${u.pathname === '/' ? '' : u.pathname}`;
  } catch {
    return t('(not a valid URL)');
  }
}

/** Redacts every known token, URL credentials, and the query of any URL (older gateways take `?key=`). */
function scrubber(secrets: readonly (string | undefined)[]): (s: string) => string {
  return (s) => redactSecrets(s, secrets).replace(/(\bhttps?:\/\/[^\s?#)|]+)[?#][^\s)|]*/gi, '$1');
}

/** A Markdown table cell: no pipes or line breaks (a field a stored record lacks is a dash, not a crash). */
function cell(s: string | undefined): string {
  return (s ?? '').replace(/[|\r\n]+/g, ' ').trim() || '—';
}

function utc(ms: number | string): string {
  const d = typeof ms === 'number' ? new Date(ms) : new Date(ms);
  return Number.isFinite(d.getTime()) ? `${d.toISOString().slice(0, 19).replace('T', ' ')} UTC` : String(ms);
}

function failuresSection(failures: readonly RequestRecord[], arrivals: ReadonlyArray<Arrival | undefined>): string[] {
  const out = [`## ${t('Last failing requests')}`, ''];
  if (!failures.length) return [...out, t('No failing request in the request log.'), ''];
  out.push(
    `| ${[t('Time'), t('Gateway'), t('Surface'), t('Model'), t('Status'), t('Request id'), t('Logged by the gateway')].join(' | ')} |`,
    `|${' --- |'.repeat(7)}`,
  );
  failures.forEach((r, i) => {
    const status = [r.status, r.errorKind].filter((x) => x !== undefined).join(' ');
    const where = `${r.gateway ? `${r.gateway} · ` : ''}${r.host} ${r.method} ${r.path}`;
    const row = [utc(r.time), where, r.surface, r.model ?? '—', status, r.requestId ?? '—', arrivalCell(arrivals[i])];
    out.push(`| ${row.map(cell).join(' | ')} |`);
  });
  return [...out, ''];
}

function errorSection(e: ChatErrorInfo, at: number | undefined): string[] {
  const line = (k: string, v: string | number | undefined) => (v === undefined || v === '' ? [] : [`- ${k}: ${v}`]);
  return [
    `## ${t('The error reported')}`,
    '',
    ...line(t('Time'), at === undefined ? undefined : utc(at)),
    ...line(t('Kind'), e.kind),
    ...line(t('Status'), e.status),
    ...line(t('Detail'), e.detail),
    ...line(t('Host'), e.host),
    ...line(t('Surface'), e.surface),
    ...line(t('Model'), e.model),
    ...line(t('Token'), e.maskedToken),
    ...line(t('Request id'), e.requestId),
    ...line(t('Attempts'), e.attempts),
    ...line(t('Billed call'), e.billing ? t('yes, it may have been charged') : undefined),
    ...line(t('Logged by the gateway'), e.arrival?.text),
    '',
  ];
}

function diagnosisSection(d: DiagnosisReport): string[] {
  const counts = t('{0} failed, {1} warnings, {2} passed', d.summary.fail, d.summary.warn, d.summary.pass);
  const out = [`## ${t('Last diagnosis')}`, '', `- ${t('Run at {0}: {1}', utc(d.startedAt), counts)}`];
  for (const c of d.checks.filter((x) => x.result === 'fail' || x.result === 'warn'))
    out.push(
      `- ${statusWord(c.result)}: ${c.title}${c.httpStatus ? ` (HTTP ${c.httpStatus})` : ''}${c.requestId ? ` [${c.requestId}]` : ''} — ${c.cause}`,
    );
  return [...out, ''];
}

/** The report as Markdown, from what was gathered (arrivals in the order of `failingRequests`). */
export function buildSupportReport(
  input: SupportReportInput,
  failures: readonly RequestRecord[],
  arrivals: ReadonlyArray<Arrival | undefined>,
): string {
  const scrub = scrubber(input.secrets);
  const g = input.gateway;
  const lines = [
    `# ${t('Model Relay support report')}`,
    '',
    t(
      'Made at {0}. It holds no token (masked forms only), no URL credentials and no prompt or reply text.',
      utc(input.now),
    ),
    '',
    `- Model Relay: ${input.extensionVersion}`,
    `- VS Code: ${input.vscodeVersion}`,
    `- ${t('Platform: {0}, display language {1}', input.platform, input.language)}`,
    `- ${t('Gateway: {0}', g ? `${g.name} (${safeAddress(g.baseUrl)})` : t('none configured'))}`,
    ...(input.proxy ? [`- ${t('Proxy: {0}', input.proxy)}`] : []),
    '',
    ...(input.error ? errorSection(input.error, input.errorAt) : []),
    ...failuresSection(failures, arrivals),
    ...(input.diagnosis
      ? diagnosisSection(input.diagnosis)
      : [`## ${t('Last diagnosis')}`, '', t('No diagnosis was run in this window.'), '']),
  ];
  return scrub(lines.join('\n'));
}

/**
 * Gathers and builds the report: the failing requests' arrivals are looked up at once (one read per
 * gateway), waited for at most `boundMs`; a lookup that did not answer in time shows as unknown.
 */
export async function supportReport(
  input: SupportReportInput,
  source: ArrivalSource | undefined,
  boundMs = REPORT_ARRIVAL_BOUND_MS,
): Promise<string> {
  const failures = failingRequests(input.records);
  let arrivals: Array<Arrival | undefined> = failures.map(() => undefined);
  if (source && failures.length) {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<undefined>((r) => (timer = setTimeout(() => r(undefined), boundMs)));
    const found = await Promise.race([lookUpArrivals(failures, source), late]);
    clearTimeout(timer);
    arrivals = found ?? failures.map(() => ({ state: 'unknown', reason: 'failed' }));
  }
  return buildSupportReport(input, failures, arrivals);
}

/** The part of a gateway's token store the report reads (src/host/gateways/tokenStore.ts). */
export interface TokenValues {
  names(): string[];
  value(name: string): Promise<string | undefined>;
}

/** Every token of every gateway: what the report redacts wherever it might appear. */
export async function knownSecrets(ids: readonly string[], tokensOf: (id: string) => TokenValues): Promise<string[]> {
  const out: string[] = [];
  for (const id of ids) {
    const store = tokensOf(id);
    for (const name of store.names()) {
      const v = await store.value(name).catch(() => undefined);
      if (v) out.push(v);
    }
  }
  return out;
}
