/**
 * The chat webview UI: toolbar (surface switch, model picker, New Chat), settings (system prompt,
 * temperature, max tokens), the conversation, and the composer (input, images: ./composer.ts, Send,
 * Stop, Regenerate). Its words come from the host (`strings`: the webview translates nothing).
 * Keyboard: Enter sends, Escape stops a reply, every button is reachable with Tab.
 * Talks to the host only through the typed protocol; keeps its state with getState/setState so a
 * reload paints at once, then the host's `init` (after our `ready`) replaces it.
 */
import type {
  ChatEntry,
  ChatOptions,
  ChatSnapshot,
  ChatSurface,
  HostToWebview,
  ImageAttachment,
  ModelList,
  SelectionContext,
  WebviewToHost,
} from '../shared/chatProtocol';
import { modelsForSurface } from '../shared/modelOrder';
import { fill, type ChatStrings } from '../shared/chatStrings';
import { createMarkdownRenderer } from './markdownRenderer';
import { isEntryMessage, Transcript } from './transcript';
import {
  buildChatLayout,
  fillModels,
  onListClick,
  readChatOptions,
  renderModelPicker,
  type ChatElements,
} from './chatLayout';
import { Composer } from './composer';

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
  /** images attached to the draft */
  attachments?: ImageAttachment[];
}

export interface ChatAppOptions {
  /** schedules a render; default requestAnimationFrame (tests pass their own) */
  schedule?: (fn: () => void) => void;
  resourceOrigin?: string | undefined;
  /** every word the view shows, translated by the host (src/host/chat/chatWords.ts) */
  strings: ChatStrings;
}

const DEFAULT_OPTIONS: ChatOptions = {
  surface: 'compatible',
  model: '',
  system: '',
  temperature: 0.7,
  maxTokens: 4096,
};

export class ChatApp {
  private readonly doc: Document;
  private readonly transcript: Transcript;
  private snapshot: ChatSnapshot;
  private models: ModelList;
  private saveQueued = false;
  /** the selection sent with the last message (put back when the host refuses it) */
  private sentContext: SelectionContext | undefined;
  private readonly composer: Composer;
  private readonly s: ChatStrings;

  readonly root: HTMLElement;
  private readonly ui: ChatElements;

  constructor(
    private readonly win: Window,
    root: HTMLElement,
    private readonly api: VsCodeApi,
    opts: ChatAppOptions,
  ) {
    this.doc = win.document;
    this.root = root;
    const s = (this.s = opts.strings);
    const md = createMarkdownRenderer(win, { resourceOrigin: opts.resourceOrigin, strings: s });
    const schedule = opts.schedule ?? ((fn) => win.requestAnimationFrame(() => fn()));
    const saved = api.getState() as Partial<WebviewState> | undefined;
    this.snapshot = saved?.snapshot ?? { entries: [], options: DEFAULT_OPTIONS, busy: false, streaming: true };
    this.models = saved?.models ?? { items: [], defaults: { compatible: '', native: '' }, loading: false };

    this.ui = buildChatLayout(this.doc, root, saved?.draft ?? '', s);
    this.transcript = new Transcript(
      { doc: this.doc, md, strings: s, streaming: () => this.snapshot.streaming },
      this.ui.list,
      schedule,
    );
    this.composer = new Composer(
      win,
      this.ui,
      s,
      {
        busy: () => this.snapshot.busy,
        hasContext: () => !!this.snapshot.pendingContext,
        send: (text, images) => this.send(text, images),
        changed: () => this.save(),
      },
      Array.isArray(saved?.attachments) ? saved.attachments : [],
    );
    this.bindEvents();
    this.renderAll();
  }

