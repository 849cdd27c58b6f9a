/**
 * Renderings of a diagnosis of 1..N gateways (diagnoseGateways.ts): a plain-text report for a
 * terminal, Markdown for a support ticket or the chat, and the JSON objects relay-doctor prints. One
 * shape whatever the number: the overview (one row per gateway: reachability, token, balance, models,
 * generation) and the fallback findings, then each gateway's checks with cause and fix. A report of
 * one gateway shows its checks directly: its overview row would only repeat them. Every text holds
 * only masked tokens: it passes through the secret redaction, with every gateway's token among the
 * secrets, whatever a check wrote.
 */
import { t } from '../l10n';
import { redactSecrets, stripUrlCredentials } from '../mask';
import {
  SUMMARY_ASPECTS,
  SUMMARY_RESULT,
  type FallbackFinding,
  type GatewaySummaryRow,
  type GatewaysDiagnosis,
  type SummaryAspect,
  type SummaryCell,
  type SummaryStatus,
} from './diagnoseGateways';
import { cells, padCells, wrap } from './textWidth';
import type { CheckResult, DiagnosisCheck, DiagnosisReport } from './types';

export interface RenderOptions {
  /** values to mask wherever they appear (e.g. every gateway's full token), on top of the sk-… pattern */
  secrets?: ReadonlyArray<string | undefined>;
}

const ICON: Record<CheckResult, string> = { pass: '✅', warn: '⚠️', fail: '❌', skipped: '⏭️' };

/** PASS / WARN / FAIL / SKIP: the table's result column. */
export function resultLabel(r: CheckResult): string {
  switch (r) {
    case 'pass':
      return t('PASS');
    case 'warn':
      return t('WARN');
    case 'fail':
      return t('FAIL');
    case 'skipped':
      return t('SKIP');
  }
}

/** pass / warn / fail / skipped: the markdown details' result word. */
function resultWord(r: CheckResult): string {
  switch (r) {
    case 'pass':
      return t('pass');
    case 'warn':
      return t('warn');
    case 'fail':
      return t('fail');
    case 'skipped':
      return t('skipped');
  }
}

/** A summary column's title (the overview of every rendering, and the diagnose panel). */
export function aspectTitle(a: SummaryAspect): string {
  switch (a) {
    case 'reachability':
      return t('Reachability');
    case 'token':
      return t('Token');
    case 'balance':
      return t('Balance');
    case 'models':
      return t('Models');
    case 'generation':
      return t('Generation');
  }
}

function clean(s: string, o: RenderOptions): string {
  return redactSecrets(s, o.secrets ?? []);
}

/** "1 failed, 2 warnings, 9 passed, 3 skipped": one gateway's checks counted. */
export function checkCounts(r: DiagnosisReport): string {
  const s = r.summary;
  return s.warn === 1
    ? t('{0} failed, 1 warning, {1} passed, {2} skipped', s.fail, s.pass, s.skipped)
    : t('{0} failed, {1} warnings, {2} passed, {3} skipped', s.fail, s.warn, s.pass, s.skipped);
}

