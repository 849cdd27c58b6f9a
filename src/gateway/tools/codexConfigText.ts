/**
 * What Model Relay writes into Codex's config.toml and takes back out of it, as text (no I/O): per
 * gateway (`gateway.providerId`, e.g. `model-relay-main`) a `[model_providers.<id>]` table appended
 * after a comment line naming the gateway, and — the only root edits — the lines
 * `model_provider = "<id>"` and `model = "<model>"`, each with a comment keeping the line it replaced
 * (or saying there was none). That is what plain `codex` uses: Codex 0.169 refuses a root `profile`
 * line, and `--profile x` while config.toml has `[profiles.x]`, so no profile is written. Two
 * gateways stand side by side: setting up B keeps A's table and points the root lines at B (their
 * record still the user's own lines). Taking a gateway's setup back cuts out exactly its table (a key
 * the user added inside it goes with it) and, when the root lines name it, puts the user's lines
 * back; the result is checked by parsing it. The older layouts are still recognised and taken back:
 * one shared `model-relay` table after a marker comment recording root keys it rewrote, and the
 * profile layout (`[profiles.<id>]` tables and a `profile = "<id>"` line). The token is never
 * written: `env_key` names a variable.
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

/** The comment line above the table Model Relay adds for a gateway. */
const TABLES_NOTE = '# Added by Model Relay (Set Up Tools) for ';
/** The comment of a root line Model Relay sets: the line it replaced (as JSON), or none. */
const ROOT_NOTE = '# set by Model Relay; before: ';

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

/** Model Relay's setup for `gateway` in the file (its table, or the older layout's block): its provider id. */
export function ourSetupIn(text: string, gateway: ToolGateway | undefined): { id: string } | undefined {
  const legacy = markerLineOf(text);
  const mine = gateway ? ourIds(tomlOf(text), gateway, legacy?.record.id) : [];
  return mine.length ? { id: mine[0] } : legacy ? { id: legacy.record.id } : undefined;
}

/** The `[model_providers.<id>]` tables of the provider ids `ids`. */
const providersOf =
  (ids: string[]) =>
  (path: string[]): boolean =>
    path.length === 2 && path[0] === 'model_providers' && ids.includes(path[1]);

/** The root keys Model Relay sets (`profile` only in the layout Codex 0.169 refuses: taken back, never set). */
type RootKey = 'model_provider' | 'model' | 'profile';

/** A root line; `ours` when Model Relay set it, with the line it replaced (undefined: none). */
interface MarkedLine {
  at: RootLine;
  ours: boolean;
  before?: string;
}

function markedLine(text: string, key: RootKey): MarkedLine | 'multiline' | undefined {
  const at = rootLine(text, key);
  if (!at || at === 'multiline') return at;
  if (!at.comment.startsWith(ROOT_NOTE)) return { at, ours: false };
  let before: unknown;
  try {
    before = JSON.parse(at.comment.slice(ROOT_NOTE.length));
  } catch {
    before = undefined; // "none", or a record we cannot read: the line is taken out
  }
  // only a one-line `key = "…"` is put back: the record is in a file anyone may have edited
  const line = typeof before === 'string' && !/[\r\n]/.test(before) ? rootLine(before, key) : undefined;
  return typeof line === 'object' ? { at, ours: true, before: before as string } : { at, ours: true };
}

/**
 * The root line `key = "<value>"`, replacing `prev` and recording the line it replaced — or, when
 * `prev` is Model Relay's own (a `model_provider` naming one of its tables), the line that one recorded.
 */
function withRootLine(text: string, key: RootKey, value: string, prev: MarkedLine | undefined): string {
  const carried = prev?.ours && (key !== 'model_provider' || isOurProviderId(prev.at.value));
  const before = carried ? prev.before : prev?.at.text.replace(/\r$/, '');
  const record = before === undefined ? 'none' : JSON.stringify(before);
  return putRootLine(text, `${tomlKey(key)} = ${tomlString(value)} ${ROOT_NOTE}${record}`, prev?.at);
}

/** The text with the line `m` put back as it was before Model Relay set it (taken out when there was none). */
const restored = (text: string, m: MarkedLine): string =>
  m.ours && m.before !== undefined ? putRootLine(text, m.before, m.at) : cutLine(text, m.at);

/**
 * The text without the `model_provider` line naming one of `ids` and, with it, Model Relay's `model`
 * line: each put back as it was before Model Relay set it.
 */
function withoutRootLines(text: string, ids: string[]): string {
  const p = markedLine(text, 'model_provider');
  if (typeof p !== 'object' || !ids.includes(p.at.value)) return text;
  const out = restored(text, p);
  const m = markedLine(out, 'model');
  return typeof m === 'object' && m.ours ? restored(out, m) : out;
}

