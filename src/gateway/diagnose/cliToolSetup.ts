/**
 * Check 8: the native command-line coding tool's setup (spec 5, rules 6–7). Reads the environment
 * the terminal will get and the tool's user-level and project-level settings files (their `env`
 * blocks), works out which address and token the tool will really use, and says what is wrong.
 * File locations and the environment are injected so tests never touch the real home; the files are
 * read by the tools' one bounded reader (tools/toolFile.ts), a project file only in a trusted workspace.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { CliVariableNames } from '../cliEnv';
import { DEFAULT_CLI_VARIABLES } from '../defaults';
import { surfaceAdapter } from '../chat/chat';
import { joinUrl, nativeMessagesUrl, normalizeBaseUrl } from '../endpoint';
import { t } from '../l10n';
import { maskToken } from '../mask';
import { readToolFile } from '../tools/toolFile';
import type { CheckResult, FixAction } from './types';

/** The variable the tool also accepts as a key; set together with the auth token they can conflict. */
export const CLI_API_KEY_VARIABLE = 'ANTHROPIC_API_KEY';

/** The path the tool appends to its base URL (the native surface's). */
const MESSAGES_PATH = surfaceAdapter('native').path;

export interface CliToolInput {
  /** the environment a new integrated terminal gets (process env + the extension's additions) */
  env: Record<string, string | undefined>;
  /** home directory holding `.claude/settings.json`; default os.homedir() (or CLAUDE_CONFIG_DIR) */
  homeDir?: string | undefined;
  /** workspace folder holding `.claude/settings.json` and `.claude/settings.local.json` */
  workspaceDir?: string | undefined;
  /** the workspace is trusted: its settings files are read only then (tools/toolFile.ts); absent: not trusted */
  workspaceTrusted?: boolean | undefined;
  /** variable names (the extension's modelRelay.nativeCli.* settings) */
  names?: CliVariableNames | undefined;
  /** finds a command on PATH: when given, Claude Code's request is sent only where `claude` is installed */
  which?: ((command: string) => Promise<string | undefined>) | undefined;
}

export type CliSourceKind = 'terminal' | 'user' | 'project' | 'project-local';

export interface CliSource {
  kind: CliSourceKind;
  /** "terminal environment" or the settings file path */
  where: string;
  baseUrl?: string | undefined;
  token?: string | undefined;
  apiKey?: string | undefined;
}

export interface CliToolFinding {
  result: CheckResult;
  cause: string;
  fix: string;
  details: string[];
  fixAction?: FixAction | undefined;
  /** what the tool will use, after overrides */
  effective: {
    baseUrl?: { value: string; from: string } | undefined;
    token?: { masked: string; from: string; matches?: string | undefined } | undefined;
  };
}

/** "Terminal environment: …", "user settings (path): …": what one source sets. */
function sourceLine(s: CliSource, set: string): string {
  switch (s.kind) {
    case 'terminal':
      return t('Terminal environment: {0}', set);
    case 'user':
      return t('user settings ({0}): {1}', s.where, set);
    case 'project':
      return t('project settings ({0}): {1}', s.where, set);
    case 'project-local':
      return t('project local settings ({0}): {1}', s.where, set);
  }
}

/** The settings files the tool reads, lowest precedence first (user < project < project-local). */
export function cliSettingsFiles(
  input: Pick<CliToolInput, 'env' | 'homeDir' | 'workspaceDir'>,
): Array<{ kind: Exclude<CliSourceKind, 'terminal'>; path: string }> {
  // Claude Code reads its user settings from $CLAUDE_CONFIG_DIR when set, whatever the home folder.
  const configDir = input.env.CLAUDE_CONFIG_DIR?.trim() || join(input.homeDir ?? homedir(), '.claude');
  const files: Array<{ kind: Exclude<CliSourceKind, 'terminal'>; path: string }> = [
    { kind: 'user', path: join(configDir, 'settings.json') },
  ];
  if (input.workspaceDir) {
    files.push({ kind: 'project', path: join(input.workspaceDir, '.claude', 'settings.json') });
    files.push({ kind: 'project-local', path: join(input.workspaceDir, '.claude', 'settings.local.json') });
  }
  return files;
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
}

