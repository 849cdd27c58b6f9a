/**
 * Which token is active, and where a gateway's tokens are kept: the one rule, read by the token
 * store and by the activation entry (which shows the name before the rest loads). No imports, so
 * the activation bundle stays light.
 *
 * The gateway with id `default` (made from today's `modelRelay.baseUrl`) keeps the keys tokens had
 * before there were several gateways, so nothing is lost or redone after the update. Any other
 * gateway's keys hold its id between `/` (an id cannot contain one): with `.` alone, the id `a` and
 * a token named `token.x` would share a key with the id `a.token` and a token named `x`.
 */

/** global state keys of the `default` gateway: the token names (values live in SecretStorage) and the active name */
export const TOKEN_NAMES_KEY = 'modelRelay.tokenNames';
export const ACTIVE_TOKEN_KEY = 'modelRelay.activeToken';
/** the gateway made from `modelRelay.baseUrl` (and the tokens stored before gateways existed) */
export const DEFAULT_GATEWAY_ID = 'default';

/** Where one gateway's tokens are kept. */
export interface TokenKeys {
  /** global state: the names, in the order they were added */
  names: string;
  /** global state: the active name */
  active: string;
  /** SecretStorage: the value of token `n` is at `${secretPrefix}${n}` */
  secretPrefix: string;
}

/** The keys of a gateway's tokens (the `default` gateway: today's keys). */
export function tokenKeys(gatewayId: string = DEFAULT_GATEWAY_ID): TokenKeys {
  if (gatewayId === DEFAULT_GATEWAY_ID)
    return { names: TOKEN_NAMES_KEY, active: ACTIVE_TOKEN_KEY, secretPrefix: 'modelRelay.token.' };
  const at = `modelRelay.gateway/${gatewayId}/`;
  return { names: `${at}tokenNames`, active: `${at}activeToken`, secretPrefix: `${at}token.` };
}

/** The part of VS Code's Memento read here. */
export interface StateReader {
  get<T>(key: string): T | undefined;
}

/** The stored token names, in the order they were added. */
export function tokenNames(state: StateReader, keys: TokenKeys = tokenKeys()): string[] {
  const names = state.get<unknown>(keys.names);
  return Array.isArray(names) ? names.filter((n): n is string => typeof n === 'string') : [];
}

/** The active token's name: the chosen one while it exists, else the first stored, else none. */
export function activeTokenName(state: StateReader, keys: TokenKeys = tokenKeys()): string | undefined {
  const names = tokenNames(state, keys);
  const chosen = state.get<unknown>(keys.active);
  return typeof chosen === 'string' && names.includes(chosen) ? chosen : names[0];
}
