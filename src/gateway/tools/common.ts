/**
 * What every tool's resolver and planner shares: comparing addresses and tokens with the gateway's,
 * the id of the provider entry Model Relay adds, and the shape of one tool's module.
 */
import { maskToken } from '../mask';
import { t } from '../l10n';
import { projectPath, type FilePlaces } from './toolFile';
import type {
  ResolvedToolConfig,
  ToolAim,
  ToolGatewayRef,
  ToolChoices,
  ToolGateway,
  ToolId,
  ToolPlan,
  ToolsEnvironment,
  ToolSource,
} from './types';

/**
 * The key of the provider entry Model Relay added to Codex's and opencode's configuration before
 * entries were per gateway: still recognised as Model Relay's (Remove Setup takes it back).
 */
export const PROVIDER_ID = 'model-relay';

/** A gateway's own names in the tools: `model-relay-<id>` and `MODEL_RELAY_<ID>_KEY`. */
export function toolIdentity(gatewayId: string): { providerId: string; tokenVariable: string } {
  const id =
    gatewayId
      .toLowerCase()
      .replace(/[^a-z0-9_-]+/g, '-')
      .replace(/^-+|-+$/g, '') || 'default';
  return {
    providerId: `${PROVIDER_ID}-${id}`,
    tokenVariable: `MODEL_RELAY_${id.toUpperCase().replace(/[^A-Z0-9]+/g, '_')}_KEY`,
  };
}

/** Whether `id` is a provider entry Model Relay added (per gateway, or the older shared one). */
export function isOurProviderId(id: string): boolean {
  return id === PROVIDER_ID || id.startsWith(`${PROVIDER_ID}-`);
}

/** An address without trailing slashes, scheme and host lower-cased (paths keep their case). */
export function canonicalUrl(url: string): string {
  const s = url.trim().replace(/\/+$/, '');
  try {
    const u = new URL(s);
    return `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, '')}${u.search}`.toLowerCase();
  } catch {
    return s.toLowerCase();
  }
}

export function sameUrl(a: string | undefined, b: string | undefined): boolean {
  return a !== undefined && b !== undefined && canonicalUrl(a) === canonicalUrl(b);
}

/** The gateway's root address (what Claude Code and Gemini CLI take). */
export function gatewayRoot(gateway: ToolGateway): string {
  return gateway.baseUrl.trim().replace(/\/+$/, '');
}

/** The gateway's OpenAI-style base (what Codex and opencode take). */
export function gatewayV1(gateway: ToolGateway): string {
  return `${gatewayRoot(gateway)}/v1`;
}

/** The roots a gateway may be called at: its base URL, then its backups. */
function rootsOf(g: ToolGatewayRef): string[] {
  return [g.baseUrl, ...(g.backupUrls ?? [])].map((u) => u.trim().replace(/\/+$/, '')).filter(Boolean);
}

/**
 * Where an address a tool resolved points: one of this gateway's roots with the path the tool
 * needs (`suffix`: '' for Claude Code and Gemini CLI, '/v1' for the OpenAI-style tools), another
 * configured gateway's (named), or elsewhere. An address at the right origin with the wrong path is
 * "this" too only when `loose` (the tool's mistake is then said as a conflict, e.g. /v1 twice).
 */
export function aimOf(
  url: string | undefined,
  gateway: ToolGateway | undefined,
  suffix: '' | '/v1',
  loose = false,
): ToolAim {
  if (!url || !gateway) return { at: 'elsewhere' };
  const hits = (g: ToolGatewayRef) =>
    rootsOf(g).some((root) => sameUrl(url, `${root}${suffix}`) || (loose && sameOrigin(url, root)));
  if (hits(gateway)) return { at: 'this' };
  const other = gateway.others?.find(hits);
  return other ? { at: 'other', gateway: other.name, gatewayId: other.id } : { at: 'elsewhere' };
}

