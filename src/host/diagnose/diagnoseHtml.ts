/**
 * The diagnosis panel's page body, style and script (the panel itself: src/extension/diagnose/diagnosePanel.ts).
 * Plain Node (no `vscode`): every word through `t()`, so both languages are tested without VS Code.
 * Accessible and narrow-safe: a table with column headers, a codicon and a status word per check,
 * long words and URLs wrap, and under 640 px each check becomes a stacked block with its labels.
 */
import type { CheckResult, DiagnosisCheck, DiagnosisReport, FixAction } from '../../gateway';
import { t } from '../../gateway/l10n';
import { escapeHtml as esc } from '../webviewHtml';

/** The button label of a fix the extension can apply. */
export function fixLabel(kind: FixAction['kind']): string {
  switch (kind) {
    case 'set-base-url':
      return t('Use this base URL');
    case 'switch-token':
      return t('Switch token');
    case 'add-token':
      return t('Add token');
    case 'disable-stream':
      return t('Turn streaming off');
    case 'use-gateway-for-background-tasks':
      return t('Use a gateway model');
    default: {
      const _exhaustive: never = kind;
      return _exhaustive;
    }
  }
}

/** A check's result in words ("Passed", "Failed", "Warning", "Skipped"). */
export function statusWord(result: CheckResult): string {
  switch (result) {
    case 'pass':
      return t('Passed');
    case 'fail':
      return t('Failed');
    case 'warn':
      return t('Warning');
    case 'skipped':
      return t('Skipped');
  }
}

const ICON: Record<CheckResult, string> = { pass: 'pass', warn: 'warning', fail: 'error', skipped: 'debug-step-over' };

export function icon(name: string): string {
  return `<span class="codicon codicon-${name}" aria-hidden="true"></span>`;
}

interface Columns {
  status: string;
  check: string;
  http: string;
  cause: string;
  fix: string;
}

function columns(): Columns {
  return { status: t('Status'), check: t('Check'), http: t('HTTP status'), cause: t('Cause'), fix: t('Fix') };
}

/** One check as a table row; `fixButtons` false where the fixes apply to another gateway than the active one. */
function checkRow(c: DiagnosisCheck, i: number, col: Columns, fixButtons = true): string {
  const label = c.fixAction
    ? `${fixLabel(c.fixAction.kind)}${c.fixAction.kind === 'set-base-url' ? `: ${c.fixAction.value}` : ''}`
    : c.toolFix && t('Remove the override');
  const fixButton =
    fixButtons && label
      ? `<div><button data-testid="fix-${esc(c.id)}" data-fix="${i}">${icon('wrench')}<span>${esc(label)}</span></button></div>`
      : '';
  return `<tr class="${c.result}" data-testid="check-${esc(c.id)}" data-result="${c.result}">
<td class="status" data-label="${esc(col.status)}"><span class="status-icon">${icon(ICON[c.result])}</span> <span class="status-text" data-testid="status-text">${esc(statusWord(c.result))}</span></td>
<td class="check" data-label="${esc(col.check)}"><b>${esc(c.title)}</b>${c.url ? `<div class="url">${esc(c.url)}</div>` : ''}</td>
<td class="http" data-label="${esc(col.http)}">${c.httpStatus ?? '—'}</td>
<td class="cause" data-label="${esc(col.cause)}">${esc(c.cause)}${c.details?.length ? `<ul>${c.details.map((d) => `<li>${esc(d)}</li>`).join('')}</ul>` : ''}</td>
<td class="fix" data-label="${esc(col.fix)}"><div class="fix-text" data-testid="fix-text">${esc(c.fix || '—')}</div>${fixButton}</td></tr>`;
}

/** The checks' table (its caption, column headers and one row per check). */
export function checksTable(r: DiagnosisReport, fixButtons = true): string {
  const col = columns();
  return `<table class="checks"><caption class="sr-only">${esc(t('Checks'))}</caption>
<colgroup><col class="c-status"><col class="c-check"><col class="c-http"><col class="c-cause"><col class="c-fix"></colgroup>
<thead><tr><th scope="col">${esc(col.status)}</th><th scope="col">${esc(col.check)}</th><th scope="col">${esc(col.http)}</th><th scope="col">${esc(col.cause)}</th><th scope="col">${esc(col.fix)}</th></tr></thead>
<tbody>${r.checks.map((c, i) => checkRow(c, i, col, fixButtons)).join('\n')}</tbody></table>`;
}

