/**
 * opencode, resolved as the tool resolves it: configs merged key by key, later winning — the global
 * `opencode.jsonc` / `opencode.json` in `$XDG_CONFIG_HOME/opencode` (default `~/.config/opencode`),
 * the file named by `OPENCODE_CONFIG`, the project's `opencode.jsonc` / `opencode.json`, then
 * `.opencode/opencode.jsonc` / `.json` in the project. A provider is `provider.<id>` with `npm`,
 * `options.baseURL` and `options.apiKey` (`"{env:VAR}"` reads a variable); `model` is `<id>/<model>`.
 *
 * Setting it up adds `provider.<gateway.providerId>` (e.g. `model-relay-main`) to the global file
 * (JSONC edit: comments and order kept) with `apiKey: "{env:<the gateway's token variable>}"`, so the
 * token is never written and two gateways stand side by side. A gateway's block is recognised by that
 * apiKey; the older shared `model-relay` block (before blocks were per gateway) is still recognised as
 * Model Relay's, replaced by the gateway's own when it points at that gateway, and taken back by
 * Remove Setup. The top-level `model` is set only when the user picked one and the file had none (or
 * one of Model Relay's), so Remove Setup takes back exactly what was added — or, when the file is
 * still as Model Relay last wrote it, the whole original comes back from its backup (toolBackups.ts).
 */
import { join } from 'node:path';
import { t } from '../l10n';
import {
  aimOf,
  authOf,
  emptyResolved,
  fileSource,
  gatewayV1,
  isOurProviderId,
  judge,
  modelsOn,
  sameUrl,
  surfaceMissing,
  unavailablePlan,
  validVariable,
  type ToolModule,
  type ToolReading,
} from './common';
import { editJsonc, isObject, parseJsonc, fileEdit, strAt, type Json } from './configFile';
import { readToolFile, type ToolFileText } from './toolFile';
import type { ResolvedToolConfig, ToolChoices, ToolGateway, ToolPlan, ToolsEnvironment } from './types';

export const OPENCODE_NPM = '@ai-sdk/openai-compatible';
const OPENCODE_SCHEMA = 'https://opencode.ai/config.json';
/** Models put into the provider block at most (the chosen one first). */
const MAX_MODELS = 100;

export function opencodeGlobalDir(env: ToolsEnvironment): string {
  return join(env.env.XDG_CONFIG_HOME?.trim() || join(env.homeDir, '.config'), 'opencode');
}

/** Config files, lowest precedence first (each pair: .jsonc and .json, both read when present). */
export function opencodeConfigPaths(env: ToolsEnvironment): string[] {
  const g = opencodeGlobalDir(env);
  const files = [join(g, 'config.json'), join(g, 'opencode.json'), join(g, 'opencode.jsonc')];
  const custom = env.env.OPENCODE_CONFIG?.trim();
  if (custom) files.push(custom);
  if (env.workspaceDir) {
    files.push(join(env.workspaceDir, 'opencode.json'), join(env.workspaceDir, 'opencode.jsonc'));
    files.push(
      join(env.workspaceDir, '.opencode', 'opencode.json'),
      join(env.workspaceDir, '.opencode', 'opencode.jsonc'),
    );
  }
  return files;
}

/** The global file to edit: an existing opencode.jsonc, else opencode.json (created when neither exists). */
export async function opencodeTargetFile(env: ToolsEnvironment): Promise<ToolFileText> {
  const g = opencodeGlobalDir(env);
  const jsoncFile = await readToolFile(env, join(g, 'opencode.jsonc'));
  if (jsoncFile.text !== undefined || jsoncFile.error) return jsoncFile;
  return readToolFile(env, join(g, 'opencode.json'));
}

function apiKeyRef(variable: string): string {
  return `{env:${variable}}`;
}

/** Whether a provider block is the one Model Relay adds for `gateway` (its apiKey reads the gateway's variable). */
export function isOurProvider(block: unknown, gateway: ToolGateway): boolean {
  return strAt(block, 'options', 'apiKey') === apiKeyRef(gateway.tokenVariable);
}

