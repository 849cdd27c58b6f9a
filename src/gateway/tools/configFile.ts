/**
 * Reading the tools' configuration files (bounded, classified) and editing their JSONC text so
 * that comments, order and the user's other content stay as they were.
 */
import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import * as jsonc from 'jsonc-parser';
import { t } from '../l10n';
import type { FileEdit } from './types';

/** A settings file larger than this is not a settings file we should touch. */
export const MAX_CONFIG_BYTES = 1024 * 1024;

export interface ConfigText {
  path: string;
  /** undefined: the file does not exist */
  text: string | undefined;
  hash?: string;
  mtimeMs?: number;
  /** could not be read (the reason, a whole sentence) */
  error?: string;
}

export function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

function code(e: unknown): string {
  return (e as { code?: string }).code ?? (e as Error).message;
}

/** Reads a config file: absent → text undefined; unreadable or too large → error. */
export async function readConfigText(path: string): Promise<ConfigText> {
  try {
    const st = await stat(path);
    if (!st.isFile()) return { path, text: undefined, error: t('{0} is not a regular file.', path) };
    if (st.size > MAX_CONFIG_BYTES)
      return { path, text: undefined, error: t('{0} is larger than 1 MiB, so it was not read.', path) };
    const text = await readFile(path, 'utf8');
    return { path, text, hash: sha256(text), mtimeMs: st.mtimeMs };
  } catch (e) {
    if (code(e) === 'ENOENT' || code(e) === 'ENOTDIR') return { path, text: undefined };
    return { path, text: undefined, error: t('{0} could not be read ({1}).', path, code(e)) };
  }
}

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

/** The edit of a file read as `file`: shown as a diff, its hash and mtime checked again before the write. */
export function fileEdit(file: ConfigText, after: string, summary: string, deleteFile?: boolean): FileEdit {
  return {
    path: file.path,
    before: file.text,
    after,
    beforeHash: file.hash,
    mtimeMs: file.mtimeMs,
    summary,
    ...(deleteFile ? { deleteFile } : {}),
  };
}
