/**
 * Webview entry (bundled by esbuild into dist/webview.js, a browser iife). Restores the last state
 * at once, then says `ready`: the host posts nothing before that.
 */
import type { HostToWebview, WebviewToHost } from '../shared/chatProtocol';
import { ChatApp, type VsCodeApi } from './chatApp';

declare function acquireVsCodeApi(): VsCodeApi;

const api = acquireVsCodeApi();
const root = document.getElementById('app')!;
// Images are allowed only from this webview's own resource origin (or data:).
const script = document.currentScript as HTMLScriptElement | null;
const resourceOrigin = script?.src ? new URL(script.src).origin : undefined;
const app = new ChatApp(window, root, api, { resourceOrigin });

window.addEventListener('message', (ev: MessageEvent<HostToWebview>) => {
  const msg = ev.data;
  if (msg && typeof msg === 'object' && typeof (msg as { type?: unknown }).type === 'string') app.handle(msg);
});
const ready: WebviewToHost = { type: 'ready' };
api.postMessage(ready);
