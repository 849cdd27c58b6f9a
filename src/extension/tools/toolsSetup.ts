/**
 * "Set Up Tools…" (issues 26, 37): the terminal tools pointed at the active gateway, each bound to
 * that gateway and the token picked for it. The logic is src/host/tools/setUpTools.ts; the tools'
 * files are read, planned and written by the core (src/gateway/tools) through
 * src/host/tools/toolsBackend.ts, each probe sent by the service's client (only to the gateway's own
 * origins); the variables go into new terminals through src/host/tools/toolTerminals.ts, each tool's
 * from its own gateway's settings and token store. "Set Up Native CLI" is Set Up Tools → Claude
 * Code (its command kept for old keybindings). This file binds them to VS Code: the tools'
 * environment (home, workspace and whether it is trusted, PATH of new terminals), the gateway's
 * models, tokens and other gateways, and the UI (./toolsUi.ts).
 */
import { homedir } from 'node:os';
import * as vscode from 'vscode';
import { maskToken, redactSecrets, type ToolsDiagnosisInput } from '../../gateway';
import {
  toolStatuses,
  type ResolvedToolConfig,
  type ToolGateway,
  type ToolId,
  type ToolsEnvironment,
} from '../../gateway/tools';
import {
  setUpTools,
  setUpTool,
  removeTool,
  fixOverride,
  toolGatewayModels,
  type SetUpDeps,
  type ToolsBackend,
} from '../../host/tools/setUpTools';
import { coreToolsBackend } from '../../host/tools/toolsBackend';
import { terminalRoot } from '../../gateway/cliEnv';
import { ToolTerminals } from '../../host/tools/toolTerminals';
import { nodeToolsEnvironment } from '../../gateway/tools/toolsEnvironment';
import { toolIdentity } from '../../gateway/tools/common';
import { Disposable } from '../disposable';
import type { GatewayService } from '../gateways/gatewayService';
import type { TokenStore } from '../gateways/tokenStore';
import { DiffDocuments, vscodeToolsUi } from './toolsUi';

export class ToolsSetup extends Disposable {
  private readonly docs = this._register(new DiffDocuments());
  /** every set-up tool's variables in new terminals, each from its own gateway */
  readonly terminals: ToolTerminals;

  constructor(
    context: vscode.ExtensionContext,
    private readonly service: GatewayService,
    private readonly tokens: TokenStore,
    log: vscode.LogOutputChannel,
    /** where the texts of the tools' files Model Relay replaces are kept: the extension's global storage */
    private readonly backupDir: string,
  ) {
    super();
    const registry = service.registry;
    this.terminals = new ToolTerminals(
      context.environmentVariableCollection,
      {
        root: (id) => {
          if (!registry.get(id) && id !== registry.activeId()) return undefined;
          const ep = service.clientOf(id).endpoints();
          return ep.base ? terminalRoot(ep.base, ep.verbatim) : undefined;
        },
        value: (id, name) => registry.tokensOf(id).value(name),
        activeId: () => registry.activeId(),
        name: (id) => registry.get(id)?.name,
        legacyNames: () => ({
          baseUrl: service.current.nativeCli.baseUrlVariable,
          token: service.current.nativeCli.tokenVariable,
        }),
      },
      context.globalState,
    );
    const warn = (e: unknown) => log.warn(e instanceof Error ? e.message : String(e));
    void this.terminals.restore().catch(warn);
    // a token added, removed or replaced in any window (SecretStorage is shared), a gateway switched
    this._register(service.onDidChangeToken(() => void this.terminals.follow().catch(warn)));
    // a gateway's address in the settings (nothing read when no set-up tool's root changed)
    this._register(service.onDidChangeConfiguration(() => void this.terminals.followSettings().catch(warn)));
  }

