/**
 * GitHub Copilot CLI (`copilot`, npm `@github/copilot`), resolved as version 1.0.102 resolves it
 * (checked against the real CLI and `copilot help providers`):
 *
 * - Bring your own key, from the terminal: COPILOT_PROVIDER_BASE_URL turns it on, and no GitHub
 *   sign-in is needed then. COPILOT_PROVIDER_TYPE is "openai" (the default: the base includes /v1,
 *   the CLI appends /chat/completions or /responses), "anthropic" (the root: it appends /v1/messages)
 *   or "azure"; COPILOT_PROVIDER_WIRE_API is "completions" (default) or "responses"; any other value
 *   stops it. The credential: COPILOT_PROVIDER_BEARER_TOKEN (always `Authorization: Bearer`) beats
 *   COPILOT_PROVIDER_API_KEY_COMMAND, which beats COPILOT_PROVIDER_API_KEY (`Authorization: Bearer`
 *   for openai, `x-api-key` for anthropic). The model sent: COPILOT_PROVIDER_WIRE_MODEL, else
 *   COPILOT_MODEL, else COPILOT_PROVIDER_MODEL_ID — one is required ("BYOK providers require an
 *   explicit model"); `--model` on the command line beats them. While the variable is set no file
 *   changes any of this: neither `model` in the user's or the repository's settings.json nor
 *   providers.json.
 * - Without it, the `model` of the user's settings.json (`$COPILOT_HOME`, default `~/.copilot`) may
 *   name a provider registered in providers.json (`<provider>/<model>`; the file is
 *   `$COPILOT_PROVIDERS_CONFIG` or `$COPILOT_HOME/providers.json`, `providers[]` with `name`, `type`,
 *   `baseUrl`, `apiKey`, `wireApi`): Copilot CLI calls that provider. Otherwise it uses GitHub
 *   Copilot's own service after a GitHub sign-in. A repository's settings (`.github/copilot/…`) do not
 *   select a provider, so no project file is read.
 *
 * Setting it up changes no file: new terminals get the base address with /v1, the type "openai", the
 * token as COPILOT_PROVIDER_API_KEY, the model, and the wire API the model is served on.
 */
import { join } from 'node:path';
import { t } from '../l10n';
import {
  aimOf,
  authOf,
  emptyResolved,
  fileSource,
  gatewayRoot,
  gatewayV1,
  judge,
  surfaceMissing,
  TERMINAL,
  unavailablePlan,
  type ToolModule,
  type ToolReading,
} from './common';
import { isObject, parseJsonc, strAt, type Json } from './configFile';
import type { ProbeTarget } from './probeRequests';
import { readToolFile } from './toolFile';
import type { ResolvedToolConfig, ToolChoices, ToolGateway, ToolPlan, ToolsEnvironment, ToolSource } from './types';

export const COPILOT_BASE_URL = 'COPILOT_PROVIDER_BASE_URL';
export const COPILOT_TYPE = 'COPILOT_PROVIDER_TYPE';
export const COPILOT_API_KEY = 'COPILOT_PROVIDER_API_KEY';
export const COPILOT_MODEL = 'COPILOT_MODEL';
export const COPILOT_WIRE_API = 'COPILOT_PROVIDER_WIRE_API';
const BEARER = 'COPILOT_PROVIDER_BEARER_TOKEN';
const KEY_COMMAND = 'COPILOT_PROVIDER_API_KEY_COMMAND';
const WIRE_MODEL = 'COPILOT_PROVIDER_WIRE_MODEL';
const MODEL_ID = 'COPILOT_PROVIDER_MODEL_ID';
/** The variables a setup puts into new terminals (and Remove Setup takes out). */
const SETUP_VARIABLES = [COPILOT_BASE_URL, COPILOT_TYPE, COPILOT_API_KEY, COPILOT_MODEL, COPILOT_WIRE_API];

/** Copilot CLI's folder: `$COPILOT_HOME`, default `~/.copilot`. */
export function copilotHome(env: ToolsEnvironment): string {
  return env.env.COPILOT_HOME?.trim() || join(env.homeDir, '.copilot');
}

export function copilotProvidersPath(env: ToolsEnvironment): string {
  return env.env.COPILOT_PROVIDERS_CONFIG?.trim() || join(copilotHome(env), 'providers.json');
}