/** Reads the terminal environment and each settings file that exists. */
export async function readCliSources(
  input: CliToolInput,
): Promise<{ sources: CliSource[]; problems: Array<{ cause: string; fix: string }> }> {
  const names = input.names ?? DEFAULT_CLI_VARIABLES;
  const sources: CliSource[] = [
    {
      kind: 'terminal',
      where: t('terminal environment'),
      baseUrl: str(input.env[names.baseUrl]),
      token: str(input.env[names.token]),
      apiKey: str(input.env[CLI_API_KEY_VARIABLE]),
    },
  ];
  const problems: Array<{ cause: string; fix: string }> = [];
  for (const f of cliSettingsFiles(input)) {
    // bounded, and a project file only in a trusted workspace
    const { text, error, untrusted } = await readToolFile(input, f.path);
    if (error)
      problems.push({
        cause: error,
        fix: untrusted
          ? t('Trust the workspace to include it (relay-doctor: --trust-project).')
          : t('Make it a regular settings file of at most 1 MiB, or remove it.'),
      });
    if (text === undefined) continue;
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      problems.push({
        cause: t('{0} is not valid JSON, so the tool may ignore it or fail to start.', f.path),
        fix: t('Fix the JSON syntax of that settings file, or remove it.'),
      });
      continue;
    }
    const env = json && typeof json === 'object' ? (json as { env?: unknown }).env : undefined;
    const e = env && typeof env === 'object' ? (env as Record<string, unknown>) : {};
    sources.push({
      kind: f.kind,
      where: f.path,
      baseUrl: str(e[names.baseUrl]),
      token: str(e[names.token]),
      apiKey: str(e[CLI_API_KEY_VARIABLE]),
    });
  }
  return { sources, problems };
}

function sameBase(a: string, b: string | undefined): boolean {
  if (!b) return false;
  return normalizeBaseUrl(a).base === b && !hasV1(a);
}

/** The URL the tool calls with this base URL value (as written when it carries /v1 or is not usable). */
function toolCallsUrl(value: string): string {
  const root = normalizeBaseUrl(value).base;
  return root && !hasV1(value) ? nativeMessagesUrl(root) : joinUrl(value.trim().replace(/\/+$/, ''), MESSAGES_PATH);
}

function hasV1(v: string): boolean {
  return normalizeBaseUrl(v).findings.some((f) => f.code === 'trailing-v1' || f.code === 'full-endpoint');
}

interface Judging {
  names: CliVariableNames;
  sources: CliSource[];
  expected: { base: string | undefined; tokens: ReadonlyArray<{ name: string; value: string }> };
  warns: Array<{ cause: string; fix: string }>;
  details: string[];
  /** the sources that decide each value: later ones override earlier (terminal < user < project < project-local, spec 5 rule 7) */
  baseFrom: CliSource | undefined;
  tokenFrom: CliSource | undefined;
  keyFrom: CliSource | undefined;
}

const label = (s: CliSource) => (s.kind === 'terminal' ? t('the terminal environment') : s.where);

function describeSources(j: Judging): void {
  const { names, sources, details } = j;
  for (const s of sources) {
    const parts: string[] = [];
    if (s.baseUrl) parts.push(`${names.baseUrl}=${s.baseUrl}`);
    if (s.token) parts.push(`${names.token}=${maskToken(s.token)}`);
    if (s.apiKey) parts.push(`${CLI_API_KEY_VARIABLE}=${maskToken(s.apiKey)}`);
    details.push(
      sourceLine(s, parts.length ? parts.join(', ') : t('neither {0} nor {1} set', names.baseUrl, names.token)),
    );
  }
}

