/**
 * The chat webview's HTML shell: a strict CSP with a per-load crypto nonce, the bundled script and
 * the static stylesheet only (both through asWebviewUri). Plain module (no `vscode`): the caller
 * passes the webview's cspSource and URIs.
 */
import { randomBytes } from 'node:crypto';

export interface ChatHtmlInput {
  /** webview.cspSource */
  cspSource: string;
  /** asWebviewUri(dist/webview.js) */
  scriptUri: string;
  /** asWebviewUri(media/chat.css) */
  styleUri: string;
  nonce?: string;
}

export function makeNonce(): string {
  return randomBytes(18).toString('base64');
}

export function chatCsp(cspSource: string, nonce: string): string {
  return `default-src 'none'; img-src ${cspSource} data:; style-src ${cspSource}; font-src ${cspSource}; script-src 'nonce-${nonce}';`;
}

/** Escapes a value for a double-quoted attribute (single quotes stay: the CSP needs them). */
function attr(s: string): string {
  return s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
}

export function chatHtml(input: ChatHtmlInput): string {
  const nonce = input.nonce ?? makeNonce();
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${attr(chatCsp(input.cspSource, nonce))}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${attr(input.styleUri)}">
<title>Model Relay Chat</title>
</head>
<body>
<div id="app" data-testid="chat-root" data-resource-base="${attr(input.cspSource)}"></div>
<script nonce="${attr(nonce)}" src="${attr(input.scriptUri)}"></script>
</body>
</html>`;
}
