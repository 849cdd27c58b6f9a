/**
 * The chat webview UI: toolbar (surface switch, model picker, New Chat), settings (system prompt,
 * temperature, max tokens), the conversation, and the composer (input, Send, Stop, Regenerate).
 * Talks to the host only through the typed protocol; keeps its state with getState/setState so a
 * reload paints at once, then the host's `init` (after our `ready`) replaces it.
 */
import type { ChatEntry, ChatOptions, ChatSnapshot, ChatSurface, HostToWebview, ModelList, SelectionContext, WebviewToHost } from '../shared/chatProtocol';
import { modelsForSurface } from '../shared/modelOrder';
import { createMarkdownRenderer, type MarkdownRenderer } from './markdownRenderer';
import { MessageView } from './messageView';

export interface VsCodeApi {
  postMessage(msg: WebviewToHost): void;
  getState(): unknown;
  setState(state: unknown): void;
}

/** What the webview keeps in its own state (restored before the host answers). */
export interface WebviewState {
  snapshot: ChatSnapshot;
  models: ModelList;
  draft: string;
}

export interface ChatAppOptions {
  /** schedules a render; default requestAnimationFrame (tests pass their own) */
  schedule?: (fn: () => void) => void;
  resourceOrigin?: string | undefined;
}

const DEFAULT_OPTIONS: ChatOptions = { surface: 'compatible', model: '', system: '', temperature: 0.7, maxTokens: 4096 };

export class ChatApp {
  private readonly doc: Document;
  private readonly md: MarkdownRenderer;
  private readonly views = new Map<string, MessageView>();
  private readonly dirty = new Set<string>();
  private frameQueued = false;
  private readonly schedule: (fn: () => void) => void;
  private snapshot: ChatSnapshot;
  private models: ModelList;
  private saveQueued = false;

  // elements
  readonly root: HTMLElement;
  private readonly list: HTMLElement;
  private readonly empty: HTMLElement;
  private readonly input: HTMLTextAreaElement;
  private readonly send: HTMLButtonElement;
  private readonly stop: HTMLButtonElement;
  private readonly regenerate: HTMLButtonElement;
  private readonly newChat: HTMLButtonElement;
  private readonly surface: HTMLSelectElement;
  private readonly model: HTMLSelectElement;
  private readonly modelsNote: HTMLElement;
  private readonly system: HTMLTextAreaElement;
  private readonly temperature: HTMLInputElement;
  private readonly maxTokens: HTMLInputElement;
  private readonly contextChip: HTMLElement;
  private readonly contextLabel: HTMLElement;
  private readonly streamingOff: HTMLElement;

