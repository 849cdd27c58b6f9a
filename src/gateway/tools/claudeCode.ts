/**
 * Claude Code, resolved as the tool resolves it (its settings.md, authentication.md, model-config.md):
 * managed settings > `.claude/settings.local.json` > `.claude/settings.json` > the user's
 * `settings.json` (in `$CLAUDE_CONFIG_DIR`, default `~/.claude`); a key in any settings file's `env`
 * block beats the same variable in the shell. Credentials: `ANTHROPIC_AUTH_TOKEN` (Bearer) >
 * `ANTHROPIC_API_KEY` (x-api-key) > `apiKeyHelper` > `CLAUDE_CODE_OAUTH_TOKEN` > the claude.ai login.
 * Setting it up changes no file: the variables go into new terminals only.
 */
import { join } from 'node:path';
import { t } from '../l10n';
import { maskToken } from '../mask';
import {
  emptyResolved,
  gatewayRoot,
  hasSurface,
  sameUrl,
  TERMINAL,
  tokenMatch,
  unavailablePlan,
  type ToolModule,
  type ToolReading,
} from './common';
import { editJsonc, isObject, parseJsonc, readConfigText, strAt, type Json } from './configFile';
import type { FileEdit, ResolvedToolConfig, ToolGateway, ToolPlan, ToolSource, ToolsEnvironment } from './types';

export const CLAUDE_BASE_URL = 'ANTHROPIC_BASE_URL';
export const CLAUDE_AUTH_TOKEN = 'ANTHROPIC_AUTH_TOKEN';
export const CLAUDE_API_KEY = 'ANTHROPIC_API_KEY';
export const CLAUDE_MODEL = 'ANTHROPIC_MODEL';
export const CLAUDE_TIER_MODELS = {
  opus: 'ANTHROPIC_DEFAULT_OPUS_MODEL',
  sonnet: 'ANTHROPIC_DEFAULT_SONNET_MODEL',
  haiku: 'ANTHROPIC_DEFAULT_HAIKU_MODEL',
} as const;
export const CLAUDE_QUIET = 'CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC';
const MODEL_KEYS = [CLAUDE_MODEL, ...Object.values(CLAUDE_TIER_MODELS)];
/** Every variable a Claude Code setup puts into new terminals. */
export const CLAUDE_SETUP_VARIABLES = [CLAUDE_BASE_URL, CLAUDE_AUTH_TOKEN, CLAUDE_QUIET, ...MODEL_KEYS];

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
    const r = await readConfigText(f.path);
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
function envValue(fileEnv: unknown, key: string): string | undefined {
  const v = isObject(fileEnv) ? fileEnv[key] : undefined;
  return typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? String(v).trim() : undefined;
}

/**
 * Where a variable's value comes from after Claude Code's precedence: the highest settings file's
 * env block, else the shell. An empty value set in a file blanks the shell's: the variable is unset.
 */
function lookup(
  key: string,
  files: ClaudeSettingsFile[],
  env: ToolsEnvironment,
): { value: string; from: ToolSource } | undefined {
  for (const f of [...files].reverse()) {
    const v = envValue(f.settings?.env, key);
    if (v !== undefined) return v ? { value: v, from: { kind: 'file', where: f.path, key: `env.${key}` } } : undefined;
  }
  const v = env.env[key]?.trim();
  return v ? { value: v, from: { ...TERMINAL(), key } } : undefined;
}

function settingOf(key: string, files: ClaudeSettingsFile[]): { value: string; from: ToolSource } | undefined {
  for (const f of [...files].reverse()) {
    const v = strAt(f.settings, key);
    if (v !== undefined) return { value: v, from: { kind: 'file', where: f.path, key } };
  }
  return undefined;
}

/** A claude.ai login kept on this machine (`oauthAccount` in `.claude.json`, or stored credentials). */
async function loginPresent(env: ToolsEnvironment): Promise<string | undefined> {
  const dir = env.env.CLAUDE_CONFIG_DIR?.trim();
  const state = dir ? join(dir, '.claude.json') : join(env.homeDir, '.claude.json');
  const r = await readConfigText(state);
  if (r.text !== undefined) {
    const p = parseJsonc(r.text);
    if (isObject(p.value) && isObject(p.value.oauthAccount)) return state;
  }
  const creds = join(claudeConfigDir(env), '.credentials.json');
  const c = await readConfigText(creds);
  return c.text !== undefined && c.text.trim() !== '' ? creds : undefined;
}

