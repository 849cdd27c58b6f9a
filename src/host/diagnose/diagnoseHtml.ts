/**
 * The diagnosis panel's page body, style and script (the panel itself: src/extension/diagnose/diagnosePanel.ts),
 * for 1..N gateways (src/gateway/diagnose/diagnoseGateways.ts): with several, one summary row per gateway
 * (reachability, token, balance, models, generation — each a codicon, a status word and a few words,
 * the cause and fix of what warned or failed under them), the fallback findings, then each gateway's
 * full report one click away (a disclosure, opened by its row's "Full report" link). A report of one
 * gateway shows its checks directly. Only the active gateway's own diagnosis (Diagnose Connection)
 * carries fix buttons, the billed media run and Copy Support Report: they act on this window's gateway.
 * Plain Node (no `vscode`): every word through `t()`, so both languages are tested without VS Code.
 * Accessible and narrow-safe: tables with column headers, a codicon and a status word per check, long
 * words and URLs wrap, and under 640 px each row becomes a stacked block with its labels. Every text
 * is redacted with every gateway's token.
 */
import {
  aspectTitle,
  checkCounts,
  diagnosisSummary,
  redactSecrets,
  SUMMARY_ASPECTS,
  SUMMARY_RESULT,
  type CheckResult,
  type DiagnosisCheck,
  type DiagnosisReport,
  type FallbackFinding,
  type FixAction,
  type GatewaySummaryRow,
  type GatewaysDiagnosis,
  type SummaryAspect,
  type SummaryCell,
} from '../../gateway';
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

