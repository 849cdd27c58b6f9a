/**
 * Gemini CLI, resolved as the tool resolves it: `GOOGLE_GEMINI_BASE_URL` (root address, no
 * /v1beta), `GEMINI_API_KEY` (sent as x-goog-api-key) and `GEMINI_MODEL` from the environment. Values
 * missing from the environment are filled from the first `.env` file found — `.gemini/.env` then
 * `.env` in the workspace folder and each parent up to the home folder, then `~/.gemini/.env`, then
 * `~/.env` — and never override a variable the terminal already has (Gemini CLI's loadEnvironment).
 * The sign-in method is `security.auth.selectedType` (older builds: `selectedAuthType`) in the
 * settings files, system > project > user (`$GEMINI_CLI_HOME/.gemini/settings.json`, default `~`).
 *
 * Setting it up puts the two variables into new terminals and, when no sign-in method is selected,
 * selects the API key in the user's settings (diff first): Gemini CLI 0.61 takes
 * GOOGLE_GEMINI_BASE_URL for a "gateway" sign-in it refuses headless ("Invalid auth method
 * selected." from `gemini -p`), checked against the real CLI. Remove Setup takes that back (the
 * original restored). A selectedType naming another sign-in method overrides the key: its Fix sets
 * it to "gemini-api-key".
 */
import { dirname, join, resolve } from 'node:path';
import { parse as parseDotenvText } from 'dotenv';
import { t } from '../l10n';
import {
  aimOf,
  authOf,
  emptyResolved,
  fileSource,
  gatewayRoot,
  judge,
  surfaceMissing,
  TERMINAL,
  unavailablePlan,
  type ToolModule,
  type ToolReading,
} from './common';
import { editJsonc, fileEdit, isObject, parseJsonc, strAt, type Json } from './configFile';
import { ToolBackups } from './toolBackups';
import { readToolFile } from './toolFile';
import type { FileEdit, ResolvedToolConfig, ToolGateway, ToolPlan, ToolSource, ToolsEnvironment } from './types';

export const GEMINI_BASE_URL = 'GOOGLE_GEMINI_BASE_URL';
export const GEMINI_API_KEY = 'GEMINI_API_KEY';
export const GEMINI_MODEL = 'GEMINI_MODEL';
export const GEMINI_KEY_AUTH = 'gemini-api-key';
const VARIABLES = [GEMINI_BASE_URL, GEMINI_API_KEY, GEMINI_MODEL, 'GOOGLE_GENAI_USE_VERTEXAI'];

export function geminiUserDir(env: ToolsEnvironment): string {
  return join(env.env.GEMINI_CLI_HOME?.trim() || env.homeDir, '.gemini');
}

/** The `.env` files Gemini CLI looks at, in order; it loads only the first that exists. */
export function geminiEnvFileCandidates(env: ToolsEnvironment): string[] {
  const home = resolve(env.homeDir);
  const out: string[] = [];
  if (env.workspaceDir) {
    let dir = resolve(env.workspaceDir);
    for (let i = 0; i < 64; i++) {
      if (dir === home) break;
      out.push(join(dir, '.gemini', '.env'), join(dir, '.env'));
      const up = dirname(dir);
      if (up === dir) break;
      dir = up;
    }
  }
  out.push(join(geminiUserDir(env), '.env'), join(home, '.env'));
  return out;
}

/**
 * A `.env` file's variables as Gemini CLI reads them: by `dotenv`'s own parser, the one Gemini CLI
 * uses (quotes removed, `# comment` after a value dropped, `export ` allowed, a later key winning).
 */
export function parseDotenv(text: string): Record<string, string> {
  return parseDotenvText(text);
}

async function dotenv(
  env: ToolsEnvironment,
  problems: string[],
): Promise<{ path: string; vars: Record<string, string> } | undefined> {
  for (const path of geminiEnvFileCandidates(env)) {
    const r = await readToolFile(env, path);
    if (r.text !== undefined) return { path, vars: parseDotenv(r.text) };
    // Gemini CLI loads the first .env there is: one not read here (untrusted, not a regular file) hides the rest
    if (r.error) {
      problems.push(r.error);
      return undefined;
    }
  }
  return undefined;
}

