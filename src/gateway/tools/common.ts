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

/** The state of one tool, before `installed` is filled in. */
export interface ToolReading {
  state: 'not-set-up' | 'set-up' | 'overridden' | 'unavailable';
  why?: string;
  resolved: ResolvedToolConfig;
  removable: boolean;
  /** where the address it will call points (aimOf), when the module decided its state by it */
  aim?: ToolAim;
}

/** One tool's module: how it resolves its configuration, and the plans that change it. */
export interface ToolModule {
  id: ToolId;
  label: () => string;
  command: string;
  /** folders whose presence shows the tool was used here (settings folder) */
  configDirs(env: ToolsEnvironment): string[];
  read(env: ToolsEnvironment, gateway: ToolGateway | undefined): Promise<ToolReading>;
  planSetUp(env: ToolsEnvironment, gateway: ToolGateway, choices: ToolChoices): Promise<ToolPlan>;
  planRemove(env: ToolsEnvironment, gateway: ToolGateway): Promise<ToolPlan>;
}

export function unavailablePlan(tool: ToolId, action: ToolPlan['action'], why: string): ToolPlan {
  return { tool, action, edits: [], terminalEnv: {}, notes: [why], unavailable: why };
}
