/**
 * What every tool's resolver and planner shares: comparing addresses and tokens with the gateway's,
 * the id of the provider entry Model Relay adds, and the shape of one tool's module.
 */
import { maskToken } from '../mask';
import { t } from '../l10n';
import { projectPath, type FilePlaces } from './toolFile';
import type {
  ResolvedToolConfig,
  ToolChoices,
  ToolGateway,
  ToolId,
  ToolPlan,
  ToolsEnvironment,
  ToolSource,
} from './types';

/** The key of the provider entry Model Relay adds to Codex's and opencode's configuration. */
export const PROVIDER_ID = 'model-relay';

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
