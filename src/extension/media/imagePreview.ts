/**
 * A preview panel for a generated or edited image, with Save As / Copy Path / Insert Markdown Link
 * (codicons beside the words; every word in the display language).
 */
import * as vscode from 'vscode';
import { basename, dirname, relative } from 'node:path';
import { parsePreviewMessage, type PreviewPanelMessage } from '../../host/panelMessages';
import { codiconLink, escapeHtml, htmlPage, makeNonce, webviewCsp } from '../../host/webviewHtml';

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
  const codicons = vscode.Uri.joinPath(context.extensionUri, 'dist', 'codicons');
  const roots = [
    vscode.Uri.file(dirname(info.file.fsPath)),
    vscode.Uri.joinPath(context.extensionUri, 'media'),
    codicons,
  ];
  if (info.original) roots.push(vscode.Uri.file(dirname(info.original.fsPath)));
  const panel = vscode.window.createWebviewPanel(
    'modelRelay.imagePreview',
    info.title ?? vscode.l10n.t('Image: {0}', basename(info.file.fsPath)),
    vscode.ViewColumn.Beside,
    { enableScripts: true, localResourceRoots: roots },
  );
  panel.webview.html = previewHtml(panel.webview, panel.title, info, codicons);
  // The panel owns the subscription: it ends with the panel.
  const sub = panel.webview.onDidReceiveMessage(async (raw: unknown): Promise<void> => {
    const msg = parsePreviewMessage(raw);
    if (msg) await onPreviewMessage(msg.type, info); // validated at the boundary
  });
  panel.onDidDispose(() => {
    sub.dispose();
  });
  return panel;
}

/** The preview page: the image (beside its original for edits), what made it, and the three buttons. */
function previewHtml(w: vscode.Webview, title: string, info: PreviewInfo, codicons: vscode.Uri): string {
  const nonce = makeNonce();
  const img = (u: vscode.Uri, alt: string, id: string) =>
    `<figure><img data-testid="${id}" src="${w.asWebviewUri(u).toString()}" alt="${escapeHtml(alt)}"><figcaption>${escapeHtml(alt)}</figcaption></figure>`;
  const term = (k: string, v: string) => `<dt>${escapeHtml(k)}</dt><dd>${escapeHtml(v)}</dd>`;
  const meta = [
    term(vscode.l10n.t('Prompt'), info.prompt),
    term(vscode.l10n.t('Model'), info.model),
    info.size ? term(vscode.l10n.t('Size'), info.size) : '',
    term(vscode.l10n.t('File'), vscode.workspace.asRelativePath(info.file)),
  ].join('');
  const button = (id: string, cmd: string, icon: string, label: string) =>
    `<button data-testid="${id}" data-cmd="${cmd}"><span class="codicon codicon-${icon}" aria-hidden="true"></span><span>${escapeHtml(label)}</span></button>`;
  const original = info.original ? img(info.original, vscode.l10n.t('Original'), 'preview-original') : '';
  const result = img(info.file, info.original ? vscode.l10n.t('Edited') : vscode.l10n.t('Generated'), 'preview-image');
  const buttons = [
    button('preview-save-as', 'saveAs', 'save-as', vscode.l10n.t('Save As…')),
    button('preview-copy-path', 'copyPath', 'copy', vscode.l10n.t('Copy Path')),
    button('preview-insert-link', 'insertLink', 'link', vscode.l10n.t('Insert Markdown Link')),
  ].join('');
  const body = `<div class="row">${original}${result}</div>
<dl data-testid="preview-meta">${meta}</dl>
<p>${buttons}</p>`;
  const csp = webviewCsp({ nonce, img: w.cspSource, style: `${w.cspSource} 'nonce-${nonce}'`, font: w.cspSource });
  const head = codiconLink(w.asWebviewUri(vscode.Uri.joinPath(codicons, 'codicon.css')).toString());
  return htmlPage({
    title,
    lang: vscode.env.language,
    nonce,
    csp,
    head,
    style: PREVIEW_CSS,
    body,
    script: PREVIEW_SCRIPT,
  });
}

/** One button of the preview: Save As, Copy Path or Insert Markdown Link. */
async function onPreviewMessage(type: PreviewPanelMessage['type'], info: PreviewInfo): Promise<void> {
  switch (type) {
    case 'saveAs': {
      const target = await vscode.window.showSaveDialog({
        defaultUri: info.file,
        filters: { [vscode.l10n.t('Images')]: [info.file.fsPath.split('.').pop() ?? 'png'] },
      });
      if (!target) return;
      await vscode.workspace.fs.copy(info.file, target, { overwrite: true });
      void vscode.window.showInformationMessage(
        vscode.l10n.t('Model Relay: saved {0}', vscode.workspace.asRelativePath(target)),
      );
      return;
    }
    case 'copyPath':
      await vscode.env.clipboard.writeText(info.file.fsPath);
      void vscode.window.showInformationMessage(vscode.l10n.t('Model Relay: image path copied.'));
      return;
    case 'insertLink':
      return insertLink(info);
    default: {
      const _exhaustive: never = type;
      void _exhaustive;
    }
  }
}

/** Inserts `![prompt](relative path)` into the first visible file or untitled editor. */
async function insertLink(info: PreviewInfo): Promise<void> {
  const editor = vscode.window.visibleTextEditors.find(
    (e) => e.document.uri.scheme === 'file' || e.document.uri.scheme === 'untitled',
  );
  if (!editor) {
    void vscode.window.showWarningMessage(vscode.l10n.t('Model Relay: open a document to insert the link into.'));
    return;
  }
  const from = editor.document.uri.scheme === 'file' ? dirname(editor.document.uri.fsPath) : undefined;
  const path = from ? relative(from, info.file.fsPath).split('\\').join('/') : info.file.fsPath;
  const alt = info.prompt.replace(/[[\]\n]/g, ' ').slice(0, 80);
  await editor.edit((b) => b.insert(editor.selection.active, `![${alt}](${encodeURI(path)})`));
}

const PREVIEW_CSS = `body{font-family:var(--vscode-font-family);color:var(--vscode-foreground);background:var(--vscode-editor-background);padding:12px}
.row{display:flex;gap:16px;flex-wrap:wrap}figure{margin:0}img{max-width:min(100%,640px);border:1px solid var(--vscode-panel-border)}
figcaption{font-size:12px;color:var(--vscode-descriptionForeground)}dl{display:grid;grid-template-columns:max-content 1fr;gap:4px 12px}dt{color:var(--vscode-descriptionForeground)}
button{display:inline-flex;align-items:center;gap:4px;font:inherit;background:var(--vscode-button-background);color:var(--vscode-button-foreground);border:none;padding:4px 12px;margin:0 8px 4px 0;cursor:pointer}button:hover{background:var(--vscode-button-hoverBackground)}
button:focus-visible{outline:1px solid var(--vscode-focusBorder);outline-offset:1px}p{display:flex;flex-wrap:wrap}dd{overflow-wrap:anywhere}`;

const PREVIEW_SCRIPT = `const vscode=acquireVsCodeApi();for(const b of document.querySelectorAll('button[data-cmd]'))b.addEventListener('click',()=>vscode.postMessage({type:b.dataset.cmd}));`;
