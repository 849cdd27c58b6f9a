/**
 * "Set Up Tools…" (issue 26): Claude Code, Codex CLI, Gemini CLI, opencode and GitHub Copilot CLI pointed at the active
 * gateway and token. The logic is src/host/tools/setUpTools.ts; the tools' files are read, planned
 * and written by the core (src/gateway/tools) through src/host/tools/toolsBackend.ts, each probe sent
 * by the service's client (only to the gateway's own origins); the variables go into new terminals
 * through the same collection as Set Up Native CLI (src/host/tools/toolTerminals.ts). This file binds
 * them to VS Code: the tools' environment (home, workspace and whether it is trusted, PATH of new
 * terminals), the gateway's models and the token, and the UI (./toolsUi.ts).
 */
import { execFile } from 'node:child_process';
import { homedir } from 'node:os';
import * as vscode from 'vscode';
import { maskToken, type ToolsDiagnosisInput } from '../../gateway';
import {
  toolStatuses,
  type ResolvedToolConfig,
  type ToolGateway,
  type ToolId,
  type ToolsEnvironment,
} from '../../gateway/tools';
import {
  setUpTools,
  fixOverride,
  toolGatewayModels,
  type SetUpDeps,
  type ToolsBackend,
} from '../../host/tools/setUpTools';
import { coreToolsBackend } from '../../host/tools/toolsBackend';
import { terminalRoot } from '../../host/tools/toolTerminals';
import { whichOnPath } from '../../gateway/tools/which';
import { toolIdentity } from '../../gateway/tools/common';
import { Disposable } from '../disposable';
import type { GatewayService } from '../gateways/gatewayService';
import type { TokenStore } from '../gateways/tokenStore';
import type { NativeCliSetup } from './nativeCli';
import { DiffDocuments, vscodeToolsUi } from './toolsUi';

/** A tool's `--version` is given this long. */
const VERSION_TIMEOUT_MS = 5_000;

export class ToolsSetup extends Disposable {
  private readonly docs = this._register(new DiffDocuments());

  constructor(
    private readonly service: GatewayService,
    private readonly tokens: TokenStore,
    private readonly cli: NativeCliSetup,
  ) {
    super();
  }

  /**
   * The environment the tools see: a new terminal's (this process's plus the extension's variables),
   * and whether the workspace is trusted, read now: nothing keeps a tool's state, so once trust is
   * granted the next read (Set Up Tools…, Diagnose, #relayDiagnose) includes the project's files.
   */
  environment(): ToolsEnvironment {
    const env = { ...process.env, ...this.cli.terminals.current() };
    return {
      env,
      homeDir: homedir(),
      workspaceDir: vscode.workspace.workspaceFolders?.[0]?.uri.fsPath,
      workspaceTrusted: vscode.workspace.isTrusted === true,
      which: (command) => whichOnPath(command, env),
      version: (path) =>
        new Promise((resolve) =>
          execFile(path, ['--version'], { timeout: VERSION_TIMEOUT_MS, env }, (e, out) =>
            resolve(e ? undefined : String(out).trim().split('\n')[0]?.slice(0, 80)),
          ),
        ),
    };
  }

  /** The active gateway as the tools get it; undefined without a base URL or a token. */
  async gateway(): Promise<{ gateway: ToolGateway; tokenName: string; token: string } | undefined> {
    const ep = this.service.client.endpoints();
    const tokenName = this.cli.terminals.following ?? this.tokens.activeName();
    const token = tokenName ? await this.tokens.value(tokenName) : undefined;
    if (!ep.base || !tokenName || !token) return undefined;
    const listed = await this.service.client.listModels().catch(() => []);
    return {
      tokenName,
      token,
      gateway: {
        id: this.service.gateway?.id ?? 'default',
        baseUrl: terminalRoot(ep.base, ep.verbatim),
        name: this.service.gateway?.name ?? 'Model Relay',
        maskedToken: maskToken(token),
        ...toolIdentity(this.service.gateway?.id ?? 'default'),
        models: toolGatewayModels(listed, this.service.client.learntSurfaces()),
      },
    };
  }

  private backend(gateway: ToolGateway, token: string): ToolsBackend {
    // Through the service's client: its credential gate, proxy and CA trust, and the request log.
    return coreToolsBackend({
      environment: () => this.environment(),
      gateway,
      token,
      probe: (target, o) => this.service.client.probeTool(target, o),
    });
  }

  /**
   * Diagnose's terminal tool rows: the states Set Up Tools… reads (a new terminal's environment, the
   * token's models with their surfaces), probed through the service's client, with a Fix for an
   * override. Undefined without a base URL or a token (Claude Code's row then reads the terminal variables).
   */
  async diagnosisInput(): Promise<ToolsDiagnosisInput | undefined> {
    const g = await this.gateway();
    if (!g) return undefined;
    const tools = this.environment();
    return {
      statuses: () => toolStatuses(tools, g.gateway),
      env: tools.env,
      models: g.gateway.models,
      fixOverrides: true,
      send: (target, o) => this.service.client.probeTool(target, o),
    };
  }

  private async deps(): Promise<SetUpDeps | undefined> {
    const g = await this.gateway();
    if (!g) {
      void vscode.window.showErrorMessage(
        vscode.l10n.t('Model Relay: set the base URL and add a token first, then set up the tools.'),
      );
      return undefined;
    }
    return {
      backend: this.backend(g.gateway, g.token),
      terminals: this.cli.terminals,
      ui: vscodeToolsUi(this.docs),
      gateway: g.gateway,
      tokenName: g.tokenName,
    };
  }

  /** The command: the picker, then the chosen setup, Fix or Remove Setup. */
  async run(): Promise<boolean> {
    const d = await this.deps();
    return d ? setUpTools(d, d.gateway.tokenVariable) : false;
  }

  /** Diagnose's Fix button: removes just those keys from that file, after the diff. */
  async fix(tool: ToolId, path: string, keys: string[]): Promise<boolean> {
    const d = await this.deps();
    if (!d) return false;
    const override: ResolvedToolConfig['overrides'][number] = {
      from: { kind: 'file', where: path },
      keys,
      fixable: true,
    };
    return fixOverride(tool, override, d);
  }
}
