/**
 * The tools' configuration text (read by toolFile.ts, the one bounded reader) parsed as the tools
 * parse it, and edited as JSONC so that comments, order and the user's other content stay as they were.
 */
import * as jsonc from 'jsonc-parser';
import type { ToolFileText } from './toolFile';
import type { FileEdit } from './types';

export type Json = Record<string, unknown>;

export function isObject(v: unknown): v is Json {
  return !!v && typeof v === 'object' && !Array.isArray(v);
}

/** Parses JSON with comments and trailing commas (what the tools accept); undefined with the first error's offset otherwise. */
export function parseJsonc(text: string): { value: unknown; error?: undefined } | { value?: undefined; error: string } {
  if (text.trim() === '') return { value: {} };
  const errors: jsonc.ParseError[] = [];
  const value: unknown = jsonc.parse(text, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length) {
    const e = errors[0];
    return { error: `${jsonc.printParseErrorCode(e.error)} @${e.offset}` };
  }
  return { value };
}

/** The string at `obj.a.b`, trimmed, or undefined. */
export function strAt(obj: unknown, ...keys: string[]): string | undefined {
  let v: unknown = obj;
  for (const k of keys) v = isObject(v) ? v[k] : undefined;
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
}

/** Indentation and line ending the file already uses (2 spaces and \n by default). */
function formatting(text: string): jsonc.FormattingOptions {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const m = /\n([ \t]+)"/.exec(text);
  const indent = m?.[1] ?? '  ';
  return indent.startsWith('\t')
    ? { insertSpaces: false, tabSize: 1, eol }
    : { insertSpaces: true, tabSize: indent.length, eol };
}

/** The indentation of the line holding `offset`. */
function lineIndent(text: string, offset: number): string {
  const start = text.lastIndexOf('\n', offset - 1) + 1;
  return /^[ \t]*/.exec(text.slice(start))![0];
}

/**
 * Adds a property as the last one of the object at `parentPath` (created as needed), written like
 * the file (indentation, line ending) and touching no other line: `jsonc.modify` re-formats the
 * whole line it inserts on, which would re-wrap a sibling written on one line.
 */
function insertProperty(text: string, parentPath: jsonc.JSONPath, key: string, value: unknown): string {
  const root = jsonc.parseTree(text);
  const parent = root && (parentPath.length ? jsonc.findNodeAtLocation(root, parentPath) : root);
  if (!parent || parent.type !== 'object') {
    if (!parentPath.length) return JSON.stringify({ [key]: value }, null, 2) + '\n';
    return insertProperty(text, parentPath.slice(0, -1), String(parentPath[parentPath.length - 1]), { [key]: value });
  }
  const fmt = formatting(text);
  const unit = fmt.insertSpaces ? ' '.repeat(fmt.tabSize ?? 2) : '\t';
  const eol = fmt.eol ?? '\n';
  const parentIndent = lineIndent(text, parent.offset);
  const childIndent = parentIndent + unit;
  const valueText = JSON.stringify(value, null, unit)
    .split('\n')
    .join(eol + childIndent);
  const prop = `${JSON.stringify(key)}: ${valueText}`;
  const children = parent.children ?? [];
  if (children.length) {
    const last = children[children.length - 1];
    const at = last.offset + last.length;
    return `${text.slice(0, at)},${eol}${childIndent}${prop}${text.slice(at)}`;
  }
  const open = parent.offset + 1;
  const close = parent.offset + parent.length - 1;
  return `${text.slice(0, open)}${eol}${childIndent}${prop}${eol}${parentIndent}${text.slice(close)}`;
}

/**
 * Sets (or, with `undefined`, removes) the value at `path`, changing only that part of the text:
 * a removal does not re-format the surrounding object; a new property is added as the last one of
 * its object, formatted like the file; an existing value is replaced in place.
 */
export function editJsonc(text: string, path: jsonc.JSONPath, value: unknown): string {
  if (text.trim() === '')
    return value === undefined ? text : insertProperty('', path.slice(0, -1), String(path[path.length - 1]), value);
  const root = jsonc.parseTree(text);
  const existing = root && jsonc.findNodeAtLocation(root, path);
  if (value !== undefined && !existing)
    return insertProperty(text, path.slice(0, -1), String(path[path.length - 1]), value);
  const edits = jsonc.modify(text, path, value, {
    formattingOptions: value === undefined ? undefined : formatting(text),
  });
  return jsonc.applyEdits(text, edits);
}

/**
 * The edit of a file read as `file`: shown as a diff, its hash and mtime checked again before the
 * write; `ours` says whether Model Relay's setup is in it before and after (types.ts FileEdit).
 */
export function fileEdit(
  file: ToolFileText,
  after: string,
  summary: string,
  o: { deleteFile?: boolean; ours?: FileEdit['ours'] } = {},
): FileEdit {
  return {
    path: file.path,
    before: file.text,
    after,
    beforeHash: file.hash,
    mtimeMs: file.mtimeMs,
    summary,
    ...(o.deleteFile ? { deleteFile: true } : {}),
    ...(o.ours ? { ours: o.ours } : {}),
  };
}