function resolveAuth(files: ClaudeSettingsFile[], env: ToolsEnvironment, gateway: ToolGateway | undefined) {
  const token = lookup(CLAUDE_AUTH_TOKEN, files, env);
  if (token)
    return {
      header: 'authorization' as const,
      masked: maskToken(token.value),
      from: token.from,
      matches: tokenMatch(token.value, gateway),
    };
  const key = lookup(CLAUDE_API_KEY, files, env);
  if (key)
    return {
      header: 'x-api-key' as const,
      masked: maskToken(key.value),
      from: key.from,
      matches: tokenMatch(key.value, gateway),
    };
  const helper = settingOf('apiKeyHelper', files);
  if (helper)
    return { header: 'authorization' as const, masked: t('(from the apiKeyHelper script)'), from: helper.from };
  const oauth = lookup('CLAUDE_CODE_OAUTH_TOKEN', files, env);
  if (oauth) return { header: 'authorization' as const, masked: maskToken(oauth.value), from: oauth.from };
  return undefined;
}

/** The settings-file keys that steer Claude Code away from this gateway (or from the terminal's own choices). */
function conflictingKeys(f: ClaudeSettingsFile, env: ToolsEnvironment, gateway: ToolGateway | undefined): string[] {
  const keys: string[] = [];
  const fileEnv = isObject(f.settings?.env) ? f.settings.env : {};
  for (const key of Object.keys(fileEnv)) {
    const v = envValue(fileEnv, key);
    if (v === undefined) continue;
    if (key === CLAUDE_BASE_URL) {
      if (!gateway || !sameUrl(v, gatewayRoot(gateway))) keys.push(key);
    } else if (key === CLAUDE_AUTH_TOKEN || key === CLAUDE_API_KEY) {
      // an empty API key only blanks a stale one from the shell
      if (!tokenMatch(v, gateway) && !(key === CLAUDE_API_KEY && v === '')) keys.push(key);
    } else if (MODEL_KEYS.includes(key)) {
      const mine = env.env[key]?.trim();
      if (mine && mine !== v) keys.push(key);
    }
  }
  return keys;
}

export async function resolveClaudeCode(
  env: ToolsEnvironment,
  gateway: ToolGateway | undefined,
): Promise<ResolvedToolConfig & { login?: string }> {
  const { files, problems } = await readClaudeSettings(env);
  const resolved = emptyResolved();
  resolved.problems.push(...problems);
  const base = lookup(CLAUDE_BASE_URL, files, env);
  resolved.baseUrl = base ?? {
    value: 'https://api.anthropic.com',
    from: { kind: 'default', where: t('built-in default') },
  };
  resolved.auth = resolveAuth(files, env, gateway);
  resolved.model = lookup(CLAUDE_MODEL, files, env) ?? settingOf('model', files);
  for (const f of files) {
    const keys = conflictingKeys(f, env, gateway);
    if (keys.length)
      resolved.overrides.push({ from: { kind: 'file', where: f.path }, keys, fixable: f.kind !== 'managed' });
  }
  const login = await loginPresent(env);
  if (login && resolved.auth && resolved.auth.from.key !== 'apiKeyHelper') {
    resolved.conflicts.push({
      what: t(
        'A claude.ai login is kept beside the gateway credential ({0}); Claude Code warns that auth may not work as expected.',
        login,
      ),
      fix: t('Run /logout in Claude Code, then /status to confirm.'),
    });
  }
  if (!resolved.auth && login)
    resolved.auth = { header: 'authorization', masked: t('(claude.ai login)'), from: { kind: 'login', where: login } };
  return { ...resolved, login };
}

/** The address and credential Claude Code will use, as the two arguments of a sentence. */
function describe(r: ResolvedToolConfig): [string, string] {
  const auth = r.auth ? `${r.auth.masked} (${r.auth.from.key ?? r.auth.from.where})` : t('no credential');
  return [r.baseUrl?.value ?? '', auth];
}

function ownTerminal(env: ToolsEnvironment, gateway: ToolGateway | undefined): boolean {
  return (
    !!gateway &&
    sameUrl(env.env[CLAUDE_BASE_URL], gatewayRoot(gateway)) &&
    !!tokenMatch(env.env[CLAUDE_AUTH_TOKEN], gateway)
  );
}

async function read(env: ToolsEnvironment, gateway: ToolGateway | undefined): Promise<ToolReading> {
  const resolved = await resolveClaudeCode(env, gateway);
  const removable = ownTerminal(env, gateway);
  if (gateway && !hasSurface(gateway, 'native'))
    return {
      state: 'unavailable',
      why: t(
        'The gateway serves no model on the Anthropic Messages API (/v1/messages) for this token, which is the only API Claude Code speaks.',
      ),
      resolved,
      removable,
    };
  const atGateway = !!gateway && sameUrl(resolved.baseUrl?.value, gatewayRoot(gateway)) && !!resolved.auth?.matches;
  if (atGateway && resolved.overrides.length === 0)
    return { state: 'set-up', why: resolved.conflicts[0]?.what, resolved, removable };
  const winner = resolved.overrides.find((o) => o.keys.some((k) => k === CLAUDE_BASE_URL || k === CLAUDE_AUTH_TOKEN));
  if (removable || atGateway) {
    const o = winner ?? resolved.overrides[0];
    return {
      state: 'overridden',
      why: o
        ? t('{0} sets {1} in its env block, which beats the terminal variables.', o.from.where, o.keys.join(', '))
        : t('Claude Code will call {0} with {1}.', ...describe(resolved)),
      resolved,
      removable,
    };
  }
  return {
    state: 'not-set-up',
    why: t('Claude Code will call {0} with {1}, not this gateway.', ...describe(resolved)),
    resolved,
    removable,
  };
}

