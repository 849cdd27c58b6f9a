/**
 * Text-level edits of a TOML file that keep every byte we did not mean to change: root keys set
 * through toml-patch (a replaced value keeps its trailing comment), new root keys inserted as lines
 * before the first table, and a whole `[table]` appended or cut out as a block.
 */
import { parse, patch } from '@decimalturn/toml-patch';
import type { Json } from './configFile';

export function parseToml(text: string): { value: Json; error?: undefined } | { value?: undefined; error: string } {
  try {
    return { value: parse(text) as Json };
  } catch (e) {
    return { error: (e as Error).message.split('\n')[0] };
  }
}

/** A TOML basic string. */
export function tomlString(s: string): string {
  // JSON's escapes are TOML's; DEL is a control character TOML does not allow raw
  return JSON.stringify(s).replace(/\u007f/g, '\\u007F');
}

/** A bare key when it can be one, else quoted. */
export function tomlKey(k: string): string {
  return /^[A-Za-z0-9_-]+$/.test(k) ? k : tomlString(k);
}

const isBlank = (l: string) => l.trim() === '';
const isComment = (l: string) => l.trim().startsWith('#');
/** A table header: `[a.b]` or `[[a]]` at the start of a line (an array continuation line is indented or ends with a comma). */
const isHeader = (l: string) => /^\[.*\]\s*(#.*)?$/.test(l);

/**
 * Where new root keys go: after the last root key line (before the comments and blank lines that
 * lead to the first table); in a file without root keys, after its leading comment block (up to that
 * block's last blank line), with `tableFollows` when a table header comes next (a blank line is then
 * kept between the keys and the table).
 */
function rootInsertion(text: string): { at: number; tableFollows: boolean } {
  const lines = text.split('\n');
  const starts: number[] = [];
  let offset = 0;
  for (const line of lines) {
    starts.push(offset);
    offset += line.length + 1;
  }
  const first = lines.findIndex(isHeader);
  const rootEnd = first < 0 ? lines.length : first;
  let last = -1;
  for (let i = 0; i < rootEnd; i++) if (!isBlank(lines[i]) && !isComment(lines[i])) last = i;
  if (last >= 0) return { at: Math.min(starts[last] + lines[last].length + 1, text.length), tableFollows: false };
  if (first < 0) return { at: text.length, tableFollows: false };
  let lastBlankEnd = 0;
  for (let i = 0; i < first; i++) if (isBlank(lines[i])) lastBlankEnd = starts[i] + lines[i].length + 1;
  return { at: lastBlankEnd, tableFollows: true };
}

/**
 * Sets root-level string keys. Existing ones are patched in place; missing ones are inserted
 * together as lines, returned as `inserted` so they can be cut out again verbatim.
 */
export function setRootKeys(text: string, values: Record<string, string>): { text: string; inserted: string } {
  const parsed = parseToml(text).value ?? {};
  const replace: Json = {};
  const add: string[] = [];
  for (const [k, v] of Object.entries(values)) {
    if (k in parsed) replace[k] = v;
    else add.push(`${tomlKey(k)} = ${tomlString(v)}`);
  }
  let out = Object.keys(replace).length ? patch(text, { ...parsed, ...replace }) : text;
  let inserted = '';
  if (add.length) {
    if (out !== '' && !out.endsWith('\n')) out += '\n';
    const { at, tableFollows } = rootInsertion(out);
    inserted = `${add.join('\n')}\n${tableFollows ? '\n' : ''}`;
    out = out.slice(0, at) + inserted + out.slice(at);
  }
  return { text: out, inserted };
}

/** Puts root keys back: `was[k]` undefined removes the key. Keys whose value the user changed since are left alone. */
export function restoreRootKeys(
  text: string,
  set: Record<string, string>,
  was: Record<string, string | undefined>,
  inserted: string,
): string {
  const parsed = parseToml(text).value ?? {};
  const ours = Object.keys(set).filter((k) => parsed[k] === set[k]);
  const toDelete = ours.filter((k) => was[k] === undefined);
  let out = text;
  const insertedKeys = Object.keys(set).filter((k) => was[k] === undefined);
  if (inserted && toDelete.length === insertedKeys.length && out.includes(inserted)) {
    out = out.replace(inserted, '');
  } else if (toDelete.length) {
    const next: Json = { ...(parseToml(out).value ?? {}) };
    for (const k of toDelete) delete next[k];
    out = patch(out, next);
  }
  const back = ours.filter((k) => was[k] !== undefined);
  if (back.length) {
    const next: Json = { ...(parseToml(out).value ?? {}) };
    for (const k of back) next[k] = was[k];
    out = patch(out, next);
  }
  return out;
}

/** The lines of a `[a.b]` table with string values. */
export function tableBlock(path: string[], values: Record<string, string>): string {
  const lines = [`[${path.map(tomlKey).join('.')}]`];
  for (const [k, v] of Object.entries(values)) lines.push(`${tomlKey(k)} = ${tomlString(v)}`);
  return `${lines.join('\n')}\n`;
}

/**
 * The span of the block that starts with the line `firstLine` (a marker comment), then its table
 * header and the key lines up to the first blank, comment or header line; the blank line before it
 * is included when there is one.
 */
export function blockSpan(text: string, firstLine: string): { start: number; end: number } | undefined {
  const at = text.startsWith(`${firstLine}\n`) ? 0 : text.indexOf(`\n${firstLine}\n`) + 1;
  if (at < 0 || (at === 0 && !text.startsWith(`${firstLine}\n`))) return undefined;
  let end = at + firstLine.length + 1;
  let sawHeader = false;
  while (end < text.length) {
    const nl = text.indexOf('\n', end);
    const lineEnd = nl < 0 ? text.length : nl + 1;
    const line = text.slice(end, lineEnd);
    if (isHeader(line) ? sawHeader : isBlank(line) || isComment(line)) break;
    if (isHeader(line)) sawHeader = true;
    end = lineEnd;
  }
  const start = at >= 2 && text[at - 2] === '\n' ? at - 1 : at;
  return { start, end };
}