function seconds(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** The last sentence of every rendering: one gateway's checks counted, or how many gateways had no failure. */
export function diagnosisSummary(d: GatewaysDiagnosis): string {
  if (d.rows.length === 1) return t('Summary: {0} ({1}).', checkCounts(d.rows[0].report), seconds(d.durationMs));
  const passed = d.rows.filter((r) => r.ok).length;
  return d.ok
    ? t('Summary: no check failed on {0} of {1} gateways.', passed, d.rows.length)
    : t('Summary: {0} of {1} gateways without a failed check; see the failures above.', passed, d.rows.length);
}

const cellLabel = (s: SummaryStatus) => resultLabel(SUMMARY_RESULT[s]);
const cellText = (c: SummaryCell) => (c.text ? `${cellLabel(c.status)} ${c.text}` : cellLabel(c.status));
/** The balance as a gateway's head tells it (not when the gateway does not tell, or it was not read). */
const balanceShown = (r: GatewaySummaryRow) => r.balance.status !== 'skipped';
const troubled = (c: SummaryCell) => (c.status === 'warn' || c.status === 'fail') && !!c.cause;

/** The token as the reports show it: masked, with its name, or "(none)". */
function tokenText(r: DiagnosisReport, quote: string): string {
  const masked = r.maskedToken ? `${quote}${r.maskedToken}${quote}` : t('(none)');
  return r.tokenName ? `${masked} (${r.tokenName})` : masked;
}

function mdCell(s: string): string {
  return s.replace(/\|/g, '\\|').replace(/\r?\n/g, '<br>');
}

/** A gateway's head in Markdown: when, where, which token and proxy, its balance and its result. */
function markdownHead(row: GatewaySummaryRow): string[] {
  const r = row.report;
  const lines = [`- ${t('When: {0} (took {1})', r.startedAt, seconds(r.durationMs))}`];
  lines.push(`- ${t('Base URL as configured: {0}', `\`${stripUrlCredentials(r.baseUrl)}\``)}`);
  if (r.base) lines.push(`- ${t('Root address: {0}', `\`${stripUrlCredentials(r.base)}\``)}`);
  if (r.backups.length)
    lines.push(`- ${t('Backup domains: {0}', r.backups.map((b) => `\`${stripUrlCredentials(b)}\``).join(', '))}`);
  if (r.usedBase && r.usedBase !== r.base)
    lines.push(`- ${t('Host used for the checks: {0}', `\`${stripUrlCredentials(r.usedBase)}\``)}`);
  lines.push(`- ${t('Token: {0}', tokenText(r, '`'))}`);
  if (balanceShown(row)) {
    const b = row.balance;
    lines.push(`- ${t('Balance: {0}', `${ICON[SUMMARY_RESULT[b.status]]} ${b.text}`)}`);
    if (troubled(b)) lines.push(`  - ${b.cause}`, ...(b.fix ? [`  - ${t('Fix: {0}', b.fix)}`] : []));
  }
  lines.push(`- ${r.proxy === 'none' ? t('Proxy: none') : t('Proxy: {0}', r.proxy)}`);
  lines.push(
    `- ${r.ok ? t('Result: **no check failed** — {0}', checkCounts(r)) : t('Result: **a check failed** — {0}', checkCounts(r))}`,
    '',
  );
  return lines;
}

/** A gateway's checks in Markdown: one table row per check, then the details of those that have any. */
function markdownChecks(r: DiagnosisReport, heading: string): string[] {
  const lines = [t('| | Check | HTTP | Time | Cause | Fix |'), '|---|---|---|---|---|---|'];
  for (const c of r.checks) {
    lines.push(
      `| ${ICON[c.result]} | ${mdCell(c.title)} | ${c.httpStatus ?? '—'} | ${seconds(c.durationMs)} | ${mdCell(c.cause)} | ${mdCell(c.fix || '—')} |`,
    );
  }
  const withDetails = r.checks.filter((c) => c.details?.length || c.url || c.requestId);
  if (!withDetails.length) return lines;
  lines.push('', `${heading} ${t('Details')}`, '');
  for (const c of withDetails) {
    lines.push(
      c.maskedToken
        ? t('**{0}** ({1}, token {2})', c.title, resultWord(c.result), `\`${c.maskedToken}\``)
        : t('**{0}** ({1})', c.title, resultWord(c.result)),
      '',
    );
    if (c.url) lines.push(`- URL: \`${stripUrlCredentials(c.url)}\``);
    if (c.requestId) lines.push(`- ${t('Request id: {0}', `\`${c.requestId}\``)}`);
    if (c.retryAfterMs !== undefined) lines.push(`- Retry-After: ${Math.ceil(c.retryAfterMs / 1000)} s`);
    for (const d of c.details ?? []) lines.push(`- ${d}`);
    lines.push('');
  }
  return lines;
}

/** The overview in Markdown: one table row per gateway, then the fallback findings. */
function markdownOverview(d: GatewaysDiagnosis): string[] {
  const icon = (s: SummaryStatus) => ICON[SUMMARY_RESULT[s]];
  const lines = [
    `| ${t('Gateway')} | ${SUMMARY_ASPECTS.map(aspectTitle).join(' | ')} |`,
    `|---|${SUMMARY_ASPECTS.map(() => '---|').join('')}`,
    ...d.rows.map(
      (r) =>
        `| ${mdCell(r.gateway.name)} | ${SUMMARY_ASPECTS.map((a) => mdCell(`${icon(r[a].status)} ${r[a].text}`)).join(' | ')} |`,
    ),
    '',
    diagnosisSummary(d),
    '',
  ];
  return lines;
}

/** A Markdown report for a support ticket or the chat: only masked tokens, URLs without credentials. */
export function renderMarkdown(d: GatewaysDiagnosis, o: RenderOptions = {}): string {
  const several = d.rows.length !== 1;
  const lines = [
    `## ${several ? t('Model Relay diagnosis of {0} gateways', d.rows.length) : t('Model Relay diagnosis')}`,
    '',
  ];
  if (several) lines.push(...markdownOverview(d));
  if (d.fallbacks.length) {
    lines.push(`### ${t('Fallbacks')}`, '');
    for (const f of d.fallbacks) lines.push(`- ${ICON[SUMMARY_RESULT[f.status]]} ${f.cause} ${t('Fix: {0}', f.fix)}`);
    lines.push('');
  }
  for (const row of d.rows) {
    if (several) lines.push(`### ${row.gateway.name}`, '');
    lines.push(...markdownHead(row), ...markdownChecks(row.report, several ? '####' : '###'), '');
  }
  return clean(lines.join('\n').trimEnd() + '\n', o);
}

