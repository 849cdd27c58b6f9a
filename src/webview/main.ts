/**
 * Webview entry (bundled by esbuild into dist/webview.js, a browser iife). Restores the unsent draft
 * at once, then says `ready`: the host posts nothing before that, and answers with `init` (the
 * conversation, the options, the models). Its words are the host's, written into the page
 * (`data-strings`) and checked here.
 */
import type { HostToWebview, WebviewToHost } from '../shared/chatProtocol';
import { CHAT_STRING_KEYS, parseChatStrings, type ChatStrings } from '../shared/chatStrings';
import { ChatApp, type VsCodeApi } from './chatApp';

declare function acquireVsCodeApi(): VsCodeApi;

const api = acquireVsCodeApi();
const root = document.getElementById('app')!;
// Images are allowed only from this webview's own resource origin (or data:).
const script = document.currentScript as HTMLScriptElement | null;
const resourceOrigin = script?.src ? new URL(script.src).origin : undefined;
const app = new ChatApp(window, root, api, { resourceOrigin, strings: readStrings(root) });

/** The host's words; a page without them (never built by our host) shows the keys. */
function readStrings(el: HTMLElement): ChatStrings {
  let raw: unknown;
  try {
    raw = JSON.parse(el.dataset.strings ?? '');
  } catch {
    raw = undefined;
  }
  return parseChatStrings(raw) ?? (Object.fromEntries(CHAT_STRING_KEYS.map((k) => [k, k])) as ChatStrings);
}

window.addEventListener('message', (ev: MessageEvent<HostToWebview>) => {
  const msg = ev.data;
  if (msg && typeof msg === 'object' && typeof (msg as { type?: unknown }).type === 'string') app.handle(msg);
});
const ready: WebviewToHost = { type: 'ready' };
api.postMessage(ready);
