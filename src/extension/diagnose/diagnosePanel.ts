/**
 * "Model Relay: Diagnose Connection" and "Diagnose All Gateways": the core's diagnoseGateways with
 * progress — the active gateway alone with what only the editor knows (the terminal tools' states,
 * its background tasks, the surfaces its client learnt), or every gateway with its own token — and
 * one panel for the result (src/host/diagnose/diagnoseHtml.ts): the active gateway's checks with a
 * button for fixes the extension can apply, or one summary row per gateway with each full report one
 * click away. "Copy report" copies the Markdown (masked tokens only). One run at a time: Diagnose
 * again while one runs shows the running one (src/host/diagnose/diagnoseRuns.ts).
 */
import * as vscode from 'vscode';
import {
  diagnoseGateways,
  renderMarkdown,
  type DiagnosisCheck,
  type DiagnosisProgress,
  type DiagnosisReport,
  type GatewayProfile,
  type GatewaysDiagnosis,
} from '../../gateway';
import { CommandId } from '../../host/commandIds';
import { DIAGNOSE_CSS, DIAGNOSE_SCRIPT, diagnoseBody, statusWord } from '../../host/diagnose/diagnoseHtml';
import { SingleRun, abortOn, gatewayProgress, gatewayTokens, progressSteps } from '../../host/diagnose/diagnoseRuns';
import { parseDiagnoseMessage, type DiagnosePanelMessage } from '../../host/panelMessages';
import { codiconLink, htmlPage, makeNonce, webviewCsp } from '../../host/webviewHtml';
import type { GatewayService } from '../gateways/gatewayService';
import { disableStreaming, readProxySettings, writeBaseUrl } from '../gateways/settings';
import type { TokenStore } from '../gateways/tokenStore';
import { backgroundTasksFindingNow } from '../lm/backgroundTasks';
import type { ToolsSetup } from '../tools/toolsSetup';

