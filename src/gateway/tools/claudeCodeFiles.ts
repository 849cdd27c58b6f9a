/**
 * Where Claude Code keeps its settings and its claude.ai login, and reading them: the user's
 * `settings.json` in `$CLAUDE_CONFIG_DIR` (default `~/.claude`), the project's `.claude/settings.json`
 * and `.claude/settings.local.json`, the machine's managed-settings.json; `.claude.json` (in
 * `$CLAUDE_CONFIG_DIR`, default the home folder) and `.credentials.json` for the login.
 */
import { join } from 'node:path';
import { t } from '../l10n';
import { isObject, parseJsonc, type Json } from './configFile';
import { readToolFile } from './toolFile';
import type { ToolsEnvironment } from './types';

export type ClaudeFileKind = 'user' | 'project' | 'project-local' | 'managed';

export interface ClaudeSettingsFile {
  kind: ClaudeFileKind;
  path: string;
  /** the parsed settings (undefined: absent, unreadable or not JSON — see problems) */
  settings?: Json;
}

/** The folder of the user's settings and login: `$CLAUDE_CONFIG_DIR`, else `~/.claude`. */
export function claudeConfigDir(env: ToolsEnvironment): string {
  return env.env.CLAUDE_CONFIG_DIR?.trim() || join(env.homeDir, '.claude');
}

function managedSettingsPath(env: ToolsEnvironment): string | undefined {
  const injected = env.systemFiles?.claudeManagedSettings;
  if (injected !== undefined) return injected ?? undefined;
  if (process.platform === 'darwin') return '/Library/Application Support/ClaudeCode/managed-settings.json';
  if (process.platform === 'win32') return 'C:\\Program Files\\ClaudeCode\\managed-settings.json';
  return '/etc/claude-code/managed-settings.json';
}

/** The settings files Claude Code reads, lowest precedence first. */
export function claudeSettingsPaths(env: ToolsEnvironment): Array<{ kind: ClaudeFileKind; path: string }> {
  const files: Array<{ kind: ClaudeFileKind; path: string }> = [
    { kind: 'user', path: join(claudeConfigDir(env), 'settings.json') },
  ];
  if (env.workspaceDir) {
    files.push({ kind: 'project', path: join(env.workspaceDir, '.claude', 'settings.json') });
    files.push({ kind: 'project-local', path: join(env.workspaceDir, '.claude', 'settings.local.json') });
  }
  const managed = managedSettingsPath(env);
  if (managed) files.push({ kind: 'managed', path: managed });
  return files;
}

export async function readClaudeSettings(
  env: ToolsEnvironment,
): Promise<{ files: ClaudeSettingsFile[]; problems: string[] }> {
  const files: ClaudeSettingsFile[] = [];
  const problems: string[] = [];
  for (const f of claudeSettingsPaths(env)) {
    const r = await readToolFile(env, f.path);
    if (r.error) problems.push(r.error);
    if (r.text === undefined) continue;
    const p = parseJsonc(r.text);
    if (p.error !== undefined || !isObject(p.value)) {
      problems.push(t('{0} is not valid JSON, so Claude Code ignores it or fails to start.', f.path));
      files.push({ kind: f.kind, path: f.path });
      continue;
    }
    files.push({ kind: f.kind, path: f.path, settings: p.value });
  }
  return { files, problems };
}

/** A settings file's env value as Claude Code puts it into its environment (numbers and booleans as text). */
export function envValue(fileEnv: unknown, key: string): string | undefined {
  const v = isObject(fileEnv) ? fileEnv[key] : undefined;
  return typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? String(v).trim() : undefined;
}

/** A claude.ai login kept on this machine (`oauthAccount` in `.claude.json`, or stored credentials). */
export async function loginPresent(env: ToolsEnvironment): Promise<string | undefined> {
  const dir = env.env.CLAUDE_CONFIG_DIR?.trim();
  const state = dir ? join(dir, '.claude.json') : join(env.homeDir, '.claude.json');
  const r = await readToolFile(env, state);
  if (r.text !== undefined) {
    const p = parseJsonc(r.text);
    if (isObject(p.value) && isObject(p.value.oauthAccount)) return state;
  }
  const creds = join(claudeConfigDir(env), '.credentials.json');
  const c = await readToolFile(env, creds);
  return c.text !== undefined && c.text.trim() !== '' ? creds : undefined;
}
