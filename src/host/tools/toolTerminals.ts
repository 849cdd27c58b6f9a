/**
 * The terminal tools' variables in new terminals (issues 26, 37), bound to a gateway: each set-up
 * tool remembers the gateway it was set up for and the name of that gateway's token, and new
 * terminals get the union of the tools' variables — each tool's address and token from its own
 * gateway, never from whichever gateway is active. A switch of the active gateway, a second window
 * or a setup on another gateway never changes which token a tool sends where. Per gateway names
 * (`MODEL_RELAY_<ID>_KEY`) let two gateways be set up side by side.
 *
 * A tool whose token or gateway cannot be found (removed, renamed, SecretStorage not answering) is
 * never silently dropped: it "needs attention" with its fix, and its variables are left out of new
 * terminals until it is set up again. Remove Setup takes back exactly one tool's.
 *
 * What is remembered (a Memento) is the tools, their gateways, token names and models — never a
 * token: new terminals get its value through VS Code's non-persistent collection only. Plain Node:
 * the collection, the gateways and the state are handed in structurally.
 */
import { applyCliEnvironment, type CliVariableNames, type EnvCollection } from '../../gateway/cliEnv';
import { t } from '../../gateway/l10n';
import { maskToken } from '../../gateway/mask';
import { toolLabel } from '../../gateway/tools/tools';
import { TOOL_IDS, type ToolChoices, type ToolId } from '../../gateway/tools/types';
import { readToolTerminalsState, type StoredValue, type ToolEntry, type ToolTerminalsState } from './toolState';

export {
  readToolTerminalsState,
  TOOL_TERMINALS_KEY,
  type StoredValue,
  type ToolEntry,
  type ToolTerminalsState,
} from './toolState';
import { TOOL_TERMINALS_KEY } from './toolState';

/** A value for a new terminal: text, or this gateway's token (filled in only in the terminal environment). */
export type TerminalValue = string | { token: true };

/** Where the values come from: each gateway's root address for the tools and its stored tokens. */
export interface ToolTerminalSource {
  /** the root address the tools get for a gateway (never /v1 unless kept as typed); undefined: not configured */
  root(gatewayId: string): string | undefined;
  /** a token of that gateway's store */
  value(gatewayId: string, tokenName: string): PromiseLike<string | undefined>;
  /** the active gateway's id (a state remembered before tools were bound to a gateway is bound to it) */
  activeId(): string;
  /** the gateway's name, for sentences */
  name?(gatewayId: string): string | undefined;
  /** the old Set Up Native CLI's names for Claude Code's two variables (modelRelay.nativeCli.*), read once to migrate */
  legacyNames?(): CliVariableNames;
}

/** The Memento part used (VS Code's globalState / workspaceState). */
export interface StateLike {
  get<T>(key: string): T | undefined;
  update(key: string, value: unknown): PromiseLike<void>;
}

/** A set-up tool that cannot be put into new terminals now, with why and the fix. */
export interface ToolAttention {
  tool: ToolId;
  gatewayId: string;
  tokenName: string;
  why: string;
  fix: string;
}

const VARIABLE = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * A plan's variables as remembered: a value equal to the root address the plan was made for (or to
 * it with /v1) becomes the root marker, so it follows the gateway's base URL. Names that are not
 * variable names are refused.
 */
export function templateOf(
  env: Record<string, TerminalValue | StoredValue>,
  root: string,
): Record<string, StoredValue> {
  const out: Record<string, StoredValue> = {};
  for (const [k, v] of Object.entries(env)) {
    if (!VARIABLE.test(k)) throw new Error(t('Environment variable names must be letters, digits and underscores.'));
    out[k] = v === root ? { base: true } : v === `${root}/v1` ? { base: true, suffix: '/v1' } : v;
  }
  return out;
}

/** One tool's variables with its gateway's root and token filled in. */
export function filled(env: Record<string, StoredValue>, root: string, token: string): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).map(([k, v]) => [k, typeof v === 'string' ? v : 'base' in v ? root + (v.suffix ?? '') : token]),
  );
}

/** What one tool puts into new terminals now, or why it cannot. */
type Resolved = { tool: ToolId; env: Record<string, string>; masked: string } | ToolAttention;

export class ToolTerminals {
  private state: ToolTerminalsState;
  /** what the collection holds now, as JSON (to update only on a real change) */
  private applied: string | undefined;
  /** the gateways' roots it was made from */
  private appliedSettings: string | undefined;
  private attentionNow: ToolAttention[] = [];
  private readonly listeners = new Set<() => void>();

  constructor(
    private readonly collection: EnvCollection,
    private readonly source: ToolTerminalSource,
    private readonly memento: StateLike,
  ) {
    const raw = memento.get(TOOL_TERMINALS_KEY);
    this.state = readToolTerminalsState(raw, () => source.activeId(), source.legacyNames?.()) ?? { tools: {} };
    this.migrated = !!raw && JSON.stringify(raw) !== JSON.stringify(this.tools().length ? this.state : undefined);
  }

  /** the remembered state was read in an older shape (or with entries dropped): written back at restore */
  private readonly migrated: boolean;

  /** The tools whose variables new terminals get (or would, once their token is found), in TOOL_IDS order. */
  tools(): ToolId[] {
    return TOOL_IDS.filter((x) => this.state.tools[x]);
  }

  /** A set-up tool's gateway, token name and models (undefined: not set up). */
  entry(tool: ToolId): Readonly<ToolEntry> | undefined {
    return this.state.tools[tool];
  }

