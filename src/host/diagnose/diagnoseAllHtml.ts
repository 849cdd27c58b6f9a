/**
 * Diagnose All Gateways in the diagnosis panel: one summary row per gateway (reachability, token,
 * balance, models, generation — each a codicon, a status word and a few words, the cause and fix of
 * what warned or failed under them), each gateway's full report one click away (a disclosure under
 * the table, opened by the row's "Full report" link), then the fallback findings. The fix buttons of
 * the one-gateway view are left out: they change the active gateway's settings, not this one's.
 * Every text is redacted with every gateway's token. Plain Node (no `vscode`).
 */
import {
  aspectTitle,
  redactSecrets,
  SUMMARY_ASPECTS,
  SUMMARY_RESULT as RESULT,
  type FallbackFinding,
  type GatewaySummaryRow,
  type GatewaysDiagnosis,
  type SummaryAspect,
  type SummaryCell,
  type SummaryStatus,
} from '../../gateway';
import { t } from '../../gateway/l10n';
import { escapeHtml as esc } from '../webviewHtml';
import { checksTable, icon, statusWord } from './diagnoseHtml';

const ICON: Record<SummaryStatus, string> = { ok: 'pass', warn: 'warning', fail: 'error', skipped: 'debug-step-over' };

/** An id safe in an HTML id attribute (gateway ids are short, but come from the settings). */
const anchor = (id: string) => `gateway-${id.replace(/[^A-Za-z0-9_-]/g, '_')}`;

function cell(a: SummaryAspect, c: SummaryCell): string {
  const why =
    (c.status === 'warn' || c.status === 'fail') && c.cause
      ? `<div class="cause">${esc(c.cause)}</div>${c.fix ? `<div class="fix-text">${esc(t('Fix: {0}', c.fix))}</div>` : ''}`
      : '';
  return `<td class="${c.status === 'ok' ? 'pass' : c.status}" data-label="${esc(aspectTitle(a))}" data-testid="cell-${a}" data-status="${c.status}"><span class="status-icon">${icon(ICON[c.status])}</span> <span class="sr-only">${esc(statusWord(RESULT[c.status]))}</span> ${esc(c.text || statusWord(RESULT[c.status]))}${why}</td>`;
}

function summaryRow(r: GatewaySummaryRow): string {
  const target = anchor(r.gateway.id);
  return `<tr class="gateway" data-testid="gateway-row" data-gateway="${esc(r.gateway.id)}" data-ok="${r.ok}">
<th scope="row" data-label="${esc(t('Gateway'))}"><b>${esc(r.gateway.name)}</b><div><a href="#${target}" data-open="${target}" data-testid="open-report">${esc(t('Full report'))}</a></div></th>
${SUMMARY_ASPECTS.map((a) => cell(a, r[a])).join('\n')}</tr>`;
}

function reportBlock(r: GatewaySummaryRow): string {
  const rep = r.report;
  const counts = t('{0} failed, {1} warnings, {2} passed', rep.summary.fail, rep.summary.warn, rep.summary.pass);
  return `<details id="${anchor(r.gateway.id)}" data-testid="gateway-report" data-gateway="${esc(r.gateway.id)}">
<summary>${esc(t('The full report of "{0}": {1}', r.gateway.name, counts))}</summary>
<p>${esc(t('Base URL'))} <code>${esc(rep.baseUrl || t('(not set)'))}</code> · ${esc(t('token'))} ${rep.maskedToken ? `<code>${esc(rep.maskedToken)}</code>` : esc(t('(none)'))}${rep.tokenName ? ` (${esc(rep.tokenName)})` : ''}</p>
${checksTable(rep, false)}</details>`;
}

function findingItem(f: FallbackFinding): string {
  return `<li class="${f.status}" data-testid="fallback-finding" data-status="${f.status}"><span class="status-icon">${icon(ICON[f.status])}</span> <b>${esc(statusWord(RESULT[f.status]))}</b> ${esc(f.cause)}<div class="fix-text">${esc(t('Fix: {0}', f.fix))}</div></li>`;
}

