/**
 * Codex CLI, resolved as the tool resolves it (checked against Codex 0.169): `$CODEX_HOME/config.toml`
 * (default `~/.codex/config.toml`); the root `model_provider` (default the built-in `openai`, whose
 * address is `openai_base_url`) and `model`; the provider is `[model_providers.<id>]` (`base_url`
 * with /v1, `env_key` naming the variable whose value is sent as Bearer, `wire_api` — `chat` is a
 * hard error). A profile applies only with `--profile x` (from `x.config.toml`), never by default:
 * Codex 0.169 refuses to start with a root `profile` line, and refuses `--profile x` while
 * config.toml still has `[profiles.x]` — both are said as conflicts.
 *
 * Setting it up appends a gateway's `[model_providers.<id>]` table and points the root
 * `model_provider` and `model` lines at it (./codexConfigText.ts: the text edits, two gateways side
 * by side, the older layouts). Remove Setup takes exactly that gateway's part back — or, when the
 * file is still as Model Relay last wrote it, the whole original comes back from its backup
 * (toolBackups.ts). The token is never written: `env_key` names the variable Model Relay puts into
 * new terminals.
 */
import { join } from 'node:path';
import { t } from '../l10n';
import {
  authOf,
  emptyResolved,
  fileSource,
  gatewayV1,
  isOurProviderId,
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
import { addCodexSetup, hasOurs, ourSetupIn, takeBackCodex } from './codexConfigText';
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

/** Why Codex refuses its file: unreadable, or not TOML. */
function refusals(cfg: CodexConfig): string[] {
  const out = cfg.file.error ? [cfg.file.error] : [];
  if (cfg.parseError)
    out.push(t('{0} does not parse as TOML ({1}), so Codex refuses to start.', cfg.file.path, cfg.parseError));
  return out;
}

/**
 * The profile layout Codex 0.169 refuses, with its fix: a root `profile` line (Codex does not start),
 * else `[profiles.x]` tables (`codex --profile x` does not start while they are there). Model
 * Relay's own (its provider ids) go by setting up again; the user's move into `x.config.toml`.
 */
function legacyProfiles(
  env: ToolsEnvironment,
  cfg: CodexConfig,
): { conflict: ResolvedToolConfig['conflicts'][number]; stops: boolean } | undefined {
  const toml = cfg.toml ?? {};
  const path = cfg.file.path;
  const line = strAt(toml, 'profile');
  const tables = isObject(toml.profiles) ? Object.keys(toml.profiles) : [];
  const names = line !== undefined ? [line] : tables;
  if (!names.length) return undefined;
  const what =
    line !== undefined
      ? t(
          '{0} selects the profile "{1}" with a root profile line, which Codex 0.169 refuses: it stops with "legacy profile config is no longer supported".',
          path,
          line,
        )
      : t(
          '{0} has the profile tables {1}, which Codex 0.169 no longer reads from config.toml: codex --profile {2} refuses to start while they are there.',
          path,
          tables.map((x) => `[profiles.${x}]`).join(', '),
          tables[0],
        );
  const fix = names.every(isOurProviderId)
    ? t('Run "Model Relay: Set Up Tools…" and set up {0} again, or Remove Setup.', t('Codex CLI'))
    : t(
        "Move the profile's settings into {0} and delete them (and the profile line) from {1}; then run codex --profile {2}.",
        join(codexHome(env), `${names[0]}.config.toml`),
        path,
        names[0],
      );
  return { conflict: { what, fix }, stops: line !== undefined };
}

export async function resolveCodex(
  env: ToolsEnvironment,
  gateway: ToolGateway | undefined,
): Promise<ResolvedToolConfig> {
  const r = emptyResolved();
  const cfg = await readCodex(env);
  r.problems.push(...refusals(cfg));
  const legacy = legacyProfiles(env, cfg);
  // a profile line stops Codex: said first; profile tables stop only --profile: said last
  if (legacy?.stops) r.conflicts.push(legacy.conflict);
  resolveProvider(env, gateway, cfg, r);
  if (legacy && !legacy.stops) r.conflicts.push(legacy.conflict);
  return r;
}

/** The provider the root `model_provider` selects (the built-in `openai` by default), and the model, into `r`. */
function resolveProvider(
  env: ToolsEnvironment,
  gateway: ToolGateway | undefined,
  cfg: CodexConfig,
  r: ResolvedToolConfig,
): void {
  const path = cfg.file.path;
  const toml = cfg.toml ?? {};
  const model = strAt(toml, 'model');
  if (model) r.model = { value: model, from: fileSource(env, path, 'model') };
  const selected = strAt(toml, 'model_provider') ?? 'openai';
  const providers = isObject(toml.model_providers) ? toml.model_providers : {};
  const provider = providers[selected];
  if (!isObject(provider)) {
    if (selected === 'openai') {
      const base = strAt(toml, 'openai_base_url');
      r.baseUrl = base
        ? { value: base, from: fileSource(env, path, 'openai_base_url') }
        : { value: 'https://api.openai.com/v1', from: { kind: 'default', where: t('built-in default') } };
      const key = env.env.OPENAI_API_KEY?.trim();
      if (key) r.auth = authOf('authorization', key, { ...TERMINAL(), key: 'OPENAI_API_KEY' }, gateway);
    }
    return;
  }
  const at = `model_providers.${selected}`;
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
    // a root profile line stops Codex before any provider counts: that conflict is the words then
    idle: () =>
      ours && strAt(cfg.toml ?? {}, 'profile') === undefined
        ? t(
            'The {0} provider is in {1}, but model_provider selects another; pick a model in Set Up Tools to make it the default, or run codex with -c model_provider={0} -m <model>.',
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
      t("Model Relay's table cannot be added to {0} ({1}); it was left untouched.", path, err),
    );
  notes.push(
    t(
      '{0} names the variable {1}; Model Relay puts the token into new terminals under that name and never into the file.',
      `model_providers.${added.id}.env_key`,
      gateway.tokenVariable,
    ),
  );
  if (added.root === 'kept')
    notes.push(
      t(
        'Pick a model here to make the gateway the default, or run codex with -c model_provider={0} -m <model>.',
        added.id,
      ),
    );
  if (added.root === 'multiline')
    notes.push(
      t(
        'The model_provider or model line of {0} is not a one-line string, so it was left as it is; run codex with -c model_provider={1} -m <model>.',
        path,
        added.id,
      ),
    );
  const summary =
    added.root === 'set'
      ? t(
          'Adds the [model_providers.{0}] table (base URL {1}, wire_api "responses") to {2} and points the root model_provider and model lines at it (each line it replaces is kept in its comment).',
          added.id,
          gatewayV1(gateway),
          path,
        )
      : t(
          'Adds the [model_providers.{0}] table (base URL {1}, wire_api "responses") to {2}.',
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
