/**
 * "Model Relay: Diagnose Connection": runs the core's diagnosis engine with progress and shows the
 * report in a panel (one row per check: icon, HTTP status, cause, fix, and a button for fixes the
 * extension can apply), with "Copy report" (markdown, masked tokens only).
 */
import * as vscode from 'vscode';
import { homedir } from 'node:os';
import { renderMarkdown, runDiagnosis, type DiagnosisCheck, type DiagnosisReport, type FixAction } from '../../gateway';
import { CommandId } from '../../host/commandIds';
import { parseDiagnoseMessage, type DiagnosePanelMessage } from '../../host/panelMessages';
import { escapeHtml as esc, htmlPage, makeNonce, webviewCsp } from '../../host/webviewHtml';
import type { GatewayService } from '../gatewayService';
import { disableStreaming, readProxySettings, writeBaseUrl } from '../settings';
import type { TokenStore } from '../tokenStore';

const FIX_LABEL: Record<FixAction['kind'], string> = {
  'set-base-url': 'Use this base URL',
  'switch-token': 'Switch token',
  'add-token': 'Add token',
  'disable-stream': 'Turn streaming off',
  'setup-native-cli': 'Set up native CLI',
};

export class DiagnoseController {
  private panel: vscode.WebviewPanel | undefined;
  private report: DiagnosisReport | undefined;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly service: GatewayService,
    private readonly tokens: TokenStore,
  ) {}

  /** Runs the engine with the extension's settings, token, proxy and the terminal environment. */
  async diagnose(signal?: AbortSignal, onProgress?: (c: DiagnosisCheck) => void, includeMedia = false): Promise<DiagnosisReport> {
    const s = this.service.current;
    const token = await this.tokens.activeToken();
    const knownTokens: Array<{ name: string; value: string }> = [];
    for (const name of this.tokens.names()) {
      const value = await this.tokens.value(name);
      if (value) knownTokens.push({ name, value });
    }
    // The environment a new integrated terminal gets: the process environment plus our collection.
    const env: Record<string, string | undefined> = { ...process.env };
    this.context.environmentVariableCollection.forEach((variable, mutator) => {
      env[variable] = mutator.value;
    });
    return runDiagnosis({
      baseUrl: s.baseUrl,
      backupUrls: s.backupUrls,
      token,
      tokenName: this.tokens.activeName(),
      knownTokens,
      models: { chat: s.models.chat || undefined, native: s.models.native || undefined, image: s.models.image || undefined, imageEdit: s.models.imageEdit || undefined, video: s.models.video || undefined },
      proxy: readProxySettings(),
      extraHeaders: s.extraHeaders,
      cliTool: { env, homeDir: homedir(), workspaceDir: vscode.workspace.workspaceFolders?.[0]?.uri.fsPath },
      includeMedia,
      signal,
      onProgress,
    });
  }

  async markdown(signal?: AbortSignal): Promise<string> {
    const r = await this.diagnose(signal);
    return renderMarkdown(r, { secrets: [await this.tokens.activeToken()] });
  }

  /** Runs the diagnosis; image and video generation checks only when asked for (they cost money). */
  async run(includeMedia = false): Promise<void> {
    if (includeMedia) {
      const go = await vscode.window.showWarningMessage('Model Relay: the image, image-edit and video checks make real generation calls, which the gateway bills.', { modal: true }, 'Run Them');
      if (go !== 'Run Them') return;
    }
    const report = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: 'Model Relay: diagnosing the connection', cancellable: true },
      (progress, token) => {
        const ac = new AbortController();
        token.onCancellationRequested(() => ac.abort());
        return this.diagnose(ac.signal, (c) => progress.report({ message: `${c.title}: ${c.result}`, increment: 100 / 15 }), includeMedia);
      },
    );
    this.report = report;
    this.show(report);
  }

  private show(r: DiagnosisReport): void {
    if (!this.panel) {
      this.panel = vscode.window.createWebviewPanel('modelRelay.diagnose', 'Model Relay: Diagnosis', vscode.ViewColumn.Active, { enableScripts: true, localResourceRoots: [] });
      this.panel.onDidDispose(() => (this.panel = undefined));
      this.panel.webview.onDidReceiveMessage((raw) => {
        const msg = parseDiagnoseMessage(raw);
        if (msg) void this.onMessage(msg);
      });
    }
    const nonce = makeNonce();
    this.panel.webview.html = htmlPage({ title: 'Model Relay: Diagnosis', nonce, csp: webviewCsp({ nonce, style: `'nonce-${nonce}'` }), style: DIAGNOSE_CSS, body: reportBody(r), script: DIAGNOSE_SCRIPT });
    this.panel.reveal();
  }

  private async onMessage(msg: DiagnosePanelMessage): Promise<void> {
    switch (msg.type) {
      case 'copy':
        if (this.report) {
          await vscode.env.clipboard.writeText(renderMarkdown(this.report, { secrets: [await this.tokens.activeToken()] }));
          void vscode.window.showInformationMessage('Model Relay: diagnosis report copied (tokens masked).');
        }
        return;
      case 'rerun':
        return this.run();
      case 'rerunMedia':
        return this.run(true);
      case 'fix': {
        const action = this.report?.checks[msg.index]?.fixAction;
        if (!action) return;
        switch (action.kind) {
          case 'set-base-url':
            await writeBaseUrl(action.value);
            this.service.reload();
            void vscode.window.showInformationMessage(`Model Relay: base URL set to ${action.value}.`);
            return this.run();
          case 'switch-token':
            await vscode.commands.executeCommand(CommandId.SwitchToken);
            return this.run();
          case 'add-token':
            await vscode.commands.executeCommand(CommandId.AddToken);
            return this.run();
          case 'disable-stream':
            await disableStreaming();
            void vscode.window.showInformationMessage('Model Relay: streaming is off (modelRelay.stream).');
            return;
          case 'setup-native-cli':
            await vscode.commands.executeCommand(CommandId.SetupNativeCli);
            return;
          default: {
            const _exhaustive: never = action;
            void _exhaustive;
          }
        }
      }
    }
  }
}

