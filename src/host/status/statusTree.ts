/**
 * The Status view as a tree when there are several gateways: one node per gateway (its name, the
 * active token masked, the balance where known), under it the endpoint and its backups, the three
 * surfaces, the tokens (masked; a click on another one switches to it), the balance (where known) and
 * the last request that gateway served. The active gateway is expanded, the others collapsed; the shared rows
 * (models, proxy, diagnose) follow. With one gateway (or none) the rows are today's flat ones
 * (statusRows). The last request per gateway is kept by LastRequests (records name their gateway).
 * Plain Node, no `vscode`: src/extension/status/statusView.ts turns the rows into tree items.
 */
import type { EndpointInfo, GatewayProfile, Quota, RequestRecord } from '../../gateway';
import { t } from '../../gateway/l10n';
import { CommandId } from '../commandIds';
import type { TokenSummary } from '../gateways/tokenStore';
import {
  balanceRow,
  groupRow,
  endpointRows,
  lastRequestRow,
  modelsRow,
  proxyWords,
  quotaWords,
  statusRows,
  toolsRow,
  vscodeChatRow,
  type LearntSurface,
  type StatusFacts,
  type StatusRow,
} from './statusRows';

/** What the view knows of one gateway at one moment. */
export interface GatewayFacts {
  profile: Pick<GatewayProfile, 'id' | 'name'>;
  endpoints: EndpointInfo;
  /** its tokens, masked (TokenStore.list) */
  tokens: readonly TokenSummary[];
  /** the last balance read for its active token (undefined: not read) */
  quota: Quota | undefined;
  /** its token's effective group, from its usage log (GatewayClient.usage.group; undefined: not known) */
  group?: string | undefined;
  /** the last request it served (LastRequests.of) */
  last: RequestRecord | undefined;
  /** the surfaces its refusals taught (GatewayClient.learntSurfaces) */
  learnt?: ReadonlyArray<LearntSurface> | undefined;
}

export interface StatusTreeFacts extends StatusFacts {
  gateways: readonly GatewayFacts[];
  /** the active gateway's id */
  activeId: string | undefined;
}

/** The context value of a gateway node (package.json's view/item/context menus match on it). */
export const GATEWAY_NODE = 'gateway';
export const ACTIVE_GATEWAY_NODE = 'gateway.active';

/** The same rows with ids made unique under `prefix` (each gateway has an "endpoint", a "balance" …). */
function within(prefix: string, row: StatusRow): StatusRow {
  return {
    ...row,
    id: `${prefix}/${row.id}`,
    ...(row.children ? { children: row.children.map((c) => within(prefix, c)) } : {}),
  };
}

function tokenRows(g: GatewayFacts, active: boolean): StatusRow {
  const children = g.tokens.map((x): StatusRow => ({
    id: `token-${x.name}`,
    label: x.name,
    description: x.active ? t('{0} · active', x.masked) : x.masked,
    icon: x.active ? 'check' : 'key',
    tooltip:
      x.active && active
        ? t('The token in use.')
        : t('Click to use this token with the gateway "{0}".', g.profile.name),
    command:
      x.active && active
        ? undefined
        : { command: CommandId.UseGatewayToken, title: t('Use This Token'), arguments: [g.profile.id, x.name] },
  }));
  return {
    id: 'tokens',
    label: t('Tokens'),
    description: children.length ? String(children.length) : t('none — click to add one'),
    icon: children.length ? 'key' : 'warning',
    ...(children.length ? { children } : { command: { command: CommandId.AddToken, title: t('Add Token') } }),
  };
}

/** The surface rows a gateway's "Surfaces" row holds. */
const SURFACE_ROWS = ['compatible', 'native', 'responses', 'learnt'];

