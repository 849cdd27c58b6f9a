/**
 * The Usage view's page and words: a strict CSP (nonce script, no eval, no inline script), the bundled
 * dist/usage.js with its stylesheet, and every word translated here (the page only places them).
 */
import { t } from '../../gateway/l10n';
import type { UsageStrings } from '../../shared/usageProtocol';
import { escapeHtml, htmlPage, makeNonce, webviewCsp } from '../webviewHtml';

export function usageStrings(): UsageStrings {
  return {
    title: t('Model Relay: Usage'),
    estimate: t('estimate'),
    refresh: t('Refresh'),
    exportCsv: t('Export CSV'),
    today: t('Today'),
    last7Days: t('Last 7 days'),
    last30Days: t('Last 30 days'),
    perDay: t('Spend per day'),
    perModel: t('Spend per model'),
    chartAlt: t('Chart: the table of records below lists the same figures.'),
    filter: t('Filter by model or group'),
    filterLabel: t('Filter'),
    records: t('Records'),
    shown: t('{0} of {1} records shown'),
    colTime: t('Time'),
    colModel: t('Model'),
    colIn: t('Tokens in'),
    colOut: t('Tokens out'),
    colCost: t('Cost'),
    colLatency: t('Latency'),
    colFirst: t('First response'),
    colStream: t('Stream'),
    colGroup: t('Group'),
    colHere: t('Sent from here'),
    colReceipt: t('Receipt'),
    yes: t('yes'),
    no: t('no'),
    error: t('error'),
    noRecords: t('No records yet.'),
    nextRead: t('Next read possible at {0}.'),
    requests: t('{0} requests'),
    sortHint: t('Sort by this column'),
  };
}

export interface UsageHtmlInput {
  cspSource: string;
  /** asWebviewUri(dist/usage.js) */
  scriptUri: string;
  /** asWebviewUri(media/usage.css) */
  styleUri: string;
  strings: UsageStrings;
  lang?: string;
  nonce?: string;
}

export function usageCsp(cspSource: string, nonce: string): string {
  return webviewCsp({ nonce, style: cspSource });
}

/** The page: an empty root the script fills; the words travel in `data-strings`. */
export function usageHtml(i: UsageHtmlInput): string {
  const nonce = i.nonce ?? makeNonce();
  return htmlPage({
    title: i.strings.title,
    nonce,
    lang: i.lang,
    csp: usageCsp(i.cspSource, nonce),
    head: `<link rel="stylesheet" href="${escapeHtml(i.styleUri)}">\n`,
    body: `<main id="usage" data-testid="usage-root" data-strings="${escapeHtml(JSON.stringify(i.strings))}"></main>`,
    scriptUri: i.scriptUri,
  });
}
