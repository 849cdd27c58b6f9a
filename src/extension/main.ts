/**
 * The extension's main part, loaded on first use by the activation entry (./extension.ts): builds
 * the token store, the gateway service, the log, the status view and bar, and registers every
 * implementation through the Registrar (./lazy/registrar.ts) — the commands here, each feature's
 * views, commands, provider, participant and tools through its `register…` function — into
 * `context.subscriptions`. A contributed id nothing implemented is logged as an error.
 */
import * as vscode from 'vscode';
import { CommandId, STATUS_VIEW_ID } from '../host/commandIds';
import { configureBaseUrl } from './gateways/configureBaseUrl';
import { GatewayService } from './gateways/gatewayService';
import { listModels } from './gateways/listModels';
import { RelayStatusBar } from './status/statusBar';
import { StatusViewProvider } from './status/statusView';
import { switchToGateway, useGatewayToken } from './status/statusCommands';
import { addToken, removeToken, switchToken } from './gateways/tokenCommands';
import { addGateway, removeGateway, renameGateway, switchGateway } from './gateways/gatewayCommands';
import { copyGatewayLink, openGatewayLink } from './gateways/gatewayLinks';
import { gatewayTokenStores, type TokenStore } from './gateways/tokenStore';
import { readSettings } from './gateways/settings';
import { settingsScope, watchRemovedGateways } from './gateways/removedGateways';
import { ActiveTokens } from '../host/gateways/activeTokens';
import { GatewayRegistry } from '../host/gateways/gatewayRegistry';
import { editImage, generateImageFromSelection } from './media/imageCommands';
import { registerVideo } from './media/videoTasks';
import { registerLanguageModels } from './lm/chatProvider';
import { checkLanguageModels } from './lm/checkModels';
import { ChatSetupWatch } from './lm/chatSetup';
import { useGatewayModelForBackgroundTasks } from './lm/backgroundTasks';
import { registerParticipant } from './lm/participant';
import { registerTools } from './lm/agentTools';
import { ToolCallOrigins } from '../host/lm/lmGateways';
import { DiagnoseController } from './diagnose/diagnosePanel';
import { registerUsage } from './usage/usagePanel';
import { ToolsSetup } from './tools/toolsSetup';
import { KeptBaseUrl } from '../host/gateways/baseUrlChoice';
import { registerChat } from './chat/registerChat';
import { registerHarRecording } from './support/harRecording';
import { registerSupport } from './support/registerSupport';
import { registerCompletions } from './completions/registerCompletions';
import { registerCommitMessage } from './commitMessage/generateCommitMessage';
import type { CommandHandler, Registrar } from './lazy/registrar';
import { useTranslations } from '../gateway/l10n';
import { LocalRequestLog } from '../host/usage/localLog';
import type { ReceiptSource } from '../host/usage/receiptSource';

export interface RelayApi {
  service: GatewayService;
  tokens: TokenStore;
  /** the receipts of the billed calls made from here, one book per window (the chat panel's receipt line asks it) */
  receipts: ReceiptSource;
  /** the URI handler's work (registered by the activation entry): a gateway link */
  handleUri(uri: vscode.Uri): Promise<void>;
}