function systemSettingsPath(env: ToolsEnvironment): string | undefined {
  const injected = env.systemFiles?.geminiSystemSettings;
  if (injected !== undefined) return injected ?? undefined;
  if (env.env.GEMINI_CLI_SYSTEM_SETTINGS_PATH) return env.env.GEMINI_CLI_SYSTEM_SETTINGS_PATH;
  if (process.platform === 'darwin') return '/Library/Application Support/GeminiCli/settings.json';
  if (process.platform === 'win32') return 'C:\\ProgramData\\gemini-cli\\settings.json';
  return '/etc/gemini-cli/settings.json';
}

/** Settings files, lowest precedence first. */
export function geminiSettingsPaths(env: ToolsEnvironment): string[] {
  const files = [join(geminiUserDir(env), 'settings.json')];
  if (env.workspaceDir) files.push(join(env.workspaceDir, '.gemini', 'settings.json'));
  const sys = systemSettingsPath(env);
  if (sys) files.push(sys);
  return files;
}

interface GeminiEnvValue {
  value: string;
  from: ToolSource;
}

function variable(
  key: string,
  env: ToolsEnvironment,
  file: { path: string; vars: Record<string, string> } | undefined,
): GeminiEnvValue | undefined {
  const own = env.env[key];
  if (own !== undefined && own.trim() !== '') return { value: own.trim(), from: { ...TERMINAL(), key } };
  if (own !== undefined) return undefined;
  const v = file?.vars[key]?.trim();
  return v ? { value: v, from: fileSource(env, file!.path, key) } : undefined;
}

async function selectedType(
  env: ToolsEnvironment,
  problems: string[],
): Promise<{ value: string; path: string; key: string } | undefined> {
  let found: { value: string; path: string; key: string } | undefined;
  for (const path of geminiSettingsPaths(env)) {
    const r = await readToolFile(env, path);
    if (r.error) problems.push(r.error);
    if (r.text === undefined) continue;
    const p = parseJsonc(r.text);
    if (p.error !== undefined || !isObject(p.value)) {
      problems.push(t('{0} is not valid JSON, so Gemini CLI reports an error and ignores it.', path));
      continue;
    }
    const v2 = strAt(p.value, 'security', 'auth', 'selectedType');
    const v1 = strAt(p.value, 'selectedAuthType');
    if (v2) found = { value: v2, path, key: 'security.auth.selectedType' };
    else if (v1) found = { value: v1, path, key: 'selectedAuthType' };
  }
  return found;
}

export async function resolveGeminiCli(
  env: ToolsEnvironment,
  gateway: ToolGateway | undefined,
): Promise<ResolvedToolConfig> {
  const r = emptyResolved();
  const file = await dotenv(env, r.problems);
  const base = variable(GEMINI_BASE_URL, env, file);
  r.baseUrl = base ?? {
    value: 'https://generativelanguage.googleapis.com',
    from: { kind: 'default', where: t('built-in default') },
  };
  const key = variable(GEMINI_API_KEY, env, file);
  if (key) r.auth = authOf('x-goog-api-key', key.value, key.from, gateway);
  const model = variable(GEMINI_MODEL, env, file);
  if (model) r.model = model;
  const sel = await selectedType(env, r.problems);
  if (sel && sel.value !== GEMINI_KEY_AUTH)
    r.overrides.push({ from: fileSource(env, sel.path, sel.key), keys: [sel.key], fixable: true });
  if (!sel && base)
    r.conflicts.push({
      what: t(
        'No sign-in method is selected: Gemini CLI takes {0} for a "gateway" sign-in and refuses it when run with -p ("Invalid auth method selected.").',
        GEMINI_BASE_URL,
      ),
      fix: t(
        'Run "Model Relay: Set Up Tools…" for Gemini CLI (it selects the API key), or pick "Use Gemini API Key" in Gemini CLI once.',
      ),
    });
  const vertex = variable('GOOGLE_GENAI_USE_VERTEXAI', env, file);
  if (vertex && /^(true|1)$/i.test(vertex.value))
    r.conflicts.push({
      what: t(
        'GOOGLE_GENAI_USE_VERTEXAI is set ({0}), so Gemini CLI may use Vertex AI instead of the gateway.',
        vertex.from.where,
      ),
      fix: t('Unset GOOGLE_GENAI_USE_VERTEXAI in the terminal that starts Gemini CLI.'),
    });
  if (base && /\/v1(beta)?\/?$/.test(base.value))
    r.conflicts.push({
      what: t(
        '{0} is {1}: Gemini CLI appends /v1beta/models/… itself, so it calls /v1beta twice and gets 404.',
        GEMINI_BASE_URL,
        base.value,
      ),
      fix: t(
        'Set {0} to the root address {1}.',
        GEMINI_BASE_URL,
        gateway ? gatewayRoot(gateway) : base.value.replace(/\/v1(beta)?\/?$/, ''),
      ),
    });
  return r;
}

