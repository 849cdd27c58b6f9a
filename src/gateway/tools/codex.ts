/**
 * Codex CLI, resolved as the tool resolves it: `$CODEX_HOME/config.toml` (default
 * `~/.codex/config.toml`); the active profile (`profile = "x"` → `[profiles.x]`) beats the top-level
 * `model` / `model_provider`; the provider is `[model_providers.<id>]` (`base_url` with /v1,
 * `env_key` naming the variable whose value is sent as Bearer, `wire_api` — `chat` is a hard error).
 *
 * Setting it up appends a gateway's `[model_providers.<id>]` and `[profiles.<id>]` tables and
 * points the root `profile` at them (./codexConfigText.ts: the text edits, two gateways side by side,
 * the older layout). Remove Setup takes exactly that gateway's part back — or, when the file is still
 * as Model Relay last wrote it, the whole original comes back from its backup (toolBackups.ts). The
 * token is never written: `env_key` names the variable Model Relay puts into new terminals.
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
import { addCodexSetup, hasOurs, markerLineOf, ourSetupIn, takeBackCodex } from './codexConfigText';
import { parseToml } from './tomlText';
import type { ResolvedToolConfig, ToolChoices, ToolGateway, ToolPlan, ToolsEnvironment } from './types';

export function codexHome(env: ToolsEnvironment): string {
  return env.env.CODEX_HOME?.trim() || join(env.homeDir, '.codex');
}

export function codexConfigPath(env: ToolsEnvironment): string {
  return join(codexHome(env), 'config.toml');
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

/**
 * The active model provider and model after the profile, with the keys they come from (Codex:
 * `profile` → `profiles.<x>.model_provider` / `.model`, else the root keys); `missingProfile` names a
 * profile the file selects but does not define, which Codex refuses.
 */
function activeSelection(toml: Json): {
  provider: string;
  providerKey: string;
  model?: string;
  modelKey?: string;
  missingProfile?: string;
} {
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
    ...(profileName && !isObject(profile) ? { missingProfile: profileName } : {}),
  };
}

/** Why Codex refuses its file: unreadable, not TOML, or selecting a profile it does not define. */
function refusals(cfg: CodexConfig, missingProfile: string | undefined): string[] {
  const path = cfg.file.path;
  const out = cfg.file.error ? [cfg.file.error] : [];
  if (cfg.parseError) out.push(t('{0} does not parse as TOML ({1}), so Codex refuses to start.', path, cfg.parseError));
  if (missingProfile)
    out.push(
      t('{0} selects the profile "{1}", which it does not define, so Codex refuses to start.', path, missingProfile),
    );
  return out;
}

export async function resolveCodex(
  env: ToolsEnvironment,
  gateway: ToolGateway | undefined,
): Promise<ResolvedToolConfig> {
  const r = emptyResolved();
  const cfg = await readCodex(env);
  const path = cfg.file.path;
  const toml = cfg.toml ?? {};
  const sel = activeSelection(toml);
  r.problems.push(...refusals(cfg, sel.missingProfile));
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
  const ours = ourSetupIn(cfg.file.text ?? '', gateway);
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
            'The {0} provider is in {1}, but another profile or provider is active; run codex with --profile {0}, or pick a model in Set Up Tools to make it the default.',
            ours.id,
            cfg.file.path,
          )
        : undefined,
  });
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
  const path = cfg.file.path;
  if (cfg.file.error) return unavailablePlan('codex', 'set-up', cfg.file.error);
  if (cfg.parseError)
    return unavailablePlan(
      'codex',
      'set-up',
      t('{0} does not parse as TOML ({1}), so it was left untouched.', path, cfg.parseError),
    );
  const notes: string[] = [];
  let model = choices.model;
  if (model && !modelsOn(gateway, 'responses').includes(model)) {
    notes.push(
      t('{0} is not served on the Responses API for this token, so the default model is left as it is.', model),
    );
    model = undefined;
  }
  const text = cfg.file.text ?? '';
  const added = addCodexSetup(text, gateway, model);
  const err = parseToml(added.text).error;
  if (err !== undefined)
    return unavailablePlan(
      'codex',
      'set-up',
      t('The tables cannot be added to {0} ({1}); it was left untouched.', path, err),
    );
  notes.push(
    t(
      '{0} names the variable {1}; Model Relay puts the token into new terminals under that name and never into the file.',
      `model_providers.${added.id}.env_key`,
      gateway.tokenVariable,
    ),
  );
  if (added.profile === 'kept')
    notes.push(
      t('Run codex with --profile {0} -m <model>, or pick a model here to make the gateway the default.', added.id),
    );
  if (added.profile === 'multiline')
    notes.push(
      t(
        'The profile line of {0} spans several lines, so it was left as it is; run codex with --profile {1}.',
        path,
        added.id,
      ),
    );
  const summary = t(
    'Adds the [model_providers.{0}] table (base URL {1}, wire_api "responses") and the [profiles.{0}] table to {2}.',
    added.id,
    gatewayV1(gateway),
    path,
  );
  return {
    tool: 'codex',
    action: 'set-up',
    edits: [fileEdit(cfg.file, added.text, summary, { ours: { before: hasOurs(text), after: true } })],
    terminalEnv: { [gateway.tokenVariable]: { token: true } },
    notes,
  };
}

async function planRemove(env: ToolsEnvironment, gateway: ToolGateway): Promise<ToolPlan> {
  const cfg = await readCodex(env);
  const path = cfg.file.path;
  const plan: ToolPlan = {
    tool: 'codex',
    action: 'remove',
    edits: [],
    terminalEnv: {},
    removeEnv: [gateway.tokenVariable],
    notes: [],
  };
  if (cfg.file.error) return { ...plan, notes: [cfg.file.error] };
  const back = cfg.toml && cfg.file.text !== undefined ? takeBackCodex(cfg.file.text, gateway) : undefined;
  if (!back?.taken.length) return { ...plan, notes: [t('{0} has no block added by Model Relay.', path)] };
  if (!back.clean)
    return {
      ...plan,
      notes: [
        t(
          'Model Relay could not take its tables ({0}) out of {1} without touching the rest, so the file was left as it is; remove them yourself.',
          back.taken.join(', '),
          path,
        ),
      ],
    };
  const deleteFile = back.text.trim() === '' && (back.created || back.text === '');
  const summary = t(
    'Removes the tables Model Relay added to {0} ({1}) and puts back the lines it replaced.',
    path,
    back.taken.join(', '),
  );
  plan.edits.push(
    fileEdit(cfg.file, deleteFile ? '' : back.text, summary, {
      deleteFile,
      ours: { before: true, after: hasOurs(back.text) },
    }),
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
