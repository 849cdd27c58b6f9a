/**
 * Reads and writes the `modelRelay.*` settings through the one schema (src/host/gateways/settingsSchema.ts).
 * `baseUrl` and `backupUrls` are read from user (machine/application) scope only: a repository's
 * .vscode/settings.json must never be able to send the user's token to another host.
 */
import * as vscode from 'vscode';
import type { ProxySettings } from '../../gateway';
import { parseSettings, relaySettings, USER_ONLY, type RelaySettings } from '../../host/gateways/settingsSchema';

export type { RelaySettings } from '../../host/gateways/settingsSchema';

export const SECTION = 'modelRelay';

export function readSettings(): RelaySettings {
  const cfg = vscode.workspace.getConfiguration(SECTION);
  return relaySettings(
    parseSettings((key) => {
      if (!USER_ONLY.has(key)) return cfg.get(key);
      const i = cfg.inspect(key);
      return i?.globalValue ?? i?.defaultValue;
    }),
  );
}

/** VS Code's own proxy and certificate settings plus the environment, for the core's dispatcher. */
export function readProxySettings(): ProxySettings {
  const http = vscode.workspace.getConfiguration('http');
  return {
    proxy: http.get<string>('proxy') || undefined,
    strictSSL: http.get<boolean>('proxyStrictSSL') ?? true,
    noProxy: http.get<string[]>('noProxy') ?? [],
    // Trust the operating system's certificate store as VS Code does (a corporate or internal CA).
    systemCertificates: http.get<boolean>('systemCertificates') ?? true,
    env: process.env,
  };
}

/** Writes the base URL to user settings (never to a workspace). */
export async function writeBaseUrl(base: string): Promise<void> {
  await vscode.workspace.getConfiguration(SECTION).update('baseUrl', base, vscode.ConfigurationTarget.Global);
}

/** `modelRelay.gateways` as the user's settings hold it (user scope only; entries as written). */
export function rawGateways(): unknown {
  return vscode.workspace.getConfiguration(SECTION).inspect('gateways')?.globalValue;
}

/** Writes `modelRelay.gateways` to user settings (never to a workspace). */
export async function writeGateways(list: unknown[]): Promise<void> {
  await vscode.workspace
    .getConfiguration(SECTION)
    .update('gateways', list.length ? list : undefined, vscode.ConfigurationTarget.Global);
}

/** Removes the gateway made from the old settings: its base URL and backups leave user settings. */
export async function clearLegacyGateway(): Promise<void> {
  const cfg = vscode.workspace.getConfiguration(SECTION);
  await cfg.update('baseUrl', undefined, vscode.ConfigurationTarget.Global);
  await cfg.update('backupUrls', undefined, vscode.ConfigurationTarget.Global);
}

/** Turns streaming off in user settings (behind a buffering proxy). */
export async function disableStreaming(): Promise<void> {
  await vscode.workspace.getConfiguration(SECTION).update('stream', false, vscode.ConfigurationTarget.Global);
}

export function affectsRelay(e: vscode.ConfigurationChangeEvent): boolean {
  return (
    e.affectsConfiguration(SECTION) ||
    e.affectsConfiguration('http.proxy') ||
    e.affectsConfiguration('http.proxyStrictSSL') ||
    e.affectsConfiguration('http.noProxy') ||
    e.affectsConfiguration('http.systemCertificates')
  );
}

/** One of VS Code's own settings (e.g. `chat.utilityModel`) as a string: '' when unset or not a string. */
export function editorSetting(key: string): string {
  const v = vscode.workspace.getConfiguration().get<unknown>(key);
  return typeof v === 'string' ? v : '';
}

/** Whether this VS Code registers one of its own settings (it has a default; e.g. chat.byokUtilityModelDefault since 1.128). */
export function editorSettingRegistered(key: string): boolean {
  return vscode.workspace.getConfiguration().inspect(key)?.defaultValue !== undefined;
}

/** One of VS Code's own settings as the user's settings hold it (undefined: not set there, its default applies). */
export function userEditorSetting(key: string): unknown {
  return vscode.workspace.getConfiguration().inspect(key)?.globalValue;
}

/** Writes one of VS Code's own settings to user settings ('' or undefined removes the user's value). */
export async function writeEditorSetting(key: string, value: unknown): Promise<void> {
  await vscode.workspace
    .getConfiguration()
    .update(key, value === '' ? undefined : value, vscode.ConfigurationTarget.Global);
}

/** One of VS Code's own boolean settings (e.g. `chat.disableAIFeatures`): true only when set to true. */
export function editorFlag(key: string): boolean {
  return vscode.workspace.getConfiguration().get<unknown>(key) === true;
}

const COMPLETIONS_ENABLED = 'completions.enabled';

/** `modelRelay.completions.enabled` for a document (its language's override first), or without one. */
export function completionsEnabledFor(scope?: vscode.ConfigurationScope): boolean {
  return vscode.workspace.getConfiguration(SECTION, scope).get<unknown>(COMPLETIONS_ENABLED) === true;
}

/** Whether inline suggestions are on anywhere: in general, or for some language. */
export function completionsEnabledAnywhere(): boolean {
  if (completionsEnabledFor()) return true;
  const languages = vscode.workspace.getConfiguration(SECTION).inspect(COMPLETIONS_ENABLED)?.languageIds ?? [];
  return languages.some((languageId) => completionsEnabledFor({ languageId }));
}

/**
 * Turns inline suggestions on or off where the value for `languageId` comes from: its language
 * override if it has one (user or workspace), else the workspace's value if set, else user settings.
 */
export async function writeCompletionsEnabled(value: boolean, languageId: string | undefined): Promise<void> {
  const cfg = vscode.workspace.getConfiguration(SECTION, languageId ? { languageId } : undefined);
  const i = cfg.inspect(COMPLETIONS_ENABLED);
  const { Global, Workspace } = vscode.ConfigurationTarget;
  if (languageId && i?.workspaceLanguageValue !== undefined)
    return cfg.update(COMPLETIONS_ENABLED, value, Workspace, true);
  if (languageId && i?.globalLanguageValue !== undefined) return cfg.update(COMPLETIONS_ENABLED, value, Global, true);
  await cfg.update(COMPLETIONS_ENABLED, value, i?.workspaceValue !== undefined ? Workspace : Global);
}

/** Writes `modelRelay.completions.model` (the completion model of the gateway made from the old settings) to user settings. */
export async function writeDefaultCompletionModel(model: string): Promise<void> {
  await vscode.workspace
    .getConfiguration(SECTION)
    .update('completions.model', model || undefined, vscode.ConfigurationTarget.Global);
}

export function affectsCompletions(e: vscode.ConfigurationChangeEvent): boolean {
  return e.affectsConfiguration(`${SECTION}.completions`) || e.affectsConfiguration(`${SECTION}.gateways`);
}
