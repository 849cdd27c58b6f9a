/**
 * What a probe sends, from a tool's resolved configuration: the resolver says where the credential
 * comes from (a terminal variable, a key in a settings file, opencode's `{env:VAR}`); this reads the
 * value there, since only masked values travel in a ToolStatus. Codex's `wire_api` is read beside
 * the provider's `base_url`. Files are read by the one bounded reader (toolFile.ts; the sources were
 * found by the resolvers, which read a project file only in a trusted workspace); a file that cannot
 * be read or parsed gives no value.
 */
import { parse as parseToml } from 'smol-toml';
import { parse as parseJsonc } from 'jsonc-parser';
import type { ProbeTarget } from './probeRequests';
import { readBoundedFile } from './toolFile';
import type { ToolSource, ToolStatus } from './types';

const read = async (path: string): Promise<string | undefined> => (await readBoundedFile(path)).text;

function parsed(path: string, text: string): unknown {
  try {
    return /\.toml$/i.test(path) ? parseToml(text) : (parseJsonc(text, [], { allowTrailingComma: true }) as unknown);
  } catch {
    return undefined;
  }
}

function at(doc: unknown, key: string): unknown {
  let v = doc;
  for (const part of key.split('.')) {
    if (!v || typeof v !== 'object') return undefined;
    v = (v as Record<string, unknown>)[part];
  }
  return v;
}

/** opencode's `{env:VAR}` reads a variable of the environment. */
function expand(value: string, env: Record<string, string | undefined>): string | undefined {
  const m = /^\{env:([A-Za-z_][A-Za-z0-9_]*)\}$/.exec(value.trim());
  return m ? env[m[1]]?.trim() || undefined : value.trim() || undefined;
}

/** The value at a source: a terminal variable, or a key of a settings file. */
export async function valueAt(from: ToolSource, env: Record<string, string | undefined>): Promise<string | undefined> {
  if (!from.key) return undefined;
  if (from.kind === 'terminal') return env[from.key]?.trim() || undefined;
  if (from.kind !== 'file') return undefined;
  const text = await read(from.where);
  const v = text === undefined ? undefined : at(parsed(from.where, text), from.key);
  return typeof v === 'string' ? expand(v, env) : undefined;
}

/** A key beside another one in the same file (Codex's `wire_api` next to the provider's `base_url`). */
async function sibling(from: ToolSource, name: string): Promise<string | undefined> {
  if (from.kind !== 'file' || !from.key) return undefined;
  const text = await read(from.where);
  const key = [...from.key.split('.').slice(0, -1), name].join('.');
  const v = text === undefined ? undefined : at(parsed(from.where, text), key);
  return typeof v === 'string' ? v : undefined;
}

/**
 * Copilot CLI's provider type and wire API, read beside its address: the terminal's variables when
 * the address is COPILOT_PROVIDER_BASE_URL, else the keys of its providers.json entry.
 */
async function copilotApi(
  from: ToolSource,
  env: Record<string, string | undefined>,
): Promise<Pick<ProbeTarget, 'providerType' | 'wireApi'>> {
  const out: Pick<ProbeTarget, 'providerType' | 'wireApi'> = {};
  const put = async (field: 'providerType' | 'wireApi', variable: string, key: string) => {
    const source: ToolSource =
      from.kind === 'terminal' ? { ...from, key: variable } : { ...from, key: from.key?.replace(/[^.]+$/, key) };
    const value = from.kind === 'terminal' ? await valueAt(source, env) : await sibling(from, key);
    if (value) out[field] = { value, from: source };
  };
  await put('providerType', 'COPILOT_PROVIDER_TYPE', 'type');
  await put('wireApi', 'COPILOT_PROVIDER_WIRE_API', 'wireApi');
  return out;
}

/** The probe's target from a tool's status, with the credential's value read where the tool reads it. */
export async function probeTargetOf(status: ToolStatus, env: Record<string, string | undefined>): Promise<ProbeTarget> {
  const r = status.resolved;
  const target: ProbeTarget = { tool: status.tool, baseUrl: r?.baseUrl, model: r?.model };
  if (r?.auth?.from.key === 'apiKeyHelper') target.helper = r.auth.from;
  else if (r?.auth) {
    const value = await valueAt(r.auth.from, env);
    if (value)
      target.credential = {
        value,
        header: r.auth.header,
        from: r.auth.from,
        ...(r.auth.foreign ? { foreign: r.auth.foreign } : {}),
      };
  }
  if (status.tool === 'codex' && r?.baseUrl) {
    const wire = await sibling(r.baseUrl.from, 'wire_api');
    if (wire)
      target.wireApi = {
        value: wire,
        from: { ...r.baseUrl.from, key: r.baseUrl.from.key?.replace(/[^.]+$/, 'wire_api') },
      };
  }
  if (status.tool === 'copilot-cli' && r?.baseUrl) Object.assign(target, await copilotApi(r.baseUrl.from, env));
  return target;
}
