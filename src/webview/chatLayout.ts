/**
 * The chat webview's elements: toolbar (surface switch, model picker, refresh, New Chat), settings
 * (system prompt, temperature, max tokens), the conversation list, and the composer (with its
 * image attachments: ./composer.ts). Built once;
 * ChatApp wires and renders them; the model picker and the options form are read and filled here.
 */
import { IMAGE_MIME_TYPES } from '../shared/chatImages';
import type { ChatOptions, ChatSurface, ModelList, WebviewToHost } from '../shared/chatProtocol';
import { modelsForSurface } from '../shared/modelOrder';

export interface ChatElements {
  list: HTMLElement;
  empty: HTMLElement;
  input: HTMLTextAreaElement;
  send: HTMLButtonElement;
  stop: HTMLButtonElement;
  regenerate: HTMLButtonElement;
  newChat: HTMLButtonElement;
  refresh: HTMLButtonElement;
  removeContext: HTMLButtonElement;
  surface: HTMLSelectElement;
  model: HTMLSelectElement;
  modelsNote: HTMLElement;
  system: HTMLTextAreaElement;
  temperature: HTMLInputElement;
  maxTokens: HTMLInputElement;
  contextChip: HTMLElement;
  contextLabel: HTMLElement;
  streamingOff: HTMLElement;
  /** the "Attach image" button and the hidden file input it opens */
  attach: HTMLButtonElement;
  fileInput: HTMLInputElement;
  /** pending attachments' thumbnails, above the input */
  attachments: HTMLElement;
  /** why an image was not added or a message not sent (inline, above the input) */
  composerNote: HTMLElement;
}

type Make = <K extends keyof HTMLElementTagNameMap>(tag: K, cls: string, testId?: string) => HTMLElementTagNameMap[K];
type MakeButton = (label: string, testId: string, title: string, cls?: string) => HTMLButtonElement;

function makers(d: Document): { h: Make; button: MakeButton } {
  const h: Make = (tag, cls, testId) => {
    const e = d.createElement(tag);
    if (cls) e.className = cls;
    if (testId) e.setAttribute('data-testid', testId);
    return e;
  };
  const button: MakeButton = (label, testId, title, cls = '') => {
    const b = h('button', cls, testId);
    b.type = 'button';
    b.textContent = label;
    b.title = title;
    return b;
  };
  return { h, button };
}

/** Toolbar, model note and the settings block. */
function buildTop(d: Document, ui: ChatElements): HTMLElement[] {
  const { h, button } = makers(d);
  // toolbar
  const toolbar = h('div', 'toolbar');
  ui.surface = h('select', 'surface', 'chat-surface');
  ui.surface.title = 'Protocol surface';
  for (const [value, label] of [['compatible', 'Compatible (chat completions)'], ['native', 'Native (messages)']] as const) {
    const o = h('option', '');
    o.value = value;
    o.textContent = label;
    ui.surface.append(o);
  }
  ui.model = h('select', 'model', 'chat-model');
  ui.model.title = 'Model (from /v1/models; configured defaults first)';
  const refresh = (ui.refresh = button('↻', 'chat-refresh-models', 'Refresh the model list', 'icon'));
  ui.newChat = button('New Chat', 'chat-new', 'Start a new conversation');
  toolbar.append(ui.surface, ui.model, refresh, ui.newChat);
  ui.modelsNote = h('div', 'models-note', 'chat-models-note');

  // settings
  const settings = h('details', 'settings', 'chat-settings');
  const summary = h('summary', '');
  summary.textContent = 'System prompt, temperature, max tokens';
  ui.system = h('textarea', 'system', 'chat-system');
  ui.system.rows = 3;
  ui.system.placeholder = 'System prompt (optional)';
  ui.temperature = h('input', 'num', 'chat-temperature');
  Object.assign(ui.temperature, { type: 'number', min: '0', max: '2', step: '0.1' });
  ui.maxTokens = h('input', 'num', 'chat-max-tokens');
  Object.assign(ui.maxTokens, { type: 'number', min: '1', step: '1' });
  const label = (text: string, control: HTMLElement) => {
    const l = h('label', '');
    l.append(d.createTextNode(text), control);
    return l;
  };
  const nums = h('div', 'nums');
  nums.append(label('Temperature ', ui.temperature), label('Max tokens ', ui.maxTokens));
  settings.append(summary, label('', ui.system), nums);

  return [toolbar, ui.modelsNote, settings];
}

