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
  aimOf,
  authOf,
  emptyResolved,
  fileSource,
  gatewayRoot,
  judge,
  otherGatewayToken,
  surfaceMissing,
  TERMINAL,
  unavailablePlan,
  type ToolModule,
  type ToolReading,
} from './common';
import { editJsonc, isObject, parseJsonc, strAt, type Json } from './configFile';
import { readToolFile } from './toolFile';
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
    if (v !== undefined) return v ? { value: v, from: fileSource(env, f.path, `env.${key}`) } : undefined;
  }
  const v = env.env[key]?.trim();
  return v ? { value: v, from: { ...TERMINAL(), key } } : undefined;
}

function settingOf(
  key: string,
  files: ClaudeSettingsFile[],
  env: ToolsEnvironment,
): { value: string; from: ToolSource } | undefined {
  for (const f of [...files].reverse()) {
    const v = strAt(f.settings, key);
    if (v !== undefined) return { value: v, from: fileSource(env, f.path, key) };
  }
  return undefined;
}

function resolveAuth(files: ClaudeSettingsFile[], env: ToolsEnvironment, gateway: ToolGateway | undefined) {
  const token = lookup(CLAUDE_AUTH_TOKEN, files, env);
  if (token) return authOf('authorization', token.value, token.from, gateway);
  const key = lookup(CLAUDE_API_KEY, files, env);
  if (key) return authOf('x-api-key', key.value, key.from, gateway);
  const helper = settingOf('apiKeyHelper', files, env);
  if (helper)
    return { header: 'authorization' as const, masked: t('(from the apiKeyHelper script)'), from: helper.from };
  const oauth = lookup('CLAUDE_CODE_OAUTH_TOKEN', files, env);
  if (oauth) return authOf('authorization', oauth.value, oauth.from, gateway);
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
      if (aimOf(v, gateway, '').at !== 'this') keys.push(key);
    } else if (key === CLAUDE_AUTH_TOKEN || key === CLAUDE_API_KEY) {
      // Whatever token goes to this gateway's address is the tool's own. A key conflicts when it is
      // another gateway's token, blanks the auth token, or travels with an address elsewhere.
      const base = envValue(fileEnv, CLAUDE_BASE_URL);
      if (
        otherGatewayToken(v, gateway) ||
        (key === CLAUDE_AUTH_TOKEN && v === '') ||
        (!!base && aimOf(base, gateway, '').at !== 'this' && v !== '')
      )
        keys.push(key);
    } else if (MODEL_KEYS.includes(key)) {
      const mine = env.env[key]?.trim();
      if (mine && mine !== v) keys.push(key);
    }
  }
  return keys;
}

const where = (s: ToolSource) => (s.kind === 'file' ? s.where : t('terminal environment'));

/** The relay users' common mistakes: /v1 in the base URL; a stale API key beside the auth token. */
function mistakes(
  r: ResolvedToolConfig,
  files: ClaudeSettingsFile[],
  env: ToolsEnvironment,
  gateway: ToolGateway | undefined,
): ResolvedToolConfig['conflicts'] {
  const out: ResolvedToolConfig['conflicts'] = [];
  const base = r.baseUrl;
  if (base && base.from.kind !== 'default' && /\/v1(\/messages)?\/?$/i.test(base.value)) {
    const root = gateway ? gatewayRoot(gateway) : base.value.replace(/\/v1(\/messages)?\/?$/i, '');
    out.push({
      what: t(
        '{0} is {1} ({2}): Claude Code appends /v1/messages itself, so it calls /v1/v1/messages and gets 404.',
        CLAUDE_BASE_URL,
        base.value,
        where(base.from),
      ),
      fix: t('Set {0} to the root address {1}.', CLAUDE_BASE_URL, root),
    });
  }
  const key = lookup(CLAUDE_API_KEY, files, env);
  if (r.auth?.from.key?.endsWith(CLAUDE_AUTH_TOKEN) && key && maskToken(key.value) !== r.auth.masked)
    out.push({
      what: t(
        'Both {0} ({1}) and {2} ({3}) are set; Claude Code uses {0} and warns about an auth conflict.',
        CLAUDE_AUTH_TOKEN,
        where(r.auth.from),
        CLAUDE_API_KEY,
        where(key.from),
      ),
      fix: t(
        "Unset {0} in {1}; Claude Code's /status shows which credential is in use.",
        CLAUDE_API_KEY,
        where(key.from),
      ),
    });
  return out;
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
  resolved.model = lookup(CLAUDE_MODEL, files, env) ?? settingOf('model', files, env);
  for (const f of files) {
    const keys = conflictingKeys(f, env, gateway);
    if (keys.length) resolved.overrides.push({ from: fileSource(env, f.path), keys, fixable: f.kind !== 'managed' });
  }
  resolved.conflicts.push(...mistakes(resolved, files, env, gateway));
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

function ownTerminal(env: ToolsEnvironment, gateway: ToolGateway | undefined): boolean {
  return !!gateway && aimOf(env.env[CLAUDE_BASE_URL], gateway, '').at === 'this' && !!env.env[CLAUDE_AUTH_TOKEN];
}

async function read(env: ToolsEnvironment, gateway: ToolGateway | undefined): Promise<ToolReading> {
  const resolved = await resolveClaudeCode(env, gateway);
  return judge({
    label: t('Claude Code'),
    resolved,
    gateway,
    suffix: '',
    surface: 'native',
    none: NO_NATIVE,
    removable: ownTerminal(env, gateway),
    overridden: () => {
      const o =
        resolved.overrides.find((x) => x.keys.some((k) => k === CLAUDE_BASE_URL || k === CLAUDE_AUTH_TOKEN)) ??
        resolved.overrides[0];
      return t('{0} sets {1} in its env block, which beats the terminal variables.', o.from.where, o.keys.join(', '));
    },
  });
}

const NO_NATIVE = () =>
  t(
    'The gateway serves no model on the Anthropic Messages API (/v1/messages) for this token, which is the only API Claude Code speaks.',
  );

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
  const missing = surfaceMissing(gateway, 'native', NO_NATIVE);
  if (missing) return unavailablePlan('claude-code', 'set-up', missing);
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
export async function planClaudeFixOverride(
  env: ToolsEnvironment,
  override: { from: ToolSource; keys: string[] },
): Promise<ToolPlan | string> {
  const path = override.from.where;
  const r = await readToolFile(env, path);
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
  keys: { base: CLAUDE_BASE_URL, cred: CLAUDE_AUTH_TOKEN, model: CLAUDE_MODEL },
  configDirs: (env) => [claudeConfigDir(env)],
  read,
  planSetUp,
  planRemove,
};

// Where Claude Code keeps its settings and its claude.ai login, and reading them: the user's
// `settings.json` in `$CLAUDE_CONFIG_DIR` (default `~/.claude`), the project's `.claude/settings.json` and
// `.claude/settings.local.json`, the machine's managed-settings.json; `.claude.json` (in `$CLAUDE_CONFIG_DIR`,
// default the home folder) and `.credentials.json` for the login.

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
