/**
 * Codex CLI, resolved as the tool resolves it: `$CODEX_HOME/config.toml` (default
 * `~/.codex/config.toml`); the active profile (`profile = "x"` → `[profiles.x]`) beats the top-level
 * `model` / `model_provider`; the provider is `[model_providers.<id>]` (`base_url` with /v1,
 * `env_key` naming the variable whose value is sent as Bearer, `wire_api` — `chat` is a hard error).
 *
 * Setting it up appends a `[model_providers.model-relay]` table preceded by a marker comment that
 * records what else was changed (`model` / `model_provider` and their previous values), so Remove
 * Setup cuts out exactly that block and puts the previous values back. The token is never written:
 * `env_key` names the variable Model Relay puts into new terminals.
 */
import { join } from 'node:path';
import { t } from '../l10n';
import {
  authOf,
  emptyResolved,
  fileSource,
  gatewayV1,
  judge,
  modelsOn,
  PROVIDER_ID,
  sameUrl,
  surfaceMissing,
  TERMINAL,
  unavailablePlan,
  validVariable,
  type ToolModule,
  type ToolReading,
} from './common';
import { isObject, fileEdit, strAt, type Json } from './configFile';
import { readToolFile, type ToolFileText } from './toolFile';
import { blockSpan, parseToml, restoreRootKeys, setRootKeys, tableBlock } from './tomlText';
import type { ResolvedToolConfig, ToolChoices, ToolGateway, ToolPlan, ToolsEnvironment } from './types';

export function codexHome(env: ToolsEnvironment): string {
  return env.env.CODEX_HOME?.trim() || join(env.homeDir, '.codex');
}

export function codexConfigPath(env: ToolsEnvironment): string {
  return join(codexHome(env), 'config.toml');
}

/** The marker line written above the block Model Relay adds; what follows `=` is the record as JSON. */
const MARKER = '# Added by Model Relay (Set Up Tools); Remove Setup takes it back. model-relay-setup=';

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