/** The models Copilot CLI can call at this gateway: those served on Chat Completions or Responses. */
export function copilotModels(gateway: ToolGateway): ToolGateway['models'] {
  return gateway.models.filter((m) => m.surfaces.includes('compatible') || m.surfaces.includes('responses'));
}

/**
 * The wire API for a model: Chat Completions when the model is served there, Responses only when it
 * is served on Responses alone — Copilot CLI's Responses requests always ask for encrypted reasoning
 * (`include: ["reasoning.encrypted_content"]`), which a model without reasoning refuses.
 */
export function copilotWireApi(gateway: ToolGateway, model: string): 'completions' | 'responses' {
  const m = gateway.models.find((x) => x.id === model);
  return m && !m.surfaces.includes('compatible') && m.surfaces.includes('responses') ? 'responses' : 'completions';
}

/** Where a variable or key came from, for a sentence: the terminal environment, or the file's path. */
const placeOf = (from: ToolSource) => (from.kind === 'terminal' ? t('the terminal environment') : from.where);

/** A provider type or wire API Copilot CLI refuses: it stops before sending anything. */
export function copilotRefusal(
  target: Pick<ProbeTarget, 'providerType' | 'wireApi'>,
): { cause: string; fix: string } | undefined {
  const type = target.providerType;
  if (type && !['openai', 'anthropic', 'azure'].includes(type.value))
    return {
      cause: t(
        'Copilot CLI refuses {0} = "{1}" ({2}): it stops with "Invalid provider type" before sending anything.',
        type.from.key ?? COPILOT_TYPE,
        type.value,
        placeOf(type.from),
      ),
      fix: t('Set {0} to openai in {1}.', type.from.key ?? COPILOT_TYPE, placeOf(type.from)),
    };
  const wire = target.wireApi;
  if (wire && !['completions', 'responses'].includes(wire.value))
    return {
      cause: t(
        'Copilot CLI refuses {0} = "{1}" ({2}): it stops with "Invalid wire API format" before sending anything.',
        wire.from.key ?? COPILOT_WIRE_API,
        wire.value,
        placeOf(wire.from),
      ),
      fix: t('Set {0} to completions or responses in {1}.', wire.from.key ?? COPILOT_WIRE_API, placeOf(wire.from)),
    };
  return undefined;
}

/** A variable of the terminal, trimmed; undefined when unset or empty. */
function variable(env: ToolsEnvironment, key: string): { value: string; from: ToolSource } | undefined {
  const v = env.env[key]?.trim();
  return v ? { value: v, from: { ...TERMINAL(), key } } : undefined;
}

/**
 * Bring your own key from the terminal's variables (COPILOT_PROVIDER_BASE_URL is set); the provider
 * type returned (it decides the path after the base address).
 */
function fromTerminal(env: ToolsEnvironment, gateway: ToolGateway | undefined, r: ResolvedToolConfig): string {
  r.baseUrl = variable(env, COPILOT_BASE_URL)!;
  const type = variable(env, COPILOT_TYPE);
  const refused = copilotRefusal({ providerType: type, wireApi: variable(env, COPILOT_WIRE_API) });
  if (refused) r.conflicts.push({ what: refused.cause, fix: refused.fix });
  const bearer = variable(env, BEARER);
  const command = variable(env, KEY_COMMAND);
  const key = variable(env, COPILOT_API_KEY);
  const cred = bearer ?? (command ? undefined : key);
  if (cred)
    r.auth = authOf(
      cred === key && type?.value === 'anthropic' ? 'x-api-key' : 'authorization',
      cred.value,
      cred.from,
      gateway,
    );
  else if (command)
    r.problems.push(
      t(
        'Copilot CLI gets its key from the command in {0}, which Model Relay does not run: its request is not probed.',
        KEY_COMMAND,
      ),
    );
  const model = variable(env, WIRE_MODEL) ?? variable(env, COPILOT_MODEL) ?? variable(env, MODEL_ID);
  if (model) r.model = model;
  else
    r.conflicts.push({
      what: t(
        'No model is set: Copilot CLI stops with "BYOK providers require an explicit model" ({0} is not set).',
        COPILOT_MODEL,
      ),
      fix: t('Run "Model Relay: Set Up Tools…" for Copilot CLI and pick a model, or set {0}.', COPILOT_MODEL),
    });
  // the variables that win over the ones a setup puts into new terminals
  const winner = bearer ?? command;
  if (key && winner) r.overrides.push({ from: winner.from, keys: [winner.from.key!], fixable: false });
  const wireModel = variable(env, WIRE_MODEL);
  const ourModel = variable(env, COPILOT_MODEL);
  if (ourModel && wireModel && wireModel.value !== ourModel.value)
    r.overrides.push({ from: wireModel.from, keys: [WIRE_MODEL], fixable: false });
  return type?.value ?? 'openai';
}