/** The conversation list, its empty state, and the composer. */
function buildBottom(d: Document, ui: ChatElements, draft: string): HTMLElement[] {
  const { h, button } = makers(d);
  // conversation
  ui.list = h('div', 'messages', 'chat-messages');
  ui.list.setAttribute('role', 'log');
  ui.list.setAttribute('aria-live', 'polite');
  ui.empty = h('div', 'empty', 'chat-empty');
  ui.empty.textContent = 'Ask the gateway anything. Enter sends, Shift+Enter adds a line, Escape stops.';

  // composer
  const composer = h('div', 'composer');
  ui.contextChip = h('div', 'context-chip', 'chat-context');
  ui.contextLabel = h('span', '');
  const removeContext = (ui.removeContext = button('×', 'chat-context-remove', 'Do not send the selection', 'icon'));
  ui.contextChip.append(ui.contextLabel, removeContext);
  ui.input = h('textarea', 'input', 'chat-input');
  ui.input.rows = 3;
  ui.input.placeholder = 'Ask… (Enter to send, Shift+Enter for a new line)';
  ui.input.value = draft;
  ui.attachments = h('div', 'attachments', 'chat-attachments');
  ui.attachments.setAttribute('aria-label', 'Images to send');
  ui.composerNote = h('div', 'composer-note', 'chat-composer-note');
  ui.composerNote.setAttribute('role', 'alert');
  ui.fileInput = h('input', 'file-input', 'chat-file-input');
  Object.assign(ui.fileInput, { type: 'file', accept: IMAGE_MIME_TYPES.join(','), multiple: true, hidden: true, tabIndex: -1 });
  ui.attach = button('', 'chat-attach', 'Attach images (PNG, JPEG, GIF, WebP; up to 4, 5 MB each). You can also paste or drop them.', 'icon attach');
  ui.attach.setAttribute('aria-label', 'Attach image');
  const glyph = h('span', 'attach-glyph');
  glyph.setAttribute('aria-hidden', 'true');
  ui.attach.append(glyph);
  const actions = h('div', 'composer-actions');
  ui.streamingOff = h('span', 'streaming-off', 'chat-streaming-off');
  ui.streamingOff.textContent = 'Streaming off';
  ui.streamingOff.title = 'modelRelay.stream is false: replies arrive in one piece';
  ui.regenerate = button('Regenerate', 'chat-regenerate', 'Ask again for the last reply');
  ui.stop = button('Stop', 'chat-stop', 'Stop the reply (Escape)', 'danger');
  ui.send = button('Send', 'chat-send', 'Send (Enter)', 'primary');
  actions.append(ui.attach, ui.fileInput, ui.streamingOff, ui.regenerate, ui.stop, ui.send);
  composer.append(ui.contextChip, ui.attachments, ui.composerNote, ui.input, actions);

  return [ui.list, ui.empty, composer];
}

/** Builds the chat UI into `root` (replacing what was there). */
export function buildChatLayout(doc: Document, root: HTMLElement, draft: string): ChatElements {
  const ui = {} as ChatElements;
  root.replaceChildren(...buildTop(doc, ui), ...buildBottom(doc, ui, draft));
  return ui;
}

/** Fills the model select for a surface, with `selected` chosen (added when the list lacks it). */
export function fillModels(doc: Document, select: HTMLSelectElement, models: ModelList, surface: ChatSurface, selected: string): void {
  const ids = modelsForSurface(models, surface);
  if (selected && !ids.includes(selected)) ids.unshift(selected);
  const prices = new Map(models.items.map((m) => [m.id, m.price]));
  const opts = ids.map((id) => {
    const o = doc.createElement('option');
    o.value = id;
    const price = prices.get(id);
    o.textContent = `${id}${id === models.defaults[surface] ? ' (default)' : ''}${price ? ` · ${price}` : ''}`;
    if (price) o.title = `${id}: ${price}`;
    return o;
  });
  if (!opts.length) {
    const o = doc.createElement('option');
    o.value = '';
    o.textContent = surface === 'native' ? 'No model: set modelRelay.models.native' : 'No model: set modelRelay.models.chat';
    opts.push(o);
  }
  select.replaceChildren(...opts);
  select.value = selected && ids.includes(selected) ? selected : (ids[0] ?? '');
}

/** The model picker and the note under it (loading, or why listing failed). */
export function renderModelPicker(doc: Document, ui: ChatElements, models: ModelList, surface: ChatSurface, selected: string): void {
  fillModels(doc, ui.model, models, surface, selected);
  ui.modelsNote.textContent = models.loading ? 'Loading models…' : models.error ? `Could not list models: ${models.error}` : '';
  ui.modelsNote.hidden = !ui.modelsNote.textContent;
  ui.modelsNote.classList.toggle('error', !!models.error);
}

/** The options as the form shows them, clamped; unreadable numbers keep their previous values. */
export function readChatOptions(ui: ChatElements, previous: ChatOptions): ChatOptions {
  const t = Number.parseFloat(ui.temperature.value);
  const m = Number.parseInt(ui.maxTokens.value, 10);
  return {
    surface: ui.surface.value === 'native' ? 'native' : 'compatible',
    model: ui.model.value,
    system: ui.system.value,
    temperature: Number.isFinite(t) ? Math.min(2, Math.max(0, t)) : previous.temperature,
    maxTokens: Number.isFinite(m) && m >= 1 ? Math.min(1_000_000, m) : previous.maxTokens,
  };
}

/** The conversation's buttons (code block Copy / Insert, error card actions) as messages to the host. */
export function onListClick(e: Event, win: Window, post: (msg: WebviewToHost) => void, options: () => ChatOptions): void {
  const target = e.target as HTMLElement | null;
  const btn = target?.closest?.('button[data-action]') as HTMLButtonElement | null;
  if (!btn) return;
  const action = btn.getAttribute('data-action');
  if (action === 'copy' || action === 'insert') {
    const code = btn.closest('.code-block')?.querySelector('pre > code')?.textContent ?? '';
    post(action === 'copy' ? { type: 'copyCode', code } : { type: 'insertCode', code });
    if (action === 'copy') {
      btn.textContent = 'Copied';
      win.setTimeout(() => (btn.textContent = 'Copy'), 1500);
    }
  } else if (action === 'retry-without-streaming') {
    post({ type: 'retryWithoutStreaming', options: options() });
  } else if (action === 'diagnose') {
    post({ type: 'runDiagnose' });
  } else if (action === 'show-log') {
    post({ type: 'showLog' });
  } else if (action === 'disable-streaming') {
    post({ type: 'disableStreaming' });
  }
}
