/**
 * The Status view's rows as plain data (label, value, icon, tooltip, command): one tree for 1..N
 * gateways. Each gateway is a node (its name, the active token masked, the balance where known) with
 * its endpoint, backups and findings, its surfaces, its tokens (a click on another one switches to
 * it), the token's group, the balance and the last request that gateway served; the active gateway is
 * expanded, the others collapsed. A tree of one shows its gateway's rows directly, as VS Code's
 * Explorer shows a one-folder workspace without its folder's node. The shared rows (models, terminal
 * tools, proxy, diagnose) follow. Every value a user reads is in words (no raw surface, error kind or
 * proxy source); the balance rows are the core's structured QuotaWords, never translated lines split
 * at a ':'. src/extension/status/statusView.ts turns the rows into tree items. Plain Node, no `vscode`.
 */
import {
  surfaceName,
  type EndpointInfo,
  type GatewayProfile,
  type ProxyChoice,
  type Quota,
  type RequestRecord,
  type Surface,
} from '../../gateway';
import { describeQuota, type QuotaWords } from '../../gateway/economy/describe';
import { t } from '../../gateway/l10n';
import { CommandId } from '../commandIds';
import type { TokenSummary } from '../gateways/tokenStore';
import { MANAGE_LANGUAGE_MODELS } from '../lm/chatSetup';

/** A model the gateway refused elsewhere, and the surface it answers on. */
export interface LearntSurface {
  model: string;
  surface: Surface;
}

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

/** What the view shows, read from the service and the gateways' token stores at one moment. */
export interface StatusFacts {
  /** every gateway; while none is configured, the one a token may be stored for before the base URL is set */
  gateways: readonly GatewayFacts[];
  /** the active gateway's id */
  activeId: string | undefined;
  /** modelRelay.quota.warnBelow */
  warnBelow: number;
  now: number;
  modelCount: number | undefined;
  proxy: ProxyChoice;
  /** VS Code's chat lists our models but is not set up yet (src/host/lm/chatSetup.ts) */
  chatNeedsEnabling?: boolean | undefined;
  /** the terminal tools whose variables new terminals get (Set Up Tools…), by name (with their gateway) */
  tools?: readonly string[] | undefined;
  /** set-up tools that need attention (their token or gateway cannot be found): why and the fix, one sentence each */
  toolsAttention?: readonly string[] | undefined;
}

export interface StatusCommand {
  /** ours, or VS Code's Chat: Manage Language Models */
  command: CommandId | typeof MANAGE_LANGUAGE_MODELS;
  title: string;
  arguments?: unknown[];
}

export interface StatusRow {
  id: string;
  label: string;
  description?: string | undefined;
  /** a codicon name */
  icon?: string | undefined;
  tooltip?: string | undefined;
  command?: StatusCommand | undefined;
  /** rows shown under this one (expanded unless `collapsed`) */
  children?: StatusRow[];
  collapsed?: boolean | undefined;
  /** what the view's item menus match on (a gateway node) */
  contextValue?: string | undefined;
  /** the gateway a gateway node stands for (Switch to This Gateway) */
  gatewayId?: string | undefined;
}

/** The context value of a gateway node (package.json's view/item/context menus match on it). */
export const GATEWAY_NODE = 'gateway';
export const ACTIVE_GATEWAY_NODE = 'gateway.active';

const configure = (): StatusCommand => ({ command: CommandId.ConfigureBaseUrl, title: t('Configure Base URL') });
const copy = (value: string | undefined): StatusCommand | undefined =>
  value ? { command: CommandId.CopyValue, title: t('Copy'), arguments: [value] } : undefined;

function endpointRow(ep: EndpointInfo & { base: string }, edit: StatusCommand | undefined): StatusRow {
  const active = String(ep.activeBase);
  const lines = [
    t('Primary: {0}\nBackups: {1}\nServing now: {2}', ep.base, ep.backups.join(', ') || t('none'), active),
    ...(ep.verbatim ? [t('The base URL is used as typed ("Keep what I typed" in Configure Base URL).')] : []),
  ];
  return {
    id: 'endpoint',
    label: t('Endpoint'),
    description: ep.activeIsBackup
      ? t('{0} (backup {1} serving)', ep.base, active)
      : t('{0} (primary serving)', ep.base),
    icon: ep.activeIsBackup ? 'arrow-swap' : 'globe',
    tooltip: lines.join('\n'),
    command: edit,
  };
}

