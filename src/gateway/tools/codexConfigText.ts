/**
 * What Model Relay writes into Codex's config.toml and takes back out of it, as text (no I/O): per
 * gateway (`gateway.providerId`, e.g. `model-relay-main`) a `[model_providers.<id>]` and a
 * `[profiles.<id>]` table appended after a comment line naming the gateway, and — the only root
 * edit — one line `profile = "<id>"` whose comment keeps the line it replaced (or says there was
 * none). Two gateways stand side by side: setting up B keeps A's tables and points `profile` at B.
 * Taking a gateway's setup back cuts out exactly its tables (a key the user added inside one goes
 * with it) and puts the previous `profile` line back; the result is checked by parsing it. The older
 * layout (one shared `model-relay` table after a marker comment recording root keys it rewrote) is
 * still recognised and taken back. The token is never written: `env_key` names a variable.
 */
import { aimOf, gatewayV1, isOurProviderId } from './common';
import { isObject, strAt, type Json } from './configFile';
import {
  cutLine,
  cutTables,
  parseToml,
  putRootLine,
  rootLine,
  sameToml,
  tableBlock,
  tomlKey,
  tomlString,
  type RootLine,
} from './tomlText';
import type { ToolGateway } from './types';

/**
 * The older layout's marker line, above the one `[model_providers.model-relay]` table Model Relay
 * added before tables were per gateway; what follows `=` is the record as JSON. Only read (and taken back).
 */
export const MARKER = '# Added by Model Relay (Set Up Tools); Remove Setup takes it back. model-relay-setup=';

/** The older layout's record of what it changed besides its table. */
export interface CodexRecord {
  /** the provider id used */
  id: string;
  /** root keys set, with the values written */
  set: Record<string, string>;
  /** their values before (absent: the key did not exist) */
  was: Record<string, string | undefined>;
  /** the lines inserted for keys that did not exist */
  ins: string;
  /** a newline was added at the end of the file before the block */
  nl?: boolean;
  /** the file did not exist */
  created?: boolean;
}

export function markerLineOf(text: string): { line: string; record: CodexRecord } | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(MARKER)) continue;
    try {
      const record = JSON.parse(line.slice(MARKER.length)) as CodexRecord;
      if (typeof record.id === 'string' && isObject(record.set)) return { line, record };
    } catch {
      // a marker we cannot read is treated as the user's own comment
    }
  }
  return undefined;
}

/** The comment line above the tables Model Relay adds for a gateway. */
const TABLES_NOTE = '# Added by Model Relay (Set Up Tools) for ';
/** The comment of the root `profile` line Model Relay sets: the line it replaced (as JSON), or none. */
const PROFILE_NOTE = '# set by Model Relay; before: ';

const isNote = (line: string) => line.startsWith(TABLES_NOTE) || line.startsWith(MARKER);
const tomlOf = (text: string): Json => parseToml(text).value ?? {};

/**
 * The provider ids of the tables Model Relay added per gateway: an id of ours whose `env_key` is
 * one of Model Relay's variables (`gateway`'s own, when given); the older layout's table is not one.
 */
function ourIds(toml: Json, gateway?: ToolGateway, legacyId?: string): string[] {
  const providers = isObject(toml.model_providers) ? toml.model_providers : {};
  return Object.keys(providers).filter((id) => {
    const envKey = strAt(providers[id], 'env_key');
    if (!isOurProviderId(id) || id === legacyId || !envKey) return false;
    return gateway ? envKey === gateway.tokenVariable : /^MODEL_RELAY_\w*KEY$/.test(envKey);
  });
}

/** Model Relay's setup for `gateway` in the file (its tables, or the older layout's block): its provider id. */
export function ourSetupIn(text: string, gateway: ToolGateway | undefined): { id: string } | undefined {
  const legacy = markerLineOf(text);
  const mine = gateway ? ourIds(tomlOf(text), gateway, legacy?.record.id) : [];
  return mine.length ? { id: mine[0] } : legacy ? { id: legacy.record.id } : undefined;
}