const DIAGNOSE_CSS = `body{font-family:var(--vscode-font-family);color:var(--vscode-foreground);background:var(--vscode-editor-background);padding:12px}
table{border-collapse:collapse;width:100%}td{border-bottom:1px solid var(--vscode-panel-border);padding:6px;vertical-align:top}
tr.fail td{background:var(--vscode-inputValidation-errorBackground)}tr.warn td{background:var(--vscode-inputValidation-warningBackground)}
.url{font-family:var(--vscode-editor-font-family);font-size:11px;color:var(--vscode-descriptionForeground);word-break:break-all}
button{background:var(--vscode-button-background);color:var(--vscode-button-foreground);border:none;padding:3px 10px;margin-top:4px;cursor:pointer}`;

const DIAGNOSE_SCRIPT = `const vscode=acquireVsCodeApi();document.addEventListener('click',e=>{const b=e.target.closest('button');if(!b)return;if(b.dataset.fix!==undefined)vscode.postMessage({type:'fix',index:Number(b.dataset.fix)});else vscode.postMessage({type:b.dataset.cmd});});`;

const ICON = { pass: '✅', warn: '⚠️', fail: '❌', skipped: '⏭️' } as const;

function checkRow(c: DiagnosisCheck, i: number): string {
  const fixButton = c.fixAction ? `<div><button data-testid="fix-${esc(c.id)}" data-fix="${i}">${esc(FIX_LABEL[c.fixAction.kind])}${c.fixAction.kind === 'set-base-url' ? `: ${esc(c.fixAction.value)}` : ''}</button></div>` : '';
  return `<tr class="${c.result}" data-testid="check-${esc(c.id)}" data-result="${c.result}">
<td>${ICON[c.result]}</td><td><b>${esc(c.title)}</b>${c.url ? `<div class="url">${esc(c.url)}</div>` : ''}</td><td>${c.httpStatus ?? '—'}</td>
<td>${esc(c.cause)}${c.details?.length ? `<ul>${c.details.map((d) => `<li>${esc(d)}</li>`).join('')}</ul>` : ''}</td>
<td>${esc(c.fix || '—')}${fixButton}</td></tr>`;
}

function reportBody(r: DiagnosisReport): string {
  return `<h2>Model Relay diagnosis</h2>
<p data-testid="diagnosis-summary">Base URL <code>${esc(r.baseUrl || '(not set)')}</code> · token ${r.maskedToken ? `<code>${esc(r.maskedToken)}</code>` : '(none)'}${r.tokenName ? ` (${esc(r.tokenName)})` : ''} · proxy: ${esc(r.proxy)} · <b>${r.summary.fail} failed, ${r.summary.warn} warnings, ${r.summary.pass} passed</b></p>
<p><button data-testid="copy-report" data-cmd="copy">Copy report</button> <button data-testid="rerun" data-cmd="rerun">Run again</button> <button data-testid="rerun-media" data-cmd="rerunMedia">Run with image and video checks (billed)</button></p>
<table><tbody>${r.checks.map(checkRow).join('\n')}</tbody></table>`;
}