/** How many learnt models the row's description names (the tooltip names them all). */
const LEARNT_SHOWN = 3;

/** The models whose surface the gateway's refusals taught, when there are any. */
function learntRow(learnt: ReadonlyArray<LearntSurface>): StatusRow[] {
  if (!learnt.length) return [];
  const each = learnt.map((l) => t('{0} → {1}', l.model, surfaceName(l.surface)));
  return [
    {
      id: 'learnt',
      label: t('Learnt surfaces'),
      description:
        each.length > LEARNT_SHOWN
          ? t('{0} and {1} more', each.slice(0, LEARNT_SHOWN).join(', '), each.length - LEARNT_SHOWN)
          : each.join(', '),
      icon: 'lightbulb',
      tooltip: [
        t(
          'The gateway refused these models on the surface they were asked on and said they answer only there; their requests go there until the model list changes.',
        ),
        ...each,
      ].join('\n'),
    },
  ];
}

/** The three surfaces (each a click to copy its base URL), and what the gateway's refusals taught. */
export function surfaceRows(ep: EndpointInfo, learnt: ReadonlyArray<LearntSurface> = []): StatusRow[] {
  return [
    {
      id: 'compatible',
      label: t('Compatible surface'),
      description: ep.compatibleBase,
      icon: 'symbol-interface',
      tooltip: t("Base URL for chat-completions-compatible clients: the gateway's address with /v1. Click to copy."),
      command: copy(ep.compatibleBase),
    },
    {
      id: 'native',
      label: t('Native surface'),
      description: `${ep.nativeBase}  →  ${ep.nativeMessagesUrl}`,
      icon: 'symbol-method',
      tooltip: t(
        "Base URL for native messages clients: the gateway's address; they append /v1/messages. Click to copy.",
      ),
      command: copy(ep.nativeBase),
    },
    {
      id: 'responses',
      label: t('Responses surface'),
      description: `${ep.compatibleBase}  →  ${ep.responsesUrl}`,
      icon: 'symbol-event',
      tooltip: t(
        "Base URL for Responses API clients (such as the Codex CLI): the gateway's address with /v1; they append /responses. Click to copy.",
      ),
      command: copy(ep.compatibleBase),
    },
    ...learntRow(learnt),
  ];
}

/**
 * The endpoint, its backups and what the endpoint rules found in the base URL, then the surfaces under
 * one row (open on the active gateway). Configure Base URL edits the active gateway: another
 * gateway's address is copied instead.
 */
function endpointRows(g: GatewayFacts, active: boolean): StatusRow[] {
  const ep = g.endpoints;
  const base = ep.base;
  const edit = active ? configure() : copy(base);
  if (!base)
    return [
      {
        id: 'endpoint',
        label: t('Endpoint'),
        description: t('not configured — click to set the base URL'),
        icon: 'warning',
        command: edit,
      },
    ];
  const rows: StatusRow[] = [endpointRow({ ...ep, base }, edit)];
  if (ep.backups.length)
    rows.push({ id: 'backups', label: t('Backups'), description: ep.backups.join(', '), icon: 'server' });
  for (const [i, f] of ep.findings.filter((x) => x.severity !== 'info').entries())
    rows.push({
      id: `finding-${i}`,
      label: t('Base URL'),
      description: `${f.message} ${f.fix}`,
      icon: 'warning',
      tooltip: `${f.message}\n${f.fix}`,
      command: edit,
    });
  rows.push({
    id: 'surfaces',
    label: t('Surfaces'),
    icon: 'symbol-interface',
    children: surfaceRows(ep, g.learnt),
    collapsed: !active,
  });
  return rows;
}

/** "Tokens  2": each token masked; a click on one not in use makes it the gateway's token (and the gateway active). */
function tokenRows(g: GatewayFacts, active: boolean): StatusRow {
  const children = g.tokens.map((x): StatusRow => {
    const inUse = x.active && active;
    return {
      id: `token-${x.name}`,
      label: x.name,
      description: x.active ? t('{0} · active', x.masked) : x.masked,
      icon: x.active ? 'check' : 'key',
      tooltip: inUse
        ? t('The token in use.')
        : g.profile.name
          ? t('Click to use this token with the gateway "{0}".', g.profile.name)
          : t('Click to use this token.'),
      command: inUse
        ? undefined
        : { command: CommandId.UseGatewayToken, title: t('Use This Token'), arguments: [g.profile.id, x.name] },
    };
  });
  return {
    id: 'tokens',
    label: t('Tokens'),
    description: children.length ? String(children.length) : t('none — click to add one'),
    icon: children.length ? 'key' : 'warning',
    ...(children.length ? { children } : { command: { command: CommandId.AddToken, title: t('Add Token') } }),
  };
}

