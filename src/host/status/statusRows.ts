/**
 * The Status view's rows as plain data (label, value, icon, tooltip, command), one function per
 * concern: endpoint, token, balance, last request, models, proxy, diagnose. Every value a user reads
 * is in words (no raw surface, error kind or proxy source); the balance rows are the core's
 * structured QuotaWords, never translated lines split at a ':'. src/extension/status/statusView.ts
 * turns the rows into tree items. Plain Node, no `vscode`.
 */
import {
  surfaceName,
  type EndpointInfo,
  type ProxyChoice,
  type Quota,
  type RequestRecord,
  type Surface,
} from '../../gateway';
import { describeQuota, type QuotaWords } from '../../gateway/economy/describe';
import { t } from '../../gateway/l10n';
import { CommandId } from '../commandIds';
import { MANAGE_LANGUAGE_MODELS } from '../lm/chatSetup';

/** What the view shows, read from the service and the token store at one moment. */
export interface StatusFacts {
  endpoints: EndpointInfo;
  tokenName: string | undefined;
  /** the active token, masked (undefined: none stored) */
  masked: string | undefined;
  quota: Quota | undefined;
  /** the token's effective group, as the gateway's usage log tells it (GatewayClient.usage.group; undefined: not known) */
  group?: string | undefined;
  /** modelRelay.quota.warnBelow */
  warnBelow: number;
  now: number;
  last: RequestRecord | undefined;
  modelCount: number | undefined;
  proxy: ProxyChoice;
  /** VS Code's chat lists our models but is not set up yet (src/host/lm/chatSetup.ts) */
  chatNeedsEnabling?: boolean | undefined;
  /** the surfaces the active gateway's refusals taught (GatewayClient.learntSurfaces) */
  learnt?: ReadonlyArray<LearntSurface> | undefined;
  /** the terminal tools whose variables new terminals get (Set Up Tools…), by name (with their gateway) */
  tools?: readonly string[] | undefined;
  /** set-up tools that need attention (their token or gateway cannot be found): why and the fix, one sentence each */
  toolsAttention?: readonly string[] | undefined;
}

/** A model the gateway refused elsewhere, and the surface it answers on. */
export interface LearntSurface {
  model: string;
  surface: Surface;
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

const configure = (): StatusCommand => ({ command: CommandId.ConfigureBaseUrl, title: t('Configure Base URL') });
const copy = (value: string | undefined): StatusCommand | undefined =>
  value ? { command: CommandId.CopyValue, title: t('Copy'), arguments: [value] } : undefined;

function endpointRow(ep: EndpointInfo & { base: string }): StatusRow {
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
    command: configure(),
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

/** The endpoint, its three surfaces (and what the gateway's refusals taught), the backups and what the endpoint rules found in the base URL. */
export function endpointRows(ep: EndpointInfo, learnt: ReadonlyArray<LearntSurface> = []): StatusRow[] {
  const base = ep.base;
  if (!base)
    return [
      {
        id: 'endpoint',
        label: t('Endpoint'),
        description: t('not configured — click to set the base URL'),
        icon: 'warning',
        command: configure(),
      },
    ];
  const rows: StatusRow[] = [
    endpointRow({ ...ep, base }),
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
  if (ep.backups.length)
    rows.push({ id: 'backups', label: t('Backups'), description: ep.backups.join(', '), icon: 'server' });
  for (const [i, f] of ep.findings.filter((x) => x.severity !== 'info').entries())
    rows.push({
      id: `finding-${i}`,
      label: t('Base URL'),
      description: `${f.message} ${f.fix}`,
      icon: 'warning',
      tooltip: `${f.message}\n${f.fix}`,
      command: configure(),
    });
  return rows;
}

export function tokenRow(name: string | undefined, masked: string | undefined): StatusRow {
  return name && masked
    ? {
        id: 'token',
        label: t('Token'),
        description: `${name}  ${masked}`,
        icon: 'key',
        tooltip: t('Active token (masked). Click to switch.'),
        command: { command: CommandId.SwitchToken, title: t('Switch Token') },
      }
    : {
        id: 'token',
        label: t('Token'),
        description: t('none — click to add one'),
        icon: 'warning',
        command: { command: CommandId.AddToken, title: t('Add Token') },
      };
}

/** "Group  vip": the token's effective group, which only the gateway's usage log tells a token. */
export function groupRow(group: string): StatusRow {
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

/** The balance's words, when a token is stored and its balance is known. */
export function quotaWords(f: Pick<StatusFacts, 'masked' | 'quota' | 'warnBelow' | 'now'>): QuotaWords | undefined {
  return f.masked && f.quota ? describeQuota(f.quota, f.warnBelow, f.now) : undefined;
}

/**
 * "Balance  $7.50", and under it one row per figure: label and value, as the core words them. A click
 * opens the Usage view (where the money went).
 */
export function balanceRow(q: QuotaWords): StatusRow {
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

export function modelsRow(count: number | undefined): StatusRow {
  return {
    id: 'models',
    label: t('Models'),
    description: count === undefined ? t('not listed yet — click to list') : t('{0} visible to this token', count),
    icon: 'list-unordered',
    command: { command: CommandId.ListModels, title: t('List Models') },
  };
}

/** VS Code's chat is not set up yet: one click on Chat: Manage Language Models enables it with our models. */
export function vscodeChatRow(): StatusRow {
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

/**
 * The rows; none at all while neither a base URL nor a token is set, so the view's welcome
 * content (what Model Relay is, Configure Base URL / Add Token / Get Started) shows instead.
 */
export function statusRows(f: StatusFacts): StatusRow[] {
  if (!f.endpoints.base && !f.tokenName) return [];
  const q = quotaWords(f);
  return [
    // first: something to do once, above rows a balance's figures may push out of sight
    ...(f.chatNeedsEnabling ? [vscodeChatRow()] : []),
    ...endpointRows(f.endpoints, f.learnt),
    tokenRow(f.tokenName, f.masked),
    ...(f.masked && f.group ? [groupRow(f.group)] : []),
    ...(q ? [balanceRow(q)] : []),
    lastRequestRow(f.last),
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
  ];
}
