/**
 * Every webview page's shell, in one place: a per-load crypto nonce, a strict Content Security
 * Policy, and HTML escaping. The chat view, the diagnosis panel and the image preview build their
 * pages with it. Plain Node (no `vscode`): callers pass the webview's cspSource and URIs.
 */
import { randomBytes } from 'node:crypto';
import type { ChatStrings } from '../shared/chatStrings';

export function makeNonce(): string {
  return randomBytes(18).toString('base64');
}

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for element content and quoted attributes. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ENTITIES[c]);
}

/** Escapes a value for a double-quoted attribute (single quotes stay: a CSP value needs them). */
function attr(s: string): string {
  return s.replace(/[&<>"]/g, (c) => ENTITIES[c]);
}

/** A CSP that allows nothing but what is named; scripts only with the page's nonce. */
export function webviewCsp(d: { nonce: string; img?: string; style: string; font?: string }): string {
  return (
    [
      `default-src 'none'`,
      d.img && `img-src ${d.img}`,
      `style-src ${d.style}`,
      d.font && `font-src ${d.font}`,
      `script-src 'nonce-${d.nonce}'`,
    ]
      .filter(Boolean)
      .join('; ') + ';'
  );
}

export interface PageInput {
  title: string;
  nonce: string;
  csp: string;
  /** markup for <head> after the CSP (stylesheet links) */
  head?: string;
  /** inline CSS, sent with the nonce */
  style?: string;
  body: string;
  /** inline script, sent with the nonce */
  script?: string;
  /** external script URI, sent with the nonce */
  scriptUri?: string;
  /** the page's language (VS Code's display language), `en` by default */
  lang?: string;
}

/** The codicon stylesheet (asWebviewUri(dist/codicons/codicon.css)); its font loads from the same folder (CSP font-src). */
export function codiconLink(codiconUri: string): string {
  return `<link rel="stylesheet" href="${attr(codiconUri)}">\n`;
}

export function htmlPage(p: PageInput): string {
  return `<!DOCTYPE html>
<html lang="${attr(p.lang ?? 'en')}">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${attr(p.csp)}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
${p.head ?? ''}${p.style ? `<style nonce="${attr(p.nonce)}">\n${p.style}\n</style>\n` : ''}<title>${escapeHtml(p.title)}</title>
</head>
<body>
${p.body}
${p.script ? `<script nonce="${attr(p.nonce)}">${p.script}</script>\n` : ''}${p.scriptUri ? `<script nonce="${attr(p.nonce)}" src="${attr(p.scriptUri)}"></script>\n` : ''}</body>
</html>`;
}

export interface ChatHtmlInput {
  /** webview.cspSource */
  cspSource: string;
  /** asWebviewUri(dist/webview.js) */
  scriptUri: string;
  /** asWebviewUri(media/chat.css) */
  styleUri: string;
  /** asWebviewUri(dist/codicons/codicon.css) */
  codiconUri: string;
  /** every word of the view, translated on the host (src/host/chat/chatWords.ts) */
  strings: ChatStrings;
  lang?: string;
  nonce?: string;
}

export function chatCsp(cspSource: string, nonce: string): string {
  return webviewCsp({ nonce, img: `${cspSource} data:`, style: cspSource, font: cspSource });
}

/** The chat view: the bundled script, the static stylesheet and the codicons (all through asWebviewUri), and its words. */
export function chatHtml(input: ChatHtmlInput): string {
  const nonce = input.nonce ?? makeNonce();
  return htmlPage({
    title: 'Model Relay Chat',
    nonce,
    lang: input.lang,
    csp: chatCsp(input.cspSource, nonce),
    head: `${codiconLink(input.codiconUri)}<link rel="stylesheet" href="${attr(input.styleUri)}">\n`,
    body: `<div id="app" data-testid="chat-root" data-resource-base="${attr(input.cspSource)}" data-strings="${attr(JSON.stringify(input.strings))}"></div>`,
    scriptUri: input.scriptUri,
  });
}
