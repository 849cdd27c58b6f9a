/**
 * The chat webview's elements: toolbar (surface switch, model picker, refresh, New Chat), settings
 * (system prompt, temperature, max tokens), the conversation list, and the composer (with its
 * image attachments: ./composer.ts). Built once, with the host's words (`ChatStrings`: the webview
 * translates nothing) and codicons for icons (every icon-only button has `aria-label` and `title`);
 * ChatApp wires and renders them; the model picker and the options form are read and filled here.
 */
import { IMAGE_MIME_TYPES } from '../shared/chatImages';
import type { ChatOptions, ChatSurface, ModelList, WebviewToHost } from '../shared/chatProtocol';
import { modelsForSurface } from '../shared/modelOrder';
import { fill, type ChatStrings } from '../shared/chatStrings';
import { codicon, iconLabel } from './codicon';

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
/** A button with a text label (and an icon before it), or icon-only when `label` is '' (then `title` is its name). */
type MakeButton = (label: string, testId: string, title: string, cls?: string, icon?: string) => HTMLButtonElement;

function makers(d: Document): { h: Make; button: MakeButton } {
  const h: Make = (tag, cls, testId) => {
    const e = d.createElement(tag);
    if (cls) e.className = cls;
    if (testId) e.setAttribute('data-testid', testId);
    return e;
  };
  const button: MakeButton = (label, testId, title, cls = '', icon) => {
    const b = h('button', cls, testId);
    b.type = 'button';
    if (icon && label) iconLabel(b, icon, label);
    else if (icon) b.append(codicon(d, icon));
    else b.textContent = label;
    if (!label) b.setAttribute('aria-label', title);
    b.title = title;
    return b;
  };
  return { h, button };
}

/** Toolbar, model note and the settings block. */
function buildTop(d: Document, ui: ChatElements, s: ChatStrings): HTMLElement[] {
  const { h, button } = makers(d);
  // toolbar
  const toolbar = h('div', 'toolbar');
  toolbar.setAttribute('role', 'toolbar');
  ui.surface = h('select', 'surface', 'chat-surface');
  ui.surface.title = s.surfaceLabel;
  ui.surface.setAttribute('aria-label', s.surfaceLabel);
  for (const [value, label] of [
    ['compatible', s.surfaceCompatible],
    ['native', s.surfaceNative],
  ] as const) {
    const o = h('option', '');
    o.value = value;
    o.textContent = label;
    ui.surface.append(o);
  }
  ui.model = h('select', 'model', 'chat-model');
  ui.model.title = s.modelTitle;
  ui.model.setAttribute('aria-label', s.modelLabel);
  const refresh = (ui.refresh = button('', 'chat-refresh-models', s.refreshModels, 'icon', 'refresh'));
  ui.newChat = button(s.newChat, 'chat-new', s.newChatTitle, '', 'add');
  toolbar.append(ui.surface, ui.model, refresh, ui.newChat);
  ui.modelsNote = h('div', 'models-note', 'chat-models-note');

  // settings
  const settings = h('details', 'settings', 'chat-settings');
  const summary = h('summary', '');
  summary.textContent = s.settingsSummary;
  ui.system = h('textarea', 'system', 'chat-system');
  ui.system.rows = 3;
  ui.system.placeholder = s.systemPlaceholder;
  ui.system.setAttribute('aria-label', s.systemLabel);
  ui.temperature = h('input', 'num', 'chat-temperature');
  Object.assign(ui.temperature, { type: 'number', min: '0', max: '2', step: '0.1' });
  ui.maxTokens = h('input', 'num', 'chat-max-tokens');
  Object.assign(ui.maxTokens, { type: 'number', min: '1', step: '1' });
  const label = (text: string, control: HTMLElement) => {
    const l = h('label', '');
    l.append(d.createTextNode(text ? `${text} ` : ''), control);
    return l;
  };
  const nums = h('div', 'nums');
  nums.append(label(s.temperature, ui.temperature), label(s.maxTokens, ui.maxTokens));
  settings.append(summary, label('', ui.system), nums);

  return [toolbar, ui.modelsNote, settings];
}

