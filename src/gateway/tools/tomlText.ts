/**
 * Text-level edits of a TOML file that keep every byte we did not mean to change: a whole `[table]`
 * appended, or cut out up to its last key line (a key the user added below a comment inside it goes
 * with it, never re-parented to the table before), and one root line set, replaced or taken out.
 * Parsing is smol-toml's; an edit's outcome is checked by parsing it again (`sameToml`).
 */
import { isDeepStrictEqual } from 'node:util';
import { parse } from 'smol-toml';
import type { Json } from './configFile';

export function parseToml(text: string): { value: Json; error?: undefined } | { value?: undefined; error: string } {
  try {
    return { value: parse(text) };
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

interface Line {
  text: string;
  start: number;
  /** the offset after its newline */
  end: number;
}

function linesOf(text: string): Line[] {
  const out: Line[] = [];
  let start = 0;
  while (start < text.length) {
    const nl = text.indexOf('\n', start);
    const end = nl < 0 ? text.length : nl + 1;
    out.push({ text: text.slice(start, nl < 0 ? end : nl), start, end });
    start = end;
  }
  return out;
}

/** The path of a `[a."b"]` header line (undefined for an array of tables or what is no header). */
function headerPath(line: string): string[] | undefined {
  if (!isHeader(line) || line.startsWith('[[')) return undefined;
  const p = parseToml(line);
  if (!p.value) return undefined;
  const path: string[] = [];
  let v: unknown = p.value;
  while (v && typeof v === 'object' && !Array.isArray(v)) {
    const keys = Object.keys(v);
    if (keys.length !== 1) break;
    path.push(keys[0]);
    v = (v as Json)[keys[0]];
  }
  return path.length ? path : undefined;
}

/**
 * Where new root keys go: after the last root key line (before the comments and blank lines that
 * lead to the first table); in a file without root keys, after its leading comment block (up to that
 * block's last blank line), with `tableFollows` when a table header comes next (a blank line is then
 * kept between the keys and the table).
 */
function rootInsertion(text: string): { at: number; tableFollows: boolean } {
  const lines = linesOf(text);
  const first = lines.findIndex((l) => isHeader(l.text));
  const rootEnd = first < 0 ? lines.length : first;
  let last = -1;
  for (let i = 0; i < rootEnd; i++) if (!isBlank(lines[i].text) && !isComment(lines[i].text)) last = i;
  if (last >= 0) return { at: lines[last].end, tableFollows: false };
  if (first < 0) return { at: text.length, tableFollows: false };
  let lastBlankEnd = 0;
  for (let i = 0; i < first; i++) if (isBlank(lines[i].text)) lastBlankEnd = lines[i].end;
  return { at: lastBlankEnd, tableFollows: true };
}

/** A root key written on one line with a string value: the line, its value and its trailing comment. */
export interface RootLine extends Line {
  value: string;
  comment: string;
}

/**
 * The one-line `key = "string"` of a root key (before the first table), or `multiline` when the key
 * is there in another shape (a value over several lines, not a string): that line is not edited.
 */
export function rootLine(text: string, key: string): RootLine | 'multiline' | undefined {
  const k = key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const re = new RegExp(`^\\s*(?:${k}|"${k}"|'${k}')\\s*=\\s*("(?:[^"\\\\]|\\\\.)*"|'[^']*')[ \\t]*(#.*)?\\r?$`);
  const keyOnly = new RegExp(`^\\s*(?:${k}|"${k}"|'${k}')\\s*=`);
  for (const line of linesOf(text)) {
    if (isHeader(line.text)) break;
    if (!keyOnly.test(line.text)) continue;
    const m = re.exec(line.text);
    const value = m && parseToml(`v = ${m[1]}`).value?.v;
    return typeof value === 'string' ? { ...line, value, comment: m![2] ?? '' } : 'multiline';
  }
  return undefined;
}

/** The text with one root line: `line` replacing `at` (a line found by rootLine), or inserted where root keys go. */
export function putRootLine(text: string, line: string, at: Line | undefined): string {
  if (at) {
    const cr = at.text.endsWith('\r') ? '\r' : '';
    return `${text.slice(0, at.start)}${line}${cr}${text.slice(at.end - (text[at.end - 1] === '\n' ? 1 : 0))}`;
  }
  let out = text;
  if (out !== '' && !out.endsWith('\n')) out += '\n';
  const { at: i, tableFollows } = rootInsertion(out);
  return `${out.slice(0, i)}${line}\n${tableFollows ? '\n' : ''}${out.slice(i)}`;
}

/**
 * The text without the line `at` (a line found by rootLine); a blank line after it goes too when
 * the line began the file or followed a blank line (as putRootLine inserts one before a table).
 */
export function cutLine(text: string, at: Line): string {
  const alone = at.start === 0 || /(^|\n)\r?\n$/.test(text.slice(0, at.start));
  const blank = alone ? (/^\r?\n/.exec(text.slice(at.end))?.[0].length ?? 0) : 0;
  return text.slice(0, at.start) + text.slice(at.end + blank);
}

/** The lines of a `[a.b]` table with string values. */
export function tableBlock(path: string[], values: Record<string, string>): string {
  const lines = [`[${path.map(tomlKey).join('.')}]`];
  for (const [k, v] of Object.entries(values)) lines.push(`${tomlKey(k)} = ${tomlString(v)}`);
  return `${lines.join('\n')}\n`;
}

/**
 * The text without the tables `which` accepts: each from its header (with the comment line right
 * above it when `note` accepts that line, and one blank line before) to its last key line — the
 * comments and blank lines after that lead into the next table and stay.
 */
export function cutTables(text: string, which: (path: string[]) => boolean, note: (line: string) => boolean): string {
  let out = text;
  for (;;) {
    const lines = linesOf(out);
    const h = lines.findIndex((l) => {
      const p = headerPath(l.text);
      return !!p && which(p);
    });
    if (h < 0) return out;
    let last = h;
    for (let i = h + 1; i < lines.length && !isHeader(lines[i].text); i++)
      if (!isBlank(lines[i].text) && !isComment(lines[i].text)) last = i;
    let first = h > 0 && note(lines[h - 1].text) ? h - 1 : h;
    if (first > 0 && isBlank(lines[first - 1].text)) first--;
    out = out.slice(0, lines[first].start) + out.slice(lines[last].end);
  }
}

/** Whether two TOML values are the same document (dates and numbers compared by their JSON). */
export function sameToml(a: unknown, b: unknown): boolean {
  return isDeepStrictEqual(JSON.parse(JSON.stringify(a ?? {})), JSON.parse(JSON.stringify(b ?? {})));
}
