/**
 * Which token is active: the one rule, read by the token store and by the activation entry (which
 * shows the name before the rest loads). No imports, so the activation bundle stays light.
 */

/** global state keys: the token names (values live in SecretStorage) and the active name */
export const TOKEN_NAMES_KEY = 'modelRelay.tokenNames';
export const ACTIVE_TOKEN_KEY = 'modelRelay.activeToken';

/** The part of VS Code's Memento read here. */
export interface StateReader {
  get<T>(key: string): T | undefined;
}

/** The stored token names, in the order they were added. */
export function tokenNames(state: StateReader): string[] {
  const names = state.get<unknown>(TOKEN_NAMES_KEY);
  return Array.isArray(names) ? names.filter((n): n is string => typeof n === 'string') : [];
}

/** The active token's name: the chosen one while it exists, else the first stored, else none. */
export function activeTokenName(state: StateReader): string | undefined {
  const names = tokenNames(state);
  const chosen = state.get<unknown>(ACTIVE_TOKEN_KEY);
  return typeof chosen === 'string' && names.includes(chosen) ? chosen : names[0];
}
