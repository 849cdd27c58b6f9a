/**
 * The shape of a diagnosis: an ordered list of checks, each with a result, the HTTP status where
 * one was involved, the duration, the masked token, and a cause and a fix in the spec's terms.
 * Pure data: the VS Code panel, the markdown report and `relay-doctor` all render this.
 */
import type { Dispatcher } from 'undici';
import type { ErrorKind, Surface } from '../errors/gatewayError';
import type { ProxySettings } from '../http/proxy';
import type { Sleep } from '../http/transport';
import type { ModelInfo } from '../models';
import type { CountText } from '../economy/inputCount';
import type { RequestLogSink } from '../requestLog';
import type { ProbeOptions, ProbeTarget, ToolProbe } from '../tools/probes';
import type { ToolGateway, ToolId, ToolStatus } from '../tools/types';

export type CheckResult = 'pass' | 'warn' | 'fail' | 'skipped';

export type CheckId =
  | 'base-url'
  | 'reachability'
  | 'token'
  | 'visibility'
  | 'generate-chat'
  | 'generate-native'
  | 'generate-responses'
  | 'generate-image'
  | 'generate-image-edit'
  | 'generate-video'
  | 'arrival'
  | 'native-path'
  | 'stream-compatible'
  | 'stream-native'
  | 'stream-responses'
  /** one per terminal tool (diagnose/toolCheck.ts) */
  | `tool-${ToolId}`
  | 'wrong-place'
  | 'proxy'
  | 'background-tasks';

/** A fix the editor can apply with one button. */
export type FixAction =
  /** replace the base URL setting with `value` (the root address) */
  | { kind: 'set-base-url'; value: string }
  /** pick another stored token (e.g. one of a group that can use the model) */
  | { kind: 'switch-token' }
  /** no token is stored: add one */
  | { kind: 'add-token' }
  /** turn streaming off (a buffering or stream-cutting proxy) */
  | { kind: 'disable-stream' }
  /** set VS Code's utility-model settings to a gateway model (Use a Gateway Model for VS Code's Background Tasks) */
  | { kind: 'use-gateway-for-background-tasks' };

/**
 * Remove the keys of a terminal tool's settings file that override its setup (the tools module's
 * plan, shown as a diff before it is written, a backup kept). Kept beside `fixAction` so renderers
 * that do not know it yet show nothing.
 */
export interface ToolFixAction {
  kind: 'fix-tool-override';
  tool: ToolId;
  path: string;
  keys: string[];
}

/** The terminal tools' rows (issue 26): their states and what the probes need. */
export interface ToolsDiagnosisInput {
  /**
   * each tool's state as the tools module resolved it (its toolStatuses), read once per diagnosis;
   * given the gateway's models with their surfaces when known (`models`, else the token's list)
   */
  statuses: (models?: ToolGateway['models']) => Promise<ToolStatus[]>;
  /** the environment a new terminal gets: credentials named by a resolved source are read here */
  env: Record<string, string | undefined>;
  /** the gateway's models with their surfaces (a probe's default model); default: the token's list */
  models?: ToolGateway['models'] | undefined;
  /** the editor can remove a fixable override (a `toolFix` on the row) */
  fixOverrides?: boolean | undefined;
  /** send each set-up tool's request (a billed call each); default true */
  probe?: boolean | undefined;
  /**
   * How a probe is sent: the editor's client (GatewayClient.probeTool: its dispatcher and request
   * log); default: probeTool through the diagnosis's own dispatcher
   */
  send?:
    ((target: ProbeTarget, options: Omit<ProbeOptions, 'dispatcher' | 'onRequest'>) => Promise<ToolProbe>) | undefined;
}

export interface DiagnosisCheck {
  id: CheckId;
  title: string;
  result: CheckResult;
  /** the HTTP status that decided the result, when a response was involved */
  httpStatus?: number | undefined;
  durationMs: number;
  /** masked form of the token the check sent (never the full value) */
  maskedToken?: string | undefined;
  /** why this result: for a pass, what was verified */
  cause: string;
  /** what to change (empty for a pass) */
  fix: string;
  /** supporting lines: URLs called, timings, per-host outcomes, file names */
  details?: string[] | undefined;
  /** the URL that decided the result */
  url?: string | undefined;
  /** the classified error kind, when a request failed */
  errorKind?: ErrorKind | undefined;
  requestId?: string | undefined;
  /** a 429's Retry-After, in ms */
  retryAfterMs?: number | undefined;
  fixAction?: FixAction | undefined;
  /** a terminal tool's override the editor can remove */
  toolFix?: ToolFixAction | undefined;
}

