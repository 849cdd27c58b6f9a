/**
 * Switch Gateway's quick pick, as rows: one group per gateway — the gateway with its active token
 * (masked) and balance where known, then its tokens, so one pick switches gateway and token — and
 * the actions after them. The status bar's click opens it. Plain Node: the extension turns the rows
 * into QuickPickItems.
 */
import type { GatewayProfile } from '../../gateway/gateways/profile';
import { t } from '../../gateway/l10n';
import type { TokenSummary } from './tokenStore';

export type GatewayAction = 'addGateway' | 'addToken' | 'renameGateway' | 'removeGateway' | 'copyLink' | 'more';

export type GatewayPickRow =
  | { kind: 'separator'; label: string }
  | { kind: 'gateway'; gatewayId: string; label: string; description: string; detail: string; active: boolean }
  | { kind: 'token'; gatewayId: string; tokenName: string; label: string; description: string; active: boolean }
  | { kind: 'action'; action: GatewayAction; label: string };

export interface GatewayPickFacts {
  gateways: readonly GatewayProfile[];
  activeId: string | undefined;
  /** each gateway's tokens (masked) */
  tokens: ReadonlyMap<string, readonly TokenSummary[]>;
  /** each gateway's balance in short words ("$7.50"), where known */
  balance: ReadonlyMap<string, string>;
}

function gatewayRow(g: GatewayProfile, f: GatewayPickFacts): GatewayPickRow {
  const tokens = f.tokens.get(g.id) ?? [];
  const token = tokens.find((x) => x.active);
  const balance = f.balance.get(g.id);
  const active = g.id === f.activeId;
  return {
    kind: 'gateway',
    gatewayId: g.id,
    label: `${active ? '$(check)' : '$(server)'} ${g.name}`,
    description: !token
      ? t('no token')
      : balance
        ? t('{0} {1} · {2}', token.name, token.masked, balance)
        : t('{0} {1}', token.name, token.masked),
    detail: g.baseUrl,
    active,
  };
}

export function gatewayPickRows(f: GatewayPickFacts): GatewayPickRow[] {
  const rows: GatewayPickRow[] = [];
  for (const g of f.gateways) {
    rows.push({ kind: 'separator', label: g.name }, gatewayRow(g, f));
    const tokens = f.tokens.get(g.id) ?? [];
    // one token is the gateway's row itself; several are listed, so one pick switches both
    if (tokens.length > 1)
      for (const x of tokens)
        rows.push({
          kind: 'token',
          gatewayId: g.id,
          tokenName: x.name,
          label: `$(key) ${x.name}`,
          description: x.active && g.id === f.activeId ? t('{0} · active', x.masked) : x.masked,
          active: x.active && g.id === f.activeId,
        });
  }
  rows.push(
    { kind: 'separator', label: t('Actions') },
    { kind: 'action', action: 'addGateway', label: `$(add) ${t('Add Gateway…')}` },
  );
  if (f.gateways.length > 0)
    rows.push(
      { kind: 'action', action: 'addToken', label: `$(key) ${t('Add Token…')}` },
      { kind: 'action', action: 'renameGateway', label: `$(edit) ${t('Rename Gateway…')}` },
      { kind: 'action', action: 'copyLink', label: `$(link) ${t('Copy Gateway Link')}` },
      { kind: 'action', action: 'removeGateway', label: `$(trash) ${t('Remove Gateway…')}` },
    );
  rows.push({ kind: 'action', action: 'more', label: `$(ellipsis) ${t('More Actions…')}` });
  return rows;
}
