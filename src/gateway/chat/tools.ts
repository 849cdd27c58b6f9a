/**
 * The rules tool calls follow on their way to either surface: call ids every surface accepts (and
 * the same id for the call and its result, whichever model made the call), input schemas a strict
 * upstream accepts, and arguments parsed once.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { ToolSpec } from './types';

/** Ids both surfaces accept: the compatible surface caps them at 40 characters, the native one allows [A-Za-z0-9_-]. */
const PORTABLE_ID = /^[A-Za-z0-9_-]{1,40}$/;

/**
 * The id a call (and its result) is sent under. A deterministic function of the original, so a
 * call and its result stay paired even when they came from a model on the other surface.
 */
export function portableCallId(id: string): string {
  if (PORTABLE_ID.test(id)) return id;
  return `call_${createHash('sha256').update(id).digest('hex').slice(0, 24)}`;
}

/** An id for a call the gateway sent without one. */
export function newCallId(): string {
  return `call_${randomBytes(12).toString('hex')}`;
}

const COMBINATORS = ['oneOf', 'anyOf', 'allOf', 'not', 'if', 'then', 'else', '$schema'];

/**
 * An input schema a strict upstream accepts: an object schema with `properties`, no top-level
 * combinators or `$schema`, and `required` naming only declared properties.
 */
export function normalizeToolSchema(schema: Record<string, unknown> | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema ?? {})) if (!COMBINATORS.includes(k)) out[k] = v;
  out.type = 'object';
  const props =
    out.properties && typeof out.properties === 'object' && !Array.isArray(out.properties)
      ? (out.properties as Record<string, unknown>)
      : {};
  out.properties = props;
  if (Array.isArray(out.required)) {
    const required = out.required.filter((r): r is string => typeof r === 'string' && r in props);
    if (required.length) out.required = required;
    else delete out.required;
  } else delete out.required;
  return out;
}

/** Tool names the compatible surface accepts (the native one is the same or looser). */
export const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

export function invalidToolNames(tools: readonly ToolSpec[]): string[] {
  return tools.filter((t) => !TOOL_NAME.test(t.name)).map((t) => t.name);
}

/**
 * A call's arguments as an object: empty means none; anything that is not a JSON object is
 * `undefined` (the caller reports it).
 */
export function parseToolInput(args: string): Record<string, unknown> | undefined {
  if (!args.trim()) return {};
  try {
    const v = JSON.parse(args) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
