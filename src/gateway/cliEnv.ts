/**
 * The environment for the native command-line coding tool (spec 5, rules 6–7): a base-URL variable
 * set to the root address (never with /v1, unless the user kept a base URL as typed) and an
 * auth-token variable, both in the same terminal.
 */
import { DEFAULT_CLI_VARIABLES } from './defaults';
import { normalizeBaseUrl, verbatimBaseUrl } from './endpoint';
import { t } from './l10n';

export interface CliVariableNames {
  baseUrl: string;
  token: string;
}

export function nativeCliEnvironment(
  baseUrl: string,
  token: string,
  names: CliVariableNames = DEFAULT_CLI_VARIABLES,
  /** verbatim: the base URL the user chose to keep as typed (the extension calls it as is, so the tool does too) */
  opts: { verbatim?: boolean } = {},
): Record<string, string> {
  const n = normalizeBaseUrl(baseUrl);
  const base = opts.verbatim ? (verbatimBaseUrl(baseUrl) ?? n.base) : n.base;
  if (!base)
    throw new Error(t('The base URL "{0}" is not usable: {1}', baseUrl, n.findings[0]?.message ?? t('invalid')));
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(names.baseUrl) || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(names.token))
    throw new Error(t('Environment variable names must be letters, digits and underscores.'));
  return { [names.baseUrl]: base, [names.token]: token };
}

/** The root address the terminal tools get for a base URL (never /v1, unless the user kept the base URL as typed). */
export function terminalRoot(baseUrl: string, verbatim: boolean): string {
  const names = DEFAULT_CLI_VARIABLES;
  return nativeCliEnvironment(baseUrl, 'x', names, { verbatim })[names.baseUrl];
}

/** The part of VS Code's EnvironmentVariableCollection used here (structural: no vscode import). */
export interface EnvCollection {
  persistent: boolean;
  description?: unknown;
  clear(): void;
  replace(variable: string, value: string): void;
}

/**
 * Puts the variables into new terminals: replaced (not appended), and never persisted, so VS Code
 * does not write the token to disk.
 */
export function applyCliEnvironment(collection: EnvCollection, env: Record<string, string>, description: string): void {
  collection.persistent = false;
  collection.clear();
  for (const [k, v] of Object.entries(env)) collection.replace(k, v);
  collection.description = description;
}