/** A JSON(C) file of Copilot CLI's folder, parsed; problems said. */
async function jsonFile(env: ToolsEnvironment, path: string, problems: string[]): Promise<Json | undefined> {
  const f = await readToolFile(env, path);
  if (f.error) problems.push(f.error);
  if (f.text === undefined) return undefined;
  const p = parseJsonc(f.text);
  if (p.error === undefined && isObject(p.value)) return p.value;
  problems.push(t('{0} is not valid JSON, so Copilot CLI does not use it.', path));
  return undefined;
}

/** Without the variable: a provider of providers.json selected by the `model` of the user's settings.json; its type. */
async function fromProviders(
  env: ToolsEnvironment,
  gateway: ToolGateway | undefined,
  r: ResolvedToolConfig,
): Promise<string | undefined> {
  const settingsPath = join(copilotHome(env), 'settings.json');
  const selected = strAt(await jsonFile(env, settingsPath, r.problems), 'model');
  const slash = selected?.indexOf('/') ?? -1;
  if (!selected || slash <= 0) return undefined;
  const path = copilotProvidersPath(env);
  const providers = (await jsonFile(env, path, r.problems))?.providers;
  const list = Array.isArray(providers) ? providers : [];
  const index = list.findIndex((p) => isObject(p) && p.name === selected.slice(0, slash));
  const entry = list[index] as Json | undefined;
  const base = strAt(entry, 'baseUrl');
  if (!entry || !base) return undefined;
  const at = (key: string) => fileSource(env, path, `providers.${index}.${key}`);
  r.baseUrl = { value: base, from: at('baseUrl') };
  const type = strAt(entry, 'type') ?? 'openai';
  r.model = { value: selected.slice(slash + 1), from: fileSource(env, settingsPath, 'model') };
  const key = strAt(entry, 'bearerToken') ? 'bearerToken' : 'apiKey';
  const value = strAt(entry, key);
  if (value)
    r.auth = authOf(key === 'apiKey' && type === 'anthropic' ? 'x-api-key' : 'authorization', value, at(key), gateway);
  return type;
}

/** The address's path as Copilot CLI needs it for its type: a conflict when it is at this gateway's origin with the wrong one. */
function pathConflict(r: ResolvedToolConfig, type: string, gateway: ToolGateway): void {
  const url = r.baseUrl!.value;
  const where = r.baseUrl!.from.key ?? COPILOT_BASE_URL;
  if (type === 'anthropic')
    r.conflicts.push({
      what: t(
        '{0} is {1}: with the type anthropic Copilot CLI appends /v1/messages itself, so this address is not the one it needs.',
        where,
        url,
      ),
      fix: t('Set {0} to the root address {1}.', where, gatewayRoot(gateway)),
    });
  else
    r.conflicts.push({
      what: t(
        '{0} is {1}: Copilot CLI appends /chat/completions or /responses to it, and the gateway serves them under {2}.',
        where,
        url,
        gatewayV1(gateway),
      ),
      fix: t('Set {0} to {1}.', where, gatewayV1(gateway)),
    });
}

/** Copilot CLI's configuration, in its precedence, and where its address points. */
export async function resolveCopilotCli(
  env: ToolsEnvironment,
  gateway: ToolGateway | undefined,
): Promise<{ resolved: ResolvedToolConfig; suffix: '' | '/v1' }> {
  const r = emptyResolved();
  const type = variable(env, COPILOT_BASE_URL) ? fromTerminal(env, gateway, r) : await fromProviders(env, gateway, r);
  const suffix = type === 'anthropic' ? '' : '/v1';
  // at this gateway's origin with a path Copilot CLI does not need: said as a conflict (judge: not set up)
  if (
    gateway &&
    aimOf(r.baseUrl?.value, gateway, suffix).at !== 'this' &&
    aimOf(r.baseUrl?.value, gateway, suffix, true).at === 'this'
  )
    pathConflict(r, type ?? 'openai', gateway);
  if (type === 'azure')
    r.conflicts.push({
      what: t(
        "{0} is azure: Copilot CLI calls Azure OpenAI's deployment paths with an api-key header, which a relay gateway does not serve.",
        COPILOT_TYPE,
      ),
      fix: t('Set {0} to openai in {1}.', COPILOT_TYPE, r.baseUrl ? placeOf(r.baseUrl.from) : ''),
    });
  return { resolved: r, suffix };
}