export class DiagnoseController {
  private panel: vscode.WebviewPanel | undefined;
  /** what the panel subscribed to, let go when it closes */
  private panelSubs: vscode.Disposable[] = [];
  /**
   * What the panel shows: the active gateway's own diagnosis (its fixes apply here) or every
   * gateway's, with the tokens read for it (to redact a copy).
   */
  private shown: { d: GatewaysDiagnosis; secrets: string[]; activeGateway: boolean } | undefined;
  /** the report whose checks the fix buttons stand for: the active gateway's own diagnosis */
  private get report(): DiagnosisReport | undefined {
    return this.shown?.activeGateway ? this.shown.d.rows[0]?.report : undefined;
  }
  /** the last diagnosis this window ran (for Copy Support Report) */
  private last: DiagnosisReport | undefined;
  get lastReport(): DiagnosisReport | undefined {
    return this.last;
  }
  private readonly runs = new SingleRun<void>();

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly service: GatewayService,
    private readonly tokens: TokenStore,
    /** the terminal tools' rows (the states Set Up Tools… reads) and their Fix */
    private readonly tools: ToolsSetup,
  ) {}

  /**
   * The active gateway's diagnosis: its settings and token, the terminal tools' states, its background
   * tasks and the surfaces its client learnt; only the models configured are checked (none is picked:
   * a generation the user did not configure is not billed).
   */
  async diagnose(
    signal?: AbortSignal,
    onProgress?: (c: DiagnosisCheck, p: DiagnosisProgress) => void,
    includeMedia = false,
  ): Promise<GatewaysDiagnosis> {
    const s = this.service.current;
    const token = await this.tokens.activeToken();
    const gateway: GatewayProfile = {
      id: this.service.registry.activeId(),
      name: this.service.gateway?.name ?? '',
      baseUrl: s.baseUrl,
      backupUrls: s.backupUrls,
      extraHeaders: s.extraHeaders,
      models: {
        chat: s.models.chat || undefined,
        native: s.models.native || undefined,
        image: s.models.image || undefined,
        imageEdit: s.models.imageEdit || undefined,
        video: s.models.video || undefined,
      },
    };
    const extras = {
      // A model VS Code's chat or the chat panel learnt to answer only on /v1/responses is checked there.
      learntSurfaces: this.service.client.learntSurfaces(),
      remoteName: vscode.env.remoteName,
      tools: await this.tools.diagnosisInput().catch(() => undefined),
      backgroundTasks: await backgroundTasksFindingNow().catch(() => undefined),
      onProgress,
    };
    return diagnoseGateways({
      gateways: [gateway],
      token: () => token,
      tokenName: () => this.tokens.activeName(),
      pickModels: false,
      extras: () => extras,
      proxy: readProxySettings(),
      includeMedia,
      signal,
      ...this.service.requestLogging,
    });
  }

  async markdown(signal?: AbortSignal): Promise<string> {
    const d = await this.diagnose(signal);
    return renderMarkdown(d, { secrets: [await this.tokens.activeToken()] });
  }

  /**
   * Runs the diagnosis; image and video generation checks only when asked for (they cost money).
   * While one runs, another request shows it instead of starting a second.
   */
  run(includeMedia = false): Promise<void> {
    if (this.runs.running) {
      this.panel?.reveal();
      void vscode.window.showInformationMessage(vscode.l10n.t('Model Relay: a diagnosis is already running.'));
    }
    return this.runs.run(() => this.runOnce(includeMedia));
  }

  private async runOnce(includeMedia: boolean): Promise<void> {
    if (includeMedia) {
      const runThem = vscode.l10n.t('Run Them');
      const go = await vscode.window.showWarningMessage(
        vscode.l10n.t(
          'Model Relay: the image, image-edit and video checks make real generation calls, which the gateway bills.',
        ),
        { modal: true },
        runThem,
      );
      if (go !== runThem) return;
    }
    const d = await vscode.window.withProgress(
      {
        location: vscode.ProgressLocation.Notification,
        title: vscode.l10n.t('Model Relay: diagnosing the connection'),
        cancellable: true,
      },
      async (progress, token) => {
        const cancel = abortOn(token);
        const step = progressSteps();
        try {
          return await this.diagnose(
            cancel.signal,
            (c, p) => progress.report({ message: `${c.title}: ${statusWord(c.result)}`, increment: step(p) }),
            includeMedia,
          );
        } finally {
          cancel.dispose();
        }
      },
    );
    const secrets = [await this.tokens.activeToken()].filter((x): x is string => !!x);
    this.shown = { d, secrets, activeGateway: true };
    this.last = d.rows[0]?.report;
    this.show(diagnoseBody(d, { secrets, activeGateway: true }));
  }

  /**
   * Diagnose All Gateways: the checks for every configured gateway with its own active token (no
   * billed media checks), the fallbacks checked against each gateway's list; one summary row per
   * gateway in the panel, each full report one click away. Cancellable; one run at a time.
   */
  runAll(): Promise<void> {
    if (this.runs.running) {
      this.panel?.reveal();
      void vscode.window.showInformationMessage(vscode.l10n.t('Model Relay: a diagnosis is already running.'));
    }
    return this.runs.run(() => this.runAllOnce());
  }

  private async runAllOnce(): Promise<void> {
    const gateways = this.service.registry.gateways();
    if (!gateways.length) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Model Relay: no gateway is configured yet.'));
      return;
    }
    const tokens = await gatewayTokens(gateways, (id) => this.service.registry.tokensOf(id));
    const all = await vscode.window.withProgress(
      {
        location: vscode.ProgressLocation.Notification,
        title: vscode.l10n.t('Model Relay: diagnosing all gateways'),
        cancellable: true,
      },
      async (progress, cancelled) => {
        const cancel = abortOn(cancelled);
        try {
          return await diagnoseGateways({
            gateways,
            fallbacks: this.service.current.fallbacks,
            token: tokens.token,
            tokenName: tokens.tokenName,
            noTokenFix: () => vscode.l10n.t('Add a token for this gateway ("Model Relay: Add Token").'),
            proxy: readProxySettings(),
            signal: cancel.signal,
            ...this.service.requestLogging,
            ...gatewayProgress((p) => progress.report(p)),
          });
        } finally {
          cancel.dispose();
        }
      },
    );
    this.shown = { d: all, secrets: tokens.secrets, activeGateway: false };
    this.show(diagnoseBody(all, { secrets: tokens.secrets }));
  }

  private show(body: string): void {
    if (!this.panel) {
      this.panel = vscode.window.createWebviewPanel(
        'modelRelay.diagnose',
        vscode.l10n.t('Model Relay: Diagnosis'),
        vscode.ViewColumn.Active,
        { enableScripts: true, localResourceRoots: [this.codicons()] },
      );
      this.panelSubs = [
        this.panel.onDidDispose(() => {
          this.panel = undefined;
          for (const d of this.panelSubs.splice(0)) d.dispose();
        }),
        this.panel.webview.onDidReceiveMessage((raw) => {
          const msg = parseDiagnoseMessage(raw);
          if (msg) void this.onMessage(msg);
        }),
      ];
    }
    const nonce = makeNonce();
    const w = this.panel.webview;
    const head = codiconLink(w.asWebviewUri(vscode.Uri.joinPath(this.codicons(), 'codicon.css')).toString());
    const csp = webviewCsp({ nonce, style: `${w.cspSource} 'nonce-${nonce}'`, font: w.cspSource });
    w.html = htmlPage({
      title: vscode.l10n.t('Model Relay: Diagnosis'),
      lang: vscode.env.language,
      nonce,
      csp,
      head,
      style: DIAGNOSE_CSS,
      body,
      script: DIAGNOSE_SCRIPT,
    });
    this.panel.reveal();
  }

  /** dist/codicons: the icon font and its stylesheet (copied there at build time). */
  private codicons(): vscode.Uri {
    return vscode.Uri.joinPath(this.context.extensionUri, 'dist', 'codicons');
  }

  private async onMessage(msg: DiagnosePanelMessage): Promise<void> {
    switch (msg.type) {
      case 'copy':
        if (!this.shown) return;
        await vscode.env.clipboard.writeText(renderMarkdown(this.shown.d, { secrets: this.shown.secrets }));
        void vscode.window.showInformationMessage(
          vscode.l10n.t('Model Relay: diagnosis report copied (tokens masked).'),
        );
        return;
      case 'rerun':
        return this.shown?.activeGateway === false ? this.runAll() : this.run();
      case 'rerunMedia':
        return this.run(true);
      case 'supportReport':
        await vscode.commands.executeCommand(CommandId.CopySupportReport);
        return;
      case 'fix': {
        const check = this.report?.checks[msg.index];
        const toolFix = check?.toolFix;
        if (toolFix && !check.fixAction) {
          // The diff is shown before the write, a backup kept; then the rows are read again.
          if (await this.tools.fix(toolFix.tool, toolFix.path, toolFix.keys)) return this.run();
          return;
        }
        const action = check?.fixAction;
        if (!action) return;
        switch (action.kind) {
          case 'set-base-url':
            await writeBaseUrl(action.value);
            this.service.reload();
            void vscode.window.showInformationMessage(vscode.l10n.t('Model Relay: base URL set to {0}.', action.value));
            return this.run();
          case 'switch-token':
            await vscode.commands.executeCommand(CommandId.SwitchToken);
            return this.run();
          case 'add-token':
            await vscode.commands.executeCommand(CommandId.AddToken);
            return this.run();
          case 'disable-stream':
            await disableStreaming();
            void vscode.window.showInformationMessage(
              vscode.l10n.t('Model Relay: streaming is off (modelRelay.stream).'),
            );
            return;
          case 'use-gateway-for-background-tasks':
            await vscode.commands.executeCommand(CommandId.UseGatewayModelForBackgroundTasks);
            return this.run();
          default: {
            const _exhaustive: never = action;
            void _exhaustive;
          }
        }
      }
    }
  }
}
