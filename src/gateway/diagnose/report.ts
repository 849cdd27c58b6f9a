/**
 * Renderings of a diagnosis report: markdown for a support ticket, a plain-text table for a
 * terminal, and the JSON object `relay-doctor diagnose --json` prints. All three hold only masked
 * tokens: every text passes through the secret redaction, whatever a check wrote.
 */
import { redactSecrets, stripUrlCredentials } from '../mask';
import type { CheckResult, DiagnosisCheck, DiagnosisReport } from './types';

export interface RenderOptions {
  /** values to mask wherever they appear (e.g. the full token), on top of the sk-… pattern */
  secrets?: ReadonlyArray<string | undefined>;
}

const ICON: Record<CheckResult, string> = { pass: '✅', warn: '⚠️', fail: '❌', skipped: '⏭️' };
const LABEL: Record<CheckResult, string> = { pass: 'PASS', warn: 'WARN', fail: 'FAIL', skipped: 'SKIP' };


function clean(s: string, o: RenderOptions): string {
  return redactSecrets(s, o.secrets ?? []);
}

function summaryLine(r: DiagnosisReport): string {
  const s = r.summary;
  return `${s.fail} failed, ${s.warn} warning${s.warn === 1 ? '' : 's'}, ${s.pass} passed, ${s.skipped} skipped`;
}

function seconds(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}

function cell(s: string): string {
  return s.replace(/\|/g, '\\|').replace(/\r?\n/g, '<br>');
}

/** A markdown report for a support ticket: only masked tokens, URLs without credentials. */
export function renderMarkdown(r: DiagnosisReport, o: RenderOptions = {}): string {
  const lines: string[] = [];
  lines.push('## Model Relay diagnosis', '');
  lines.push(`- When: ${r.startedAt} (took ${seconds(r.durationMs)})`);
  lines.push(`- Base URL as configured: \`${stripUrlCredentials(r.baseUrl)}\``);
  if (r.base) lines.push(`- Root address: \`${stripUrlCredentials(r.base)}\``);
  if (r.backups.length) lines.push(`- Backup domains: ${r.backups.map((b) => `\`${stripUrlCredentials(b)}\``).join(', ')}`);
  if (r.usedBase && r.usedBase !== r.base) lines.push(`- Host used for the checks: \`${stripUrlCredentials(r.usedBase)}\``);
  lines.push(`- Token: ${r.maskedToken ? `\`${r.maskedToken}\`` : '(none)'}${r.tokenName ? ` (${r.tokenName})` : ''}`);
  lines.push(`- Proxy: ${r.proxy}`);
  lines.push(`- Result: **${r.ok ? 'no check failed' : 'a check failed'}** — ${summaryLine(r)}`, '');
  lines.push('| | Check | HTTP | Time | Cause | Fix |', '|---|---|---|---|---|---|');
  for (const c of r.checks) {
    lines.push(`| ${ICON[c.result]} | ${cell(c.title)} | ${c.httpStatus ?? '—'} | ${seconds(c.durationMs)} | ${cell(c.cause)} | ${cell(c.fix || '—')} |`);
  }
  const withDetails = r.checks.filter((c) => c.details?.length || c.url || c.requestId);
  if (withDetails.length) {
    lines.push('', '### Details', '');
    for (const c of withDetails) {
      lines.push(`**${c.title}** (${c.result}${c.maskedToken ? `, token \`${c.maskedToken}\`` : ''})`, '');
      if (c.url) lines.push(`- URL: \`${stripUrlCredentials(c.url)}\``);
      if (c.requestId) lines.push(`- Request id: \`${c.requestId}\``);
      if (c.retryAfterMs !== undefined) lines.push(`- Retry-After: ${Math.ceil(c.retryAfterMs / 1000)} s`);
      for (const d of c.details ?? []) lines.push(`- ${d}`);
      lines.push('');
    }
  }
  return clean(lines.join('\n').trimEnd() + '\n', o);
}

function wrap(text: string, width: number): string[] {
  const out: string[] = [];
  for (const para of text.split(/\r?\n/)) {
    let line = '';
    for (const word of para.split(/\s+/).filter(Boolean)) {
      if (!line) line = word;
      else if (line.length + 1 + word.length <= width) line += ` ${word}`;
      else {
        out.push(line);
        line = word;
      }
    }
    out.push(line);
  }
  return out;
}

export interface TableOptions extends RenderOptions {
  /** terminal width; default 100 */
  width?: number;
  /** show details for passing checks too */
  verbose?: boolean;
}

/** A plain-text table for a terminal: one row per check, cause and fix indented under it. */
export function renderTable(r: DiagnosisReport, o: TableOptions = {}): string {
  const width = Math.max(60, Math.min(o.width ?? 100, 160));
  const titleW = Math.max(...r.checks.map((c) => c.title.length), 5);
  const indent = ' '.repeat(7);
  const textW = width - indent.length;
  const lines: string[] = [];
  lines.push(`Model Relay diagnosis of ${stripUrlCredentials(r.baseUrl)}`);
  const meta = [`token ${r.maskedToken ?? '(none)'}${r.tokenName ? ` (${r.tokenName})` : ''}`, `proxy ${r.proxy}`];
  if (r.backups.length) meta.push(`backups ${r.backups.map(stripUrlCredentials).join(', ')}`);
  if (r.usedBase && r.usedBase !== r.base) meta.push(`checks ran against ${stripUrlCredentials(r.usedBase)}`);
  lines.push(meta.join(' · '), '');
  lines.push(`${'RESULT'.padEnd(7)}${'CHECK'.padEnd(titleW + 2)}${'HTTP'.padEnd(6)}TIME`);
  for (const c of r.checks) {
    lines.push(`${LABEL[c.result].padEnd(7)}${c.title.padEnd(titleW + 2)}${String(c.httpStatus ?? '-').padEnd(6)}${seconds(c.durationMs)}`);
    const labelled = c.result === 'warn' || c.result === 'fail';
    const causeLines = wrap(labelled ? `Cause: ${c.cause}` : c.cause, textW);
    for (const l of causeLines) lines.push(indent + l);
    if (c.fix && labelled) {
      for (const l of wrap(`Fix: ${c.fix}`, textW)) lines.push(indent + l);
    }
    if ((labelled || o.verbose) && c.details?.length) {
      for (const d of c.details) wrap(`· ${d}`, textW).forEach((l, i) => lines.push(indent + (i ? '  ' : '') + l));
    }
  }
  lines.push('', `Summary: ${summaryLine(r)} (${seconds(r.durationMs)}).`);
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
export function reportToJson(r: DiagnosisReport, o: RenderOptions = {}): { ok: boolean; summary: DiagnosisReport['summary']; baseUrl: string; base: string | null; usedBase: string | null; maskedToken: string | null; checks: JsonCheck[] } {
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
