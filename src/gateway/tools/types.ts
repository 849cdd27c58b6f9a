/**
 * Terminal coding tools (issue 26): Claude Code, Codex CLI, Gemini CLI, opencode and GitHub Copilot
 * CLI set up against the active gateway and token. The shared shapes of a tool's state, the resolved configuration (as
 * the tool itself resolves it, in its precedence order), a setup plan (file edits shown as a diff
 * before they are written, plus variables for new terminals) and a probe's outcome.
 *
 * Rules: a token is never written to any file (files name a variable; the value goes only into new
 * terminals through VS Code's non-persistent environment collection); a file that does not parse, or
 * changed on disk between the diff and the write, or is read-only, or is a symlink out of the home
 * folder, is left untouched and named with the reason.
 */

export type ToolId = 'claude-code' | 'codex' | 'gemini-cli' | 'opencode' | 'copilot-cli';

export const TOOL_IDS: readonly ToolId[] = ['claude-code', 'codex', 'gemini-cli', 'opencode', 'copilot-cli'];

/**
 * not-installed: no executable on PATH (nor a config folder); not-set-up: installed, nothing points
 * it at this gateway; set-up: it resolves to this gateway with our variable; overridden: set up, but a
 * higher-precedence source (a settings file, a stale variable, a login) wins; unavailable: cannot be
 * set up for this gateway (e.g. Codex without a model served on the Responses API) — `why` says so.
 */
export type ToolStateKind = 'not-installed' | 'not-set-up' | 'set-up' | 'overridden' | 'unavailable';

/** Where a setting comes from, in the tool's own words (a file path, "terminal environment", a login). */
export interface ToolSource {
  kind: 'terminal' | 'file' | 'login' | 'default';
  /** a path (for files), else a human label */
  where: string;
  /** the key inside it, e.g. "env.ANTHROPIC_BASE_URL" or "model_providers.relay.base_url" */
  key?: string;
  /**
   * a project file (one a repository brings: in the workspace folder, toolFile.ts `projectPath`): its
   * path from the workspace folder, "./.claude/settings.json"; absent for the user's own files
   */
  projectPath?: string;
}

/** What the tool will really use, after its own precedence. Tokens only masked. */
export interface ResolvedToolConfig {
  baseUrl?: { value: string; from: ToolSource };
  /** the credential: which header it is sent in, masked value, where it comes from, whether it is this gateway's token */
  auth?: {
    header: 'authorization' | 'x-api-key' | 'x-goog-api-key';
    masked: string;
    from: ToolSource;
    matches?: string;
    /** the name of another configured gateway whose token this is: never sent to this one */
    foreign?: string;
  };
  model?: { value: string; from: ToolSource };
  /** sources that beat ours (with the conflicting keys), e.g. a project .claude/settings.json env block */
  overrides: Array<{ from: ToolSource; keys: string[]; fixable: boolean }>;
  /** e.g. a claude.ai login kept beside the gateway token */
  conflicts: Array<{ what: string; fix: string }>;
  /** files that could not be read or parsed, with the reason */
  problems: string[];
}

export interface ToolStatus {
  tool: ToolId;
  /** "Claude Code", "Codex CLI", "Gemini CLI", "opencode" */
  label: string;
  state: ToolStateKind;
  installed?: { path: string; version?: string };
  /** why (for unavailable / overridden / not-set-up), a whole sentence */
  why?: string;
  resolved?: ResolvedToolConfig;
  /** Model Relay's own setup is present (terminal variables or a block it added), so Remove Setup has something to take back */
  removable?: boolean;
  /** where the address it will call points: the state is decided by it, never by the token */
  aim?: ToolAim;
}

/** One file change, shown as a diff before it is written. */
export interface FileEdit {
  path: string;
  /** the file's text when read (undefined: the file does not exist yet) */
  before: string | undefined;
  after: string;
  /** the edit takes back a file Model Relay created, leaving it empty: delete the file instead of writing '' */
  deleteFile?: boolean;
  /** sha256 of `before` and its mtime, checked again right before the write */
  beforeHash?: string;
  mtimeMs?: number;
  /** one sentence: what changes and why */
  summary: string;
  /**
   * whether Model Relay's setup is in the file before and after this edit (set by the set-up and
   * remove plans; absent: in neither): the backups (toolBackups.ts) learn from it what the file was
   * while it held none of it, which Remove Setup then restores exactly
   */
  ours?: { before: boolean; after: boolean };
}

/** What setting a tool up (or removing its setup) will change. */
export interface ToolPlan {
  tool: ToolId;
  action: 'set-up' | 'remove' | 'fix-override';
  edits: FileEdit[];
  /**
   * variables for new integrated terminals; `{ token: true }` means "this gateway's token" (the
   * value is filled in only in the terminal environment, never in a file or a message)
   */
  terminalEnv: Record<string, string | { token: true }>;
  /** variables to take out of new terminals (remove) */
  removeEnv?: string[];
  /** whole sentences shown beside the diff */
  notes: string[];
  /** set when the plan cannot be carried out for this gateway (e.g. Codex without a Responses model): a whole sentence; edits and terminalEnv are then empty */
  unavailable?: string;
}