function sameOrigin(a: string, b: string): boolean {
  try {
    return new URL(a).origin === new URL(b).origin;
  } catch {
    return false;
  }
}

/** The other gateway whose token `value` is (compared masked), if any: a tool must not send it here. */
export function otherGatewayToken(value: string | undefined, gateway: ToolGateway | undefined): string | undefined {
  if (!value || !gateway) return undefined;
  const m = maskToken(value);
  if (m === gateway.maskedToken) return undefined;
  return gateway.others?.find((o) => o.maskedTokens?.includes(m))?.name;
}

/** The gateway's name when `value` is its token (compared masked: the core never holds the token). */
export function tokenMatch(value: string | undefined, gateway: ToolGateway | undefined): string | undefined {
  if (!value || !gateway) return undefined;
  return maskToken(value) === gateway.maskedToken ? gateway.name : undefined;
}

export function hasSurface(gateway: ToolGateway, surface: ToolGateway['models'][number]['surfaces'][number]): boolean {
  return gateway.models.some((m) => m.surfaces.includes(surface));
}

export function modelsOn(gateway: ToolGateway, surface: ToolGateway['models'][number]['surfaces'][number]): string[] {
  return gateway.models.filter((m) => m.surfaces.includes(surface)).map((m) => m.id);
}

/** Whether an environment variable name is one a shell can hold. */
export function validVariable(name: string): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name);
}

export function emptyResolved(): ResolvedToolConfig {
  return { overrides: [], conflicts: [], problems: [] };
}

/** A value's source in a file: a project file carries its path from the workspace folder (toolFile.ts). */
export function fileSource(places: FilePlaces, where: string, key?: string): ToolSource {
  const project = projectPath(places, where);
  return { kind: 'file', where, ...(key !== undefined ? { key } : {}), ...(project ? { projectPath: project } : {}) };
}

export const TERMINAL = (): { kind: 'terminal'; where: string } => ({
  kind: 'terminal',
  where: t('terminal environment'),
});

/** The credential a tool resolved, masked, with whose token it is (this gateway's, another's). */
export function authOf(
  header: NonNullable<ResolvedToolConfig['auth']>['header'],
  value: string,
  from: ToolSource,
  gateway: ToolGateway | undefined,
): NonNullable<ResolvedToolConfig['auth']> {
  const matches = tokenMatch(value, gateway);
  const foreign = otherGatewayToken(value, gateway);
  return {
    header,
    masked: maskToken(value),
    from,
    ...(matches ? { matches } : {}),
    ...(foreign ? { foreign } : {}),
  };
}

/** A tool's setting names for its address, its credential and its model. */
export interface ToolKeys {
  base: string;
  cred: string;
  model: string;
}

/** The state of one tool, before `installed` is filled in. */
export interface ToolReading {
  state: 'not-set-up' | 'set-up' | 'overridden' | 'unavailable';
  why?: string;
  resolved: ResolvedToolConfig;
  removable: boolean;
  aim?: ToolAim;
}

type Surface = ToolGateway['models'][number]['surfaces'][number];

/**
 * Why a tool cannot be set up on `surface` (or on any of several), or undefined when it can: the
 * gateway serves no model there for this token — or, when the models could not be listed, that
 * failure (never "serves no model").
 */
export function surfaceMissing(
  gateway: ToolGateway,
  surface: Surface | readonly Surface[],
  none: () => string,
): string | undefined {
  const served = (typeof surface === 'string' ? [surface] : surface).some((s) => hasSurface(gateway, s));
  if (gateway.modelsError)
    return served
      ? undefined
      : t('The models could not be listed, so this cannot be set up now: {0}', gateway.modelsError);
  return served ? undefined : none();
}