export interface TableOptions extends RenderOptions {
  /** terminal width; default 100 */
  width?: number;
  /** show details for passing checks too */
  verbose?: boolean;
}

/** The overview as a table, one row per gateway, when it fits the width. */
function overviewTable(d: GatewaysDiagnosis, width: number): string[] | undefined {
  const head = [t('GATEWAY'), ...SUMMARY_ASPECTS.map((a) => aspectTitle(a).toUpperCase())];
  const body = d.rows.map((r) => [r.gateway.name, ...SUMMARY_ASPECTS.map((a) => cellText(r[a]))]);
  const w = head.map((h, i) => Math.max(cells(h), ...body.map((row) => cells(row[i]))));
  if (w.reduce((x, y) => x + y, 0) + 2 * (w.length - 1) > width) return undefined;
  const line = (row: string[]) =>
    row
      .map((c, i) => padCells(c, w[i]))
      .join('  ')
      .trimEnd();
  return [line(head), ...body.map(line)];
}

/** The overview as a block per gateway (its name, then one line per aspect), for a terminal too narrow for the table. */
function overviewBlocks(d: GatewaysDiagnosis, width: number): string[] {
  const titleW = Math.max(...SUMMARY_ASPECTS.map((a) => cells(aspectTitle(a))));
  const lines: string[] = [];
  for (const r of d.rows) {
    lines.push(r.gateway.name);
    for (const a of SUMMARY_ASPECTS)
      wrap(cellText(r[a]), width - titleW - 4).forEach((l, i) =>
        lines.push(`  ${padCells(i ? '' : aspectTitle(a), titleW)}  ${l}`),
      );
  }
  return lines;
}

/** A cause and its fix, the fix indented under it. */
function causeFix(cause: string, fix: string | undefined, indent: string, textW: number): string[] {
  const lines = wrap(cause, textW).map((l) => indent + l);
  if (fix) for (const l of wrap(t('Fix: {0}', fix), textW - 2)) lines.push(`${indent}  ${l}`);
  return lines;
}

/** A gateway's head: its token, proxy, balance, backups and the host the checks ran against; what went wrong with the balance. */
function headLines(row: GatewaySummaryRow, width: number): string[] {
  const r = row.report;
  const meta = [t('token {0}', tokenText(r, '')), r.proxy === 'none' ? t('proxy none') : t('proxy {0}', r.proxy)];
  if (balanceShown(row)) meta.push(t('balance {0}', row.balance.text));
  if (r.backups.length) meta.push(t('backups {0}', r.backups.map(stripUrlCredentials).join(', ')));
  if (r.usedBase && r.usedBase !== r.base) meta.push(t('checks ran against {0}', stripUrlCredentials(r.usedBase)));
  const lines = wrap(meta.join(' · '), width);
  if (troubled(row.balance))
    lines.push(...causeFix(t('{0}: {1}', aspectTitle('balance'), row.balance.cause!), row.balance.fix, '', width));
  return lines;
}

/** A gateway's checks: one row per check, cause and fix indented under it. */
function checkLines(r: DiagnosisReport, width: number, verbose: boolean | undefined): string[] {
  const titleW = Math.max(...r.checks.map((c) => cells(c.title)), 5);
  const indent = ' '.repeat(7);
  const textW = width - indent.length;
  const lines = [`${padCells(t('RESULT'), 7)}${padCells(t('CHECK'), titleW + 2)}${'HTTP'.padEnd(6)}${t('TIME')}`];
  for (const c of r.checks) {
    lines.push(
      `${padCells(resultLabel(c.result), 7)}${padCells(c.title, titleW + 2)}${String(c.httpStatus ?? '-').padEnd(6)}${seconds(c.durationMs)}`,
    );
    const labelled = c.result === 'warn' || c.result === 'fail';
    for (const l of wrap(labelled ? t('Cause: {0}', c.cause) : c.cause, textW)) lines.push(indent + l);
    if (c.fix && labelled) for (const l of wrap(t('Fix: {0}', c.fix), textW)) lines.push(indent + l);
    if ((labelled || verbose) && c.details?.length) {
      for (const d of c.details) wrap(`· ${d}`, textW).forEach((l, i) => lines.push(indent + (i ? '  ' : '') + l));
    }
  }
  return lines;
}

