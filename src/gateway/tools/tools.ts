/**
 * The tools module's entry points: each tool's state (read from its own files and the terminal
 * environment, in its own precedence order), and the plans that set it up, take the setup back, or
 * fix an override. Plans are shown as a diff, then written by `applyEdits` (./apply).
 */
import { t } from '../l10n';
import { claudeCode, planClaudeFixOverride } from './claudeCode';
import { codex } from './codex';
import type { ToolKeys, ToolModule } from './common';
import { copilotCli } from './copilotCli';
import { geminiCli, planGeminiFixOverride } from './geminiCli';
import { opencode } from './opencode';
import { withOriginalsRestored } from './toolBackups';
import type {
  ResolvedToolConfig,
  ToolChoices,
  ToolGateway,
  ToolId,
  ToolPlan,
  ToolsEnvironment,
  ToolStatus,
} from './types';
import { TOOL_IDS } from './types';
import { stat } from 'node:fs/promises';

/**
 * The tools, by id: the one registration of a tool. Its label, command and setting names are read
 * from its module through the functions below (nothing else keeps a table of tools; Diagnose has a
 * row per tool, its title from the label). The probes' words read them here too, so a tool module
 * never imports probes.ts or probeWords.ts (that cycle would leave this table half-built at load).
 */
const MODULES: Record<ToolId, ToolModule> = {
  'claude-code': claudeCode,
  codex,
  'gemini-cli': geminiCli,
  opencode,
  'copilot-cli': copilotCli,
};

/** A tool's name in the user's language ("Claude Code", "Codex CLI", …). */
export function toolLabel(tool: ToolId): string {
  return MODULES[tool].label();
}

/** The executable a tool is started with ("claude", "codex", "gemini", "opencode"). */
export function toolCommand(tool: ToolId): string {
  return MODULES[tool].command;
}

/** The setting names a tool reads its address, credential and model from. */
export function toolKeys(tool: ToolId): ToolKeys {
  return MODULES[tool].keys;
}

async function exists(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

/** One tool's state. Never throws: a file that cannot be read or parsed is a `problem`. */
export async function toolStatus(
  tool: ToolId,
  env: ToolsEnvironment,
  gateway: ToolGateway | undefined,
): Promise<ToolStatus> {
  const m = MODULES[tool];
  const path = await env.which(m.command).catch(() => undefined);
  const reading = await m.read(env, gateway);
  const status: ToolStatus = {
    tool,
    label: m.label(),
    state: reading.state,
    resolved: reading.resolved,
    removable: reading.removable,
    ...(reading.aim ? { aim: reading.aim } : {}),
  };
  if (reading.why) status.why = reading.why;
  if (!path) {
    const dir = (await Promise.all(m.configDirs(env).map(async (d) => ((await exists(d)) ? d : undefined)))).find(
      Boolean,
    );
    status.state = 'not-installed';
    status.why = dir
      ? t(
          '{0} is not on the PATH of new terminals ({1} was not found), though its settings folder {2} exists.',
          m.label(),
          m.command,
          dir,
        )
      : t('{0} is not installed: {1} was not found on the PATH of new terminals.', m.label(), m.command);
    return status;
  }
  const version = env.version ? await env.version(path).catch(() => undefined) : undefined;
  status.installed = version ? { path, version } : { path };
  return status;
}

/** Every tool's state, in the order of TOOL_IDS. */
export async function toolStatuses(env: ToolsEnvironment, gateway: ToolGateway | undefined): Promise<ToolStatus[]> {
  return Promise.all(TOOL_IDS.map((id) => toolStatus(id, env, gateway)));
}

/** What setting a tool up will change (nothing is written: show `edits` as a diff, then `applyEdits`). */
export async function planSetUp(
  tool: ToolId,
  env: ToolsEnvironment,
  gateway: ToolGateway,
  choices: ToolChoices = {},
): Promise<ToolPlan> {
  return MODULES[tool].planSetUp(env, gateway, choices);
}

/**
 * What taking a tool's setup back will change: a file left with none of Model Relay's setup is
 * restored to its original when it is still as Model Relay last wrote it (toolBackups.ts). The
 * token variable shared by Codex and opencode stays in `removeEnv` only when the other of the two
 * is not set up by Model Relay.
 */
export async function planRemove(tool: ToolId, env: ToolsEnvironment, gateway: ToolGateway): Promise<ToolPlan> {
  const own = await MODULES[tool].planRemove(env, gateway);
  const plan = env.backupDir ? await withOriginalsRestored(own, env.backupDir) : own;
  const sharing = (['codex', 'opencode'] as const).filter((id) => id !== tool);
  if (tool === 'codex' || tool === 'opencode') {
    const others = await Promise.all(sharing.map((id) => MODULES[id].read(env, gateway)));
    if (others.some((r) => r.removable))
      plan.removeEnv = (plan.removeEnv ?? []).filter((v) => v !== gateway.tokenVariable);
  }
  return plan;
}

/**
 * The edit that removes one override (an entry of `ResolvedToolConfig.overrides` with
 * `fixable: true`): Claude Code — just the conflicting keys of that settings file's env block;
 * Gemini CLI — the sign-in method set to the API key. A string is the reason it cannot be fixed.
 */
export async function planFixOverride(
  tool: ToolId,
  env: ToolsEnvironment,
  override: ResolvedToolConfig['overrides'][number],
): Promise<ToolPlan | string> {
  if (!override.fixable || override.from.kind !== 'file')
    return t('{0} cannot be changed by Model Relay; change it there yourself.', override.from.where);
  if (tool === 'claude-code') return planClaudeFixOverride(env, override);
  if (tool === 'gemini-cli') return planGeminiFixOverride(env, override);
  return t('{0} cannot be changed by Model Relay; change it there yourself.', override.from.where);
}