/** The report: a summary line, the actions, and one table row per check. */
export function diagnoseBody(r: DiagnosisReport): string {
  const token = r.maskedToken ? `<code>${esc(r.maskedToken)}</code>` : esc(t('(none)'));
  const counts = t('{0} failed, {1} warnings, {2} passed', r.summary.fail, r.summary.warn, r.summary.pass);
  return `<h2>${esc(t('Model Relay diagnosis'))}</h2>
<p data-testid="diagnosis-summary">${esc(t('Base URL'))} <code>${esc(r.baseUrl || t('(not set)'))}</code> · ${esc(t('token'))} ${token}${r.tokenName ? ` (${esc(r.tokenName)})` : ''} · ${esc(t('proxy:'))} ${esc(r.proxy)} · <b>${esc(counts)}</b></p>
<p class="actions"><button data-testid="copy-report" data-cmd="copy">${icon('copy')}<span>${esc(t('Copy report'))}</span></button> <button data-testid="rerun" data-cmd="rerun">${icon('refresh')}<span>${esc(t('Run again'))}</span></button> <button data-testid="rerun-media" data-cmd="rerunMedia">${icon('play')}<span>${esc(t('Run with image and video checks (billed)'))}</span></button> <button data-testid="support-report" data-cmd="supportReport">${icon('report')}<span>${esc(t('Copy Support Report'))}</span></button></p>
${checksTable(r)}`;
}

export const DIAGNOSE_CSS = `body{font-family:var(--vscode-font-family);color:var(--vscode-foreground);background:var(--vscode-editor-background);padding:12px;overflow-wrap:break-word}
code{font-family:var(--vscode-editor-font-family)}
table{border-collapse:collapse;width:100%;table-layout:fixed}th{text-align:left;font-weight:600;border-bottom:1px solid var(--vscode-panel-border);padding:6px;vertical-align:bottom}
col.c-status{width:7.5em}col.c-check{width:20%}col.c-http{width:5em}col.c-fix{width:30%}
td{border-bottom:1px solid var(--vscode-panel-border);padding:6px;vertical-align:top}
tr.fail td{background:var(--vscode-inputValidation-errorBackground)}tr.warn td{background:var(--vscode-inputValidation-warningBackground)}
td.status{white-space:nowrap}.status-icon{display:inline-block;vertical-align:text-bottom}
tr.pass .status-icon{color:var(--vscode-testing-iconPassed,var(--vscode-charts-green))}tr.fail .status-icon{color:var(--vscode-testing-iconFailed,var(--vscode-errorForeground))}
tr.warn .status-icon{color:var(--vscode-editorWarning-foreground)}tr.skipped .status-icon{color:var(--vscode-descriptionForeground)}
.url{font-family:var(--vscode-editor-font-family);font-size:11px;color:var(--vscode-descriptionForeground);word-break:break-all}
ul{padding-left:18px;margin:4px 0}
button{display:inline-flex;align-items:center;gap:4px;max-width:100%;min-width:0;text-align:left;white-space:normal;overflow-wrap:anywhere;font:inherit;background:var(--vscode-button-background);color:var(--vscode-button-foreground);border:none;padding:3px 10px;margin-top:4px;cursor:pointer}
button span{min-width:0}button:hover{background:var(--vscode-button-hoverBackground)}button:focus-visible{outline:1px solid var(--vscode-focusBorder);outline-offset:1px}
.sr-only{position:absolute;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap;border:0}
@media (max-width:640px){body{overflow-wrap:anywhere}table.checks,table.checks tbody,table.checks tr,table.checks td{display:block;width:auto}
table.checks thead{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}
table.checks tr{border-bottom:1px solid var(--vscode-panel-border);padding:4px 0}table.checks td{border-bottom:none;padding:3px 6px}
tr.fail{background:var(--vscode-inputValidation-errorBackground)}tr.warn{background:var(--vscode-inputValidation-warningBackground)}
table.checks td.http::before,table.checks td.cause::before,table.checks td.fix::before{content:attr(data-label);display:block;font-size:11px;font-weight:600;color:var(--vscode-descriptionForeground)}}`;

export const DIAGNOSE_SCRIPT = `const vscode=acquireVsCodeApi();document.addEventListener('click',e=>{const b=e.target.closest('button');if(!b)return;if(b.dataset.fix!==undefined)vscode.postMessage({type:'fix',index:Number(b.dataset.fix)});else vscode.postMessage({type:b.dataset.cmd});});`;
