/**
 * `relay-doctor --gateways FILE`: several gateways, in the shape of the extension's
 * `modelRelay.gateways` setting, each naming the environment variable that holds its token:
 *
 *   { "gateways": [ { "id", "name", "baseUrl", "backupUrls"?, "extraHeaders"?, "defaultSurface"?,
 *                     "models"?, "tokenEnv": "RELAY_B_TOKEN" } ], "fallbacks"?: { … } }
 *
 * (or the bare list). A token in the file is refused before anything else is read from it: a file
 * is copied into backups, dotfile repositories and shared folders. Every problem is a usage error
 * (exit 2) that never echoes a value the file holds, only masked.
 */
import { open } from 'node:fs/promises';
import { resolve } from 'node:path';
import { maskToken, parseFallbacks, parseGateways, type Fallbacks, type GatewayProfile } from '../gateway';
import { gatewayNamed } from '../gateway/diagnose/diagnoseGateways';
import { t } from '../gateway/l10n';
import { UsageError } from './config';

export const MAX_GATEWAYS_FILE_BYTES = 1024 * 1024;

/** An environment variable's name, as tokenEnv must give it. */
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
/** Field names that hold a credential (tokenEnv, which names a variable, is the one allowed). */
const SECRET_FIELD =
  /^(keys?|auth)$|token|api[-_]?key|secret|passw(or)?d|authorization|bearer|credential|cookie|private[-_]?key/i;
/** Values that are a credential: a gateway key (sk-…) or a bearer credential. */
const SECRET_VALUE = /\bsk-[A-Za-z0-9_-]{8,}|^\s*bearer\s+\S{6,}/i;

export interface GatewaysFile {
  /** the file as given (for messages) */
  path: string;
  gateways: GatewayProfile[];
  fallbacks: Fallbacks;
  /** the environment variable each gateway's token is read from, by gateway id */
  tokenEnv: ReadonlyMap<string, string>;
}

interface SecretSighting {
  at: string;
  masked: string;
}

/** Where a key stands in a path: masked when the key itself looks like a token. */
const keyText = (k: string) => (SECRET_VALUE.test(k) ? maskToken(k) : k);

/** Deeper than any gateways file needs (the scan is recursive: a hostile file must not exhaust the stack). */
const MAX_DEPTH = 32;

/** The first credential in the file: a field named like one (with a value), or a value that looks like one. */
export function findSecret(value: unknown, at = '', modelKeys = false, depth = 0): SecretSighting | undefined {
  if (depth > MAX_DEPTH) throw new UsageError(t('The gateways file is nested deeper than {0} levels.', MAX_DEPTH));
  if (typeof value === 'string')
    return SECRET_VALUE.test(value) ? { at: at || '(top)', masked: maskToken(value) } : undefined;
  if (!value || typeof value !== 'object') return undefined;
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) {
      const found = findSecret(v, `${at}[${i}]`, false, depth + 1);
      if (found) return found;
    }
    return undefined;
  }
  for (const [k, v] of Object.entries(value)) {
    const path = at ? `${at}.${keyText(k)}` : keyText(k);
    if (SECRET_VALUE.test(k)) return { at: path, masked: maskToken(k) };
    // A fallbacks key is a model id, not a field name.
    const named = !modelKeys && k !== 'tokenEnv' && SECRET_FIELD.test(k);
    if (named && v !== '' && v !== null && v !== undefined)
      return { at: path, masked: typeof v === 'string' ? maskToken(v) : '…' };
    const found = findSecret(v, path, !at && k === 'fallbacks', depth + 1);
    if (found) return found;
  }
  return undefined;
}

/** Reads at most MAX_GATEWAYS_FILE_BYTES (+1, to tell a larger file) of a regular file. */
async function readBounded(file: string, shown: string): Promise<string> {
  let fh;
  try {
    fh = await open(file, 'r');
  } catch (e) {
    const code = (e as { code?: string }).code ?? '';
    throw new UsageError(t('The gateways file {0} cannot be read ({1}).', shown, code || String(e)));
  }
  try {
    const st = await fh.stat();
    if (!st.isFile()) throw new UsageError(t('The gateways file {0} is not a regular file.', shown));
    const buf = Buffer.alloc(MAX_GATEWAYS_FILE_BYTES + 1);
    let n = 0;
    while (n < buf.length) {
      const { bytesRead } = await fh.read(buf, n, buf.length - n, n);
      if (!bytesRead) break;
      n += bytesRead;
    }
    if (n > MAX_GATEWAYS_FILE_BYTES)
      throw new UsageError(
        t('The gateways file {0} is larger than {1} MB: it cannot be a list of gateways.', shown, 1),
      );
    return buf.subarray(0, n).toString('utf8');
  } finally {
    await fh.close().catch(() => undefined);
  }
}