function icon(name: string): string {
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

/** One check as a table row; `fixButtons` false where the fixes would not act on this report's gateway. */
function checkRow(c: DiagnosisCheck, i: number, col: Columns, fixButtons: boolean): string {
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
function checksTable(r: DiagnosisReport, fixButtons: boolean): string {
  const col = columns();
  return `<table class="checks"><caption class="sr-only">${esc(t('Checks'))}</caption>
<colgroup><col class="c-status"><col class="c-check"><col class="c-http"><col class="c-cause"><col class="c-fix"></colgroup>
<thead><tr><th scope="col">${esc(col.status)}</th><th scope="col">${esc(col.check)}</th><th scope="col">${esc(col.http)}</th><th scope="col">${esc(col.cause)}</th><th scope="col">${esc(col.fix)}</th></tr></thead>
<tbody>${r.checks.map((c, i) => checkRow(c, i, col, fixButtons)).join('\n')}</tbody></table>`;
}

/** An id safe in an HTML id attribute (gateway ids are short, but come from the settings). */
const anchor = (id: string) => `gateway-${id.replace(/[^A-Za-z0-9_-]/g, '_')}`;

/** A summary cell: its codicon, status word and words; the cause and fix of a warning or failure under them. */
function cell(a: SummaryAspect, c: SummaryCell): string {
  const why =
    (c.status === 'warn' || c.status === 'fail') && c.cause
      ? `<div class="cause">${esc(c.cause)}</div>${c.fix ? `<div class="fix-text">${esc(t('Fix: {0}', c.fix))}</div>` : ''}`
      : '';
  const result = SUMMARY_RESULT[c.status];
  return `<td class="${result}" data-label="${esc(aspectTitle(a))}" data-testid="cell-${a}" data-status="${c.status}"><span class="status-icon">${icon(ICON[result])}</span> <span class="sr-only">${esc(statusWord(result))}</span> ${esc(c.text || statusWord(result))}${why}</td>`;
}

function summaryRow(r: GatewaySummaryRow): string {
  const target = anchor(r.gateway.id);
  return `<tr class="gateway" data-testid="gateway-row" data-gateway="${esc(r.gateway.id)}" data-ok="${r.ok}">
<th scope="row" data-label="${esc(t('Gateway'))}"><b>${esc(r.gateway.name)}</b><div><a href="#${target}" data-open="${target}" data-testid="open-report">${esc(t('Full report'))}</a></div></th>
${SUMMARY_ASPECTS.map((a) => cell(a, r[a])).join('\n')}</tr>`;
}

/** The overview: one row per gateway. */
function overviewTable(d: GatewaysDiagnosis): string {
  return `<table class="checks gateways"><caption class="sr-only">${esc(t('One row per gateway'))}</caption>
<thead><tr><th scope="col">${esc(t('Gateway'))}</th>${SUMMARY_ASPECTS.map((a) => `<th scope="col">${esc(aspectTitle(a))}</th>`).join('')}</tr></thead>
<tbody>${d.rows.map(summaryRow).join('\n')}</tbody></table>`;
}

function findingItem(f: FallbackFinding): string {
  const result = SUMMARY_RESULT[f.status];
  return `<li class="${result}" data-testid="fallback-finding" data-status="${f.status}"><span class="status-icon">${icon(ICON[result])}</span> <b>${esc(statusWord(result))}</b> ${esc(f.cause)}<div class="fix-text">${esc(t('Fix: {0}', f.fix))}</div></li>`;
}

/** A gateway's head: its base URL, token, proxy and balance (what went wrong with the balance under it). */
function gatewayHead(r: GatewaySummaryRow): string {
  const rep = r.report;
  const token = rep.maskedToken ? `<code>${esc(rep.maskedToken)}</code>` : esc(t('(none)'));
  const b = r.balance;
  const balance = b.status === 'skipped' ? '' : ` · ${esc(t('balance {0}', b.text))}`;
  const why =
    (b.status === 'warn' || b.status === 'fail') && b.cause
      ? `<div class="head-why">${esc(t('{0}: {1}', aspectTitle('balance'), b.cause))}${b.fix ? `<br>${esc(t('Fix: {0}', b.fix))}` : ''}</div>`
      : '';
  return `<p data-testid="gateway-head">${esc(t('Base URL'))} <code>${esc(rep.baseUrl || t('(not set)'))}</code> · ${esc(t('token'))} ${token}${rep.tokenName ? ` (${esc(rep.tokenName)})` : ''} · ${esc(t('proxy:'))} ${esc(rep.proxy)}${balance}</p>${why}`;
}

/** A gateway's full report: shown directly when it is the only one, else in a disclosure its row's link opens. */
function gatewayReport(r: GatewaySummaryRow, alone: boolean, fixButtons: boolean): string {
  const body = `${gatewayHead(r)}\n${checksTable(r.report, fixButtons)}`;
  const attrs = `data-testid="gateway-report" data-gateway="${esc(r.gateway.id)}"`;
  if (alone) return `<section ${attrs}>${body}</section>`;
  const summary = t('The full report of "{0}": {1}', r.gateway.name, checkCounts(r.report));
  return `<details id="${anchor(r.gateway.id)}" ${attrs}>\n<summary>${esc(summary)}</summary>\n${body}</details>`;
}

export interface DiagnosePageOptions {
  /** every gateway's token (redacted wherever it might appear) */
  secrets?: readonly (string | undefined)[] | undefined;
  /**
   * The report is the active gateway's own (Diagnose Connection): its fixes change this window's
   * settings, so its checks carry fix buttons, and the billed media run and the support report are offered.
   */
  activeGateway?: boolean | undefined;
}

function actions(activeGateway: boolean): string {
  const button = (id: string, cmd: string, codicon: string, label: string) =>
    `<button data-testid="${id}" data-cmd="${cmd}">${icon(codicon)}<span>${esc(label)}</span></button>`;
  return `<p class="actions">${[
    button('copy-report', 'copy', 'copy', t('Copy report')),
    button('rerun', 'rerun', 'refresh', t('Run again')),
    ...(activeGateway
      ? [
          button('rerun-media', 'rerunMedia', 'play', t('Run with image and video checks (billed)')),
          button('support-report', 'supportReport', 'report', t('Copy Support Report')),
        ]
      : []),
  ].join(' ')}</p>`;
}

/** The page body: the actions; with several gateways the overview and the fallback findings; the summary; each gateway's report. */
export function diagnoseBody(d: GatewaysDiagnosis, o: DiagnosePageOptions = {}): string {
  const alone = d.rows.length === 1;
  const fallbacks = d.fallbacks.length
    ? `<h3>${esc(t('Fallbacks'))}</h3><ul class="findings">${d.fallbacks.map(findingItem).join('\n')}</ul>`
    : '';
  const html = `<h2>${esc(alone ? t('Model Relay diagnosis') : t('Model Relay diagnosis of {0} gateways', d.rows.length))}</h2>
${actions(o.activeGateway === true)}
${alone ? '' : overviewTable(d)}
${fallbacks}
<p data-testid="diagnosis-summary"><b>${esc(diagnosisSummary(d))}</b></p>
${d.rows.map((r) => gatewayReport(r, alone, alone && o.activeGateway === true)).join('\n')}`;
  const secrets = o.secrets ?? [];
  return redactSecrets(html, [...secrets, ...secrets.map((s) => (s ? esc(s) : s))]);
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
table.checks td.http::before,table.checks td.cause::before,table.checks td.fix::before{content:attr(data-label);display:block;font-size:11px;font-weight:600;color:var(--vscode-descriptionForeground)}}
table.gateways td,table.gateways th{vertical-align:top}table.gateways td.fail{background:var(--vscode-inputValidation-errorBackground)}table.gateways td.warn{background:var(--vscode-inputValidation-warningBackground)}
table.gateways .cause,table.gateways .fix-text,ul.findings .fix-text{font-size:12px;color:var(--vscode-descriptionForeground);margin-top:2px}
td.pass .status-icon,li.pass .status-icon{color:var(--vscode-testing-iconPassed,var(--vscode-charts-green))}td.fail .status-icon,li.fail .status-icon{color:var(--vscode-testing-iconFailed,var(--vscode-errorForeground))}td.warn .status-icon,li.warn .status-icon{color:var(--vscode-editorWarning-foreground)}
@media (max-width:640px){table.gateways th[scope=row]{display:block;border-bottom:none;padding:6px 6px 0}table.gateways td::before{content:attr(data-label);display:block;font-size:11px;font-weight:600;color:var(--vscode-descriptionForeground)}}
ul.findings{list-style:none;padding-left:0}ul.findings li{margin:6px 0}details{margin:12px 0}summary{cursor:pointer;font-weight:600}a{color:var(--vscode-textLink-foreground)}
.head-why{font-size:12px;color:var(--vscode-descriptionForeground)}`;

/** A fix button posts its check's index, another button its command; a "Full report" link opens its gateway's disclosure and scrolls to it. */
export const DIAGNOSE_SCRIPT = `const vscode=acquireVsCodeApi();document.addEventListener('click',e=>{const a=e.target.closest('a[data-open]');if(a){e.preventDefault();const d=document.getElementById(a.dataset.open);if(d){d.open=true;d.scrollIntoView();}return;}const b=e.target.closest('button');if(!b)return;if(b.dataset.fix!==undefined)vscode.postMessage({type:'fix',index:Number(b.dataset.fix)});else vscode.postMessage({type:b.dataset.cmd});});`;