/** The endpoint with its backups and findings, then the three surfaces (and what its refusals taught) under one row. */
function gatewayEndpointRows(g: GatewayFacts, active: boolean): StatusRow[] {
  const rows = endpointRows(g.endpoints, g.learnt);
  const surfaces = rows.filter((r) => SURFACE_ROWS.includes(r.id));
  const rest = rows
    .filter((r) => !surfaces.includes(r))
    // Configure Base URL edits the active gateway: another gateway's address is copied instead.
    .map((r) =>
      active || r.command?.command !== CommandId.ConfigureBaseUrl
        ? r
        : {
            ...r,
            command: g.endpoints.base
              ? { command: CommandId.CopyValue, title: t('Copy'), arguments: [g.endpoints.base] }
              : undefined,
          },
    );
  return surfaces.length
    ? [...rest, { id: 'surfaces', label: t('Surfaces'), icon: 'symbol-interface', children: surfaces, collapsed: true }]
    : rest;
}

function gatewayNode(g: GatewayFacts, f: StatusTreeFacts): StatusRow {
  const active = g.profile.id === f.activeId;
  const token = g.tokens.find((x) => x.active);
  const q = quotaWords({ masked: token?.masked, quota: g.quota, warnBelow: f.warnBelow, now: f.now });
  // The id names the state: after a switch the newly active node is a new item, shown expanded.
  const id = `gateway:${g.profile.id}${active ? ':active' : ''}`;
  const children = [
    ...gatewayEndpointRows(g, active),
    tokenRows(g, active),
    ...(token && g.group ? [groupRow(g.group)] : []),
    // Where known only: a gateway that does not tell (or was not read yet) has no balance row, as today.
    ...(q ? [balanceRow(q)] : []),
    lastRequestRow(g.last),
  ].map((r) => within(id, r));
  return {
    id,
    label: g.profile.name,
    description: !token
      ? t('no token')
      : q
        ? t('{0} {1} · {2}', token.name, token.masked, q.short)
        : t('{0} {1}', token.name, token.masked),
    icon: active ? 'check' : 'server',
    tooltip: active
      ? t('The active gateway: chat, images, videos and the tools use it.')
      : t('Right-click or use the inline action to switch to this gateway.'),
    contextValue: active ? ACTIVE_GATEWAY_NODE : GATEWAY_NODE,
    gatewayId: g.profile.id,
    collapsed: !active,
    children,
  };
}

/** The view's rows: today's flat rows with one gateway, else one node per gateway and the shared rows. */
export function statusTree(f: StatusTreeFacts): StatusRow[] {
  if (f.gateways.length <= 1) return statusRows(f);
  return [
    ...(f.chatNeedsEnabling ? [vscodeChatRow()] : []),
    ...f.gateways.map((g) => gatewayNode(g, f)),
    modelsRow(f.modelCount),
    toolsRow(f.tools, f.toolsAttention),
    { id: 'proxy', label: t('Proxy'), description: proxyWords(f.proxy), icon: 'cloud' },
    {
      id: 'diagnose',
      label: t('Diagnose'),
      description: t('why do I get 401/403/404/429/5xx? — click to run'),
      icon: 'pulse',
      command: { command: CommandId.Diagnose, title: t('Diagnose Connection') },
    },
    {
      id: 'diagnose-all',
      label: t('Diagnose All Gateways'),
      description: t('one summary row per gateway — click to run'),
      icon: 'checklist',
      command: { command: CommandId.DiagnoseAllGateways, title: t('Diagnose All Gateways') },
    },
  ];
}

/** How many gateways' last requests are kept (a removed gateway's entry is dropped first). */
export const MAX_LAST_REQUESTS = 32;

/**
 * The last request of each gateway, by the gateway's name (RequestRecord.gateway), as the records
 * arrive; balance reads are not requests a user made. Bounded: the oldest entry goes first.
 */
export class LastRequests {
  private readonly byGateway = new Map<string, RequestRecord>();

  note(r: RequestRecord | undefined): void {
    if (!r?.gateway || r.capability === 'account') return;
    this.byGateway.delete(r.gateway);
    this.byGateway.set(r.gateway, r);
    while (this.byGateway.size > MAX_LAST_REQUESTS) this.byGateway.delete(this.byGateway.keys().next().value!);
  }

  of(gatewayName: string): RequestRecord | undefined {
    return this.byGateway.get(gatewayName);
  }
}
