/**
 * The chat webview's elements: toolbar (surface switch, model picker, refresh, New Chat), settings
 * (system prompt, temperature, max tokens), the conversation list, and the composer (with its
 * image attachments: ./composer.ts). Built once, with the host's words (`ChatStrings`: the webview
 * translates nothing) and codicons for icons (every icon-only button has `aria-label` and `title`);
 * ChatApp wires and renders them; the model picker and the options form are read and filled here.
 */
import { IMAGE_MIME_TYPES } from '../shared/chatImages';
import type { ChatOptions, ChatSurface, ModelList, WebviewToHost } from '../shared/chatProtocol';
import type { ChatStrings } from '../shared/chatStrings';
import { codicon, iconLabel } from './codicon';
import { fillModels, modelsNote, pickedOf, type PickedModel } from './modelPicker';

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

/** The toolbar's and the settings' controls. */
type TopElements = Pick<
  ChatElements,
  'surface' | 'model' | 'refresh' | 'newChat' | 'modelsNote' | 'system' | 'temperature' | 'maxTokens'
>;
/** The conversation's and the composer's elements. */
type BottomElements = Omit<ChatElements, keyof TopElements>;

/** Toolbar, model note and the settings block: the nodes in order, and the controls among them. */
function buildTop(d: Document, s: ChatStrings): { nodes: HTMLElement[]; ui: TopElements } {
  const { h, button } = makers(d);
  // toolbar
  const toolbar = h('div', 'toolbar');
  toolbar.setAttribute('role', 'toolbar');
  const surface = h('select', 'surface', 'chat-surface');
  surface.title = s.surfaceLabel;
  surface.setAttribute('aria-label', s.surfaceLabel);
  for (const [value, label] of [
    ['compatible', s.surfaceCompatible],
    ['native', s.surfaceNative],
    ['responses', s.surfaceResponses],
  ] as const) {
    const o = h('option', '');
    o.value = value;
    o.textContent = label;
    surface.append(o);
  }
  const model = h('select', 'model', 'chat-model');
  model.title = s.modelTitle;
  model.setAttribute('aria-label', s.modelLabel);
  const refresh = button('', 'chat-refresh-models', s.refreshModels, 'icon', 'refresh');
  const newChat = button(s.newChat, 'chat-new', s.newChatTitle, '', 'add');
  toolbar.append(surface, model, refresh, newChat);
  const modelsNote = h('div', 'models-note', 'chat-models-note');

  // settings
  const settings = h('details', 'settings', 'chat-settings');
  const summary = h('summary', '');
  summary.textContent = s.settingsSummary;
  const system = h('textarea', 'system', 'chat-system');
  system.rows = 3;
  system.placeholder = s.systemPlaceholder;
  system.setAttribute('aria-label', s.systemLabel);
  const temperature = h('input', 'num', 'chat-temperature');
  Object.assign(temperature, { type: 'number', min: '0', max: '2', step: '0.1', placeholder: s.temperatureDefault });
  const maxTokens = h('input', 'num', 'chat-max-tokens');
  Object.assign(maxTokens, { type: 'number', min: '1', step: '1' });
  const label = (text: string, control: HTMLElement) => {
    const l = h('label', '');
    l.append(d.createTextNode(text ? `${text} ` : ''), control);
    return l;
  };
  const nums = h('div', 'nums');
  nums.append(label(s.temperature, temperature), label(s.maxTokens, maxTokens));
  settings.append(summary, label('', system), nums);

  return {
    nodes: [toolbar, modelsNote, settings],
    ui: { surface, model, refresh, newChat, modelsNote, system, temperature, maxTokens },
  };
}