/** The page body of Diagnose All Gateways; `secrets`: every gateway's token (redacted wherever it might appear). */
export function diagnoseAllBody(d: GatewaysDiagnosis, secrets: readonly (string | undefined)[] = []): string {
  const passed = d.rows.filter((r) => r.ok).length;
  const summary = d.ok
    ? t('Summary: no check failed on {0} of {1} gateways.', passed, d.rows.length)
    : t('Summary: {0} of {1} gateways without a failed check; see the failures above.', passed, d.rows.length);
  const fallbacks = d.fallbacks.length
    ? `<h3>${esc(t('Fallbacks'))}</h3><ul class="findings">${d.fallbacks.map(findingItem).join('\n')}</ul>`
    : '';
  const html = `<h2>${esc(d.rows.length === 1 ? t('Model Relay diagnosis of 1 gateway') : t('Model Relay diagnosis of {0} gateways', d.rows.length))}</h2>
<p class="actions"><button data-testid="copy-report" data-cmd="copy">${icon('copy')}<span>${esc(t('Copy report'))}</span></button> <button data-testid="rerun" data-cmd="rerun">${icon('refresh')}<span>${esc(t('Run again'))}</span></button></p>
<table class="checks gateways"><caption class="sr-only">${esc(t('One row per gateway'))}</caption>
<thead><tr><th scope="col">${esc(t('Gateway'))}</th>${SUMMARY_ASPECTS.map((a) => `<th scope="col">${esc(aspectTitle(a))}</th>`).join('')}</tr></thead>
<tbody>${d.rows.map(summaryRow).join('\n')}</tbody></table>
${fallbacks}
<p data-testid="diagnosis-summary"><b>${esc(summary)}</b></p>
${d.rows.map(reportBlock).join('\n')}`;
  return redactSecrets(html, [...secrets, ...secrets.map((s) => (s ? esc(s) : s))]);
}

/** The summary table's own style (after DIAGNOSE_CSS). */
export const DIAGNOSE_ALL_CSS = `table.gateways td,table.gateways th{vertical-align:top}table.gateways td.fail{background:var(--vscode-inputValidation-errorBackground)}table.gateways td.warn{background:var(--vscode-inputValidation-warningBackground)}
table.gateways .cause,table.gateways .fix-text,ul.findings .fix-text{font-size:12px;color:var(--vscode-descriptionForeground);margin-top:2px}
td.pass .status-icon,li.pass .status-icon{color:var(--vscode-testing-iconPassed,var(--vscode-charts-green))}td.fail .status-icon,li.fail .status-icon{color:var(--vscode-testing-iconFailed,var(--vscode-errorForeground))}td.warn .status-icon,li.warn .status-icon{color:var(--vscode-editorWarning-foreground)}
@media (max-width:640px){table.gateways th[scope=row]{display:block;border-bottom:none;padding:6px 6px 0}table.gateways td::before{content:attr(data-label);display:block;font-size:11px;font-weight:600;color:var(--vscode-descriptionForeground)}}
ul.findings{list-style:none;padding-left:0}ul.findings li{margin:6px 0}details{margin:12px 0}summary{cursor:pointer;font-weight:600}a{color:var(--vscode-textLink-foreground)}`;

/** The one-gateway script, plus: a "Full report" link opens its gateway's disclosure and scrolls to it. */
export const DIAGNOSE_ALL_SCRIPT = `const vscode=acquireVsCodeApi();document.addEventListener('click',e=>{const a=e.target.closest('a[data-open]');if(a){e.preventDefault();const d=document.getElementById(a.dataset.open);if(d){d.open=true;d.scrollIntoView();}return;}const b=e.target.closest('button');if(!b)return;vscode.postMessage({type:b.dataset.cmd});});`;