/** The outcome of writing one edit. */
export type EditOutcome =
  | { path: string; written: true; backup?: string }
  | {
      path: string;
      written: false;
      reason: 'parse-error' | 'changed-on-disk' | 'read-only' | 'symlink-outside-home' | 'contains-token' | 'io-error';
      message: string;
    };

/** A probe: the request that tool will send, with the configured model. */
export interface ToolProbeResult {
  tool: ToolId;
  ok: boolean;
  /** e.g. "POST /v1/messages?beta=true" */
  request: string;
  status?: number;
  /** false: not sent at all (the tool's address is not one of its gateway's) */
  sent?: false;
  /** on failure: cause and fix in that tool's terms */
  cause?: string;
  fix?: string;
  durationMs: number;
}

/** Everything the tools module reads, injected so tests never touch the real home or PATH. */
export interface ToolsEnvironment {
  /** the environment a new integrated terminal gets (process env + the extension's additions) */
  env: Record<string, string | undefined>;
  homeDir: string;
  /** the first workspace folder (project-level settings files), if any */
  workspaceDir?: string;
  /**
   * whether the workspace is trusted (VS Code's `workspace.isTrusted`, relay-doctor's
   * `--trust-project`): the tools' project files are read only when it is (toolFile.ts)
   */
  workspaceTrusted: boolean;
  /** finds an executable on PATH; undefined when absent */
  which(command: string): Promise<string | undefined>;
  /** the installed tool's version (toolsEnvironment.ts `toolVersion`: `<path> --version`, bounded) */
  version?(path: string): Promise<string | undefined>;
  /**
   * where the texts Model Relay's writes replace are kept (toolBackups.ts), outside any repository:
   * the extension's global storage; absent (relay-doctor, which writes nothing): Remove Setup cannot
   * restore an original, only take out what Model Relay added
   */
  backupDir?: string;
  /**
   * system-wide files the tools read above the user's (Claude Code's managed-settings.json, Gemini
   * CLI's system settings.json): undefined = the platform's default location, null = none (tests)
   */
  systemFiles?: { claudeManagedSettings?: string | null; geminiSystemSettings?: string | null };
}

/** A gateway as the tools see it: its id, name and the roots (base URL, backups) a tool may call. */
export interface ToolGatewayRef {
  /** the gateway's id (`modelRelay.gateways[].id`; "default" for the single base-URL setting) */
  id: string;
  /** display name */
  name: string;
  /** the root address as the extension calls it (no /v1) */
  baseUrl: string;
  /** the backup domains' roots, as the user configured them */
  backupUrls?: string[];
}

/**
 * The gateway a tool is set up against. The token's value is never part of this. Its identity
 * (`providerId`, `tokenVariable`) is per gateway (common.ts `toolIdentity`), so two gateways can
 * be set up side by side and a tool's file names the gateway it calls.
 */
export interface ToolGateway extends ToolGatewayRef {
  /** the masked token the terminals get, to recognise it ("sk-abc...wxyz") */
  maskedToken: string;
  /** the variable Model Relay puts into new terminals holding the token, e.g. "MODEL_RELAY_MAIN_KEY" */
  tokenVariable: string;
  /** the provider entry Model Relay adds to Codex's and opencode's files, e.g. "model-relay-main" */
  providerId: string;
  /** the token's models with what they are served on (from the model list / learnt surfaces) */
  models: Array<{ id: string; surfaces: Array<'compatible' | 'native' | 'responses' | 'gemini'> }>;
  /**
   * the models could not be listed (the network, a refusal): said as that failure, never as "the
   * gateway serves no model on …"; a whole sentence
   */
  modelsError?: string;
  /** the other configured gateways: a tool aimed at one of them is "set up for <name>", not for this one */
  others?: Array<ToolGatewayRef & { maskedTokens?: string[] }>;
}

/**
 * Where a tool's resolved address points (common.ts `aimOf`): one of this gateway's roots (base URL
 * or a backup, with the path the tool needs), another configured gateway's (named), or elsewhere.
 */
export type ToolAim = { at: 'this' } | { at: 'other'; gateway: string; gatewayId: string } | { at: 'elsewhere' };

/** What the user picked in Set Up Tools… (models for the tool; Claude Code's mapping). */
export interface ToolChoices {
  model?: string;
  claudeModels?: { opus?: string; sonnet?: string; haiku?: string };
  /**
   * Claude Code: its address and token variables under other names (the modelRelay.nativeCli.*
   * settings, for a wrapper script that reads those): Claude Code itself then does not see them
   */
  variableNames?: { baseUrl: string; token: string };
}
