/**
 * The status bar item's words: "$(pass) Relay: production · $7.50" as one translated sentence —
 * with several gateways "$(pass) relay.example.com · production · $7.50" (gateway · token ·
 * balance; with one there is nothing to tell apart, and the short form keeps its width) — its
 * tooltip and its look (warning below modelRelay.quota.warnBelow, error when expired or used up or
 * the last request failed). The activation entry shows the same sentence before the rest loads.
 * Plain Node, no `vscode`.
 */
import { t } from '../../gateway/l10n';
import type { RequestRecord } from '../../gateway';
import { quotaWords, requestOutcome, type QuotaFacts } from './statusRows';

export interface StatusBarWords {
  /** with its codicon: "$(pass) Relay: production · $7.50" */
  text: string;
  /** the tooltip's paragraphs (markdown) */
  tooltip: string[];
  /** the item's background: a theme colour's name, or none */
  look: 'statusBarItem.errorBackground' | 'statusBarItem.warningBackground' | undefined;
}

type BarFacts = QuotaFacts & {
  tokenName: string | undefined;
  last: RequestRecord | undefined;
  base: string | undefined;
  /** the active gateway's name (undefined: none configured) */
  gateway?: string | undefined;
  /** whether there are several gateways (the text then starts with the gateway's name) */
  several?: boolean;
};

/** "Relay: production · $7.50", "Relay: production", "Relay: no token" (each translated whole). */
export function relayText(tokenName: string | undefined, short?: string): string {
  if (!tokenName) return t('Relay: no token');
  return short ? t('Relay: {0} · {1}', tokenName, short) : t('Relay: {0}', tokenName);
}

/** "relay.example.com · production · $7.50", "relay.example.com · production", "relay.example.com · no token". */
export function gatewayText(gateway: string, tokenName: string | undefined, short?: string): string {
  if (!tokenName) return t('{0} · no token', gateway);
  return short ? t('{0} · {1} · {2}', gateway, tokenName, short) : t('{0} · {1}', gateway, tokenName);
}

export function statusBarWords(f: BarFacts): StatusBarWords {
  const r = f.last;
  const failing = !!r && (!!r.errorKind || (r.status !== undefined && r.status >= 400)) && r.errorKind !== 'aborted';
  const icon = !f.base || !f.masked ? '$(warning)' : failing ? '$(error)' : '$(pass)';
  const q = quotaWords(f);
  const none = t('none');
  const last = r ? t('{0} → {1} ({2} ms)', r.model ?? r.path, requestOutcome(r), r.durationMs) : none;
  return {
    text: `${icon} ${f.several && f.gateway ? gatewayText(f.gateway, f.tokenName, q?.short) : relayText(f.tokenName, q?.short)}`,
    tooltip: [
      '**Model Relay**',
      ...(f.gateway ? [t('Gateway: {0}', f.gateway)] : []),
      t('Endpoint: {0}', f.base ?? t('not configured')),
      f.masked ? t('Token: {0} {1}', f.tokenName ?? none, f.masked) : t('Token: {0}', none),
      ...(q ? [q.lines.join('  \n')] : []),
      t('Last request: {0}', last),
      t('Click to switch the gateway or token, or for more actions.'),
    ],
    look:
      q?.level === 'error'
        ? 'statusBarItem.errorBackground'
        : q?.level === 'warning' || failing
          ? 'statusBarItem.warningBackground'
          : undefined,
  };
}
