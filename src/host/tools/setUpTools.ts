/**
 * Set Up Tools… (issue 26) as plain logic: the picker's rows (each tool with its state, what setting
 * it up changes, its Remove Setup and the Fix of each override found), then one action carried out —
 * the models picked, the plan's file edits shown as a diff and written only after the user agreed,
 * each write's outcome reported (a refused one untouched, with the reason), the variables put into
 * new terminals, and the probe's verdict. The tools' files are read and written by the core
 * (src/gateway/tools, handed in as a ToolsBackend); the VS Code side (quick picks, the diff editor,
 * the modal) is a ToolsUi. No `vscode` here.
 */
import type { ModelInfo, Surface } from '../../gateway';
import { t } from '../../gateway/l10n';
import { toolLabel } from '../../gateway/tools/tools';
import type {
  EditOutcome,
  ResolvedToolConfig,
  ToolChoices,
  ToolGateway,
  ToolId,
  ToolPlan,
  ToolProbeResult,
  ToolStatus,
} from '../../gateway/tools/types';
import { copilotModels } from '../../gateway/tools/copilotCli';
import type { TerminalValue } from './toolTerminals';

type ToolSurface = ToolGateway['models'][number]['surfaces'][number];
/** A state; `removable`: Model Relay's own setup is there to take back (src/gateway/tools adds it). */
type Status = ToolStatus & { removable?: boolean };
/** A plan; `unavailable`: why it cannot be carried out for this gateway (src/gateway/tools adds it). */
type Plan = ToolPlan & { unavailable?: string };

/** The core's side: states, plans, writes and probes, bound to the active gateway and the tools' environment. */
export interface ToolsBackend {
  statuses(): Promise<Status[]>;
  planSetUp(tool: ToolId, choices: ToolChoices): Promise<Plan>;
  planRemove(tool: ToolId): Promise<ToolPlan>;
  planFix(tool: ToolId, override: ResolvedToolConfig['overrides'][number]): Promise<ToolPlan | string>;
  apply(plan: ToolPlan): Promise<EditOutcome[]>;
  /** the request the tool will send, with the token new terminals get (absent: no probe) */
  probe?(tool: ToolId, choices: ToolChoices): Promise<ToolProbeResult>;
}

/** Where the variables go: the terminals (src/host/tools/toolTerminals.ts), each tool bound to its gateway. */
export interface ToolsTerminals {
  tools(): ToolId[];
  setUp(
    tool: ToolId,
    gatewayId: string,
    tokenName: string,
    env: Record<string, TerminalValue>,
    choices: ToolChoices,
  ): Promise<Record<string, string> | undefined>;
  remove(tool: ToolId): Promise<void>;
}

export interface PickRow<T> {
  label: string;
  description?: string;
  detail?: string;
  value: T;
}

/** The VS Code side: quick picks, the diff before a write, messages. */
export interface ToolsUi {
  pick<T>(rows: Array<PickRow<T>>, title: string, placeholder?: string): Promise<T | undefined>;
  /** shows each edit's before/after and asks Apply / Cancel (modal); true: apply */
  confirm(plan: ToolPlan, title: string): Promise<boolean>;
  /** an information message with buttons; the button chosen */
  info(message: string, ...buttons: string[]): Promise<string | undefined>;
  error(message: string): void;
  openTerminal(tool: ToolId): void;
}

export type ToolAction =
  | { kind: 'set-up'; tool: ToolId }
  | { kind: 'remove'; tool: ToolId }
  | { kind: 'fix'; tool: ToolId; override: ResolvedToolConfig['overrides'][number] };

/** A state in words. */
export function stateWords(s: ToolStatus): string {
  switch (s.state) {
    case 'not-installed':
      return t('not installed');
    case 'not-set-up':
      return t('not set up');
    case 'set-up':
      return t('set up');
    case 'overridden':
      return t('set up, but overridden');
    case 'unavailable':
      return t('unavailable');
  }
}

/** What setting a tool up changes, in one sentence. */
export function changeWords(tool: ToolId, tokenVariable: string): string {
  switch (tool) {
    case 'claude-code':
      return t(
        'New terminals get ANTHROPIC_BASE_URL (the root address, never /v1) and the token as ANTHROPIC_AUTH_TOKEN, with an optional model mapping; no file is changed.',
      );
    case 'codex':
      return t(
        'Adds a model_providers entry to ~/.codex/config.toml (the address with /v1, wire_api "responses", env_key {0}) and makes it the default with the model_provider and model lines; new terminals get the token as {0}, never the file.',
        tokenVariable,
      );
    case 'gemini-cli':
      return t(
        'New terminals get GOOGLE_GEMINI_BASE_URL (the root address) and the token as GEMINI_API_KEY; the API key is selected as the sign-in method in ~/.gemini/settings.json when none is.',
      );
    case 'opencode':
      return t(
        'Adds a provider block to opencode.json with baseURL and apiKey "{env:{0}}"; new terminals get the token as {0}.',
        tokenVariable,
      );
    case 'copilot-cli':
      return t(
        'New terminals get COPILOT_PROVIDER_BASE_URL (the address with /v1), the token as COPILOT_PROVIDER_API_KEY, COPILOT_MODEL and COPILOT_PROVIDER_WIRE_API; no file is changed and no GitHub sign-in is needed.',
      );
  }
}