  private bindEvents(): void {
    const d = this.doc;
    const { refresh, removeContext } = this.ui;
    this.ui.send.addEventListener('click', () => this.composer.submit());
    this.ui.stop.addEventListener('click', () => this.post({ type: 'stop' }));
    this.ui.regenerate.addEventListener('click', () => {
      if (!this.snapshot.busy) this.post({ type: 'regenerate', options: this.readOptions() });
    });
    this.ui.newChat.addEventListener('click', () => this.post({ type: 'newChat' }));
    refresh.addEventListener('click', () => this.post({ type: 'refreshModels' }));
    removeContext.addEventListener('click', () => {
      this.snapshot.pendingContext = undefined;
      this.renderContext();
      this.post({ type: 'clearContext' });
      this.save();
    });
    this.ui.input.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
        e.preventDefault();
        this.composer.submit();
      }
    });
    this.ui.input.addEventListener('input', () => this.save());
    // The view got the keyboard focus (Open Chat, its focus keybinding, Tab from the workbench): the input takes it.
    this.win.addEventListener('focus', () => {
      if (!d.activeElement || d.activeElement === d.body) this.ui.input.focus();
    });
    d.addEventListener('keydown', (e) => {
      if (e.key === 'Escape' && this.snapshot.busy) {
        e.preventDefault();
        this.post({ type: 'stop' });
      }
    });
    this.ui.surface.addEventListener('change', () => {
      const s = this.ui.surface.value as ChatSurface;
      const choices = modelsForSurface(this.models, s);
      const preferred = this.models.defaults[s];
      fillModels(
        this.doc,
        this.ui.model,
        this.models,
        s,
        preferred || (choices.includes(this.ui.model.value) ? this.ui.model.value : (choices[0] ?? '')),
        this.s,
      );
      this.optionsChanged();
    });
    this.ui.model.addEventListener('change', () => this.optionsChanged());
    for (const c of [this.ui.system, this.ui.temperature, this.ui.maxTokens])
      c.addEventListener('change', () => this.optionsChanged());
    this.ui.list.addEventListener('click', (e) =>
      onListClick(
        e,
        this.win,
        (m) => this.post(m),
        () => this.readOptions(),
        this.s,
      ),
    );
  }

  // ----- host messages -------------------------------------------------------------------------

  handle(msg: HostToWebview): void {
    if (isEntryMessage(msg)) {
      this.transcript.handle(this.snapshot, msg);
      if (msg.type !== 'entryDelta' && msg.type !== 'entryReasoning') this.renderControls();
      this.save();
      return;
    }
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
      case 'sendRefused':
        if (this.sentContext && !this.snapshot.pendingContext) this.snapshot.pendingContext = this.sentContext;
        this.sentContext = undefined;
        this.renderContext();
        this.composer.refused(msg.message);
        break;
      case 'busy':
        this.snapshot.busy = msg.busy;
        this.renderControls();
        break;
      case 'context':
        this.snapshot.pendingContext = msg.context;
        this.renderContext();
        break;
      case 'config':
        this.snapshot.streaming = msg.streaming;
        this.renderControls();
        this.transcript.renderMeta();
        break;
      case 'focusInput':
        this.ui.input.focus();
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
    this.transcript.flush();
  }

  // ----- rendering -----------------------------------------------------------------------------

  private renderAll(): void {
    this.renderOptions();
    this.renderContext();
    this.renderControls();
    this.transcript.renderAll(this.snapshot.entries);
  }

  private renderOptions(): void {
    const o = this.snapshot.options;
    this.ui.surface.value = o.surface;
    this.ui.system.value = o.system;
    this.ui.temperature.value = String(o.temperature);
    this.ui.maxTokens.value = String(o.maxTokens);
    this.renderModels();
  }

  private renderModels(): void {
    const s = this.snapshot.options.surface;
    renderModelPicker(
      this.doc,
      this.ui,
      this.models,
      s,
      this.snapshot.options.model || this.models.defaults[s],
      this.s,
    );
  }

  private renderContext(): void {
    const c: SelectionContext | undefined = this.snapshot.pendingContext;
    this.ui.contextChip.hidden = !c;
    this.ui.contextLabel.textContent = c
      ? fill(
          this.s.contextLabel,
          c.fileName,
          c.startLine === c.endLine ? fill(this.s.line, c.startLine) : fill(this.s.lines, c.startLine, c.endLine),
          c.language,
        )
      : '';
  }

  private renderControls(): void {
    const busy = this.snapshot.busy;
    // Keyboard users keep their place: a Stop (or Send) button that hides hands the focus on.
    const active = this.doc.activeElement;
    this.ui.send.hidden = busy;
    this.ui.stop.hidden = !busy;
    if (active === this.ui.stop && !busy) this.ui.input.focus();
    else if (active === this.ui.send && busy) this.ui.stop.focus();
    this.root.classList.toggle('busy', busy);
    this.ui.regenerate.disabled = busy || !this.snapshot.entries.some((e) => e.role === 'user');
    this.ui.streamingOff.hidden = this.snapshot.streaming;
    this.ui.empty.hidden = this.snapshot.entries.length > 0;
  }

  // ----- user actions --------------------------------------------------------------------------

  private send(text: string, images: ImageAttachment[]): void {
    this.post({ type: 'send', text, options: this.readOptions(), ...(images.length ? { images } : {}) });
    this.sentContext = this.snapshot.pendingContext;
    this.snapshot.pendingContext = undefined;
    this.renderContext();
    this.save();
  }

  private readOptions(): ChatOptions {
    return readChatOptions(this.ui, this.snapshot.options);
  }

  private optionsChanged(): void {
    this.snapshot.options = this.readOptions();
    this.ui.temperature.value = String(this.snapshot.options.temperature);
    this.ui.maxTokens.value = String(this.snapshot.options.maxTokens);
    this.post({ type: 'setOptions', options: this.snapshot.options });
    this.save();
  }

  private post(msg: WebviewToHost): void {
    this.api.postMessage(msg);
  }

  private save(): void {
    if (this.saveQueued) return;
    this.saveQueued = true;
    this.win.setTimeout(() => {
      this.saveQueued = false;
      // Sent images stay with the host (its init brings them back): the saved state holds the draft's only.
      const snapshot = { ...this.snapshot, entries: this.snapshot.entries.map(withoutImageData) };
      const state: WebviewState = {
        snapshot,
        models: this.models,
        draft: this.ui.input.value,
        attachments: [...this.composer.attachments],
      };
      this.api.setState(state);
    }, 200);
  }
}

function withoutImageData(e: ChatEntry): ChatEntry {
  return e.images ? { ...e, images: e.images.map(({ data: _data, ...rest }) => rest) } : e;
}