export interface Judged {
  /** the tool's name, "Claude Code" */
  label: string;
  resolved: ResolvedToolConfig;
  gateway: ToolGateway | undefined;
  /** the path the tool needs after the gateway's root: '' (Claude Code, Gemini CLI) or '/v1' */
  suffix: '' | '/v1';
  /** where its models must be served (any of several: Copilot CLI takes Chat Completions or Responses) */
  surface: Surface | readonly Surface[];
  /** "the gateway serves no model on …" for this tool */
  none: () => string;
  removable: boolean;
  /** the tool's words for a higher-precedence source that wins (absent: overrides do not change the state) */
  overridden?: () => string;
  /** the tool's words when Model Relay's setup is there but not in use (Codex: another provider is active) */
  idle?: () => string | undefined;
}

/**
 * A tool's state, decided by the address it will call (issue 37): one of this gateway's roots →
 * set up (overridden when a higher-precedence source still wins), whatever token it carries; another
 * configured gateway's → not set up here, that gateway named; anywhere else → not set up (overridden
 * when Model Relay's setup is there and a source beats it). The token decides only whether a probe
 * may be sent (probes.ts): never the state.
 */
export function judge(j: Judged): ToolReading {
  const { resolved, gateway, removable } = j;
  const aim = aimOf(resolved.baseUrl?.value, gateway, j.suffix);
  const base = { resolved, removable, aim };
  const missing = gateway && !gateway.modelsError ? surfaceMissing(gateway, j.surface, j.none) : undefined;
  if (missing) return { state: 'unavailable', why: missing, ...base };
  const label = j.label;
  const url = resolved.baseUrl?.value ?? '';
  const overridden = resolved.overrides.length && j.overridden ? j.overridden() : undefined;
  if (aim.at === 'this')
    return overridden
      ? { state: 'overridden', why: overridden, ...base }
      : { state: 'set-up', why: resolved.conflicts[0]?.what, ...base };
  // this gateway's token aimed at another origin: the tool would leak it there (not a /v1 mistake at its own origin)
  if (resolved.auth?.matches && aimOf(url, gateway, j.suffix, true).at !== 'this')
    return {
      state: 'overridden',
      why:
        overridden ??
        t("{0} would send this gateway's token to {1} (named in {2}).", label, url, resolved.baseUrl?.from.where ?? ''),
      ...base,
    };
  if (aim.at === 'other')
    return {
      state: 'not-set-up',
      why: t('{0} is set up for the gateway "{1}" ({2}), not for this one.', label, aim.gateway, url),
      ...base,
    };
  if (removable && overridden) return { state: 'overridden', why: overridden, ...base };
  return {
    state: 'not-set-up',
    why:
      j.idle?.() ??
      resolved.conflicts[0]?.what ??
      resolved.problems[0] ??
      (url
        ? t("{0} will call {1}, which is not one of this gateway's addresses.", label, url)
        : t('{0} has no address for this gateway.', label)),
    ...base,
  };
}

/**
 * One tool's module: what it is called, how it is started and what it reads (the one table of tools:
 * every label, command and setting name is read from here, through tools.ts), how it resolves its
 * configuration, and the plans that change it. Adding a tool is its module and one line in tools.ts.
 */
export interface ToolModule {
  id: ToolId;
  /** its name, in the user's language */
  label: () => string;
  /** the executable it is started with ("not installed" when it is not on PATH) */
  command: string;
  /** the setting names it reads its address, credential and model from (what a sentence names when a source gives no key) */
  keys: ToolKeys;
  /** folders whose presence shows the tool was used here (settings folder) */
  configDirs(env: ToolsEnvironment): string[];
  read(env: ToolsEnvironment, gateway: ToolGateway | undefined): Promise<ToolReading>;
  planSetUp(env: ToolsEnvironment, gateway: ToolGateway, choices: ToolChoices): Promise<ToolPlan>;
  planRemove(env: ToolsEnvironment, gateway: ToolGateway): Promise<ToolPlan>;
}

export function unavailablePlan(tool: ToolId, action: ToolPlan['action'], why: string): ToolPlan {
  return { tool, action, edits: [], terminalEnv: {}, notes: [why], unavailable: why };
}