/** The conversation list, its empty state, and the composer. */
function buildBottom(d: Document, ui: ChatElements, draft: string, s: ChatStrings): HTMLElement[] {
  const { h, button } = makers(d);
  // conversation
  ui.list = h('div', 'messages', 'chat-messages');
  ui.list.setAttribute('role', 'log');
  ui.list.setAttribute('aria-live', 'polite');
  ui.list.setAttribute('aria-label', s.conversation);
  ui.empty = h('div', 'empty', 'chat-empty');
  ui.empty.textContent = s.empty;

  // composer
  const composer = h('div', 'composer');
  ui.contextChip = h('div', 'context-chip', 'chat-context');
  ui.contextLabel = h('span', '');
  const removeContext = (ui.removeContext = button('', 'chat-context-remove', s.removeContext, 'icon', 'close'));
  ui.contextChip.append(ui.contextLabel, removeContext);
  const inputLabel = h('label', 'sr-only', 'chat-input-label');
  inputLabel.htmlFor = 'chat-input';
  inputLabel.textContent = s.inputLabel;
  ui.input = h('textarea', 'input', 'chat-input');
  ui.input.id = 'chat-input';
  ui.input.rows = 3;
  ui.input.placeholder = s.inputPlaceholder;
  ui.input.value = draft;
  ui.attachments = h('div', 'attachments', 'chat-attachments');
  ui.attachments.setAttribute('aria-label', s.imagesToSend);
  ui.composerNote = h('div', 'composer-note', 'chat-composer-note');
  ui.composerNote.setAttribute('role', 'alert');
  ui.fileInput = h('input', 'file-input', 'chat-file-input');
  Object.assign(ui.fileInput, {
    type: 'file',
    accept: IMAGE_MIME_TYPES.join(','),
    multiple: true,
    hidden: true,
    tabIndex: -1,
  });
  ui.attach = button('', 'chat-attach', s.attachTitle, 'icon attach', 'file-media');
  ui.attach.setAttribute('aria-label', s.attach);
  const actions = h('div', 'composer-actions');
  actions.setAttribute('role', 'group');
  actions.setAttribute('aria-label', s.composerActions);
  ui.streamingOff = h('span', 'streaming-off', 'chat-streaming-off');
  ui.streamingOff.textContent = s.streamingOff;
  ui.streamingOff.title = s.streamingOffTitle;
  ui.regenerate = button(s.regenerate, 'chat-regenerate', s.regenerateTitle, '', 'refresh');
  ui.stop = button(s.stop, 'chat-stop', s.stopTitle, 'danger', 'debug-stop');
  ui.send = button(s.send, 'chat-send', s.sendTitle, 'primary', 'send');
  actions.append(ui.attach, ui.fileInput, ui.streamingOff, ui.regenerate, ui.stop, ui.send);
  composer.append(ui.contextChip, ui.attachments, ui.composerNote, inputLabel, ui.input, actions);

  return [ui.list, ui.empty, composer];
}

/** Builds the chat UI into `root` (replacing what was there). */
export function buildChatLayout(doc: Document, root: HTMLElement, draft: string, s: ChatStrings): ChatElements {
  const ui = {} as ChatElements;
  root.replaceChildren(...buildTop(doc, ui, s), ...buildBottom(doc, ui, draft, s));
  return ui;
}

/** Fills the model select for a surface, with `selected` chosen (added when the list lacks it). */
export function fillModels(
  doc: Document,
  select: HTMLSelectElement,
  models: ModelList,
  surface: ChatSurface,
  selected: string,
  s: ChatStrings,
): void {
  const ids = modelsForSurface(models, surface);
  if (selected && !ids.includes(selected)) ids.unshift(selected);
  const prices = new Map(models.items.map((m) => [m.id, m.price]));
  const opts = ids.map((id) => {
    const o = doc.createElement('option');
    o.value = id;
    const price = prices.get(id);
    o.textContent = `${id === models.defaults[surface] ? fill(s.modelDefault, id) : id}${price ? ` · ${price}` : ''}`;
    if (price) o.title = `${id}: ${price}`;
    return o;
  });
  if (!opts.length) {
    const o = doc.createElement('option');
    o.value = '';
    o.textContent = surface === 'native' ? s.noModelNative : s.noModelChat;
    opts.push(o);
  }
  select.replaceChildren(...opts);
  select.value = selected && ids.includes(selected) ? selected : (ids[0] ?? '');
}

/** The model picker and the note under it (loading, or why listing failed). */
export function renderModelPicker(
  doc: Document,
  ui: ChatElements,
  models: ModelList,
  surface: ChatSurface,
  selected: string,
  s: ChatStrings,
): void {
  fillModels(doc, ui.model, models, surface, selected, s);
  ui.modelsNote.textContent = models.loading ? s.loadingModels : models.error ? fill(s.modelsFailed, models.error) : '';
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
export function onListClick(
  e: Event,
  win: Window,
  post: (msg: WebviewToHost) => void,
  options: () => ChatOptions,
  s: ChatStrings,
): void {
  const target = e.target as HTMLElement | null;
  const btn = target?.closest?.('button[data-action]') as HTMLButtonElement | null;
  if (!btn) return;
  const action = btn.getAttribute('data-action');
  if (action === 'copy' || action === 'insert') {
    const code = btn.closest('.code-block')?.querySelector('pre > code')?.textContent ?? '';
    post(action === 'copy' ? { type: 'copyCode', code } : { type: 'insertCode', code });
    if (action === 'copy') {
      iconLabel(btn, 'check', s.copied);
      win.setTimeout(() => iconLabel(btn, 'copy', s.copy), 1500);
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