/** A check's outcome worked out by the host (the editor), reported as it is. */
export interface HostFinding {
  result: CheckResult;
  cause: string;
  fix: string;
  details?: string[] | undefined;
  fixAction?: FixAction | undefined;
}

export interface DiagnosisModels {
  /** compatible surface chat model */
  chat?: string | undefined;
  /** native messages surface model */
  native?: string | undefined;
  /**
   * responses surface model; when absent, the first the token's list says answers there, else one
   * the gateway's refusals taught during this diagnosis (the check is absent when there is none)
   */
  responses?: string | undefined;
  image?: string | undefined;
  imageEdit?: string | undefined;
  video?: string | undefined;
}

export interface DiagnosisTimeouts {
  /** per request (time to answer; a stream's idle limit). Default 20 s. */
  requestMs?: number;
  /** the whole diagnosis; checks left when it runs out are skipped. Default 90 s. */
  totalMs?: number;
  /** how long after the generation call the gateway's usage log is read for its record. Default 2 s. */
  arrivalMs?: number;
}

export interface DiagnosisInput {
  /** the base URL exactly as configured (not normalised) */
  baseUrl: string;
  backupUrls?: readonly string[] | undefined;
  /** the gateway's name, in a refusal to send its token elsewhere (default: the base URL's host) */
  gatewayName?: string | undefined;
  token: string | undefined;
  /** shown in the report next to the masked token, e.g. "production" */
  tokenName?: string | undefined;
  models?: DiagnosisModels | undefined;
  /**
   * No chat or native model given: check with the first ones the token's model list shows (read
   * once, by the token check), and hear which were picked (relay-doctor says so on stderr).
   */
  pickModels?: ((picked: Pick<DiagnosisModels, 'chat' | 'native'>) => void) | undefined;
  /**
   * the surfaces the caller's client learnt from this gateway's refusals (GatewayClient.learntSurfaces):
   * a model learnt to answer only on /v1/responses is checked there when no responses model is given or listed
   */
  learntSurfaces?: ReadonlyArray<{ model: string; surface: Surface }> | undefined;
  /** hears the token's model list once the token check read it (Diagnose All Gateways checks fallback targets against it) */
  onModelList?: ((list: readonly ModelInfo[]) => void) | undefined;
  /** the dispatcher every request goes through; when absent one is built from `proxy` */
  dispatcher?: Dispatcher | undefined;
  /** the proxy configuration (VS Code http.proxy settings and/or environment), for check 10 */
  proxy?: ProxySettings | undefined;
  extraHeaders?: Record<string, string> | undefined;
  /** VS Code's `env.remoteName` (e.g. "ssh-remote", "dev-container", "wsl"): the extension runs on that remote machine */
  remoteName?: string | undefined;
  /** the terminal tools' states (one row per tool; no tool rows without them) */
  tools?: ToolsDiagnosisInput | undefined;
  /**
   * What the editor found about its own chat's background tasks (VS Code's utility-model settings):
   * the core cannot read them, so the extension hands the finding in; absent (relay-doctor), the check is not shown.
   */
  backgroundTasks?: HostFinding | undefined;
  /** run image, image-edit and video generation checks (they cost money) */
  includeMedia?: boolean | undefined;
  timeouts?: DiagnosisTimeouts | undefined;
  sleep?: Sleep | undefined;
  now?: (() => number) | undefined;
  signal?: AbortSignal | undefined;
  /** hears the record of each request the checks send through the client (the editor's request log: their receipts) */
  onRequest?: RequestLogSink | undefined;
  /** counts a generation check's input for its receipt (GatewayClientOptions.countText) */
  countText?: CountText | undefined;
  /** called when a check starts */
  onCheckStart?: ((id: CheckId, title: string) => void) | undefined;
  /** called as each check completes, in report order, with how far the run is */
  onProgress?: ((check: DiagnosisCheck, progress: DiagnosisProgress) => void) | undefined;
}

/** How far a diagnosis is: `done` of the engine's `total` checks (those that do not apply count as done). */
export interface DiagnosisProgress {
  done: number;
  total: number;
}

export interface DiagnosisReport {
  startedAt: string;
  durationMs: number;
  /** the base URL as configured */
  baseUrl: string;
  /** the root address after the endpoint rules, when usable */
  base: string | undefined;
  backups: string[];
  /** the host the network checks used (primary, or the first backup that works) */
  usedBase: string | undefined;
  maskedToken: string | undefined;
  tokenName: string | undefined;
  proxy: string;
  checks: DiagnosisCheck[];
  summary: Record<CheckResult, number>;
  /** true when no check failed */
  ok: boolean;
}