/** The conversation list, its empty state, and the composer: the nodes in order, and the elements among them. */
function buildBottom(d: Document, draft: string, s: ChatStrings): { nodes: HTMLElement[]; ui: BottomElements } {
  const { h, button } = makers(d);
  // conversation
  const list = h('div', 'messages', 'chat-messages');
  list.setAttribute('role', 'log');
  list.setAttribute('aria-live', 'polite');
  list.setAttribute('aria-label', s.conversation);
  const empty = h('div', 'empty', 'chat-empty');
  empty.textContent = s.empty;

  // composer
  const composer = h('div', 'composer');
  const contextChip = h('div', 'context-chip', 'chat-context');
  const contextLabel = h('span', '');
  const removeContext = button('', 'chat-context-remove', s.removeContext, 'icon', 'close');
  contextChip.append(contextLabel, removeContext);
  const inputLabel = h('label', 'sr-only', 'chat-input-label');
  inputLabel.htmlFor = 'chat-input';
  inputLabel.textContent = s.inputLabel;
  const input = h('textarea', 'input', 'chat-input');
  input.id = 'chat-input';
  input.rows = 3;
  input.placeholder = s.inputPlaceholder;
  input.value = draft;
  const attachments = h('div', 'attachments', 'chat-attachments');
  attachments.setAttribute('aria-label', s.imagesToSend);
  const composerNote = h('div', 'composer-note', 'chat-composer-note');
  composerNote.setAttribute('role', 'alert');
  const fileInput = h('input', 'file-input', 'chat-file-input');
  Object.assign(fileInput, {
    type: 'file',
    accept: IMAGE_MIME_TYPES.join(','),
    multiple: true,
    hidden: true,
    tabIndex: -1,
  });
  const attach = button('', 'chat-attach', s.attachTitle, 'icon attach', 'file-media');
  attach.setAttribute('aria-label', s.attach);
  const actions = h('div', 'composer-actions');
  actions.setAttribute('role', 'group');
  actions.setAttribute('aria-label', s.composerActions);
  const streamingOff = h('span', 'streaming-off', 'chat-streaming-off');
  streamingOff.textContent = s.streamingOff;
  streamingOff.title = s.streamingOffTitle;
  const regenerate = button(s.regenerate, 'chat-regenerate', s.regenerateTitle, '', 'refresh');
  const stop = button(s.stop, 'chat-stop', s.stopTitle, 'danger', 'debug-stop');
  const send = button(s.send, 'chat-send', s.sendTitle, 'primary', 'send');
  actions.append(attach, fileInput, streamingOff, regenerate, stop, send);
  composer.append(contextChip, attachments, composerNote, inputLabel, input, actions);

  return {
    nodes: [list, empty, composer],
    ui: {
      list,
      empty,
      input,
      send,
      stop,
      regenerate,
      removeContext,
      contextChip,
      contextLabel,
      streamingOff,
      attach,
      fileInput,
      attachments,
      composerNote,
    },
  };
}

/** Builds the chat UI into `root` (replacing what was there). */
export function buildChatLayout(doc: Document, root: HTMLElement, draft: string, s: ChatStrings): ChatElements {
  const top = buildTop(doc, s);
  const bottom = buildBottom(doc, draft, s);
  root.replaceChildren(...top.nodes, ...bottom.nodes);
  return { ...top.ui, ...bottom.ui };
}

/** The model picker and the note under it (loading, or why listing failed). */
export function renderModelPicker(
  doc: Document,
  ui: ChatElements,
  models: ModelList,
  surface: ChatSurface,
  picked: PickedModel,
  s: ChatStrings,
): void {
  fillModels(doc, ui.model, models, surface, picked, s);
  ui.modelsNote.textContent = modelsNote(models, s);
  ui.modelsNote.hidden = !ui.modelsNote.textContent;
  ui.modelsNote.classList.toggle('error', !models.loading && !!ui.modelsNote.textContent);
}

/** The options as the form shows them (the model with its gateway), clamped; unreadable numbers keep their previous values. */
export function readChatOptions(ui: ChatElements, previous: ChatOptions): ChatOptions {
  const typed = ui.temperature.value.trim();
  const t = Number.parseFloat(typed);
  const m = Number.parseInt(ui.maxTokens.value, 10);
  return {
    surface: ui.surface.value === 'native' || ui.surface.value === 'responses' ? ui.surface.value : 'compatible',
    ...pickedOf(ui.model),
    system: ui.system.value,
    // Empty: the model's own default (nothing is sent).
    temperature: !typed ? null : Number.isFinite(t) ? Math.min(2, Math.max(0, t)) : previous.temperature,
    maxTokens: Number.isFinite(m) && m >= 1 ? Math.min(1_000_000, m) : previous.maxTokens,
  };
}

/** The conversation's buttons (code block Copy / Insert, error card actions) as messages to the host. */
export function onListClick(
  e: Event,
  win: Window,
  post: (msg: WebviewToHost) => void,
  options: () => ChatOptions | undefined,
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
    const o = options();
    if (o) post({ type: 'retryWithoutStreaming', options: o });
  } else if (action === 'retry-billed') {
    const o = options();
    if (o) post({ type: 'retryBilled', options: o });
  } else if (action === 'diagnose') {
    post({ type: 'runDiagnose' });
  } else if (action === 'show-log') {
    post({ type: 'showLog' });
  } else if (action === 'support-report') {
    const entryId = btn.closest('[data-entry-id]')?.getAttribute('data-entry-id');
    if (entryId) post({ type: 'copySupportReport', entryId });
  } else if (action === 'disable-streaming') {
    post({ type: 'disableStreaming' });
  }
}