/** The tables of the provider ids `ids`: `[model_providers.<id>]` and `[profiles.<id>]`. */
const tablesOf =
  (ids: string[]) =>
  (path: string[]): boolean =>
    path.length === 2 && (path[0] === 'model_providers' || path[0] === 'profiles') && ids.includes(path[1]);

/** The root `profile` line; `ours` when Model Relay set it, with the line it replaced (undefined: none). */
interface ProfileLine {
  at: RootLine;
  ours: boolean;
  before?: string;
}

function profileOf(text: string): ProfileLine | 'multiline' | undefined {
  const at = rootLine(text, 'profile');
  if (!at || at === 'multiline') return at;
  if (!at.comment.startsWith(PROFILE_NOTE)) return { at, ours: false };
  let before: unknown;
  try {
    before = JSON.parse(at.comment.slice(PROFILE_NOTE.length));
  } catch {
    before = undefined; // "none", or a record we cannot read: the line is taken out
  }
  // only a one-line `profile = "…"` is put back: the record is in a file anyone may have edited
  const line = typeof before === 'string' && !/[\r\n]/.test(before) ? rootLine(before, 'profile') : undefined;
  return typeof line === 'object' ? { at, ours: true, before: before as string } : { at, ours: true };
}

/** The root line `profile = "<id>"`, replacing `prev` (whose own line it records, or the one Model Relay recorded). */
function withProfile(text: string, id: string, prev: ProfileLine | undefined): string {
  const before = prev?.ours && isOurProviderId(prev.at.value) ? prev.before : prev?.at.text.replace(/\r$/, '');
  const record = before === undefined ? 'none' : JSON.stringify(before);
  return putRootLine(text, `profile = ${tomlString(id)} ${PROFILE_NOTE}${record}`, prev?.at);
}

/** The text with a `profile` line naming one of `removed` put back as it was before Model Relay set it. */
function withoutProfile(text: string, removed: string[]): string {
  const p = profileOf(text);
  if (!p || p === 'multiline' || !removed.includes(p.at.value)) return text;
  return p.ours && p.before !== undefined ? putRootLine(text, p.before, p.at) : cutLine(text, p.at);
}

/** Whether any of Model Relay's setup (any gateway's, either layout) is in the text. */
export function hasOurs(text: string): boolean {
  const p = profileOf(text);
  return !!markerLineOf(text) || ourIds(tomlOf(text)).length > 0 || (typeof p === 'object' && p.ours);
}

/** Where the older layout's table points: this gateway, another configured one, or elsewhere. */
function legacyAim(text: string, id: string, gateway: ToolGateway): 'this' | 'other' | 'elsewhere' {
  const providers = tomlOf(text).model_providers;
  return aimOf(strAt(isObject(providers) ? providers[id] : undefined, 'base_url'), gateway, '/v1').at;
}

/** The older layout taken back: its table cut out, the root keys it set put back where still its own. */
function takeBackLegacy(text: string, m: { record: CodexRecord }): string {
  const { id } = m.record;
  // the record is read from the file: only its string values count
  const strings = (o: unknown) =>
    Object.fromEntries(
      Object.entries(isObject(o) ? o : {}).filter((e): e is [string, string] => typeof e[1] === 'string'),
    );
  const set = strings(m.record.set);
  const was: Record<string, string | undefined> = strings(m.record.was);
  const ins = typeof m.record.ins === 'string' ? m.record.ins : '';
  let out = cutTables(text, (p) => p.length === 2 && p[0] === 'model_providers' && p[1] === id, isNote);
  const toml = tomlOf(out);
  const ours = Object.keys(set).filter((k) => toml[k] === set[k]);
  const inserted = Object.keys(set).filter((k) => was[k] === undefined);
  let done: string[] = [];
  if (ins && inserted.every((k) => ours.includes(k)) && out.includes(ins)) {
    out = out.replace(ins, '');
    done = inserted;
  }
  for (const k of ours.filter((key) => !done.includes(key))) {
    const at = rootLine(out, k);
    if (!at || at === 'multiline') continue;
    const value = was[k];
    const comment = at.comment ? ` ${at.comment}` : '';
    out =
      value === undefined ? cutLine(out, at) : putRootLine(out, `${tomlKey(k)} = ${tomlString(value)}${comment}`, at);
  }
  if (m.record.nl && out.endsWith('\n')) out = out.slice(0, -1);
  return out;
}