/** "Group  vip": the token's effective group, which only the gateway's usage log tells a token. */
function groupRow(group: string): StatusRow {
  return {
    id: 'group',
    label: t('Group'),
    description: group,
    icon: 'organization',
    tooltip: t(
      "The token's group, from the gateway's usage log (its newest record): the group decides which models the token can use and at what price.",
    ),
  };
}

/** What the balance's words are read from. */
export interface QuotaFacts {
  /** the active token, masked (undefined: none stored) */
  masked: string | undefined;
  quota: Quota | undefined;
  warnBelow: number;
  now: number;
}

/** The balance's words, when a token is stored and its balance is known. */
export function quotaWords(f: QuotaFacts): QuotaWords | undefined {
  return f.masked && f.quota ? describeQuota(f.quota, f.warnBelow, f.now) : undefined;
}

/**
 * "Balance  $7.50", and under it one row per figure: label and value, as the core words them. A click
 * opens the Usage view (where the money went).
 */
function balanceRow(q: QuotaWords): StatusRow {
  return {
    id: 'balance',
    label: t('Balance'),
    description: q.short,
    icon: q.level === 'error' ? 'error' : q.level === 'warning' ? 'warning' : 'credit-card',
    tooltip: q.lines.join('\n'),
    command: { command: CommandId.ShowUsage, title: t('Show Usage') },
    children: q.rows
      .filter((r) => r.id !== 'source')
      .map((r) => ({
        id: `balance-${r.id}`,
        label: r.label,
        description: r.value,
        tooltip: t('{0}: {1}', r.label, r.value),
      })),
  };
}

/** A request's outcome in words: its HTTP status, else what went wrong. */
export function requestOutcome(r: RequestRecord): string {
  if (r.status !== undefined) return String(r.status);
  switch (r.errorKind) {
    case 'network':
      return t('no connection');
    case 'timeout':
      return t('timed out');
    case 'aborted':
      return t('cancelled');
    case 'protocol':
      return t('unreadable answer');
    case 'stream_interrupted':
      return t('the stream broke off');
    default:
      return t('failed');
  }
}

/** "Compatible surface, gpt-4o → 200 in 812 ms (host)", per surface (a model list or balance read names none). */
function lastRequestWords(r: RequestRecord, what: string): string {
  const outcome = requestOutcome(r);
  switch (r.surface) {
    case 'native':
      return t('Native surface, {0} → {1} in {2} ms ({3})', what, outcome, r.durationMs, r.host);
    case 'responses':
      return t('Responses surface, {0} → {1} in {2} ms ({3})', what, outcome, r.durationMs, r.host);
    default:
      return t('Compatible surface, {0} → {1} in {2} ms ({3})', what, outcome, r.durationMs, r.host);
  }
}

export function lastRequestRow(r: RequestRecord | undefined): StatusRow {
  const what = r?.model ?? r?.path ?? '';
  return {
    id: 'last',
    label: t('Last request'),
    description: !r ? t('none yet') : lastRequestWords(r, what),
    icon: !r ? 'circle-outline' : r.status && r.status < 400 && !r.errorKind ? 'pass' : 'error',
    tooltip: r
      ? t('{0} {1}\nrequest id: {2}\ntoken: {3}', r.method, r.path, r.requestId ?? '-', r.maskedToken)
      : undefined,
    command: { command: CommandId.ShowLog, title: t('Show Request Log') },
  };
}

/** The same rows with ids made unique under `prefix` (each gateway has an "endpoint", a "balance" …). */
function within(prefix: string, row: StatusRow): StatusRow {
  return {
    ...row,
    id: `${prefix}/${row.id}`,
    ...(row.children ? { children: row.children.map((c) => within(prefix, c)) } : {}),
  };
}