/** Whether a provider entry is one Model Relay added, for any gateway or in the older shared layout. */
function anyOurs(id: string, block: unknown): boolean {
  return isOurProviderId(id) && /^\{env:[A-Za-z_][A-Za-z0-9_]*\}$/.test(strAt(block, 'options', 'apiKey') ?? '');
}

/**
 * The older shared entries (`model-relay`, `model-relay-2`, … reading a variable, but not
 * `gateway`'s own) that `gateway` takes over: at its address (`also` adds the other answers of aimOf).
 */
function legacyOf(providers: Json, gateway: ToolGateway, also: 'elsewhere' | undefined): string[] {
  return Object.keys(providers).filter((id) => {
    if (!/^model-relay(-\d+)?$/.test(id) || !anyOurs(id, providers[id]) || isOurProvider(providers[id], gateway))
      return false;
    const at = aimOf(strAt(providers[id], 'options', 'baseURL'), gateway, '/v1').at;
    return at === 'this' || at === also;
  });
}

function providersOf(value: unknown): Json {
  return isObject(value) && isObject(value.provider) ? value.provider : {};
}

function deepMerge(a: Json, b: Json): Json {
  const out: Json = { ...a };
  for (const [k, v] of Object.entries(b)) out[k] = isObject(v) && isObject(out[k]) ? deepMerge(out[k], v) : v;
  return out;
}

interface Layer {
  path: string;
  json: Json;
}

async function readLayers(env: ToolsEnvironment, problems: string[]): Promise<Layer[]> {
  const layers: Layer[] = [];
  for (const path of opencodeConfigPaths(env)) {
    const r = await readToolFile(env, path);
    if (r.error) problems.push(r.error);
    if (r.text === undefined) continue;
    const p = parseJsonc(r.text);
    if (p.error !== undefined || !isObject(p.value)) {
      problems.push(t('{0} is not valid JSON, so opencode stops with a configuration error.', path));
      continue;
    }
    layers.push({ path, json: p.value });
  }
  return layers;
}

function resolveKey(apiKey: string | undefined, env: ToolsEnvironment): { value?: string; variable?: string } {
  if (!apiKey) return {};
  const m = /^\{env:([^}]+)\}$/.exec(apiKey);
  if (m) return { value: env.env[m[1]]?.trim() || undefined, variable: m[1] };
  return { value: apiKey };
}

/** Which file last set `provider.<id>.<key...>`. */
function lastSetter(layers: Layer[], ...keys: string[]): string | undefined {
  for (const l of [...layers].reverse()) if (strAt(l.json, ...keys) !== undefined) return l.path;
  return undefined;
}

export async function resolveOpencode(
  env: ToolsEnvironment,
  gateway: ToolGateway | undefined,
): Promise<ResolvedToolConfig & { providerId?: string }> {
  const r = emptyResolved();
  const layers = await readLayers(env, r.problems);
  const merged = layers.reduce<Json>((acc, l) => deepMerge(acc, l.json), {});
  const model = strAt(merged, 'model');
  if (model) r.model = { value: model, from: fileSource(env, lastSetter(layers, 'model') ?? '', 'model') };
  const providers = isObject(merged.provider) ? merged.provider : {};
  const modelProvider = model?.split('/')[0];
  const ours = gateway ? Object.keys(providers).find((id) => isOurProvider(providers[id], gateway)) : undefined;
  const id = modelProvider && providers[modelProvider] ? modelProvider : (ours ?? modelProvider);
  if (!id || !isObject(providers[id])) return r;
  const base = strAt(providers[id], 'options', 'baseURL');
  if (base)
    r.baseUrl = {
      value: base,
      from: fileSource(
        env,
        lastSetter(layers, 'provider', id, 'options', 'baseURL') ?? '',
        `provider.${id}.options.baseURL`,
      ),
    };
  const apiKey = strAt(providers[id], 'options', 'apiKey');
  const key = resolveKey(apiKey, env);
  const from = key.variable
    ? { kind: 'terminal' as const, where: t('terminal environment'), key: key.variable }
    : fileSource(env, lastSetter(layers, 'provider', id, 'options', 'apiKey') ?? '', `provider.${id}.options.apiKey`);
  if (key.value) r.auth = authOf('authorization', key.value, from, gateway);
  else if (key.variable)
    r.problems.push(
      t('{0} reads the variable {1}, which new terminals do not have.', `provider.${id}.options.apiKey`, key.variable),
    );
  if (gateway && ours === id && base && !sameUrl(base, gatewayV1(gateway))) {
    const where = lastSetter(layers, 'provider', id, 'options', 'baseURL') ?? '';
    r.overrides.push({
      from: fileSource(env, where, `provider.${id}.options.baseURL`),
      keys: [`provider.${id}.options.baseURL`],
      fixable: false,
    });
  }
  if (gateway && base && sameUrl(base, gatewayV1(gateway).slice(0, -3)))
    r.conflicts.push({
      what: t(
        '{0} is the root address {1} without /v1, so opencode calls {1}/chat/completions, which answers 404.',
        `provider.${id}.options.baseURL`,
        base,
      ),
      fix: t('Set baseURL to {0}.', gatewayV1(gateway)),
    });
  return { ...r, providerId: id };
}

