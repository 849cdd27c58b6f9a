/**
 * Renderings of a diagnosis report: markdown for a support ticket, a plain-text table for a
 * terminal, and the JSON object `relay-doctor diagnose --json` prints. All three hold only masked
 * tokens: every text passes through the secret redaction, whatever a check wrote.
 */
import { t } from '../l10n';
import { redactSecrets, stripUrlCredentials } from '../mask';
import { cells, padCells, wrap } from './textWidth';
import type { CheckResult, DiagnosisCheck, DiagnosisReport } from './types';

export interface RenderOptions {
  /** values to mask wherever they appear (e.g. the full token), on top of the sk-… pattern */
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

function clean(s: string, o: RenderOptions): string {
  return redactSecrets(s, o.secrets ?? []);
}

function summaryLine(r: DiagnosisReport): string {
  const s = r.summary;
  return s.warn === 1
    ? t('{0} failed, 1 warning, {1} passed, {2} skipped', s.fail, s.pass, s.skipped)
    : t('{0} failed, {1} warnings, {2} passed, {3} skipped', s.fail, s.warn, s.pass, s.skipped);
}

function seconds(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}

function cell(s: string): string {
  return s.replace(/\|/g, '\\|').replace(/\r?\n/g, '<br>');
}

/** The token as the reports show it: masked, with its name, or "(none)". */
function tokenText(r: DiagnosisReport, quote: string): string {
  const masked = r.maskedToken ? `${quote}${r.maskedToken}${quote}` : t('(none)');
  return r.tokenName ? `${masked} (${r.tokenName})` : masked;
}

function markdownHead(r: DiagnosisReport): string[] {
  const lines = [`## ${t('Model Relay diagnosis')}`, ''];
  lines.push(`- ${t('When: {0} (took {1})', r.startedAt, seconds(r.durationMs))}`);
  lines.push(`- ${t('Base URL as configured: {0}', `\`${stripUrlCredentials(r.baseUrl)}\``)}`);
  if (r.base) lines.push(`- ${t('Root address: {0}', `\`${stripUrlCredentials(r.base)}\``)}`);
  if (r.backups.length)
    lines.push(`- ${t('Backup domains: {0}', r.backups.map((b) => `\`${stripUrlCredentials(b)}\``).join(', '))}`);
  if (r.usedBase && r.usedBase !== r.base)
    lines.push(`- ${t('Host used for the checks: {0}', `\`${stripUrlCredentials(r.usedBase)}\``)}`);
  lines.push(`- ${t('Token: {0}', tokenText(r, '`'))}`);
  lines.push(`- ${r.proxy === 'none' ? t('Proxy: none') : t('Proxy: {0}', r.proxy)}`);
  lines.push(
    `- ${r.ok ? t('Result: **no check failed** — {0}', summaryLine(r)) : t('Result: **a check failed** — {0}', summaryLine(r))}`,
    '',
  );
  return lines;
}

/** A markdown report for a support ticket: only masked tokens, URLs without credentials. */
export function renderMarkdown(r: DiagnosisReport, o: RenderOptions = {}): string {
  const lines = markdownHead(r);
  lines.push(t('| | Check | HTTP | Time | Cause | Fix |'), '|---|---|---|---|---|---|');
  for (const c of r.checks) {
    lines.push(
      `| ${ICON[c.result]} | ${cell(c.title)} | ${c.httpStatus ?? '—'} | ${seconds(c.durationMs)} | ${cell(c.cause)} | ${cell(c.fix || '—')} |`,
    );
  }
  const withDetails = r.checks.filter((c) => c.details?.length || c.url || c.requestId);
  if (withDetails.length) {
    lines.push('', `### ${t('Details')}`, '');
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
  }
  return clean(lines.join('\n').trimEnd() + '\n', o);
}

export interface TableOptions extends RenderOptions {
  /** terminal width; default 100 */
  width?: number;
  /** show details for passing checks too */
  verbose?: boolean;
}

function tableHead(r: DiagnosisReport, titleW: number): string[] {
  const lines = [t('Model Relay diagnosis of {0}', stripUrlCredentials(r.baseUrl))];
  const meta = [t('token {0}', tokenText(r, '')), r.proxy === 'none' ? t('proxy none') : t('proxy {0}', r.proxy)];
  if (r.backups.length) meta.push(t('backups {0}', r.backups.map(stripUrlCredentials).join(', ')));
  if (r.usedBase && r.usedBase !== r.base) meta.push(t('checks ran against {0}', stripUrlCredentials(r.usedBase)));
  lines.push(meta.join(' · '), '');
  lines.push(`${padCells(t('RESULT'), 7)}${padCells(t('CHECK'), titleW + 2)}${'HTTP'.padEnd(6)}${t('TIME')}`);
  return lines;
}

/** A plain-text table for a terminal: one row per check, cause and fix indented under it. */
export function renderTable(r: DiagnosisReport, o: TableOptions = {}): string {
  const width = Math.max(60, Math.min(o.width ?? 100, 160));
  const titleW = Math.max(...r.checks.map((c) => cells(c.title)), 5);
  const indent = ' '.repeat(7);
  const textW = width - indent.length;
  const lines = tableHead(r, titleW);
  for (const c of r.checks) {
    lines.push(
      `${padCells(resultLabel(c.result), 7)}${padCells(c.title, titleW + 2)}${String(c.httpStatus ?? '-').padEnd(6)}${seconds(c.durationMs)}`,
    );
    const labelled = c.result === 'warn' || c.result === 'fail';
    const causeLines = wrap(labelled ? t('Cause: {0}', c.cause) : c.cause, textW);
    for (const l of causeLines) lines.push(indent + l);
    if (c.fix && labelled) {
      for (const l of wrap(t('Fix: {0}', c.fix), textW)) lines.push(indent + l);
    }
    if ((labelled || o.verbose) && c.details?.length) {
      for (const d of c.details) wrap(`· ${d}`, textW).forEach((l, i) => lines.push(indent + (i ? '  ' : '') + l));
    }
  }
  lines.push('', t('Summary: {0} ({1}).', summaryLine(r), seconds(r.durationMs)));
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

/** The object `relay-doctor diagnose --json` prints: `{"checks":[{"id","result","httpStatus","cause","fix",…}]}`. */
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
