/**
 * The terminal tools' variables in new terminals (issue 26), kept true: each set-up tool (Claude
 * Code, Codex CLI, Gemini CLI, opencode) adds its variables, the collection holds their union, and
 * Remove Setup takes back exactly that tool's. Set up with one stored token, they follow it — its
 * value replaced or the base URL changed: updated; the token removed: cleared at once. Which tools are
 * set up, with the models chosen, is remembered in a Memento (never the token: new terminals get its
 * value through VS Code's non-persistent collection only), so a new window puts them back. Plain
 * Node: the collection and the state are handed in structurally.
 */
import {
  applyCliEnvironment,
  nativeCliEnvironment,
  type CliVariableNames,
  type EnvCollection,
} from '../../gateway/cliEnv';
import { DEFAULT_CLI_VARIABLES } from '../../gateway/defaults';
import { t } from '../../gateway/l10n';
import { maskToken } from '../../gateway/mask';
import { TOOL_IDS, type ToolChoices, type ToolId } from '../../gateway/tools/types';

/** A value for a new terminal: text, or this gateway's token (filled in only in the terminal environment). */
export type TerminalValue = string | { token: true };
/** As remembered: also the gateway's root address (it follows the base URL). */
export type StoredValue = TerminalValue | { base: true };

/** Where the variables come from: the base URL the extension calls, the variable names, the stored tokens. */
export interface ToolTerminalSource {
  base(): string | undefined;
  /** whether the base is used as typed (Configure Base URL's "Keep what I typed") */
  verbatim?(): boolean;
  /** Claude Code's two variables (modelRelay.nativeCli.*): its plan's ANTHROPIC_BASE_URL / _AUTH_TOKEN are put under these names */
  names(): CliVariableNames;
  value(tokenName: string): PromiseLike<string | undefined>;
}

/** The Memento part used (VS Code's globalState / workspaceState). */
export interface StateLike {
  get<T>(key: string): T | undefined;
  update(key: string, value: unknown): PromiseLike<void>;
}

/** One set-up tool: its variables (the root address and the token as markers) and the models chosen. */
export interface ToolEntry {
  env: Record<string, StoredValue>;
  choices: ToolChoices;
}

/** What is remembered: the token followed (its name) and each set-up tool. Never a token value. */
export interface ToolTerminalsState {
  tokenName: string;
  tools: Partial<Record<ToolId, ToolEntry>>;
}

export const TOOL_TERMINALS_KEY = 'modelRelay.tools.terminals';
/** Bounds of the stored state: an id or value longer, or more variables per tool, are dropped. */
const MAX_ID = 200;
const MAX_VALUE = 2000;
const MAX_VARIABLES = 16;
const VARIABLE = /^[A-Za-z_][A-Za-z0-9_]*$/;

const TOOL_LABELS: Record<ToolId, string> = {
  'claude-code': 'Claude Code',
  codex: 'Codex CLI',
  'gemini-cli': 'Gemini CLI',
  opencode: 'opencode',
  'copilot-cli': 'GitHub Copilot CLI',
};
export const toolLabel = (tool: ToolId): string => TOOL_LABELS[tool];

/** The root address the tools get (never /v1, unless the user kept the base URL as typed). */
export function terminalRoot(base: string, verbatim: boolean): string {
  const names = DEFAULT_CLI_VARIABLES;
  return nativeCliEnvironment(base, 'x', names, { verbatim })[names.baseUrl];
}

/** Today's native CLI variables (Set Up Native CLI): the root address and the token (renamed as configured). */
export const NATIVE_CLI_TEMPLATE: Record<string, StoredValue> = {
  [DEFAULT_CLI_VARIABLES.baseUrl]: { base: true },
  [DEFAULT_CLI_VARIABLES.token]: { token: true },
};

/**
 * A plan's variables as remembered: a value equal to the root address the plan was made for becomes
 * the root marker (so it follows the base URL). Names that are not variable names are refused.
 */
export function templateOf(
  env: Record<string, TerminalValue | StoredValue>,
  root: string,
): Record<string, StoredValue> {
  const out: Record<string, StoredValue> = {};
  for (const [k, v] of Object.entries(env)) {
    if (!VARIABLE.test(k)) throw new Error(t('Environment variable names must be letters, digits and underscores.'));
    out[k] = typeof v === 'string' && v === root ? { base: true } : v;
  }
  return out;
}