/** The rows of Set Up Tools…: each tool, then the Fix of each fixable override and each Remove Setup. */
export function toolRows(
  statuses: readonly Status[],
  inTerminals: readonly ToolId[],
  tokenVariable: string,
): Array<PickRow<ToolAction>> {
  const rows: Array<PickRow<ToolAction>> = statuses.map((s) => ({
    label: toolLabel(s.tool),
    description: stateWords(s),
    detail: [s.why, s.state === 'unavailable' ? undefined : changeWords(s.tool, tokenVariable)]
      .filter(Boolean)
      .join(' '),
    value: { kind: 'set-up', tool: s.tool },
  }));
  for (const s of statuses)
    for (const o of s.resolved?.overrides ?? [])
      if (o.fixable)
        rows.push({
          label: t('Fix {0}: remove {1} from {2}', toolLabel(s.tool), o.keys.join(', '), o.from.where),
          detail: t(
            '{0} beats the setup; the diff is shown before the file is changed, and a backup kept.',
            o.from.where,
          ),
          value: { kind: 'fix', tool: s.tool, override: o },
        });
  for (const s of statuses)
    if (s.removable || inTerminals.includes(s.tool))
      rows.push({
        label: t('Remove Setup: {0}', toolLabel(s.tool)),
        detail: t(
          "Takes back exactly what Model Relay added for {0} (its variables in new terminals, its block in the tool's file).",
          toolLabel(s.tool),
        ),
        value: { kind: 'remove', tool: s.tool },
      });
  return rows;
}

/** One write's outcome in words: written (with its backup), or left untouched and why. */
export function outcomeWords(o: EditOutcome): string {
  if (o.written) return o.backup ? t('{0} written (backup: {1}).', o.path, o.backup) : t('{0} written.', o.path);
  return t('{0} left untouched: {1}', o.path, o.message);
}

/** The model surfaces a tool can use, from the model list (endpoint types when listed, else the model's name) and what refusals taught. */
export function toolGatewayModels(
  models: readonly Pick<ModelInfo, 'id' | 'capabilities' | 'endpointTypes'>[],
  learnt: ReadonlyArray<{ model: string; surface: Surface }> = [],
): ToolGateway['models'] {
  return models.map((m) => {
    const surfaces = new Set<ToolSurface>();
    const taught = learnt.find((l) => l.model === m.id)?.surface;
    if (m.capabilities?.length) {
      if (m.capabilities.includes('chat')) surfaces.add('compatible');
      if (m.capabilities.includes('native')) surfaces.add('native');
      if (m.capabilities.includes('responses')) surfaces.add('responses');
      if (m.endpointTypes?.includes('gemini')) surfaces.add('gemini');
    } else if (taught) surfaces.add(taught);
    else {
      // no endpoint types listed: what the model's name says (new-api routes by it)
      if (/claude/i.test(m.id)) surfaces.add('native');
      if (/gemini/i.test(m.id)) surfaces.add('gemini');
      if (/codex|^gpt-5|^o\d/i.test(m.id)) surfaces.add('responses');
      if (!/codex|-pro$/i.test(m.id)) surfaces.add('compatible');
    }
    return { id: m.id, surfaces: [...surfaces] };
  });
}

export interface SetUpDeps {
  backend: ToolsBackend;
  terminals: ToolsTerminals;
  ui: ToolsUi;
  gateway: ToolGateway;
  /** the token new terminals get by default (its name): the gateway's active one */
  tokenName: string;
  /** the gateway's tokens (names and masked values): with several, the user picks the tool's own */
  tokens?: ReadonlyArray<{ name: string; masked: string }>;
  /** Claude Code's variables under other names (modelRelay.nativeCli.*), offered as a choice when set */
  claudeNames?: { baseUrl: string; token: string };
}

/** The suggested name of a token dedicated to the terminal tools (Add Token suggests it too). */
export const TOOL_TOKEN_NAME = 'native-cli';