export async function start(context: vscode.ExtensionContext, hub: Registrar): Promise<RelayApi> {
  // The core and src/host translate with @vscode/l10n: the same bundle VS Code loaded for vscode.l10n.
  useTranslations(vscode.l10n.bundle);
  const log = vscode.window.createOutputChannel('Model Relay', { log: true });
  const registry = new GatewayRegistry(
    context.workspaceState,
    context.globalState,
    gatewayTokenStores(context, log),
    readSettings().gateways,
    settingsScope(),
  );
  const tokens = new ActiveTokens(registry);
  context.subscriptions.push(log, registry, tokens);
  await tokens.refresh();
  // `npm start` (a local try-out against the simulator) hands its demo token over in the
  // environment of this process only; it is stored in SecretStorage like any other token.
  const seed = process.env.MODEL_RELAY_SEED_TOKEN;
  if (seed && tokens.names().length === 0)
    await tokens.add(process.env.MODEL_RELAY_SEED_TOKEN_NAME || 'local', seed, true);
  const kept = new KeptBaseUrl(context.globalState);
  // the request log: JSON lines in global storage, shared by this machine's windows (global state held it before)
  const requests = new LocalRequestLog(vscode.Uri.joinPath(context.globalStorageUri, 'request-log').fsPath, {
    legacy: context.globalState,
  });
  context.subscriptions.push(requests);
  const service = new GatewayService(registry, tokens, log, requests, (baseUrl) => kept.isKept(baseUrl));
  // a gateway removed by editing the settings takes its tokens with it (told once, with Undo)
  context.subscriptions.push(watchRemovedGateways(registry, log));
  const chatSetup = new ChatSetupWatch();
  const tools = new ToolsSetup(
    context,
    service,
    tokens,
    log,
    vscode.Uri.joinPath(context.globalStorageUri, 'tool-backups').fsPath,
  );
  context.subscriptions.push(tools);
  const status = new StatusViewProvider(service, chatSetup, tools.terminals);
  const item = vscode.window.createStatusBarItem('modelRelay.status', vscode.StatusBarAlignment.Right, 100);
  const bar = new RelayStatusBar(service, tokens, item);
  context.subscriptions.push(service, chatSetup, status, item, bar, hub.tree(STATUS_VIEW_ID, status));
  const diagnose = new DiagnoseController(context, service, tokens, tools);
  const diagnoseMarkdown = (signal: AbortSignal) => diagnose.markdown(signal);
  registerAllCommands(context, hub, { service, tokens, kept, tools, chatSetup }, log, diagnose);
  context.subscriptions.push(hub.command(CommandId.SetUpTools, () => tools.run()));
  registerVideo(context, hub, service);
  const receipts = registerUsage(context, hub, service);
  // The gateway tools run on the gateway whose model called them (the provider remembers its replies' calls).
  const toolOrigins = new ToolCallOrigins();
  registerLanguageModels(context, hub, service, log, toolOrigins);
  registerParticipant(context, hub, service, log, diagnoseMarkdown);
  registerTools(context, hub, service, log, diagnoseMarkdown, toolOrigins);
  const arrivals = registerSupport(context, hub, service, log, diagnose);
  registerChat(context, hub, service, log, arrivals, receipts);
  registerHarRecording(context, hub);
  registerCompletions(context, hub, service, tokens);
  registerCommitMessage(context, hub, service, log);
  const missing = hub.unimplemented();
  if (missing.length)
    log.error(vscode.l10n.t('Contributed in package.json but not implemented: {0}', missing.join(', ')));
  log.info(
    vscode.l10n.t(
      'Model Relay loaded (VS Code {0}, display language {1}); endpoint {2}',
      vscode.version,
      vscode.env.language,
      service.client.endpoints().base ?? vscode.l10n.t('not configured'),
    ),
  );
  const handleUri = (uri: vscode.Uri) =>
    openGatewayLink({ service, tokens, kept }, uri).catch((e: unknown) => {
      void vscode.window.showErrorMessage(
        vscode.l10n.t(
          'Model Relay: the gateway link could not be added: {0}',
          e instanceof Error ? e.message : String(e),
        ),
      );
    });
  return { service, tokens, receipts, handleUri };
}