/** Claude Code's ANTHROPIC_BASE_URL / ANTHROPIC_AUTH_TOKEN under the configured names (modelRelay.nativeCli.*). */
export function renamed(
  tool: ToolId,
  env: Record<string, StoredValue>,
  names: CliVariableNames,
): Record<string, StoredValue> {
  if (tool !== 'claude-code') return env;
  const to: Record<string, string> = {
    [DEFAULT_CLI_VARIABLES.baseUrl]: names.baseUrl,
    [DEFAULT_CLI_VARIABLES.token]: names.token,
  };
  return Object.fromEntries(Object.entries(env).map(([k, v]) => [to[k] ?? k, v]));
}

/** The union of the tools' variables, the root and the token filled in (a later tool in TOOL_IDS order wins a shared name). */
export function unionEnv(
  perTool: Array<Record<string, StoredValue>>,
  root: string,
  token: string,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const env of perTool)
    for (const [k, v] of Object.entries(env)) out[k] = typeof v === 'string' ? v : 'base' in v ? root : token;
  return out;
}

function readValue(v: unknown): StoredValue | undefined {
  if (typeof v === 'string') return v.length <= MAX_VALUE ? v : undefined;
  if (v && typeof v === 'object' && (v as { token?: unknown }).token === true) return { token: true };
  if (v && typeof v === 'object' && (v as { base?: unknown }).base === true) return { base: true };
  return undefined;
}

function readEntry(raw: unknown): ToolEntry | undefined {
  if (!raw || typeof raw !== 'object') return undefined;
  const { env, choices } = raw as { env?: unknown; choices?: unknown };
  if (!env || typeof env !== 'object') return undefined;
  const vars = Object.entries(env as Record<string, unknown>)
    .slice(0, MAX_VARIABLES)
    .flatMap(([k, v]): Array<[string, StoredValue]> => {
      const value = readValue(v);
      return VARIABLE.test(k) && value !== undefined ? [[k, value]] : [];
    });
  const id = (v: unknown) => (typeof v === 'string' && v && v.length <= MAX_ID ? v : undefined);
  const c = choices && typeof choices === 'object' ? (choices as { model?: unknown; claudeModels?: unknown }) : {};
  const cm = c.claudeModels && typeof c.claudeModels === 'object' ? (c.claudeModels as Record<string, unknown>) : {};
  const mapping = Object.fromEntries(
    (['opus', 'sonnet', 'haiku'] as const).flatMap((k) => (id(cm[k]) ? [[k, id(cm[k])!]] : [])),
  );
  const model = id(c.model);
  return {
    env: Object.fromEntries(vars),
    choices: { ...(model ? { model } : {}), ...(Object.keys(mapping).length ? { claudeModels: mapping } : {}) },
  };
}

/** The stored state, checked: unknown tools, bad names, oversized values dropped; undefined when unusable. */
export function readToolTerminalsState(raw: unknown): ToolTerminalsState | undefined {
  if (!raw || typeof raw !== 'object') return undefined;
  const r = raw as { tokenName?: unknown; tools?: unknown };
  if (typeof r.tokenName !== 'string' || !r.tokenName || r.tokenName.length > MAX_ID) return undefined;
  const stored = r.tools && typeof r.tools === 'object' ? (r.tools as Record<string, unknown>) : {};
  const tools: ToolTerminalsState['tools'] = {};
  for (const tool of TOOL_IDS) {
    const entry = readEntry(stored[tool]);
    if (entry) tools[tool] = entry;
  }
  return Object.keys(tools).length ? { tokenName: r.tokenName, tools } : undefined;
}

export class ToolTerminals {
  private state: ToolTerminalsState | undefined;
  /** what the collection holds now, as JSON (to update only on a real change) */
  private applied: string | undefined;
  /** the base URL and variable names it was made from */
  private appliedSettings: string | undefined;
  private readonly listeners = new Set<() => void>();

  constructor(
    private readonly collection: EnvCollection,
    private readonly source: ToolTerminalSource,
    private readonly memento: StateLike,
  ) {
    this.state = readToolTerminalsState(memento.get(TOOL_TERMINALS_KEY));
  }

  /** The token the terminals follow, if any. */
  get following(): string | undefined {
    return this.state?.tokenName;
  }

  /** The tools whose variables new terminals get, in TOOL_IDS order. */
  tools(): ToolId[] {
    return TOOL_IDS.filter((x) => this.state?.tools[x]);
  }

  /** The models chosen when the tool was set up (undefined: not set up). */
  choices(tool: ToolId): ToolChoices | undefined {
    return this.state?.tools[tool]?.choices;
  }