/**
 * The plain-text report for a terminal: with several gateways the overview (a row each, or a block
 * each when narrow) and the fallback findings, then each gateway's head and its checks, cause and fix
 * under each that warned or failed; the summary last.
 */
export function renderTable(d: GatewaysDiagnosis, o: TableOptions = {}): string {
  const width = Math.max(40, Math.min(o.width ?? 100, 160));
  const several = d.rows.length !== 1;
  const lines = [
    several
      ? t('Model Relay diagnosis of {0} gateways', d.rows.length)
      : t('Model Relay diagnosis of {0}', stripUrlCredentials(d.rows[0].report.baseUrl)),
  ];
  if (several) lines.push('', ...(overviewTable(d, width) ?? overviewBlocks(d, width)));
  if (d.fallbacks.length) {
    lines.push('', t('Fallbacks:'));
    for (const f of d.fallbacks) lines.push(...causeFix(`${cellLabel(f.status)} ${f.cause}`, f.fix, '  ', width - 2));
  }
  for (const row of d.rows) {
    if (several) lines.push('', t('{0}: {1}', row.gateway.name, stripUrlCredentials(row.report.baseUrl)));
    lines.push(...headLines(row, width), '', ...checkLines(row.report, width, o.verbose));
  }
  lines.push('', ...wrap(diagnosisSummary(d), width));
  return clean(lines.join('\n') + '\n', o);
}

export interface JsonCheck {
  id: DiagnosisCheck['id'];
  title: string;
  result: CheckResult;
  httpStatus: number | null;
  durationMs: number;
  cause: string;
  fix: string;
  url: string | null;
  details: string[];
  fixAction: DiagnosisCheck['fixAction'] | null;
  retryAfterMs: number | null;
}

/** One gateway's report as `relay-doctor diagnose --json` prints it: `{"checks":[{"id","result","httpStatus","cause","fix",…}]}`. */
export function reportToJson(
  r: DiagnosisReport,
  o: RenderOptions = {},
): {
  ok: boolean;
  summary: DiagnosisReport['summary'];
  baseUrl: string;
  base: string | null;
  usedBase: string | null;
  maskedToken: string | null;
  checks: JsonCheck[];
} {
  const obj = {
    ok: r.ok,
    summary: r.summary,
    baseUrl: stripUrlCredentials(r.baseUrl),
    base: r.base ?? null,
    usedBase: r.usedBase ?? null,
    maskedToken: r.maskedToken ?? null,
    checks: r.checks.map((c) => ({
      id: c.id,
      title: c.title,
      result: c.result,
      httpStatus: c.httpStatus ?? null,
      durationMs: c.durationMs,
      cause: c.cause,
      fix: c.fix,
      url: c.url ?? null,
      details: c.details ?? [],
      fixAction: c.fixAction ?? null,
      retryAfterMs: c.retryAfterMs ?? null,
    })),
  };
  return JSON.parse(clean(JSON.stringify(obj), o)) as typeof obj;
}

/** The object `relay-doctor diagnose --all --json` prints: one entry per gateway (its report as reportToJson makes it) and the fallback findings. */
export function gatewaysToJson(d: GatewaysDiagnosis, o: RenderOptions = {}) {
  const cell = (c: SummaryCell) => ({ status: c.status, text: c.text, cause: c.cause ?? null, fix: c.fix ?? null });
  const finding = (f: FallbackFinding) => ({
    status: f.status,
    model: f.model,
    target: f.target,
    gateway: f.gateway ?? null,
    cause: f.cause,
    fix: f.fix,
  });
  const obj = {
    ok: d.ok,
    startedAt: d.startedAt,
    durationMs: d.durationMs,
    gateways: d.rows.map((r) => ({
      id: r.gateway.id,
      name: r.gateway.name,
      ok: r.ok,
      reachability: cell(r.reachability),
      token: cell(r.token),
      balance: cell(r.balance),
      models: cell(r.models),
      generation: cell(r.generation),
      report: reportToJson(r.report, o),
    })),
    fallbacks: d.fallbacks.map(finding),
  };
  return JSON.parse(clean(JSON.stringify(obj), o)) as typeof obj;
}