const NO_GEMINI = () =>
  t(
    'The gateway lists no model with the gemini endpoint type for this token, so Gemini CLI has nothing to call there.',
  );

async function read(env: ToolsEnvironment, gateway: ToolGateway | undefined): Promise<ToolReading> {
  const resolved = await resolveGeminiCli(env, gateway);
  return judge({
    label: t('Gemini CLI'),
    resolved,
    gateway,
    suffix: '',
    surface: 'gemini',
    none: NO_GEMINI,
    removable:
      !!gateway && aimOf(env.env[GEMINI_BASE_URL], gateway, '').at === 'this' && !!env.env[GEMINI_API_KEY]?.trim(),
    overridden: () =>
      t(
        '{0} in {1} selects another sign-in method, so Gemini CLI does not use GEMINI_API_KEY.',
        resolved.overrides[0].from.key ?? '',
        resolved.overrides[0].from.where,
      ),
  });
}

async function planSetUp(env: ToolsEnvironment, gateway: ToolGateway, choices: { model?: string }): Promise<ToolPlan> {
  const missing = surfaceMissing(gateway, 'gemini', NO_GEMINI);
  if (missing) return unavailablePlan('gemini-cli', 'set-up', missing);
  const plan: ToolPlan = {
    tool: 'gemini-cli',
    action: 'set-up',
    edits: [],
    terminalEnv: { [GEMINI_BASE_URL]: gatewayRoot(gateway), [GEMINI_API_KEY]: { token: true } },
    notes: [
      t('New terminals get {0} (the root address, no /v1beta) and the token as {1}.', GEMINI_BASE_URL, GEMINI_API_KEY),
    ],
  };
  const signIn = await signInEdit(env);
  if (typeof signIn === 'string') plan.notes.push(signIn);
  else if (signIn) plan.edits.push(signIn);
  if (choices.model) {
    const ok = gateway.models.some((m) => m.id === choices.model && m.surfaces.includes('gemini'));
    if (ok) plan.terminalEnv[GEMINI_MODEL] = choices.model;
    else
      plan.notes.push(
        t(
          '{0} is not listed with the gemini endpoint type for this token, so {1} is left unset.',
          choices.model,
          GEMINI_MODEL,
        ),
      );
  }
  const resolved = await resolveGeminiCli(env, gateway);
  for (const o of resolved.overrides)
    plan.notes.push(
      t(
        '{0} in {1} selects another sign-in method; use its Fix, or Gemini CLI ignores the key.',
        o.from.key ?? '',
        o.from.where,
      ),
    );
  return plan;
}

async function planRemove(env: ToolsEnvironment): Promise<ToolPlan> {
  const plan: ToolPlan = {
    tool: 'gemini-cli',
    action: 'remove',
    edits: [],
    terminalEnv: {},
    removeEnv: VARIABLES.slice(0, 3),
    notes: [t('New terminals no longer get the Gemini CLI variables.')],
  };
  // the sign-in method Model Relay chose in the user's settings, taken back (its original restored)
  const path = userSettingsPath(env);
  if (!env.backupDir || !(await ToolBackups.open(env.backupDir).then((b) => b.wrote(path)))) return plan;
  const r = await readToolFile(env, path);
  const p = r.text === undefined ? undefined : parseJsonc(r.text);
  if (
    r.text === undefined ||
    !p ||
    p.error !== undefined ||
    strAt(p.value, 'security', 'auth', 'selectedType') !== GEMINI_KEY_AUTH
  )
    return plan;
  const after = editJsonc(r.text, ['security', 'auth', 'selectedType'], undefined);
  plan.edits.push(
    fileEdit(r, after, t('Takes the sign-in method Model Relay set out of {0}.', path), {
      ours: { before: true, after: false },
    }),
  );
  return plan;
}