/**
 * The text without the profile layout Model Relay wrote before Codex 0.169 refused it: the
 * `[profiles.<id>]` tables of `ids`, and a root `profile` line naming one of them (put back as it was).
 */
function withoutProfiles(text: string, ids: string[]): string {
  const out = cutTables(text, (p) => p.length === 2 && p[0] === 'profiles' && ids.includes(p[1]), isNote);
  const p = markedLine(out, 'profile');
  return typeof p === 'object' && ids.includes(p.at.value) ? restored(out, p) : out;
}

/** Whether any of Model Relay's setup (any gateway's, any layout) is in the text. */
export function hasOurs(text: string): boolean {
  const marked = (k: RootKey) => {
    const m = markedLine(text, k);
    return typeof m === 'object' && m.ours;
  };
  const keys: RootKey[] = ['model_provider', 'model', 'profile'];
  return !!markerLineOf(text) || ourIds(tomlOf(text)).length > 0 || keys.some(marked);
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
  const providers = isObject(toml.model_providers) ? toml.model_providers : {};
  let id = base;
  for (let i = 2; id in providers; i++) id = `${base}-${i}`;
  return id;
}

/**
 * Whether the file uses `gateway`'s table now (its `model_provider` line, or the profile layout's
 * `profile` line, names one of `mine`), and the profile's model.
 */
function inUse(text: string, toml: Json, mine: string[]): { active: boolean; model?: string } {
  const p = markedLine(text, 'model_provider');
  if (typeof p === 'object' && mine.includes(p.at.value)) return { active: true };
  const prof = markedLine(text, 'profile');
  if (typeof prof !== 'object' || !mine.includes(prof.at.value)) return { active: false };
  const profiles = isObject(toml.profiles) ? toml.profiles : {};
  return { active: true, model: strAt(profiles[prof.at.value], 'model') };
}

/**
 * The text with `gateway`'s table (anew, at the end) and, when a model is chosen or the file
 * already used its table, the root lines `model_provider` (naming it) and `model`. The older
 * layouts are taken back first: the marker block at this gateway's address, and every gateway's
 * profile layout (Codex 0.169 refuses it); other gateways' tables stay.
 */
export function addCodexSetup(
  text0: string,
  gateway: ToolGateway,
  model0: string | undefined,
): { text: string; id: string; root: 'set' | 'kept' | 'multiline' } {
  let text = text0;
  const legacy = markerLineOf(text);
  if (legacy && legacyAim(text, legacy.record.id, gateway) === 'this') text = takeBackLegacy(text, legacy);
  const legacyId = markerLineOf(text)?.record.id;
  const toml = tomlOf(text);
  const mine = ourIds(toml, gateway, legacyId);
  const use = inUse(text, toml, mine);
  text = withoutProfiles(cutTables(text, providersOf(mine), isNote), ourIds(toml, undefined, legacyId));
  const id = freeId(tomlOf(text), gateway.providerId);
  if (text !== '' && !text.endsWith('\n')) text += '\n';
  const provider = {
    name: gateway.name,
    base_url: gatewayV1(gateway),
    env_key: gateway.tokenVariable,
    wire_api: 'responses',
  };
  text += `${text === '' ? '' : '\n'}${TABLES_NOTE}${tomlString(gateway.name)}; Remove Setup takes it back.\n`;
  text += tableBlock(['model_providers', id], provider);
  const model = model0 ?? use.model;
  if (!(model0 || use.active)) return { text, id, root: 'kept' };
  const prev = markedLine(text, 'model_provider');
  if (prev === 'multiline' || (model && markedLine(text, 'model') === 'multiline'))
    return { text, id, root: 'multiline' };
  text = withRootLine(text, 'model_provider', id, prev);
  const m = model ? markedLine(text, 'model') : undefined;
  if (model && m !== 'multiline') text = withRootLine(text, 'model', model, m);
  return { text, id, root: 'set' };
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
 * The text with `gateway`'s setup taken back: its table cut out and, when they name it, the root
 * `model_provider` and `model` lines put back as they were (the profile layout's `[profiles.<id>]`
 * table and `profile` line likewise); the older layout's block too, unless it points at another
 * configured gateway. `clean` is false when the result is not exactly the file without them (then
 * nothing is written).
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
  text = withoutRootLines(withoutProfiles(cutTables(text, providersOf(mine), isNote), mine), mine);
  taken.push(...mine);
  const after = parseToml(text);
  const clean = !!after.value && sameToml(kept(after.value, []), kept(tomlOf(text0), taken));
  return { text, taken, clean, created: !!legacy?.record.created };
}
