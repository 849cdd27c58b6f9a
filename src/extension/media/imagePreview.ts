/** A preview panel for a generated or edited image, with Save As / Copy Path / Insert Markdown Link. */
import * as vscode from 'vscode';
import { basename, dirname, relative } from 'node:path';
import { parsePreviewMessage } from '../../host/panelMessages';
import { escapeHtml, htmlPage, makeNonce, webviewCsp } from '../../host/webviewHtml';

export interface PreviewInfo {
  file: vscode.Uri;
  prompt: string;
  model: string;
  size?: string | undefined;
  /** the original image, for edits: shown beside the result */
  original?: vscode.Uri | undefined;
  title?: string;
}

export function showImagePreview(context: vscode.ExtensionContext, info: PreviewInfo): vscode.WebviewPanel {
  const roots = [vscode.Uri.file(dirname(info.file.fsPath)), vscode.Uri.joinPath(context.extensionUri, 'media')];
  if (info.original) roots.push(vscode.Uri.file(dirname(info.original.fsPath)));
  const panel = vscode.window.createWebviewPanel('modelRelay.imagePreview', info.title ?? `Image: ${basename(info.file.fsPath)}`, vscode.ViewColumn.Beside, {
    enableScripts: true,
    localResourceRoots: roots,
  });
  const w = panel.webview;
  const nonce = makeNonce();
  const img = (u: vscode.Uri, alt: string, id: string) => `<figure><img data-testid="${id}" src="${w.asWebviewUri(u)}" alt="${escapeHtml(alt)}"><figcaption>${escapeHtml(alt)}</figcaption></figure>`;
  const meta = `<dt>Prompt</dt><dd>${escapeHtml(info.prompt)}</dd><dt>Model</dt><dd>${escapeHtml(info.model)}</dd>${info.size ? `<dt>Size</dt><dd>${escapeHtml(info.size)}</dd>` : ''}<dt>File</dt><dd>${escapeHtml(vscode.workspace.asRelativePath(info.file))}</dd>`;
  const body = `<div class="row">${info.original ? img(info.original, 'Original', 'preview-original') : ''}${img(info.file, info.original ? 'Edited' : 'Generated', 'preview-image')}</div>
<dl data-testid="preview-meta">${meta}</dl>
<p><button data-testid="preview-save-as" data-cmd="saveAs">Save As…</button><button data-testid="preview-copy-path" data-cmd="copyPath">Copy Path</button><button data-testid="preview-insert-link" data-cmd="insertLink">Insert Markdown Link</button></p>`;
  panel.webview.html = htmlPage({ title: panel.title, nonce, csp: webviewCsp({ nonce, img: w.cspSource, style: `${w.cspSource} 'nonce-${nonce}'` }), style: PREVIEW_CSS, body, script: PREVIEW_SCRIPT });
  panel.webview.onDidReceiveMessage(async (raw: unknown) => {
    const msg = parsePreviewMessage(raw);
    if (!msg) return; // validated at the boundary
    switch (msg.type) {
      case 'saveAs': {
        const target = await vscode.window.showSaveDialog({ defaultUri: info.file, filters: { Images: [info.file.fsPath.split('.').pop() ?? 'png'] } });
        if (target) {
          await vscode.workspace.fs.copy(info.file, target, { overwrite: true });
          void vscode.window.showInformationMessage(`Model Relay: saved ${vscode.workspace.asRelativePath(target)}`);
        }
        break;
      }
      case 'copyPath':
        await vscode.env.clipboard.writeText(info.file.fsPath);
        void vscode.window.showInformationMessage('Model Relay: image path copied.');
        break;
      case 'insertLink': {
        const editor = vscode.window.visibleTextEditors.find((e) => e.document.uri.scheme === 'file' || e.document.uri.scheme === 'untitled');
        if (!editor) {
          void vscode.window.showWarningMessage('Model Relay: open a document to insert the link into.');
          break;
        }
        const from = editor.document.uri.scheme === 'file' ? dirname(editor.document.uri.fsPath) : undefined;
        const path = from ? relative(from, info.file.fsPath).split('\\').join('/') : info.file.fsPath;
        const alt = info.prompt.replace(/[[\]\n]/g, ' ').slice(0, 80);
        await editor.edit((b) => b.insert(editor.selection.active, `![${alt}](${encodeURI(path)})`));
        break;
      }
      default: {
        const _exhaustive: never = msg.type;
        void _exhaustive;
      }
    }
  });
  return panel;
}

const PREVIEW_CSS = `body{font-family:var(--vscode-font-family);color:var(--vscode-foreground);background:var(--vscode-editor-background);padding:12px}
.row{display:flex;gap:16px;flex-wrap:wrap}figure{margin:0}img{max-width:min(100%,640px);border:1px solid var(--vscode-panel-border)}
figcaption{font-size:12px;color:var(--vscode-descriptionForeground)}dl{display:grid;grid-template-columns:max-content 1fr;gap:4px 12px}dt{color:var(--vscode-descriptionForeground)}
button{background:var(--vscode-button-background);color:var(--vscode-button-foreground);border:none;padding:4px 12px;margin-right:8px;cursor:pointer}button:hover{background:var(--vscode-button-hoverBackground)}`;

const PREVIEW_SCRIPT = `const vscode=acquireVsCodeApi();for(const b of document.querySelectorAll('button[data-cmd]'))b.addEventListener('click',()=>vscode.postMessage({type:b.dataset.cmd}));`;