  constructor(
    private readonly win: Window,
    root: HTMLElement,
    private readonly api: VsCodeApi,
    opts: ChatAppOptions = {},
  ) {
    this.doc = win.document;
    this.root = root;
    this.md = createMarkdownRenderer(win, { resourceOrigin: opts.resourceOrigin });
    this.schedule = opts.schedule ?? ((fn) => win.requestAnimationFrame(() => fn()));
    const saved = api.getState() as Partial<WebviewState> | undefined;
    this.snapshot = saved?.snapshot ?? { entries: [], options: DEFAULT_OPTIONS, busy: false, streaming: true, canDiagnose: false };
    this.models = saved?.models ?? { items: [], defaults: { compatible: '', native: '' }, loading: false };

    const d = this.doc;
    const h = <K extends keyof HTMLElementTagNameMap>(tag: K, cls: string, testId?: string): HTMLElementTagNameMap[K] => {
      const e = d.createElement(tag);
      if (cls) e.className = cls;
      if (testId) e.setAttribute('data-testid', testId);
      return e;
    };
    const button = (label: string, testId: string, title: string, cls = '') => {
      const b = h('button', cls, testId);
      b.type = 'button';
      b.textContent = label;
      b.title = title;
      return b;
    };

    // toolbar
    const toolbar = h('div', 'toolbar');
    this.surface = h('select', 'surface', 'chat-surface');
    this.surface.title = 'Protocol surface';
    for (const [value, label] of [['compatible', 'Compatible (chat completions)'], ['native', 'Native (messages)']] as const) {
      const o = h('option', '');
      o.value = value;
      o.textContent = label;
      this.surface.append(o);
    }
    this.model = h('select', 'model', 'chat-model');
    this.model.title = 'Model (from /v1/models; configured defaults first)';
    const refresh = button('↻', 'chat-refresh-models', 'Refresh the model list', 'icon');
    this.newChat = button('New Chat', 'chat-new', 'Start a new conversation');
    toolbar.append(this.surface, this.model, refresh, this.newChat);
    this.modelsNote = h('div', 'models-note', 'chat-models-note');

    // settings
    const settings = h('details', 'settings', 'chat-settings');
    const summary = h('summary', '');
    summary.textContent = 'System prompt, temperature, max tokens';
    this.system = h('textarea', 'system', 'chat-system');
    this.system.rows = 3;
    this.system.placeholder = 'System prompt (optional)';
    this.temperature = h('input', 'num', 'chat-temperature');
    Object.assign(this.temperature, { type: 'number', min: '0', max: '2', step: '0.1' });
    this.maxTokens = h('input', 'num', 'chat-max-tokens');
    Object.assign(this.maxTokens, { type: 'number', min: '1', step: '1' });
    const label = (text: string, control: HTMLElement) => {
      const l = h('label', '');
      l.append(d.createTextNode(text), control);
      return l;
    };
    const nums = h('div', 'nums');
    nums.append(label('Temperature ', this.temperature), label('Max tokens ', this.maxTokens));
    settings.append(summary, label('', this.system), nums);

    // conversation
    this.list = h('div', 'messages', 'chat-messages');
    this.list.setAttribute('role', 'log');
    this.list.setAttribute('aria-live', 'polite');
    this.empty = h('div', 'empty', 'chat-empty');
    this.empty.textContent = 'Ask the gateway anything. Enter sends, Shift+Enter adds a line, Escape stops.';

    // composer
    const composer = h('div', 'composer');
    this.contextChip = h('div', 'context-chip', 'chat-context');
    this.contextLabel = h('span', '');
    const removeContext = button('×', 'chat-context-remove', 'Do not send the selection', 'icon');
    this.contextChip.append(this.contextLabel, removeContext);
    this.input = h('textarea', 'input', 'chat-input');
    this.input.rows = 3;
    this.input.placeholder = 'Ask… (Enter to send, Shift+Enter for a new line)';
    this.input.value = saved?.draft ?? '';
    const actions = h('div', 'composer-actions');
    this.streamingOff = h('span', 'streaming-off', 'chat-streaming-off');
    this.streamingOff.textContent = 'Streaming off';
    this.streamingOff.title = 'modelRelay.stream is false: replies arrive in one piece';
    this.regenerate = button('Regenerate', 'chat-regenerate', 'Ask again for the last reply');
    this.stop = button('Stop', 'chat-stop', 'Stop the reply (Escape)', 'danger');
    this.send = button('Send', 'chat-send', 'Send (Enter)', 'primary');
    actions.append(this.streamingOff, this.regenerate, this.stop, this.send);
    composer.append(this.contextChip, this.input, actions);

    root.replaceChildren(toolbar, this.modelsNote, settings, this.list, this.empty, composer);

    // events
    this.send.addEventListener('click', () => this.submit());
    this.stop.addEventListener('click', () => this.post({ type: 'stop' }));
    this.regenerate.addEventListener('click', () => {
      if (!this.snapshot.busy) this.post({ type: 'regenerate', options: this.readOptions() });
    });
    this.newChat.addEventListener('click', () => this.post({ type: 'newChat' }));
    refresh.addEventListener('click', () => this.post({ type: 'refreshModels' }));
    removeContext.addEventListener('click', () => {
      this.snapshot.pendingContext = undefined;
      this.renderContext();
      this.post({ type: 'clearContext' });
      this.save();
    });
    this.input.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
        e.preventDefault();
        this.submit();
      }
    });
    this.input.addEventListener('input', () => this.save());
    d.addEventListener('keydown', (e) => {
      if (e.key === 'Escape' && this.snapshot.busy) {
        e.preventDefault();
        this.post({ type: 'stop' });
      }
    });
    this.surface.addEventListener('change', () => {
      const s = this.surface.value as ChatSurface;
      const choices = modelsForSurface(this.models, s);
      const preferred = this.models.defaults[s];
      this.fillModels(s, preferred || (choices.includes(this.model.value) ? this.model.value : choices[0] ?? ''));
      this.optionsChanged();
    });
    this.model.addEventListener('change', () => this.optionsChanged());
    for (const c of [this.system, this.temperature, this.maxTokens]) c.addEventListener('change', () => this.optionsChanged());
    this.list.addEventListener('click', (e) => this.onListClick(e));

    this.renderAll();
  }

  // ----- host messages -------------------------------------------------------------------------

  handle(msg: HostToWebview): void {
    switch (msg.type) {
      case 'init':
        this.snapshot = msg.state;
        this.models = msg.models;
        this.renderAll();
        break;
      case 'reset':
        this.snapshot = msg.state;
        this.renderAll();
        break;
      case 'models':
        this.models = msg.models;
        this.renderModels();
        break;
      case 'entryAdded': {
        this.snapshot.entries.push(msg.entry);
        this.addView(msg.entry);
        this.renderControls();
        this.scrollToEnd();
        break;
      }
      case 'entryDelta': {
        const v = this.views.get(msg.id);
        if (!v) break;
        v.appendText(msg.text);
        const entry = this.snapshot.entries.find((e) => e.id === msg.id);
        if (entry) entry.text += msg.text;
        this.markDirty(msg.id);
        break;
      }
      case 'entryUpdated': {
        const i = this.snapshot.entries.findIndex((e) => e.id === msg.entry.id);
        if (i >= 0) this.snapshot.entries[i] = msg.entry;
        this.dirty.delete(msg.entry.id);
        this.views.get(msg.entry.id)?.update(msg.entry);
        this.renderControls();
        this.scrollToEnd();
        break;
      }
      case 'entryRemoved':
        this.snapshot.entries = this.snapshot.entries.filter((e) => e.id !== msg.id);
        this.views.get(msg.id)?.el.remove();
        this.views.delete(msg.id);
        this.dirty.delete(msg.id);
        this.renderControls();
        break;
      case 'busy':
        this.snapshot.busy = msg.busy;
        this.renderControls();
        break;
      case 'context':
        this.snapshot.pendingContext = msg.context;
        this.renderContext();
        break;
      case 'options':
        this.snapshot.options = msg.options;
        this.renderOptions();
        break;
      case 'config':
        this.snapshot.streaming = msg.streaming;
        this.snapshot.canDiagnose = msg.canDiagnose;
        this.renderControls();
        for (const v of this.views.values()) v.renderMeta();
        break;
      case 'focusInput':
        this.input.focus();
        break;
      default: {
        const _exhaustive: never = msg;
        void _exhaustive;
      }
    }
    this.save();
  }

  /** Renders pending streamed text now (normally once per animation frame). */
  flush(): void {
    this.frameQueued = false;
    for (const id of this.dirty) this.views.get(id)?.renderStreaming();
    this.dirty.clear();
    this.scrollToEnd();
  }

  // ----- rendering -----------------------------------------------------------------------------

  private markDirty(id: string): void {
    this.dirty.add(id);
    if (!this.frameQueued) {
      this.frameQueued = true;
      this.schedule(() => this.flush());
    }
  }

  private renderAll(): void {
    this.views.clear();
    this.dirty.clear();
    this.list.replaceChildren();
    for (const e of this.snapshot.entries) this.addView(e);
    this.renderOptions();
    this.renderContext();
    this.renderControls();
    this.scrollToEnd();
  }

  private addView(entry: ChatEntry): void {
    const v = new MessageView({ doc: this.doc, md: this.md, streaming: () => this.snapshot.streaming, canDiagnose: () => this.snapshot.canDiagnose }, entry);
    this.views.set(entry.id, v);
    this.list.append(v.el);
  }

  private renderOptions(): void {
    const o = this.snapshot.options;
    this.surface.value = o.surface;
    this.system.value = o.system;
    this.temperature.value = String(o.temperature);
    this.maxTokens.value = String(o.maxTokens);
    this.renderModels();
  }

  private renderModels(): void {
    const s = this.snapshot.options.surface;
    this.fillModels(s, this.snapshot.options.model || this.models.defaults[s]);
    const m = this.models;
    this.modelsNote.textContent = m.loading ? 'Loading models…' : m.error ? `Could not list models: ${m.error}` : '';
    this.modelsNote.hidden = !this.modelsNote.textContent;
    this.modelsNote.classList.toggle('error', !!m.error);
  }

  private fillModels(surface: ChatSurface, selected: string): void {
    const ids = modelsForSurface(this.models, surface);
    if (selected && !ids.includes(selected)) ids.unshift(selected);
    const opts = ids.map((id) => {
      const o = this.doc.createElement('option');
      o.value = id;
      o.textContent = id === this.models.defaults[surface] ? `${id} (default)` : id;
      return o;
    });
    if (!opts.length) {
      const o = this.doc.createElement('option');
      o.value = '';
      o.textContent = surface === 'native' ? 'No model: set modelRelay.models.native' : 'No model: set modelRelay.models.chat';
      opts.push(o);
    }
    this.model.replaceChildren(...opts);
    this.model.value = selected && ids.includes(selected) ? selected : (ids[0] ?? '');
  }

  private renderContext(): void {
    const c: SelectionContext | undefined = this.snapshot.pendingContext;
    this.contextChip.hidden = !c;
    this.contextLabel.textContent = c ? `Selection: ${c.fileName} (${c.startLine === c.endLine ? `line ${c.startLine}` : `lines ${c.startLine}–${c.endLine}`}, ${c.language})` : '';
  }

  private renderControls(): void {
    const busy = this.snapshot.busy;
    this.send.hidden = busy;
    this.stop.hidden = !busy;
    this.root.classList.toggle('busy', busy);
    this.regenerate.disabled = busy || !this.snapshot.entries.some((e) => e.role === 'user');
    this.streamingOff.hidden = this.snapshot.streaming;
    this.empty.hidden = this.snapshot.entries.length > 0;
  }

  private scrollToEnd(): void {
    const el = this.list;
    if (typeof el.scrollTo === 'function') el.scrollTo({ top: el.scrollHeight });
  }

  // ----- user actions --------------------------------------------------------------------------

  private submit(): void {
    if (this.snapshot.busy) return;
    const text = this.input.value;
    if (!text.trim() && !this.snapshot.pendingContext) return;
    this.post({ type: 'send', text, options: this.readOptions() });
    this.input.value = '';
    this.snapshot.pendingContext = undefined;
    this.renderContext();
    this.save();
  }

  private readOptions(): ChatOptions {
    const t = Number.parseFloat(this.temperature.value);
    const m = Number.parseInt(this.maxTokens.value, 10);
    const o: ChatOptions = {
      surface: this.surface.value === 'native' ? 'native' : 'compatible',
      model: this.model.value,
      system: this.system.value,
      temperature: Number.isFinite(t) ? Math.min(2, Math.max(0, t)) : this.snapshot.options.temperature,
      maxTokens: Number.isFinite(m) && m >= 1 ? Math.min(1_000_000, m) : this.snapshot.options.maxTokens,
    };
    return o;
  }

  private optionsChanged(): void {
    this.snapshot.options = this.readOptions();
    this.temperature.value = String(this.snapshot.options.temperature);
    this.maxTokens.value = String(this.snapshot.options.maxTokens);
    this.post({ type: 'setOptions', options: this.snapshot.options });
    this.save();
  }

  private onListClick(e: Event): void {
    const target = e.target as HTMLElement | null;
    const btn = target?.closest?.('button[data-action]') as HTMLButtonElement | null;
    if (!btn) return;
    const action = btn.getAttribute('data-action');
    if (action === 'copy' || action === 'insert') {
      const code = btn.closest('.code-block')?.querySelector('pre > code')?.textContent ?? '';
      this.post(action === 'copy' ? { type: 'copyCode', code } : { type: 'insertCode', code });
      if (action === 'copy') {
        btn.textContent = 'Copied';
        this.win.setTimeout(() => (btn.textContent = 'Copy'), 1500);
      }
    } else if (action === 'diagnose') {
      this.post({ type: 'runDiagnose' });
    } else if (action === 'show-log') {
      this.post({ type: 'showLog' });
    } else if (action === 'disable-streaming') {
      this.post({ type: 'disableStreaming' });
    }
  }

  private post(msg: WebviewToHost): void {
    this.api.postMessage(msg);
  }

  private save(): void {
    if (this.saveQueued) return;
    this.saveQueued = true;
    this.win.setTimeout(() => {
      this.saveQueued = false;
      const state: WebviewState = { snapshot: this.snapshot, models: this.models, draft: this.input.value };
      this.api.setState(state);
    }, 200);
  }
}
