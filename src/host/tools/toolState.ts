/**
 * What Model Relay remembers of the terminal tools it set up (a Memento, read defensively and
 * bounded): per tool, the gateway it was set up for, the name of that gateway's token, its variables
 * (the root address and the token as markers, never a value) and the models chosen. A state kept
 * before tools were bound to a gateway (`{ tokenName, tools }`, one token for every tool) is read
 * as bound to the gateway active when it is read, with Claude Code's variables under the names the
 * old "Set Up Native CLI" gave them (modelRelay.nativeCli.*): nothing a user set up is lost.
 */
import type { CliVariableNames } from '../../gateway/cliEnv';
import { DEFAULT_CLI_VARIABLES } from '../../gateway/defaults';
import { TOOL_IDS, type ToolChoices, type ToolId } from '../../gateway/tools/types';

export const TOOL_TERMINALS_KEY = 'modelRelay.tools.terminals';

/** A remembered value: text, the tool's gateway's root address (with `/v1` for the OpenAI-style tools), or its token. */
export type StoredValue = string | { token: true } | { base: true; suffix?: '/v1' };

/** One set-up tool, bound to its gateway and that gateway's token (by name). */
export interface ToolEntry {
  gatewayId: string;
  tokenName: string;
  env: Record<string, StoredValue>;
  choices: ToolChoices;
}

export interface ToolTerminalsState {
  tools: Partial<Record<ToolId, ToolEntry>>;
}

/** Bounds: an id or value longer, or more variables per tool, are dropped. */
const MAX_ID = 200;
const MAX_VALUE = 2000;
const MAX_VARIABLES = 16;
const VARIABLE = /^[A-Za-z_][A-Za-z0-9_]*$/;

const DEFAULT_NAMES = DEFAULT_CLI_VARIABLES.baseUrl + DEFAULT_CLI_VARIABLES.token;
const id = (v: unknown) => (typeof v === 'string' && v && v.length <= MAX_ID ? v : undefined);

function readValue(v: unknown): StoredValue | undefined {
  if (typeof v === 'string') return v.length <= MAX_VALUE ? v : undefined;
  if (v && typeof v === 'object' && (v as { token?: unknown }).token === true) return { token: true };
  if (v && typeof v === 'object' && (v as { base?: unknown }).base === true)
    return (v as { suffix?: unknown }).suffix === '/v1' ? { base: true, suffix: '/v1' } : { base: true };
  return undefined;
}

function readNames(raw: unknown): ToolChoices['variableNames'] {
  const n = raw && typeof raw === 'object' ? (raw as { baseUrl?: unknown; token?: unknown }) : {};
  const ok = (v: unknown): v is string => typeof v === 'string' && v.length <= MAX_ID && VARIABLE.test(v);
  return ok(n.baseUrl) && ok(n.token) ? { baseUrl: n.baseUrl, token: n.token } : undefined;
}

function readChoices(raw: unknown): ToolChoices {
  const c =
    raw && typeof raw === 'object' ? (raw as { model?: unknown; claudeModels?: unknown; variableNames?: unknown }) : {};
  const cm = c.claudeModels && typeof c.claudeModels === 'object' ? (c.claudeModels as Record<string, unknown>) : {};
  const mapping = Object.fromEntries(
    (['opus', 'sonnet', 'haiku'] as const).flatMap((k) => (id(cm[k]) ? [[k, id(cm[k])!]] : [])),
  );
  const model = id(c.model);
  const names = readNames(c.variableNames);
  return {
    ...(model ? { model } : {}),
    ...(Object.keys(mapping).length ? { claudeModels: mapping } : {}),
    ...(names ? { variableNames: names } : {}),
  };
}

function readEnv(raw: unknown): Record<string, StoredValue> | undefined {
  if (!raw || typeof raw !== 'object') return undefined;
  const vars = Object.entries(raw as Record<string, unknown>)
    .slice(0, MAX_VARIABLES)
    .flatMap(([k, v]): Array<[string, StoredValue]> => {
      const value = readValue(v);
      return VARIABLE.test(k) && value !== undefined ? [[k, value]] : [];
    });
  return Object.fromEntries(vars);
}

/** Claude Code's two variables under the names the old Set Up Native CLI gave them. */
function renamedClaude(env: Record<string, StoredValue>, names: CliVariableNames): Record<string, StoredValue> {
  const to: Record<string, string> = {
    [DEFAULT_CLI_VARIABLES.baseUrl]: names.baseUrl,
    [DEFAULT_CLI_VARIABLES.token]: names.token,
  };
  const out: Record<string, StoredValue> = {};
  for (const [k, v] of Object.entries(env)) out[VARIABLE.test(to[k] ?? k) ? (to[k] ?? k) : k] = v;
  return out;
}

/**
 * The stored state, checked: unknown tools, bad names, oversized values dropped; undefined when
 * unusable. `activeId` binds a state kept before tools were bound to a gateway; `names` are the old
 * Set Up Native CLI's variable names for Claude Code.
 */
export function readToolTerminalsState(
  raw: unknown,
  activeId: () => string,
  names: CliVariableNames = DEFAULT_CLI_VARIABLES,
): ToolTerminalsState | undefined {
  if (!raw || typeof raw !== 'object') return undefined;
  const r = raw as { tokenName?: unknown; tools?: unknown };
  const legacyToken = id(r.tokenName);
  const stored = r.tools && typeof r.tools === 'object' ? (r.tools as Record<string, unknown>) : {};
  const tools: ToolTerminalsState['tools'] = {};
  for (const tool of TOOL_IDS) {
    const e = stored[tool] as
      { gatewayId?: unknown; tokenName?: unknown; env?: unknown; choices?: unknown } | undefined;
    const env = readEnv(e?.env);
    const tokenName = id(e?.tokenName) ?? legacyToken;
    if (!e || !env || !tokenName) continue;
    const gatewayId = id(e.gatewayId);
    const legacy = !gatewayId && tool === 'claude-code' && names.baseUrl + names.token !== DEFAULT_NAMES;
    const choices = readChoices(e.choices);
    tools[tool] = {
      gatewayId: gatewayId ?? activeId(),
      tokenName,
      env: legacy ? renamedClaude(env, names) : env,
      choices: legacy ? { ...choices, variableNames: { ...names } } : choices,
    };
  }
  return Object.keys(tools).length ? { tools } : undefined;
}