/** A gateway's node: its name, its active token (masked) and balance; under it the gateway's own rows. */
function gatewayNode(g: GatewayFacts, f: StatusFacts): StatusRow & { children: StatusRow[] } {
  const active = g.profile.id === f.activeId;
  const token = g.tokens.find((x) => x.active);
  const q = quotaWords({ masked: token?.masked, quota: g.quota, warnBelow: f.warnBelow, now: f.now });
  // The id names the state: after a switch the newly active node is a new item, shown expanded.
  const id = `gateway:${g.profile.id}${active ? ':active' : ''}`;
  const children = [
    ...endpointRows(g, active),
    tokenRows(g, active),
    ...(token && g.group ? [groupRow(g.group)] : []),
    // Where known only: a gateway that does not tell (or was not read yet) has no balance row.
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

function modelsRow(count: number | undefined): StatusRow {
  return {
    id: 'models',
    label: t('Models'),
    description: count === undefined ? t('not listed yet — click to list') : t('{0} visible to this token', count),
    icon: 'list-unordered',
    command: { command: CommandId.ListModels, title: t('List Models') },
  };
}

/** VS Code's chat is not set up yet: one click on Chat: Manage Language Models enables it with our models. */
function vscodeChatRow(): StatusRow {
  return {
    id: 'vscode-chat',
    label: t("VS Code's chat"),
    description: t('asks for a Copilot sign-in — click to use gateway models'),
    icon: 'comment-discussion',
    tooltip: t(
      "VS Code's chat is not set up yet, so its first prompt asks for a GitHub Copilot sign-in. Chat: Manage Language Models enables it once; then it answers with your gateway's models, agent mode included.",
    ),
    command: { command: MANAGE_LANGUAGE_MODELS, title: t('Manage Language Models') },
  };
}

/** "Terminal tools  Claude Code, Codex CLI": what Set Up Tools… set up; a click opens it. */
export function toolsRow(tools: readonly string[] = [], attention: readonly string[] = []): StatusRow {
  const listed = tools.length ? tools.join(', ') : t('none set up — click to set up Claude Code, Codex and others');
  const help = t(
    'Claude Code, Codex CLI, Gemini CLI, opencode and GitHub Copilot CLI pointed at this gateway: Set Up Tools… shows each one’s state and the diff before any file is written.',
  );
  return {
    id: 'tools',
    label: t('Terminal tools'),
    description: attention.length ? t('{0} — {1} need attention', listed, attention.length) : listed,
    icon: attention.length ? 'warning' : 'terminal',
    tooltip: [...attention, help].join('\n'),
    command: { command: CommandId.SetUpTools, title: t('Set Up Tools…') },
  };
}

export function proxyWords(p: ProxyChoice): string {
  const shown = String(p.display);
  if (p.source === 'none') return t('none');
  if (p.source === 'setting')
    return p.strictSSL
      ? t('{0} (from the http.proxy setting)', shown)
      : t('{0} (from the http.proxy setting), certificates not checked', shown);
  return p.strictSSL
    ? t('{0} (from the environment)', shown)
    : t('{0} (from the environment), certificates not checked', shown);
}

/** The rows every tree ends with: models, terminal tools, proxy, Diagnose (and Diagnose All Gateways with several). */
function sharedRows(f: StatusFacts, several: boolean): StatusRow[] {
  return [
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
    ...(several
      ? [
          {
            id: 'diagnose-all',
            label: t('Diagnose All Gateways'),
            description: t('one summary row per gateway — click to run'),
            icon: 'checklist',
            command: { command: CommandId.DiagnoseAllGateways, title: t('Diagnose All Gateways') },
          },
        ]
      : []),
  ];
}

/**
 * The view's rows: one node per gateway (a tree of one shows its gateway's rows directly), then the
 * shared rows. None at all while no gateway has a base URL or a token, so the view's welcome content
 * (what Model Relay is, Configure Base URL / Add Token / Get Started) shows instead.
 */
export function statusRows(f: StatusFacts): StatusRow[] {
  if (f.gateways.every((g) => !g.endpoints.base && !g.tokens.length)) return [];
  const nodes = f.gateways.map((g) => gatewayNode(g, f));
  return [
    // first: something to do once, above rows a balance's figures may push out of sight
    ...(f.chatNeedsEnabling ? [vscodeChatRow()] : []),
    ...(nodes.length === 1 ? nodes[0].children : nodes),
    ...sharedRows(f, nodes.length > 1),
  ];
}
