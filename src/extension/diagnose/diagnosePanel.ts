/**
 * "Model Relay: Diagnose Connection": runs the core's diagnosis engine with progress and shows the
 * report in a panel (one row per check: icon and status word, HTTP status, cause, fix, and a button
 * for fixes the extension can apply; the page itself: src/host/diagnose/diagnoseHtml.ts), with "Copy report"
 * (markdown, masked tokens only). One run at a time: Diagnose again while one runs shows the
 * running one (src/host/diagnose/diagnoseRuns.ts). "Diagnose All Gateways" runs the core's
 * diagnoseGateways with each gateway's own token and shows one summary row per gateway, each full
 * report one click away (src/host/diagnose/diagnoseAllHtml.ts).
 */
import * as vscode from 'vscode';
import {
  diagnoseGateways,
  renderGatewaysTable,
  renderMarkdown,
  runDiagnosis,
  type DiagnosisCheck,
  type DiagnosisProgress,
  type DiagnosisReport,
  type GatewaysDiagnosis,
} from '../../gateway';
import { CommandId } from '../../host/commandIds';
import { DIAGNOSE_CSS, DIAGNOSE_SCRIPT, diagnoseBody, statusWord } from '../../host/diagnose/diagnoseHtml';
import { DIAGNOSE_ALL_CSS, DIAGNOSE_ALL_SCRIPT, diagnoseAllBody } from '../../host/diagnose/diagnoseAllHtml';
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
  /** what the panel shows: one gateway's report, or all gateways' (with their tokens, to redact a copy) */
  private shown: { report: DiagnosisReport } | { all: GatewaysDiagnosis; secrets: string[] } | undefined;
  private get report(): DiagnosisReport | undefined {
    return this.shown && 'report' in this.shown ? this.shown.report : undefined;
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

  /** Runs the engine with the extension's settings, token and proxy, and the terminal tools' states. */
  async diagnose(
    signal?: AbortSignal,
    onProgress?: (c: DiagnosisCheck, p: DiagnosisProgress) => void,
    includeMedia = false,
  ): Promise<DiagnosisReport> {
    const s = this.service.current;
    const token = await this.tokens.activeToken();
    return runDiagnosis({
      baseUrl: s.baseUrl,
      backupUrls: s.backupUrls,
      token,
      tokenName: this.tokens.activeName(),
      models: {
        chat: s.models.chat || undefined,
        native: s.models.native || undefined,
        image: s.models.image || undefined,
        imageEdit: s.models.imageEdit || undefined,
        video: s.models.video || undefined,
      },
      // A model VS Code's chat or the chat panel learnt to answer only on /v1/responses is checked there.
      learntSurfaces: this.service.client.learntSurfaces(),
      proxy: readProxySettings(),
      remoteName: vscode.env.remoteName,
      extraHeaders: s.extraHeaders,
      tools: await this.tools.diagnosisInput().catch(() => undefined),
      backgroundTasks: await backgroundTasksFindingNow().catch(() => undefined),
      includeMedia,
      signal,
      onProgress,
    });
  }

  async markdown(signal?: AbortSignal): Promise<string> {
    const r = await this.diagnose(signal);
    return renderMarkdown(r, { secrets: [await this.tokens.activeToken()] });
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
    const report = await vscode.window.withProgress(
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
    this.shown = { report };
    this.last = report;
    this.show(diagnoseBody(report), DIAGNOSE_CSS, DIAGNOSE_SCRIPT);
  }

  /**
   * Diagnose All Gateways: today's checks for every configured gateway with its own active token (no
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
            proxy: readProxySettings(),
            signal: cancel.signal,
            ...gatewayProgress((p) => progress.report(p)),
          });
        } finally {
          cancel.dispose();
        }
      },
    );
    this.shown = { all, secrets: tokens.secrets };
    this.show(diagnoseAllBody(all, tokens.secrets), `${DIAGNOSE_CSS}\n${DIAGNOSE_ALL_CSS}`, DIAGNOSE_ALL_SCRIPT);
  }

  private show(body: string, style: string, script: string): void {
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
      style,
      body,
      script,
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
        if (this.shown && 'all' in this.shown) {
          await vscode.env.clipboard.writeText(renderGatewaysTable(this.shown.all, { secrets: this.shown.secrets }));
          void vscode.window.showInformationMessage(
            vscode.l10n.t('Model Relay: diagnosis report copied (tokens masked).'),
          );
        } else if (this.report) {
          await vscode.env.clipboard.writeText(
            renderMarkdown(this.report, { secrets: [await this.tokens.activeToken()] }),
          );
          void vscode.window.showInformationMessage(
            vscode.l10n.t('Model Relay: diagnosis report copied (tokens masked).'),
          );
        }
        return;
      case 'rerun':
        return this.shown && 'all' in this.shown ? this.runAll() : this.run();
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