function judgeBase(j: Judging): void {
  const { names, sources, expected, warns, details, baseFrom, tokenFrom, keyFrom } = j;
  for (const s of sources) {
    if (s.baseUrl && hasV1(s.baseUrl)) {
      const root = normalizeBaseUrl(s.baseUrl).base;
      warns.push({
        cause: t(
          '{0} in {1} is {2}: it carries /v1, so the tool appends {3} again and calls /v1{3}, which answers 404.',
          names.baseUrl,
          label(s),
          s.baseUrl,
          MESSAGES_PATH,
        ),
        fix: t(
          'Set {0} to the root address {1} (never with /v1).',
          names.baseUrl,
          root ?? expected.base ?? '{base_url}',
        ),
      });
    }
  }
  if (!baseFrom && !tokenFrom && !keyFrom) {
    warns.push({
      cause: t(
        "Neither {0} nor {1} is set in the terminal environment or in the tool's settings files, so the native command-line tool will not use the gateway (it may fall back to a locally logged-in identity).",
        names.baseUrl,
        names.token,
      ),
      fix: t(
        'Run "Model Relay: Set Up Native CLI in Terminals" (a dedicated native-cli token is recommended) and start the tool in a new terminal, or export both variables in the terminal that starts it: {0}={1} (no /v1) and {2}=<token>.',
        names.baseUrl,
        expected.base ?? '{base_url}',
        names.token,
      ),
    });
  } else if (!baseFrom) {
    warns.push({
      cause: t(
        "{0} is not set in the terminal environment nor in the tool's settings files, so the tool will not use the gateway.",
        names.baseUrl,
      ),
      fix: t(
        'Run "Model Relay: Set Up Native CLI in Terminals" (or export both variables in the terminal that starts the tool).',
      ),
    });
  } else if (expected.base && !hasV1(baseFrom.baseUrl!) && !sameBase(baseFrom.baseUrl!, expected.base)) {
    const overridden = baseFrom.kind !== 'terminal';
    warns.push({
      cause: overridden
        ? t(
            '{0} overrides {1} with another address ({2}); settings files win over the terminal variables, so the tool sends its requests there, not to {3}.',
            baseFrom.where,
            names.baseUrl,
            baseFrom.baseUrl!,
            expected.base,
          )
        : t(
            "{0} in the terminal environment is {1}, which differs from the extension's base URL {2}.",
            names.baseUrl,
            baseFrom.baseUrl!,
            expected.base,
          ),
      fix: overridden
        ? t('Remove {0} from the "env" block of {1}, or set it to {2}.', names.baseUrl, baseFrom.where, expected.base)
        : t(
            'Set {0}={1} (run "Model Relay: Set Up Native CLI in Terminals" and open a new terminal).',
            names.baseUrl,
            expected.base,
          ),
    });
  } else if (baseFrom.kind !== 'terminal') {
    const terminal = sources[0];
    if (terminal.baseUrl && !sameBase(terminal.baseUrl, normalizeBaseUrl(baseFrom.baseUrl!).base)) {
      details.push(t("{0} overrides the terminal's {1} ({2}).", baseFrom.where, names.baseUrl, terminal.baseUrl));
    }
  }
}