/** The user's own settings file (where Set Up Tools selects the sign-in method). */
const userSettingsPath = (env: ToolsEnvironment) => join(geminiUserDir(env), 'settings.json');

/**
 * Gemini CLI 0.61 takes GOOGLE_GEMINI_BASE_URL for a "gateway" sign-in and then refuses to run
 * headless (`gemini -p`: "Invalid auth method selected."); with the API key selected in the user's
 * settings it sends GEMINI_API_KEY to that address. The edit selecting it (none when a sign-in
 * method is already selected: another one is an override with its own Fix), or why it cannot be made.
 */
async function signInEdit(env: ToolsEnvironment): Promise<FileEdit | string | undefined> {
  const path = userSettingsPath(env);
  const r = await readToolFile(env, path);
  if (r.error) return r.error;
  const p = r.text === undefined ? undefined : parseJsonc(r.text);
  if (p && (p.error !== undefined || !isObject(p.value)))
    return t('{0} is not valid JSON, so it was left untouched.', path);
  const json: Json = p && isObject(p.value) ? p.value : {};
  if (strAt(json, 'security', 'auth', 'selectedType') !== undefined || strAt(json, 'selectedAuthType') !== undefined)
    return undefined;
  const after = editJsonc(r.text ?? '{}\n', ['security', 'auth', 'selectedType'], GEMINI_KEY_AUTH);
  return fileEdit(
    r,
    after,
    t(
      'Selects the API key as the sign-in method in {0} ("{1}"), so Gemini CLI sends GEMINI_API_KEY to the gateway, also when run with -p.',
      path,
      GEMINI_KEY_AUTH,
    ),
    { ours: { before: false, after: true } },
  );
}

/** Sets the sign-in method of one settings file to the API key. */
export async function planGeminiFixOverride(
  env: ToolsEnvironment,
  override: { from: ToolSource },
): Promise<ToolPlan | string> {
  const path = override.from.where;
  const r = await readToolFile(env, path);
  if (r.error) return r.error;
  if (r.text === undefined) return t('{0} no longer exists.', path);
  const p = parseJsonc(r.text);
  if (p.error !== undefined || !isObject(p.value)) return t('{0} is not valid JSON, so it was left untouched.', path);
  const json: Json = p.value;
  let after = r.text;
  if (strAt(json, 'selectedAuthType') !== undefined && strAt(json, 'selectedAuthType') !== GEMINI_KEY_AUTH)
    after = editJsonc(after, ['selectedAuthType'], GEMINI_KEY_AUTH);
  if (strAt(json, 'security', 'auth', 'selectedType') !== undefined)
    after = editJsonc(after, ['security', 'auth', 'selectedType'], GEMINI_KEY_AUTH);
  if (after === r.text) return t('{0} already selects the API key.', path);
  const edit: FileEdit = {
    path,
    before: r.text,
    after,
    beforeHash: r.hash,
    mtimeMs: r.mtimeMs,
    summary: t(
      'Sets the sign-in method in {0} to "{1}", so Gemini CLI sends GEMINI_API_KEY to the gateway.',
      path,
      GEMINI_KEY_AUTH,
    ),
  };
  return { tool: 'gemini-cli', action: 'fix-override', edits: [edit], terminalEnv: {}, notes: [] };
}

export const geminiCli: ToolModule = {
  id: 'gemini-cli',
  label: () => t('Gemini CLI'),
  command: 'gemini',
  keys: { base: GEMINI_BASE_URL, cred: GEMINI_API_KEY, model: GEMINI_MODEL },
  configDirs: (env) => [geminiUserDir(env)],
  read,
  planSetUp,
  planRemove,
};