function freeId(toml: Json, base: string): string {
  const taken = (id: string) => [toml.model_providers, toml.profiles].some((x) => isObject(x) && id in x);
  let id = base;
  for (let i = 2; taken(id); i++) id = `${base}-${i}`;
  return id;
}

/**
 * The text with `gateway`'s tables (anew, at the end) and, when a model is chosen or the profile
 * already pointed at them, the root `profile` line naming them. The older layout at this gateway's
 * address is taken back first; other gateways' tables stay.
 */
export function addCodexSetup(
  text0: string,
  gateway: ToolGateway,
  model: string | undefined,
): { text: string; id: string; profile: 'set' | 'kept' | 'multiline' } {
  let text = text0;
  const legacy = markerLineOf(text);
  if (legacy && legacyAim(text, legacy.record.id, gateway) === 'this') text = takeBackLegacy(text, legacy);
  const mine = ourIds(tomlOf(text), gateway, markerLineOf(text)?.record.id);
  text = cutTables(text, tablesOf(mine), isNote);
  const prev = profileOf(text);
  const id = freeId(tomlOf(text), gateway.providerId);
  if (text !== '' && !text.endsWith('\n')) text += '\n';
  const provider = {
    name: gateway.name,
    base_url: gatewayV1(gateway),
    env_key: gateway.tokenVariable,
    wire_api: 'responses',
  };
  const profile: Record<string, string> = model ? { model_provider: id, model } : { model_provider: id };
  text += `${text === '' ? '' : '\n'}${TABLES_NOTE}${tomlString(gateway.name)}; Remove Setup takes it back.\n`;
  text += `${tableBlock(['model_providers', id], provider)}\n${tableBlock(['profiles', id], profile)}`;
  if (!(model || (typeof prev === 'object' && mine.includes(prev.at.value)))) return { text, id, profile: 'kept' };
  if (prev === 'multiline') return { text, id, profile: 'multiline' };
  return { text: withProfile(text, id, prev), id, profile: 'set' };
}

/** `toml` without the tables of `ids` and the root keys Model Relay may have changed: what must stay. */
function kept(toml: Json, ids: string[]): Json {
  const out: Json = JSON.parse(JSON.stringify(toml)) as Json;
  for (const k of ['profile', 'model', 'model_provider']) delete out[k];
  for (const k of ['model_providers', 'profiles']) {
    const tables = out[k];
    if (isObject(tables)) for (const id of ids) delete tables[id];
    if (isObject(tables) && !Object.keys(tables).length) delete out[k];
  }
  return out;
}

/**
 * The text with `gateway`'s setup taken back: its tables cut out and the `profile` line put back as
 * it was; the older layout's block too, unless it points at another configured gateway. `clean` is
 * false when the result is not exactly the file without them (then nothing is written).
 */
export function takeBackCodex(
  text0: string,
  gateway: ToolGateway,
): { text: string; taken: string[]; clean: boolean; created: boolean } {
  let text = text0;
  const legacy = markerLineOf(text);
  const taken: string[] = [];
  if (legacy && legacyAim(text, legacy.record.id, gateway) !== 'other') {
    text = takeBackLegacy(text, legacy);
    taken.push(legacy.record.id);
  }
  const mine = ourIds(tomlOf(text), gateway, markerLineOf(text)?.record.id);
  text = withoutProfile(cutTables(text, tablesOf(mine), isNote), mine);
  taken.push(...mine);
  const after = parseToml(text);
  const clean = !!after.value && sameToml(kept(after.value, []), kept(tomlOf(text0), taken));
  return { text, taken, clean, created: !!legacy?.record.created };
}