/** JSON.parse without its message (which quotes the text, and the text may hold a token): line and column only. */
function parseJson(text: string, shown: string): unknown {
  try {
    return JSON.parse(text.replace(/^\uFEFF/, '')) as unknown;
  } catch (e) {
    const pos = /position (\d+)/.exec((e as Error).message);
    if (!pos) throw new UsageError(t('The gateways file {0} is not valid JSON.', shown));
    const before = text.slice(0, Number(pos[1]));
    const line = before.split('\n').length;
    const column = before.length - before.lastIndexOf('\n');
    throw new UsageError(t('The gateways file {0} is not valid JSON (line {1}, column {2}).', shown, line, column));
  }
}

/** The entries and fallbacks of the file's top level: `{ gateways, fallbacks? }` or the bare list. */
function topLevel(json: unknown, shown: string): { entries: unknown[]; fallbacks: unknown } {
  if (Array.isArray(json)) return { entries: json, fallbacks: undefined };
  if (!json || typeof json !== 'object')
    throw new UsageError(t('The gateways file {0} must hold {"gateways": [ … ]} or a list of gateways.', shown));
  const o = json as Record<string, unknown>;
  const unknown = Object.keys(o).filter((k) => k !== 'gateways' && k !== 'fallbacks' && k !== '$schema');
  if (unknown.length)
    throw new UsageError(
      t(
        'The gateways file {0} has a field relay-doctor does not know: "{1}" (known: gateways, fallbacks).',
        shown,
        unknown[0],
      ),
    );
  if (!Array.isArray(o.gateways))
    throw new UsageError(t('The gateways file {0} must hold {"gateways": [ … ]} or a list of gateways.', shown));
  return { entries: o.gateways, fallbacks: o.fallbacks };
}

/** Parses the file's JSON (the token refusal first). Throws a UsageError naming every problem. */
export function parseGatewaysFile(json: unknown, shown: string): GatewaysFile {
  const secret = findSecret(json);
  if (secret)
    throw new UsageError(
      t(
        'The gateways file {0} holds a token at {1} ({2}): it was not used. A token in a file is copied into backups, dotfile repositories and shared folders. Put each token in an environment variable and name that variable in the gateway\'s "tokenEnv" (e.g. "tokenEnv": "RELAY_B_TOKEN"); revoke the token in the gateway console if the file was shared.',
        shown,
        secret.at,
        secret.masked,
      ),
    );
  const { entries, fallbacks: rawFallbacks } = topLevel(json, shown);
  if (!entries.length) throw new UsageError(t('The gateways file {0} lists no gateway.', shown));
  const tokenEnvOf = new Map<unknown, string>();
  const stripped = entries.map((entry) => {
    if (!entry || typeof entry !== 'object' || Array.isArray(entry)) return entry;
    const { tokenEnv, ...rest } = entry as Record<string, unknown>;
    if (typeof tokenEnv === 'string') tokenEnvOf.set(rest, tokenEnv);
    else if (tokenEnv !== undefined) tokenEnvOf.set(rest, '');
    return rest;
  });
  const { gateways, problems } = parseGateways(stripped, (entry, at) => {
    const env = tokenEnvOf.get(entry);
    if (env === undefined)
      return t(
        '{0} has no "tokenEnv": name the environment variable that holds its token, e.g. "tokenEnv": "RELAY_B_TOKEN".',
        at,
      );
    if (!ENV_NAME.test(env))
      return t('{0} has a "tokenEnv" that is not an environment variable name (letters, digits and _).', at);
    return undefined;
  });
  const { fallbacks, problem } = parseFallbacks(rawFallbacks);
  const all = problem ? [...problems, problem] : problems;
  if (all.length) throw new UsageError(t('The gateways file {0} has problems: {1}', shown, all.join(' ')));
  // No problem: every entry was kept, in order.
  const tokenEnv = new Map(gateways.map((g, i) => [g.id, tokenEnvOf.get(stripped[i])!]));
  return { path: shown, gateways, fallbacks, tokenEnv };
}

/** Reads and parses `--gateways FILE` (relative to `cwd`). */
export async function readGatewaysFile(file: string, cwd: string): Promise<GatewaysFile> {
  const text = await readBounded(resolve(cwd, file), file);
  return parseGatewaysFile(parseJson(text, file), file);
}

/** The gateway `--gateway NAME` picks (its name or id, any case); without one, the file's only gateway. */
export function pickGateway(file: GatewaysFile, ref: string | undefined): GatewayProfile {
  const names = file.gateways.map((g) => `${g.name} (${g.id})`).join(', ');
  if (ref === undefined) {
    if (file.gateways.length === 1) return file.gateways[0];
    throw new UsageError(
      t('The gateways file {0} lists several gateways: pick one with --gateway NAME ({1}).', file.path, names),
    );
  }
  const g = gatewayNamed(file.gateways, ref);
  if (!g) throw new UsageError(t('No gateway in {0} is named "{1}" (the gateways: {2}).', file.path, ref, names));
  return g;
}