  /** The models chosen when the tool was set up (undefined: not set up). */
  choices(tool: ToolId): ToolChoices | undefined {
    return this.state.tools[tool]?.choices;
  }

  /** The set-up tools that are not in new terminals now, with why and the fix. */
  attention(): readonly ToolAttention[] {
    return this.attentionNow;
  }

  /** What new terminals get now (the tokens filled in): the tools read their environment from it. */
  current(): Record<string, string> {
    return this.applied ? (JSON.parse(this.applied) as Record<string, string>) : {};
  }

  /** A new window: puts the remembered tools' variables back (the collection is not persisted). */
  async restore(): Promise<void> {
    if (this.migrated) await this.save(this.state);
    if (this.tools().length) await this.follow(true);
  }

  /**
   * Puts `tool`'s variables (a plan's `terminalEnv`, for `tokenName` of `gatewayId`) into new
   * terminals beside the other set-up tools'. Returns that tool's variables with the token filled
   * in, or undefined when that gateway has no such token or no base URL.
   */
  async setUp(
    tool: ToolId,
    gatewayId: string,
    tokenName: string,
    env: Record<string, TerminalValue | StoredValue>,
    choices: ToolChoices = {},
  ): Promise<Record<string, string> | undefined> {
    const value = await this.source.value(gatewayId, tokenName);
    const root = this.source.root(gatewayId);
    if (!value || !root) return undefined;
    const own = templateOf(env, root);
    await this.save({ tools: { ...this.state.tools, [tool]: { gatewayId, tokenName, env: own, choices } } });
    await this.follow(true);
    return filled(own, root, value);
  }

  /** Takes back exactly `tool`'s variables (those no other set-up tool also puts there). */
  async remove(tool: ToolId): Promise<void> {
    if (!this.state.tools[tool]) return;
    const tools = { ...this.state.tools };
    delete tools[tool];
    await this.save({ tools });
    await this.follow(true);
  }

  /** After a settings change: follows only when a set-up tool's gateway root changed (no secret read otherwise). */
  async followSettings(): Promise<void> {
    if (this.settingsKey() !== this.appliedSettings) await this.follow();
  }

  /**
   * After tokens or settings changed: each tool's token and root read from its own gateway; a tool
   * whose token or gateway is gone needs attention (kept, left out of new terminals); the collection
   * written only when what it holds changes.
   */
  async follow(force = false): Promise<void> {
    const state = this.state;
    const resolved = await Promise.all(this.tools().map((tool) => this.resolve(tool, state.tools[tool]!)));
    if (state !== this.state) return; // changed meanwhile: that change follows itself
    const attention = resolved.filter((r): r is ToolAttention => 'why' in r);
    const live = resolved.filter((r): r is Exclude<Resolved, ToolAttention> => !('why' in r));
    const env = Object.assign({}, ...live.map((r) => r.env)) as Record<string, string>;
    const changedAttention = JSON.stringify(attention) !== JSON.stringify(this.attentionNow);
    this.attentionNow = attention;
    this.appliedSettings = this.settingsKey();
    if (force || JSON.stringify(env) !== this.applied) this.write(env, live);
    if (changedAttention) this.fire();
  }

  private async resolve(tool: ToolId, e: ToolEntry): Promise<Resolved> {
    const root = this.source.root(e.gatewayId);
    const name = this.source.name?.(e.gatewayId) ?? e.gatewayId;
    const label = toolLabel(tool);
    const base = { tool, gatewayId: e.gatewayId, tokenName: e.tokenName };
    if (!root)
      return {
        ...base,
        why: t('{0} was set up for the gateway "{1}", which is no longer configured.', label, name),
        fix: t('Run "Model Relay: Set Up Tools…" and set up {0} again, or Remove Setup.', label),
      };
    const value = await Promise.resolve(this.source.value(e.gatewayId, e.tokenName)).catch(() => undefined);
    if (!value)
      return {
        ...base,
        why: t(
          '{0} was set up with the token "{1}" of the gateway "{2}", which cannot be found: new terminals do not get it.',
          label,
          e.tokenName,
          name,
        ),
        fix: t(
          'Add the token "{0}" to "{1}" again, or run "Model Relay: Set Up Tools…" for {2}.',
          e.tokenName,
          name,
          label,
        ),
      };
    return { tool, env: filled(e.env, root, value), masked: maskToken(value) };
  }

  private write(env: Record<string, string>, live: Array<{ tool: ToolId; masked: string }>): void {
    if (!Object.keys(env).length) {
      this.collection.clear();
      this.applied = undefined;
      return;
    }
    applyCliEnvironment(
      this.collection,
      env,
      t(
        'Model Relay: {0} in new terminals for {1}',
        Object.keys(env).join(', '),
        live.map((r) => `${toolLabel(r.tool)} (${r.masked})`).join(', '),
      ),
    );
    this.applied = JSON.stringify(env);
  }

  private async save(state: ToolTerminalsState): Promise<void> {
    this.state = state;
    await this.memento.update(TOOL_TERMINALS_KEY, this.tools().length ? state : undefined);
    this.fire();
  }

  private fire(): void {
    for (const l of [...this.listeners]) l();
  }

  /** Called after the set-up tools (or those needing attention) changed: the Status view's rows follow. */
  onDidChange(listener: () => void): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  private settingsKey(): string {
    return JSON.stringify(this.tools().map((tool) => this.source.root(this.state.tools[tool]!.gatewayId)));
  }
}