const NO_CHAT = () =>
  t(
    'The gateway serves no model on the OpenAI-compatible Chat Completions API for this token, which this opencode provider uses.',
  );

async function read(env: ToolsEnvironment, gateway: ToolGateway | undefined): Promise<ToolReading> {
  const resolved = await resolveOpencode(env, gateway);
  const target = await opencodeTargetFile(env);
  const p = target.text !== undefined ? parseJsonc(target.text) : undefined;
  const provider = isObject(p?.value) && isObject(p.value.provider) ? p.value.provider : {};
  const removable = !!gateway && Object.values(provider).some((b) => isOurProvider(b, gateway));
  return judge({
    label: 'opencode',
    resolved,
    gateway,
    suffix: '/v1',
    surface: 'compatible',
    none: NO_CHAT,
    removable,
    overridden: () =>
      t(
        '{0} in {1} points the provider elsewhere and beats the global configuration.',
        resolved.overrides[0].from.key ?? '',
        resolved.overrides[0].from.where,
      ),
    idle: () =>
      removable
        ? t(
            'The {0} provider is in the configuration; choose one of its models in opencode with /models.',
            gateway.providerId,
          )
        : undefined,
  });
}

function providerBlock(gateway: ToolGateway, chosen: string | undefined): Json {
  const ids = modelsOn(gateway, 'compatible');
  const ordered = chosen ? [chosen, ...ids.filter((m) => m !== chosen)] : ids;
  const models: Json = {};
  for (const id of ordered.slice(0, MAX_MODELS)) models[id] = {};
  return {
    npm: OPENCODE_NPM,
    name: gateway.name,
    options: { baseURL: gatewayV1(gateway), apiKey: apiKeyRef(gateway.tokenVariable) },
    models,
  };
}