  /**
   * The environment the tools see: a new terminal's (this process's plus the extension's variables),
   * and whether the workspace is trusted, read now: nothing keeps a tool's state, so once trust is
   * granted the next read (Set Up Tools…, Diagnose, #relayDiagnose) includes the project's files.
   * The PATH search and the `--version` runner are the core's (relay-doctor's too); the originals of
   * the files Model Relay changes are kept in the extension's global storage, outside any repository.
   */
  environment(): ToolsEnvironment & { backupDir: string } {
    const workspaceDir = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    return {
      ...nodeToolsEnvironment({
        env: { ...process.env, ...this.terminals.current() },
        homeDir: homedir(),
        ...(workspaceDir ? { workspaceDir } : {}),
        workspaceTrusted: vscode.workspace.isTrusted === true,
      }),
      backupDir: this.backupDir,
    };
  }

  /** The active gateway as the tools get it (its other gateways beside it); undefined without a base URL or a token. */
  async gateway(): Promise<{ gateway: ToolGateway; tokenName: string; token: string } | undefined> {
    const ep = this.service.client.endpoints();
    const tokenName = this.tokens.activeName();
    const token = tokenName ? await this.tokens.value(tokenName) : undefined;
    if (!ep.base || !tokenName || !token) return undefined;
    let modelsError: string | undefined;
    const listed = await this.service.client.listModels().catch((e: unknown) => {
      modelsError = e instanceof Error ? e.message : String(e);
      return [];
    });
    const id = this.service.registry.activeId();
    return {
      tokenName,
      token,
      gateway: {
        id,
        baseUrl: terminalRoot(ep.base, ep.verbatim),
        backupUrls: ep.backups,
        name: this.service.gateway?.name ?? 'Model Relay',
        maskedToken: maskToken(token),
        ...toolIdentity(id),
        models: toolGatewayModels(listed, this.service.client.learntSurfaces()),
        ...(modelsError ? { modelsError: redactSecrets(modelsError, [token]) } : {}),
        others: await this.otherGateways(id),
      },
    };
  }

  /** The other configured gateways, with their tokens masked: a tool aimed at one is named as set up for it. */
  private async otherGateways(active: string): Promise<NonNullable<ToolGateway['others']>> {
    const registry = this.service.registry;
    return Promise.all(
      registry
        .gateways()
        .filter((g) => g.id !== active)
        .map(async (g) => {
          const ep = this.service.clientOf(g.id).endpoints();
          const list = await registry
            .tokensOf(g.id)
            .list()
            .catch(() => []);
          return {
            id: g.id,
            name: g.name,
            baseUrl: ep.base ? terminalRoot(ep.base, ep.verbatim) : g.baseUrl,
            backupUrls: ep.backups,
            maskedTokens: list.map((x) => x.masked),
          };
        }),
    );
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
   * override. Without a base URL or a token the states are read all the same, against no gateway:
   * no tool is set up for it, so none is probed.
   */
  async diagnosisInput(): Promise<ToolsDiagnosisInput> {
    const g = await this.gateway();
    const tools = this.environment();
    return {
      statuses: () => toolStatuses(tools, g?.gateway),
      env: tools.env,
      models: g?.gateway.models,
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
      terminals: this.terminals,
      ui: vscodeToolsUi(this.docs),
      gateway: g.gateway,
      tokenName: g.tokenName,
      tokens: await this.tokens.list(),
      claudeNames: {
        baseUrl: this.service.current.nativeCli.baseUrlVariable,
        token: this.service.current.nativeCli.tokenVariable,
      },
    };
  }

  /** The command: the picker, then the chosen setup, Fix or Remove Setup; with `tool`, that tool's setup at once. */
  async run(tool?: ToolId): Promise<boolean> {
    const d = await this.deps();
    if (!d) return false;
    return tool ? setUpTool(tool, d) : setUpTools(d, d.gateway.tokenVariable);
  }

  /** Remove Setup of one tool (the old "Remove Native CLI Setup" is Claude Code's). */
  async remove(tool: ToolId): Promise<boolean> {
    const d = await this.deps();
    if (d) return removeTool(tool, d);
    await this.terminals.remove(tool);
    return true;
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