/** The commands whose work lives in plain functions; video and chat commands register with their views. */
function registerAllCommands(
  context: vscode.ExtensionContext,
  hub: Registrar,
  {
    service,
    tokens,
    kept,
    tools,
    chatSetup,
  }: { service: GatewayService; tokens: TokenStore; kept: KeptBaseUrl; tools: ToolsSetup; chatSetup: ChatSetupWatch },
  log: vscode.LogOutputChannel,
  diagnose: DiagnoseController,
): void {
  const reg = (id: CommandId, fn: CommandHandler) => context.subscriptions.push(hub.command(id, fn));
  const preset = <T extends object>(v: unknown): T | undefined => (v && typeof v === 'object' ? (v as T) : undefined);
  reg(CommandId.GenerateImage, () => generateImageFromSelection(context, service));
  reg(CommandId.EditImage, (uri) => editImage(context, service, uri instanceof vscode.Uri ? uri : undefined));
  reg(CommandId.Diagnose, () => diagnose.run());
  reg(CommandId.DiagnoseAllGateways, () => diagnose.runAll());
  // the old "Set Up Native CLI" commands (keybindings, links): Set Up Tools → Claude Code
  reg(CommandId.SetupNativeCli, () => tools.run('claude-code'));
  reg(CommandId.RemoveNativeCli, () => tools.remove('claude-code'));
  reg(CommandId.CheckLanguageModels, (p) => checkLanguageModels(chatSetup, preset<{ model?: string }>(p)));
  reg(CommandId.UseGatewayModelForBackgroundTasks, () => useGatewayModelForBackgroundTasks(service, log));
  reg(CommandId.ConfigureBaseUrl, (url) => configureBaseUrl(service, kept, typeof url === 'string' ? url : undefined));
  const gateways = { service, tokens, kept };
  reg(CommandId.AddGateway, () => addGateway(gateways));
  reg(CommandId.SwitchGateway, () => switchGateway(gateways));
  reg(CommandId.RenameGateway, () => renameGateway(gateways));
  reg(CommandId.RemoveGateway, () => removeGateway(gateways));
  reg(CommandId.CopyGatewayLink, () => copyGatewayLink(gateways, context.extension.id));
  reg(CommandId.SwitchToGateway, (node) => switchToGateway(service, node));
  reg(CommandId.UseGatewayToken, (id, name) => useGatewayToken(service, id, name));
  reg(CommandId.AddToken, () => addToken(tokens));
  reg(CommandId.SwitchToken, () => switchToken(tokens));
  reg(CommandId.RemoveToken, () => removeToken(tokens));
  reg(CommandId.ListModels, () => listModels(service));
  reg(CommandId.RefreshStatus, () => {
    service.reload();
    service.refreshQuota();
  });
  reg(CommandId.CopyValue, async (value) => {
    if (typeof value === 'string' && value) {
      await vscode.env.clipboard.writeText(value);
      void vscode.window.showInformationMessage(vscode.l10n.t('Model Relay: copied {0}', value));
    }
  });
  reg(CommandId.ShowActions, () => showActions());
}

/** The status bar's click: the token and gateway actions in one quick pick. */
async function showActions(): Promise<void> {
  const actions: Array<vscode.QuickPickItem & { command: CommandId }> = [
    { label: `$(server) ${vscode.l10n.t('Switch Gateway')}`, command: CommandId.SwitchGateway },
    { label: `$(key) ${vscode.l10n.t('Switch Token')}`, command: CommandId.SwitchToken },
    { label: `$(add) ${vscode.l10n.t('Add Token')}`, command: CommandId.AddToken },
    { label: `$(globe) ${vscode.l10n.t('Configure Base URL')}`, command: CommandId.ConfigureBaseUrl },
    { label: `$(list-unordered) ${vscode.l10n.t('List Models')}`, command: CommandId.ListModels },
    { label: `$(pulse) ${vscode.l10n.t('Diagnose Connection')}`, command: CommandId.Diagnose },
    { label: `$(graph) ${vscode.l10n.t('Show Usage')}`, command: CommandId.ShowUsage },
    { label: `$(output) ${vscode.l10n.t('Show Request Log')}`, command: CommandId.ShowLog },
    { label: `$(trash) ${vscode.l10n.t('Remove Token')}`, command: CommandId.RemoveToken },
  ];
  const pick = await vscode.window.showQuickPick(actions, { title: 'Model Relay' });
  if (pick) await vscode.commands.executeCommand(pick.command);
}
