/**
 * The chat webview in jsdom for the webview-*.test.ts files: a ChatApp with a recording VS Code API,
 * frames run by the test, and a list with a layout (jsdom has none): its height grows with its text,
 * a scroll moves it and reaches the page as a `scroll` event when the test lets the browser run.
 */
import { JSDOM } from 'jsdom';
import { ChatApp, type VsCodeApi } from '../../src/webview/chatApp';
import type { ChatEntry, ChatSnapshot, ModelList, WebviewToHost } from '../../src/shared/chatProtocol';
import { chatStrings } from '../../src/host/chat/chatWords';
import { oneGateway } from './helpers';

export const ORIGIN = 'https://file+.vscode-resource.vscode-cdn.net';

export const models: ModelList = oneGateway([{ id: 'gpt-4o-mini' }], { compatible: 'gpt-4o-mini', native: '' });

export function snapshot(entries: ChatEntry[], extra: Partial<ChatSnapshot> = {}): ChatSnapshot {
  return {
    entries,
    options: { surface: 'compatible', model: 'gpt-4o-mini', system: '', temperature: 0.3, maxTokens: 2048 },
    busy: false,
    streaming: true,
    ...extra,
  };
}

export const user = (id: string, text: string): ChatEntry => ({ id, role: 'user', text, createdAt: 1 });
export const reply = (id: string, text: string, extra: Partial<ChatEntry> = {}): ChatEntry => ({
  id,
  role: 'assistant',
  text,
  createdAt: 1,
  status: 'done',
  surface: 'compatible',
  model: 'gpt-4o-mini',
  ...extra,
});

/** A scrolling list: 1 px per character of text, 300 px tall; scrolls are clamped as a browser does. */
export interface Layout {
  readonly height: number;
  readonly max: number;
  top: number;
  /** the user scrolls to `top` (the page hears it) */
  userScroll(top: number): void;
  /** the browser delivers the scroll events the page's own scrolling caused */
  settle(): void;
}

function layout(list: HTMLElement, win: Window): Layout {
  const client = 300;
  let top = 0;
  let pending = false;
  const height = () => (list.textContent ?? '').length;
  const clamp = (v: number) => Math.max(0, Math.min(v, height() - client));
  const set = (v: number) => {
    const next = clamp(v);
    if (next !== top) pending = true;
    top = next;
  };
  Object.defineProperty(list, 'scrollHeight', { get: height, configurable: true });
  Object.defineProperty(list, 'clientHeight', { get: () => client, configurable: true });
  Object.defineProperty(list, 'scrollTop', { get: () => clamp(top), set, configurable: true });
  Object.defineProperty(list, 'scrollTo', {
    value: (o: { top?: number }) => set(o.top ?? top),
    configurable: true,
  });
  const fire = () => list.dispatchEvent(new (win as unknown as typeof globalThis).Event('scroll'));
  return {
    get height() {
      return height();
    },
    get max() {
      return Math.max(0, height() - client);
    },
    get top() {
      return clamp(top);
    },
    set top(v: number) {
      set(v);
    },
    userScroll(v: number) {
      set(v);
      pending = false;
      fire();
    },
    settle() {
      if (!pending) return;
      pending = false;
      fire();
    },
  };
}

export interface Harness {
  win: Window & typeof globalThis;
  app: ChatApp;
  posted: WebviewToHost[];
  state: { value: unknown; writes: number };
  /** runs the frames the page asked for (once each, in order) */
  frame(): void;
  frames: Array<() => void>;
  list: HTMLElement;
  layout: Layout;
  q<E extends HTMLElement = HTMLElement>(testId: string): E | null;
  messages(): HTMLElement[];
}

export function harness(saved?: unknown, strings = chatStrings()): Harness {
  const jsdom = new JSDOM('<!DOCTYPE html><html><body><div id="app"></div></body></html>', {
    pretendToBeVisual: true,
  });
  const win = jsdom.window as unknown as Window & typeof globalThis;
  const posted: WebviewToHost[] = [];
  const state = { value: saved, writes: 0 };
  const api: VsCodeApi = {
    postMessage: (m) => posted.push(JSON.parse(JSON.stringify(m)) as WebviewToHost),
    getState: () => state.value,
    setState: (s) => {
      state.value = s;
      state.writes++;
    },
  };
  const frames: Array<() => void> = [];
  const root = win.document.getElementById('app')!;
  const app = new ChatApp(win, root, api, { schedule: (fn) => frames.push(fn), resourceOrigin: ORIGIN, strings });
  const q = <E extends HTMLElement = HTMLElement>(id: string) => win.document.querySelector<E>(`[data-testid="${id}"]`);
  const list = q('chat-messages')!;
  return {
    win,
    app,
    posted,
    state,
    frames,
    frame: () => frames.splice(0).forEach((f) => f()),
    list,
    layout: layout(list, win),
    q,
    messages: () => Array.from(list.querySelectorAll<HTMLElement>('[data-testid="chat-message"]')),
  };
}