/** The token for the tool: the only one, else the user's pick (a dedicated one first); undefined: cancelled. */
export async function pickToken(d: SetUpDeps): Promise<string | undefined> {
  const list = d.tokens ?? [];
  if (list.length < 2) return d.tokenName;
  const rank = (n: string) => (n === TOOL_TOKEN_NAME ? 0 : n === d.tokenName ? 1 : 2);
  const rows = [...list]
    .sort((a, b) => rank(a.name) - rank(b.name))
    .map((x) => ({
      label: x.name,
      description: x.masked,
      detail:
        x.name === TOOL_TOKEN_NAME
          ? t('recommended: a dedicated token for the terminal tools (its usage and limits stay separate)')
          : x.name === d.tokenName
            ? t('the token this gateway uses now')
            : undefined,
      value: x.name,
    }));
  return d.ui.pick(rows, t('Token for the tool on "{0}"', d.gateway.name));
}

/** Claude Code's two variables under the names chosen (a plan names ANTHROPIC_BASE_URL / ANTHROPIC_AUTH_TOKEN). */
export function claudeVariables(
  env: Record<string, TerminalValue>,
  names: ToolChoices['variableNames'],
): Record<string, TerminalValue> {
  if (!names) return env;
  const to: Record<string, string> = { ANTHROPIC_BASE_URL: names.baseUrl, ANTHROPIC_AUTH_TOKEN: names.token };
  return Object.fromEntries(Object.entries(env).map(([k, v]) => [to[k] ?? k, v]));
}

const models = (g: ToolGateway, surface: ToolSurface) => g.models.filter((m) => m.surfaces.includes(surface));

/**
 * Claude Code's variable names, when modelRelay.nativeCli.* names others (a wrapper script reads
 * those): Claude Code's own names, or the configured ones. undefined: Claude Code's; null: cancelled.
 */
async function pickClaudeNames(d: SetUpDeps): Promise<ToolChoices['variableNames'] | null | undefined> {
  const n = d.claudeNames;
  if (!n || (n.baseUrl === 'ANTHROPIC_BASE_URL' && n.token === 'ANTHROPIC_AUTH_TOKEN')) return undefined;
  const picked = await d.ui.pick(
    [
      {
        label: 'ANTHROPIC_BASE_URL, ANTHROPIC_AUTH_TOKEN',
        detail: t('What Claude Code reads: it calls the gateway from any new terminal.'),
        value: 'claude',
      },
      {
        label: `${n.baseUrl}, ${n.token}`,
        detail: t('The names in the modelRelay.nativeCli settings, for a script of yours that reads them.'),
        value: 'renamed',
      },
    ],
    t('Claude Code: variable names'),
  );
  return picked === undefined ? null : picked === 'renamed' ? { ...n } : undefined;
}

/** The models for the tool, picked by the user; undefined: cancelled. */
export async function pickChoices(tool: ToolId, d: SetUpDeps): Promise<ToolChoices | undefined> {
  const none = { label: t("None: keep the tool's own defaults"), value: '' };
  const rows = (surface: ToolSurface) => models(d.gateway, surface).map((m) => ({ label: m.id, value: m.id }));
  if (tool === 'claude-code') {
    const native = rows('native');
    const main = await d.ui.pick(
      [none, ...native],
      t('Claude Code: model (ANTHROPIC_MODEL, and the opus and sonnet mapping)'),
    );
    if (main === undefined) return undefined;
    const names = await pickClaudeNames(d);
    if (names === null) return undefined;
    const renamed = names ? { variableNames: names } : {};
    if (!main) return renamed;
    const same = { label: t('The same model'), value: main };
    const haiku = await d.ui.pick(
      [same, ...native.filter((r) => r.value !== main)],
      t('Claude Code: background model (ANTHROPIC_DEFAULT_HAIKU_MODEL)'),
      t('Claude Code runs titles and other background tasks with it; it must be in the token’s group too.'),
    );
    if (haiku === undefined) return undefined;
    return { model: main, claudeModels: { opus: main, sonnet: main, haiku }, ...renamed };
  }
  if (tool === 'codex') {
    // none served on the Responses API: the plan says why Codex cannot be set up
    if (!rows('responses').length) return {};
    const model = await d.ui.pick(rows('responses'), t('Codex CLI: model (served on the Responses API)'));
    return model === undefined ? undefined : { model };
  }
  if (tool === 'copilot-cli') {
    // it needs a model (no default of its own with a gateway); none served: the plan says why
    const usable = copilotModels(d.gateway);
    if (!usable.length) return {};
    const model = await d.ui.pick(
      usable.map((m) => ({ label: m.id, value: m.id })),
      t('GitHub Copilot CLI: model (COPILOT_MODEL, served on the Chat Completions or Responses API)'),
    );
    return model === undefined ? undefined : { model };
  }
  const surface: ToolSurface = tool === 'gemini-cli' ? 'gemini' : 'compatible';
  const model = await d.ui.pick([none, ...rows(surface)], t('{0}: model', toolLabel(tool)));
  if (model === undefined) return undefined;
  return model ? { model } : {};
}