function markerLineOf(text: string): { line: string; record: CodexRecord } | undefined {
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

interface CodexConfig {
  file: ToolFileText;
  toml?: Json;
  parseError?: string;
}

async function readCodex(env: ToolsEnvironment): Promise<CodexConfig> {
  const file = await readToolFile(env, codexConfigPath(env));
  if (file.text === undefined) return { file };
  const p = parseToml(file.text);
  return p.error !== undefined ? { file, parseError: p.error } : { file, toml: p.value };
}

/** The active model provider and model after the profile, with the keys they come from. */
function activeSelection(toml: Json): { provider: string; providerKey: string; model?: string; modelKey?: string } {
  const profileName = strAt(toml, 'profile');
  const profile = profileName && isObject(toml.profiles) ? toml.profiles[profileName] : undefined;
  const fromProfile = (k: string) => (profileName ? strAt(profile, k) : undefined);
  const pp = fromProfile('model_provider');
  const pm = fromProfile('model');
  const provider = pp ?? strAt(toml, 'model_provider') ?? 'openai';
  const model = pm ?? strAt(toml, 'model');
  return {
    provider,
    providerKey: pp ? `profiles.${profileName}.model_provider` : 'model_provider',
    model,
    modelKey: pm ? `profiles.${profileName}.model` : model ? 'model' : undefined,
  };
}

export async function resolveCodex(
  env: ToolsEnvironment,
  gateway: ToolGateway | undefined,
): Promise<ResolvedToolConfig> {
  const r = emptyResolved();
  const cfg = await readCodex(env);
  const path = cfg.file.path;
  if (cfg.file.error) r.problems.push(cfg.file.error);
  if (cfg.parseError)
    r.problems.push(t('{0} does not parse as TOML ({1}), so Codex refuses to start.', path, cfg.parseError));
  const toml = cfg.toml ?? {};
  const sel = activeSelection(toml);
  if (sel.model && sel.modelKey) r.model = { value: sel.model, from: fileSource(env, path, sel.modelKey) };
  const mark = markerLineOf(cfg.file.text ?? '');
  if (sel.providerKey.startsWith('profiles.') && mark?.record.set.model_provider && sel.provider !== mark.record.id)
    r.overrides.push({
      from: fileSource(env, path, sel.providerKey),
      keys: [sel.providerKey],
      fixable: false,
    });
  const providers = isObject(toml.model_providers) ? toml.model_providers : {};
  const provider = providers[sel.provider];
  if (!isObject(provider)) {
    if (sel.provider === 'openai') {
      const base = strAt(toml, 'openai_base_url');
      r.baseUrl = base
        ? { value: base, from: fileSource(env, path, 'openai_base_url') }
        : { value: 'https://api.openai.com/v1', from: { kind: 'default', where: t('built-in default') } };
      const key = env.env.OPENAI_API_KEY?.trim();
      if (key) r.auth = authOf('authorization', key, { ...TERMINAL(), key: 'OPENAI_API_KEY' }, gateway);
    }
    return r;
  }
  const at = `model_providers.${sel.provider}`;
  const base = strAt(provider, 'base_url');
  if (base) r.baseUrl = { value: base, from: fileSource(env, path, `${at}.base_url`) };
  const envKey = strAt(provider, 'env_key');
  const value = envKey ? env.env[envKey]?.trim() : undefined;
  if (envKey && value) r.auth = authOf('authorization', value, { ...TERMINAL(), key: envKey }, gateway);
  else if (envKey)
    r.problems.push(
      t(
        '{0} names the variable {1}, which new terminals do not have, so Codex stops with a missing-key error.',
        `${at}.env_key`,
        envKey,
      ),
    );
  if (strAt(provider, 'wire_api') === 'chat')
    r.conflicts.push({
      what: t(
        '{0} is "chat", which Codex no longer supports: it refuses to start with a configuration error.',
        `${at}.wire_api`,
      ),
      fix: t('Set wire_api = "responses" in [{0}] (Set Up Tools writes a provider that does).', at),
    });
  if (base && gateway && sameUrl(base, gatewayV1(gateway).replace(/\/v1$/, '')))
    r.conflicts.push({
      what: t(
        '{0} is the root address without /v1, so Codex calls {1}/responses, which answers 404.',
        `${at}.base_url`,
        base,
      ),
      fix: t('Set base_url to {0}.', gatewayV1(gateway)),
    });
  return r;
}

const NO_RESPONSES = () =>
  t('The gateway serves no model on the Responses API (/v1/responses) for this token, and Codex speaks only that API.');

async function read(env: ToolsEnvironment, gateway: ToolGateway | undefined): Promise<ToolReading> {
  const resolved = await resolveCodex(env, gateway);
  const cfg = await readCodex(env);
  const ours = markerLineOf(cfg.file.text ?? '');
  return judge({
    label: t('Codex CLI'),
    resolved,
    gateway,
    suffix: '/v1',
    surface: 'responses',
    none: NO_RESPONSES,
    removable: !!ours,
    overridden: () =>
      t(
        '{0} selects another provider in the active profile, which beats the top-level model_provider.',
        resolved.overrides[0].from.key ?? '',
      ),
    idle: () =>
      ours
        ? t(
            'The {0} provider is in {1}, but the active model_provider is another; run codex with -c model_provider={0}, or pick a model in Set Up Tools to make it the default.',
            ours.record.id,
            cfg.file.path,
          )
        : undefined,
  });
}

/** The text with Model Relay's block and root keys taken back (unchanged when there is none). */
export function takeBackCodex(text: string): { text: string; record?: CodexRecord } {
  const m = markerLineOf(text);
  if (!m) return { text };
  const span = blockSpan(text, m.line);
  if (!span) return { text };
  let out = text.slice(0, span.start) + text.slice(span.end);
  out = restoreRootKeys(out, m.record.set, m.record.was ?? {}, m.record.ins ?? '');
  if (m.record.nl && out.endsWith('\n')) out = out.slice(0, -1);
  return { text: out, record: m.record };
}

function freeId(toml: Json): string {
  const providers = isObject(toml.model_providers) ? toml.model_providers : {};
  for (let i = 1; ; i++) {
    const id = i === 1 ? PROVIDER_ID : `${PROVIDER_ID}-${i}`;
    if (!(id in providers)) return id;
  }
}

/** Adds the provider block (and the chosen model) to the text, which carries no Model Relay block. */
export function addCodexSetup(
  text: string | undefined,
  gateway: ToolGateway,
  model: string | undefined,
): { text: string; record: CodexRecord } {
  let out = text ?? '';
  const toml = parseToml(out).value ?? {};
  const id = freeId(toml);
  const record: CodexRecord = { id, set: {}, was: {}, ins: '' };
  if (text === undefined) record.created = true;
  if (out !== '' && !out.endsWith('\n')) {
    out += '\n';
    record.nl = true;
  }
  if (model) {
    record.set = { model, model_provider: id };
    record.was = { model: strAt(toml, 'model'), model_provider: strAt(toml, 'model_provider') };
    const r = setRootKeys(out, record.set);
    out = r.text;
    record.ins = r.inserted;
  }
  const block = tableBlock(['model_providers', id], {
    name: gateway.name,
    base_url: gatewayV1(gateway),
    env_key: gateway.tokenVariable,
    wire_api: 'responses',
  });
  out += `${out === '' ? '' : '\n'}${MARKER}${JSON.stringify(record)}\n${block}`;
  return { text: out, record };
}

async function planSetUp(env: ToolsEnvironment, gateway: ToolGateway, choices: ToolChoices): Promise<ToolPlan> {
  const missing = surfaceMissing(gateway, 'responses', NO_RESPONSES);
  if (missing) return unavailablePlan('codex', 'set-up', missing);
  if (!validVariable(gateway.tokenVariable))
    return unavailablePlan(
      'codex',
      'set-up',
      t('{0} is not a valid environment variable name.', gateway.tokenVariable),
    );
  const cfg = await readCodex(env);
  if (cfg.file.error) return unavailablePlan('codex', 'set-up', cfg.file.error);
  if (cfg.parseError)
    return unavailablePlan(
      'codex',
      'set-up',
      t('{0} does not parse as TOML ({1}), so it was left untouched.', cfg.file.path, cfg.parseError),
    );
  const notes: string[] = [];
  let model = choices.model;
  if (model && !modelsOn(gateway, 'responses').includes(model)) {
    notes.push(
      t('{0} is not served on the Responses API for this token, so the default model is left as it is.', model),
    );
    model = undefined;
  }
  const clean = takeBackCodex(cfg.file.text ?? '');
  const base = cfg.file.text === undefined ? undefined : clean.text;
  const added = addCodexSetup(clean.record?.created && base === '' ? undefined : base, gateway, model);
  notes.push(
    t(
      '{0} names the variable {1}; Model Relay puts the token into new terminals under that name and never into the file.',
      `model_providers.${added.record.id}.env_key`,
      gateway.tokenVariable,
    ),
  );
  if (!model)
    notes.push(
      t(
        'Run codex with -c model_provider={0} -m <model>, or pick a model here to make the gateway the default.',
        added.record.id,
      ),
    );
  const summary = t(
    'Adds the [model_providers.{0}] table (base URL {1}, wire_api "responses") to {2}.',
    added.record.id,
    gatewayV1(gateway),
    cfg.file.path,
  );
  return {
    tool: 'codex',
    action: 'set-up',
    edits: [fileEdit(cfg.file, added.text, summary)],
    terminalEnv: { [gateway.tokenVariable]: { token: true } },
    notes,
  };
}

async function planRemove(env: ToolsEnvironment, gateway: ToolGateway): Promise<ToolPlan> {
  const cfg = await readCodex(env);
  const plan: ToolPlan = {
    tool: 'codex',
    action: 'remove',
    edits: [],
    terminalEnv: {},
    removeEnv: [gateway.tokenVariable],
    notes: [],
  };
  if (cfg.file.error) return { ...plan, notes: [cfg.file.error] };
  const back = takeBackCodex(cfg.file.text ?? '');
  if (!back.record) return { ...plan, notes: [t('{0} has no block added by Model Relay.', cfg.file.path)] };
  const deleteFile = !!back.record.created && back.text.trim() === '';
  plan.edits.push(
    fileEdit(
      cfg.file,
      back.text,
      t(
        'Removes the [model_providers.{0}] table Model Relay added to {1} and puts back what it changed.',
        back.record.id,
        cfg.file.path,
      ),
      deleteFile,
    ),
  );
  return plan;
}

export const codex: ToolModule = {
  id: 'codex',
  label: () => t('Codex CLI'),
  command: 'codex',
  keys: { base: 'base_url', cred: 'env_key', model: 'model' },
  configDirs: (env) => [codexHome(env)],
  read,
  planSetUp,
  planRemove,
};