async function planSetUp(env: ToolsEnvironment, gateway: ToolGateway, choices: ToolChoices): Promise<ToolPlan> {
  const missing = surfaceMissing(gateway, 'compatible', NO_CHAT);
  if (missing) return unavailablePlan('opencode', 'set-up', missing);
  if (!validVariable(gateway.tokenVariable))
    return unavailablePlan(
      'opencode',
      'set-up',
      t('{0} is not a valid environment variable name.', gateway.tokenVariable),
    );
  const file = await opencodeTargetFile(env);
  if (file.error) return unavailablePlan('opencode', 'set-up', file.error);
  const text = file.text ?? '';
  const p = parseJsonc(text);
  if (p.error !== undefined || !isObject(p.value))
    return unavailablePlan('opencode', 'set-up', t('{0} is not valid JSON, so it was left untouched.', file.path));
  const json = p.value;
  const providers = providersOf(json);
  // the older shared entry at this gateway's address gives way to the gateway's own
  const legacy = legacyOf(providers, gateway, undefined);
  const existing = Object.keys(providers).find((id) => isOurProvider(providers[id], gateway));
  let id = existing ?? gateway.providerId;
  for (let i = 2; !existing && id in providers && !legacy.includes(id); i++) id = `${gateway.providerId}-${i}`;
  const notes: string[] = [];
  let chosen = choices.model;
  if (chosen && !modelsOn(gateway, 'compatible').includes(chosen)) {
    notes.push(
      t('{0} is not served on the Chat Completions API for this token, so the default model is left as it is.', chosen),
    );
    chosen = undefined;
  }
  let after = text;
  for (const old of legacy) after = editJsonc(after, ['provider', old], undefined);
  after = editJsonc(after, ['provider', id], providerBlock(gateway, chosen));
  if (text === '' && !after.includes('$schema')) after = editJsonc(after, ['$schema'], OPENCODE_SCHEMA);
  const current = strAt(json, 'model');
  const currentProvider = current?.split('/')[0] ?? '';
  const oursNow = current && (currentProvider === id || anyOurs(currentProvider, providers[currentProvider]));
  if (chosen && (!current || oursNow)) after = editJsonc(after, ['model'], `${id}/${chosen}`);
  else if (current && legacy.includes(currentProvider))
    after = editJsonc(after, ['model'], `${id}/${current.slice(currentProvider.length + 1)}`);
  else if (chosen)
    notes.push(t('Your default model {0} is kept; pick {1}/{2} in opencode with /models.', current!, id, chosen));
  notes.push(
    t(
      'The provider reads the token from the variable {0}, which Model Relay puts into new terminals; the token is never written to the file.',
      gateway.tokenVariable,
    ),
  );
  const summary = t('Adds the provider "{0}" (base URL {1}) to {2}.', id, gatewayV1(gateway), file.path);
  return {
    tool: 'opencode',
    action: 'set-up',
    edits: [
      fileEdit(file, after, summary, {
        ours: { before: Object.keys(providers).some((k) => anyOurs(k, providers[k])), after: true },
      }),
    ],
    terminalEnv: { [gateway.tokenVariable]: { token: true } },
    notes,
  };
}

async function planRemove(env: ToolsEnvironment, gateway: ToolGateway): Promise<ToolPlan> {
  const plan: ToolPlan = {
    tool: 'opencode',
    action: 'remove',
    edits: [],
    terminalEnv: {},
    removeEnv: [gateway.tokenVariable],
    notes: [],
  };
  const file = await opencodeTargetFile(env);
  if (file.error) return { ...plan, notes: [file.error] };
  const p = file.text !== undefined ? parseJsonc(file.text) : undefined;
  if (!p || p.error !== undefined || !isObject(p.value))
    return { ...plan, notes: [t('{0} has no provider added by Model Relay.', file.path)] };
  const json = p.value;
  const providers = providersOf(json);
  const ids = Object.keys(providers).filter((id) => isOurProvider(providers[id], gateway));
  ids.push(...legacyOf(providers, gateway, 'elsewhere'));
  if (!ids.length) return { ...plan, notes: [t('{0} has no provider added by Model Relay.', file.path)] };
  let after = file.text!;
  for (const id of ids) after = editJsonc(after, ['provider', id], undefined);
  if (Object.keys(providers).length === ids.length) after = editJsonc(after, ['provider'], undefined);
  const model = strAt(json, 'model');
  if (model && ids.some((id) => model.startsWith(`${id}/`))) after = editJsonc(after, ['model'], undefined);
  const left = parseJsonc(after).value;
  const deleteFile =
    isObject(left) &&
    Object.keys(left).every((k) => k === '$schema') &&
    (left.$schema ?? OPENCODE_SCHEMA) === OPENCODE_SCHEMA;
  const remaining = providersOf(left);
  plan.edits.push(
    fileEdit(file, deleteFile ? '' : after, t('Removes the provider Model Relay added from {0}.', file.path), {
      deleteFile,
      ours: { before: true, after: Object.keys(remaining).some((k) => anyOurs(k, remaining[k])) },
    }),
  );
  return plan;
}

export const opencode: ToolModule = {
  id: 'opencode',
  label: () => 'opencode',
  command: 'opencode',
  keys: { base: 'baseURL', cred: 'apiKey', model: 'model' },
  configDirs: (env) => [opencodeGlobalDir(env)],
  read,
  planSetUp,
  planRemove,
};