  /** What new terminals get now (the token filled in): the tools read their environment from it. */
  current(): Record<string, string> {
    return this.applied ? (JSON.parse(this.applied) as Record<string, string>) : {};
  }

  /** A set-up tool's variables as remembered (the root address and the token as markers). */
  template(tool: ToolId): Record<string, StoredValue> | undefined {
    return this.state?.tools[tool]?.env;
  }

  /** The variable names a set-up tool puts into new terminals. */
  variables(tool: ToolId): string[] {
    return Object.keys(renamed(tool, this.state?.tools[tool]?.env ?? {}, this.source.names()));
  }

  /** A new window: puts the remembered tools' variables back (the collection is not persisted). */
  async restore(): Promise<void> {
    if (this.state) await this.follow(true);
  }

  /**
   * Puts `tool`'s variables (a plan's `terminalEnv`, for `tokenName`) into new terminals beside the
   * other set-up tools', and follows that token from now on (every set-up tool's token variables then
   * hold it). Returns that tool's variables with the token filled in, or undefined when there is no
   * token or base URL.
   */
  async setUp(
    tool: ToolId,
    tokenName: string,
    env: Record<string, TerminalValue | StoredValue>,
    choices: ToolChoices = {},
  ): Promise<Record<string, string> | undefined> {
    const value = await this.source.value(tokenName);
    const base = this.source.base();
    if (!value || !base) return undefined;
    const root = this.root(base);
    const own = templateOf(env, root);
    await this.save({ tokenName, tools: { ...this.state?.tools, [tool]: { env: own, choices } } });
    this.write(base, value);
    return unionEnv([renamed(tool, own, this.source.names())], root, value);
  }

  /** Takes back exactly `tool`'s variables (those no other set-up tool also puts there). */
  async remove(tool: ToolId): Promise<void> {
    if (!this.state?.tools[tool]) return;
    const tools = { ...this.state.tools };
    delete tools[tool];
    if (!Object.keys(tools).length) return this.clear();
    await this.save({ tokenName: this.state.tokenName, tools });
    await this.follow(true);
  }

  /** New terminals get none of the variables; nothing is followed or remembered any more. */
  async clear(): Promise<void> {
    this.applied = undefined;
    this.appliedSettings = undefined;
    this.collection.clear();
    await this.save(undefined);
  }

  /** After any change of the service: follows only when the base URL or the variable names changed (no secret read otherwise). */
  async followSettings(): Promise<void> {
    if (this.state && this.settingsKey() !== this.appliedSettings) await this.follow();
  }

  /**
   * After the tokens or the settings changed: the followed token gone (or no base URL any more) →
   * cleared; its value, the base URL, the variable names changed → updated; else untouched.
   */
  async follow(force = false): Promise<void> {
    const state = this.state;
    if (!state) return;
    const value = await this.source.value(state.tokenName);
    const base = this.source.base();
    if (state !== this.state) return; // set up again or cleared meanwhile
    if (!value || !base) return this.clear();
    if (force || JSON.stringify(this.environment(base, value)) !== this.applied) this.write(base, value);
    else this.appliedSettings = this.settingsKey();
  }

  private root(base: string): string {
    return terminalRoot(base, this.source.verbatim?.() ?? false);
  }

  private environment(base: string, value: string): Record<string, string> {
    return unionEnv(
      this.tools().map((tool) => renamed(tool, this.state!.tools[tool]!.env, this.source.names())),
      this.root(base),
      value,
    );
  }

  private write(base: string, value: string): void {
    const env = this.environment(base, value);
    applyCliEnvironment(
      this.collection,
      env,
      t(
        'Model Relay: {0} in new terminals for {1} (token {2})',
        Object.keys(env).join(', '),
        this.tools().map(toolLabel).join(', '),
        maskToken(value),
      ),
    );
    this.applied = JSON.stringify(env);
    this.appliedSettings = this.settingsKey();
  }

  private async save(state: ToolTerminalsState | undefined): Promise<void> {
    this.state = state;
    await this.memento.update(TOOL_TERMINALS_KEY, state);
    for (const l of [...this.listeners]) l();
  }

  /** Called after the set-up tools changed (the Status view's row follows). */
  onDidChange(listener: () => void): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  private settingsKey(): string {
    return JSON.stringify([this.source.base(), this.source.verbatim?.() ?? false, this.source.names()]);
  }
}