const NO_MODEL = () =>
  t(
    'The gateway serves no model on the Chat Completions or Responses API for this token, so Copilot CLI has nothing to call there.',
  );

async function read(env: ToolsEnvironment, gateway: ToolGateway | undefined): Promise<ToolReading> {
  const { resolved, suffix } = await resolveCopilotCli(env, gateway);
  const o = resolved.overrides[0];
  return judge({
    label: 'GitHub Copilot CLI',
    resolved,
    gateway,
    suffix,
    surface: ['compatible', 'responses'],
    none: NO_MODEL,
    removable:
      !!gateway &&
      aimOf(env.env[COPILOT_BASE_URL]?.trim(), gateway, '/v1').at === 'this' &&
      !!env.env[COPILOT_API_KEY]?.trim(),
    overridden: () => t('{0} in {1} wins over what Model Relay set for Copilot CLI.', o.keys.join(', '), o.from.where),
    idle: () =>
      resolved.baseUrl
        ? undefined
        : t(
            "Copilot CLI uses GitHub Copilot's own models (after a GitHub sign-in), not this gateway: {0} is not set.",
            COPILOT_BASE_URL,
          ),
  });
}

function setUpPlan(env: ToolsEnvironment, gateway: ToolGateway, choices: ToolChoices): ToolPlan {
  const missing = surfaceMissing(gateway, ['compatible', 'responses'], NO_MODEL);
  if (missing) return unavailablePlan('copilot-cli', 'set-up', missing);
  const usable = copilotModels(gateway).map((m) => m.id);
  const model = choices.model;
  if (!model || !usable.includes(model))
    return unavailablePlan(
      'copilot-cli',
      'set-up',
      model
        ? t(
            '{0} is not served on the Chat Completions or Responses API for this token, so Copilot CLI cannot use it.',
            model,
          )
        : t('Copilot CLI needs a model ({0}): pick one of this token’s models.', COPILOT_MODEL),
    );
  const wire = copilotWireApi(gateway, model);
  const plan: ToolPlan = {
    tool: 'copilot-cli',
    action: 'set-up',
    edits: [],
    terminalEnv: {
      [COPILOT_BASE_URL]: gatewayV1(gateway),
      [COPILOT_TYPE]: 'openai',
      [COPILOT_API_KEY]: { token: true },
      [COPILOT_MODEL]: model,
      [COPILOT_WIRE_API]: wire,
    },
    notes: [
      t(
        'New terminals get {0} (the address with /v1), the token as {1}, {2} and {3}; no file is changed, and Copilot CLI needs no GitHub sign-in then.',
        COPILOT_BASE_URL,
        COPILOT_API_KEY,
        COPILOT_MODEL,
        COPILOT_WIRE_API,
      ),
    ],
  };
  if (wire === 'responses')
    plan.notes.push(t('{0} is served on the Responses API only, so {1} is "responses".', model, COPILOT_WIRE_API));
  for (const key of [BEARER, KEY_COMMAND, WIRE_MODEL])
    if (variable(env, key))
      plan.notes.push(
        t('{0} is set in the terminal environment and wins over the setup: unset it where it is exported.', key),
      );
  return plan;
}

function planSetUp(env: ToolsEnvironment, gateway: ToolGateway, choices: ToolChoices): Promise<ToolPlan> {
  return Promise.resolve(setUpPlan(env, gateway, choices));
}

function planRemove(): Promise<ToolPlan> {
  return Promise.resolve({
    tool: 'copilot-cli',
    action: 'remove',
    edits: [],
    terminalEnv: {},
    removeEnv: SETUP_VARIABLES,
    notes: [t('New terminals no longer get the Copilot CLI variables; no file is changed.')],
  });
}

export const copilotCli: ToolModule = {
  id: 'copilot-cli',
  label: () => 'GitHub Copilot CLI',
  command: 'copilot',
  keys: { base: COPILOT_BASE_URL, cred: COPILOT_API_KEY, model: COPILOT_MODEL },
  configDirs: (env) => [copilotHome(env)],
  read,
  planSetUp,
  planRemove,
};