function modelNotes(gateway: ToolGateway, picked: Array<[string, string | undefined]>, out: ToolPlan): void {
  const native = new Set(gateway.models.filter((m) => m.surfaces.includes('native')).map((m) => m.id));
  for (const [variable, model] of picked) {
    if (!model) continue;
    if (native.has(model)) out.terminalEnv[variable] = model;
    else
      out.notes.push(
        t('{0} is not served on the Anthropic Messages API for this token, so {1} is left unset.', model, variable),
      );
  }
}

async function planSetUp(
  env: ToolsEnvironment,
  gateway: ToolGateway,
  choices: { model?: string; claudeModels?: { opus?: string; sonnet?: string; haiku?: string } },
): Promise<ToolPlan> {
  if (!hasSurface(gateway, 'native'))
    return unavailablePlan(
      'claude-code',
      'set-up',
      t(
        'The gateway serves no model on the Anthropic Messages API (/v1/messages) for this token, which is the only API Claude Code speaks.',
      ),
    );
  const plan: ToolPlan = {
    tool: 'claude-code',
    action: 'set-up',
    edits: [],
    terminalEnv: { [CLAUDE_BASE_URL]: gatewayRoot(gateway), [CLAUDE_AUTH_TOKEN]: { token: true }, [CLAUDE_QUIET]: '1' },
    notes: [
      t(
        'New terminals get {0} (the root address, never /v1) and the token as {1}; no file is changed.',
        CLAUDE_BASE_URL,
        CLAUDE_AUTH_TOKEN,
      ),
    ],
  };
  modelNotes(
    gateway,
    [
      [CLAUDE_MODEL, choices.model],
      [CLAUDE_TIER_MODELS.opus, choices.claudeModels?.opus],
      [CLAUDE_TIER_MODELS.sonnet, choices.claudeModels?.sonnet],
      [CLAUDE_TIER_MODELS.haiku, choices.claudeModels?.haiku],
    ],
    plan,
  );
  const resolved = await resolveClaudeCode(env, gateway);
  for (const o of resolved.overrides)
    plan.notes.push(
      t(
        '{0} overrides {1}; use its Fix to remove those keys, or the setup has no effect.',
        o.from.where,
        o.keys.join(', '),
      ),
    );
  for (const c of resolved.conflicts) plan.notes.push(`${c.what} ${c.fix}`);
  return plan;
}

function planRemove(): Promise<ToolPlan> {
  return Promise.resolve({
    tool: 'claude-code',
    action: 'remove',
    edits: [],
    terminalEnv: {},
    removeEnv: [...CLAUDE_SETUP_VARIABLES],
    notes: [t('New terminals no longer get the Claude Code variables; no file is changed.')],
  });
}

/** Removes just the conflicting keys from one settings file's env block. */
export async function planClaudeFixOverride(override: {
  from: ToolSource;
  keys: string[];
}): Promise<ToolPlan | string> {
  const path = override.from.where;
  const r = await readConfigText(path);
  if (r.error) return r.error;
  if (r.text === undefined) return t('{0} no longer exists.', path);
  const p = parseJsonc(r.text);
  if (p.error !== undefined) return t('{0} is not valid JSON, so it was left untouched.', path);
  let after = r.text;
  const removed: string[] = [];
  for (const key of override.keys) {
    if (envValue(isObject(p.value) ? p.value.env : undefined, key) === undefined) continue;
    after = editJsonc(after, ['env', key], undefined);
    removed.push(key);
  }
  if (!removed.length) return t('{0} no longer sets {1}.', path, override.keys.join(', '));
  const edit: FileEdit = {
    path,
    before: r.text,
    after,
    beforeHash: r.hash,
    mtimeMs: r.mtimeMs,
    summary: t(
      'Removes {0} from the env block of {1}, so the terminal variables take effect.',
      removed.join(', '),
      path,
    ),
  };
  return { tool: 'claude-code', action: 'fix-override', edits: [edit], terminalEnv: {}, notes: [] };
}

export const claudeCode: ToolModule = {
  id: 'claude-code',
  label: () => t('Claude Code'),
  command: 'claude',
  configDirs: (env) => [claudeConfigDir(env)],
  read,
  planSetUp,
  planRemove,
};