/** Shows the plan's edits and writes them when agreed; the outcomes (none: no file to change), or undefined when cancelled. */
async function writeAgreed(plan: ToolPlan, title: string, d: SetUpDeps): Promise<EditOutcome[] | undefined> {
  if (!plan.edits.length) return [];
  if (!(await d.ui.confirm(plan, title))) return undefined;
  const outcomes = await d.backend.apply(plan);
  for (const o of outcomes)
    if (o.written) void d.ui.info(outcomeWords(o));
    else d.ui.error(outcomeWords(o));
  return outcomes;
}

/** Set up one tool: models, diff, write, variables, probe. True when it is set up. */
export async function setUpTool(tool: ToolId, d: SetUpDeps): Promise<boolean> {
  const choices = await pickChoices(tool, d);
  if (!choices) return false;
  const plan = await d.backend.planSetUp(tool, choices);
  if (plan.unavailable) {
    d.ui.error(plan.unavailable);
    return false;
  }
  const tokenName = await pickToken(d);
  if (!tokenName) return false;
  const outcomes = await writeAgreed(plan, t('Set up {0}', toolLabel(tool)), d);
  if (!outcomes) return false;
  if (outcomes.some((o) => !o.written)) return false;
  const terminalEnv =
    tool === 'claude-code' ? claudeVariables(plan.terminalEnv, choices.variableNames) : plan.terminalEnv;
  const env = await d.terminals.setUp(tool, d.gateway.id, tokenName, terminalEnv, choices);
  if (!env) {
    d.ui.error(t('Model Relay: set the base URL and add a token first.'));
    return false;
  }
  const open = t('Open New Terminal');
  void d.ui
    .info(
      t(
        '{0} is set up: new terminals get {1}. Existing terminals keep their old environment.',
        toolLabel(tool),
        Object.keys(env).join(', '),
      ),
      open,
    )
    .then((b) => b === open && d.ui.openTerminal(tool));
  await reportProbe(tool, choices, d);
  return true;
}

async function reportProbe(tool: ToolId, choices: ToolChoices, d: SetUpDeps): Promise<void> {
  if (!d.backend.probe) return;
  const r = await d.backend.probe(tool, choices).catch((e: unknown): ToolProbeResult => ({
    tool,
    ok: false,
    request: '',
    cause: e instanceof Error ? e.message : String(e),
    durationMs: 0,
  }));
  if (r.ok)
    void d.ui.info(
      t('{0} probe passed: {1} answered {2} in {3} ms.', toolLabel(tool), r.request, r.status ?? '', r.durationMs),
    );
  else d.ui.error(t('{0} probe failed ({1}): {2} {3}', toolLabel(tool), r.request, r.cause ?? '', r.fix ?? ''));
}

/** Remove Setup: the plan's file edits (diff first), then the tool's variables out of new terminals. */
export async function removeTool(tool: ToolId, d: SetUpDeps): Promise<boolean> {
  const plan = await d.backend.planRemove(tool);
  const outcomes = await writeAgreed(plan, t('Remove Setup: {0}', toolLabel(tool)), d);
  if (!outcomes) return false;
  await d.terminals.remove(tool);
  void d.ui.info(t('Model Relay: the setup of {0} is removed.', toolLabel(tool)));
  return true;
}

/** Fix an override: only those keys removed from that file, diff first, a backup kept. */
export async function fixOverride(
  tool: ToolId,
  override: ResolvedToolConfig['overrides'][number],
  d: SetUpDeps,
): Promise<boolean> {
  const plan = await d.backend.planFix(tool, override);
  if (typeof plan === 'string') {
    d.ui.error(plan);
    return false;
  }
  const outcomes = await writeAgreed(plan, t('Fix {0}', toolLabel(tool)), d);
  return !!outcomes?.length && outcomes.every((o) => o.written);
}

/** Set Up Tools…: the picker, then the chosen action. */
export async function setUpTools(d: SetUpDeps, tokenVariable: string): Promise<boolean> {
  const statuses = await d.backend.statuses();
  const action = await d.ui.pick(
    toolRows(statuses, d.terminals.tools(), tokenVariable),
    t('Model Relay: Set Up Tools'),
    t('Pick a terminal tool to point at this gateway, or a Fix / Remove Setup'),
  );
  if (!action) return false;
  if (action.kind === 'remove') return removeTool(action.tool, d);
  if (action.kind === 'fix') return fixOverride(action.tool, action.override, d);
  const status = statuses.find((s) => s.tool === action.tool);
  if (status?.state === 'unavailable') {
    d.ui.error(status.why ?? t('{0} cannot be set up for this gateway.', toolLabel(action.tool)));
    return false;
  }
  for (const c of status?.resolved?.conflicts ?? []) void d.ui.info(`${c.what} ${c.fix}`);
  return setUpTool(action.tool, d);
}