function judgeToken(j: Judging): CliToolFinding['effective']['token'] {
  const { names, expected, warns, details, baseFrom, tokenFrom, keyFrom } = j;
  const knownName = (v: string) => expected.tokens.find((t) => t.value.trim() === v)?.name;
  if (!tokenFrom && !keyFrom) {
    if (!baseFrom) return undefined;
    warns.push({
      cause: t(
        "{0} is not set in the terminal environment nor in the tool's settings files: the tool has no gateway token (it may fall back to a locally logged-in identity).",
        names.token,
      ),
      fix: t(
        'Run "Model Relay: Set Up Native CLI in Terminals" (a dedicated native-cli token is recommended), or set {0} in the same terminal as {1}.',
        names.token,
        names.baseUrl,
      ),
    });
    return undefined;
  }
  const from = (tokenFrom ?? keyFrom)!;
  const value = (tokenFrom ? from.token : from.apiKey)!;
  const matches = knownName(value);
  const tokenInfo = { masked: maskToken(value), from: label(from), matches };
  if (!tokenFrom) {
    details.push(t('Only {0} is set ({1}); the tool sends it as its key.', CLI_API_KEY_VARIABLE, maskToken(value)));
  }
  if (expected.tokens.length && !matches) {
    warns.push({
      cause: t(
        "The token the tool will use ({0}, from {1}) differs from the extension's tokens ({2}).",
        maskToken(value),
        label(from),
        expected.tokens.map((k) => `${k.name} ${maskToken(k.value)}`).join(', '),
      ),
      fix: t(
        "Set {0} to one of the extension's tokens (a dedicated native-cli token is recommended), or remove the override from {1}.",
        names.token,
        label(from),
      ),
    });
  } else if (matches) {
    details.push(t('The tool\'s token {0} is the extension\'s "{1}" token.', maskToken(value), matches));
  }
  if (tokenFrom && keyFrom && tokenFrom.token !== keyFrom.apiKey) {
    warns.push({
      cause: t(
        'Both {0} ({1}, {2}) and {3} ({4}, {5}) are set; together they (or a locally logged-in identity) can conflict.',
        names.token,
        maskToken(tokenFrom.token),
        label(tokenFrom),
        CLI_API_KEY_VARIABLE,
        maskToken(keyFrom.apiKey),
        label(keyFrom),
      ),
      fix: t("Keep only {0}; the tool's /status command shows which credential is in use.", names.token),
    });
  }
  return tokenInfo;
}

/**
 * Judges the tool's setup against the extension's configuration.
 * `expected.base` is the extension's root address; `expected.tokens` the tokens it knows (by name).
 */
export async function inspectCliTool(
  input: CliToolInput,
  expected: { base: string | undefined; tokens: ReadonlyArray<{ name: string; value: string }> },
): Promise<CliToolFinding> {
  const names = input.names ?? DEFAULT_CLI_VARIABLES;
  const { sources, problems } = await readCliSources(input);
  const last = (has: (s: CliSource) => unknown) => [...sources].reverse().find(has);
  const j: Judging = {
    names,
    sources,
    expected,
    warns: [],
    details: [],
    baseFrom: last((s) => s.baseUrl),
    tokenFrom: last((s) => s.token),
    keyFrom: last((s) => s.apiKey),
  };
  const { warns, details, baseFrom } = j;
  describeSources(j);
  warns.push(...problems);
  judgeBase(j);
  const tokenInfo = judgeToken(j);
  const baseInfo = baseFrom ? { value: baseFrom.baseUrl!, from: label(baseFrom) } : undefined;
  const effective = { baseUrl: baseInfo, token: tokenInfo };
  if (baseInfo)
    details.unshift(
      t('The tool will call {0} ({1} from {2}).', toolCallsUrl(baseInfo.value), names.baseUrl, baseInfo.from),
    );

  if (warns.length === 0) {
    return {
      result: 'pass',
      cause: t(
        "The tool will use {0}={1} (root address, no /v1) and the token {2}, matching the extension's settings.",
        names.baseUrl,
        baseInfo!.value,
        tokenInfo!.matches ? `${tokenInfo!.masked} ("${tokenInfo!.matches}")` : tokenInfo!.masked,
      ),
      fix: '',
      details,
      effective,
    };
  }
  // Rewriting the terminal variables cannot help while a settings file overrides them.
  const fileOverrides = sources.some((s) => s.kind !== 'terminal' && (s.baseUrl || s.token || s.apiKey));
  const fixAction: FixAction | undefined = fileOverrides ? undefined : { kind: 'setup-native-cli' };
  return {
    result: 'warn',
    cause: warns.map((w) => w.cause).join(' '),
    fix: dedupe(warns.map((w) => w.fix)).join(' '),
    details,
    fixAction,
    effective,
  };
}

function dedupe(a: string[]): string[] {
  return [...new Set(a)];
}
