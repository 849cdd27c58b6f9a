/**
 * The chat webview UI: toolbar (surface switch, model picker, New Chat), settings (system prompt,
 * temperature, max tokens), the conversation, and the composer (input, images: ./composer.ts, Send,
 * Stop, Regenerate). Its words come from the host (`strings`: the webview translates nothing).
 * Keyboard: Enter sends, Escape stops a reply, every button is reachable with Tab.
 * Talks to the host only through the typed protocol. The conversation, the options (their defaults
 * are the host's) and the model list come with the host's `init`, answered to our `ready` (a long
 * conversation paints its end first: ./transcript.ts); until then nothing can be sent. The page's own
 * saved state (getState/setState) holds only what the host does not know: the unsent draft and its
 * images, written when they change, never while a reply streams.
 */
import type {
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
import { buildChatLayout, onListClick, readChatOptions, renderModelPicker, type ChatElements } from './chatLayout';
import { fillModels, groupOf, pickedOf } from './modelPicker';
import { Composer } from './composer';

export interface VsCodeApi {
  postMessage(msg: WebviewToHost): void;
  getState(): unknown;
  setState(state: unknown): void;
}

/** What the webview keeps in its own state: the unsent draft (the host's `init` brings the rest). */
export interface WebviewState {
  draft: string;
  /** images attached to the draft */
  attachments?: ImageAttachment[];
}

/** How long the draft rests before it is saved (typing writes once, not per key). */
const SAVE_DELAY_MS = 500;

export interface ChatAppOptions {
  /** schedules a render; default requestAnimationFrame (tests pass their own) */
  schedule?: (fn: () => void) => void;
  resourceOrigin?: string | undefined;
  /** every word the view shows, translated by the host (src/host/chat/chatWords.ts) */
  strings: ChatStrings;
}

export class ChatApp {
  private readonly doc: Document;
  private readonly transcript: Transcript;
  /** the host's state, from its `init` (undefined until then: nothing is sent before it) */
  private snapshot: ChatSnapshot | undefined;
  private models: ModelList = { groups: [], loading: false };
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

    this.ui = buildChatLayout(this.doc, root, typeof saved?.draft === 'string' ? saved.draft : '', s);
    this.transcript = new Transcript(
      { doc: this.doc, md, strings: s, streaming: () => this.snapshot?.streaming ?? true },
      this.ui.list,
      schedule,
      () => win.performance.now(),
    );
    this.composer = new Composer(
      win,
      this.ui,
      s,
      {
        busy: () => !this.snapshot || this.snapshot.busy,
        hasContext: () => !!this.snapshot?.pendingContext,
        send: (text, images) => this.send(text, images),
        changed: () => this.save(),
      },
      Array.isArray(saved?.attachments) ? saved.attachments : [],
    );
    this.bindEvents();
    this.renderControls();
  }

  private bindEvents(): void {
    const d = this.doc;
    const { refresh, removeContext } = this.ui;
    this.ui.send.addEventListener('click', () => this.composer.submit());
    this.ui.stop.addEventListener('click', () => this.post({ type: 'stop' }));
    this.ui.regenerate.addEventListener('click', () => {
      const options = this.readOptions();
      if (options && !this.snapshot?.busy) this.post({ type: 'regenerate', options });
    });
    this.ui.newChat.addEventListener('click', () => this.post({ type: 'newChat' }));
    refresh.addEventListener('click', () => this.post({ type: 'refreshModels' }));
    removeContext.addEventListener('click', () => {
      if (!this.snapshot) return;
      this.snapshot.pendingContext = undefined;
      this.renderContext();
      this.post({ type: 'clearContext' });
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
      if (e.key === 'Escape' && this.snapshot?.busy) {
        e.preventDefault();
        this.post({ type: 'stop' });
      }
    });
    this.ui.surface.addEventListener('change', () => {
      if (!this.snapshot) return;
      const s = this.ui.surface.value as ChatSurface;
      // The model stays within its gateway's group: that gateway's default for the surface, else the same model.
      const now = pickedOf(this.ui.model);
      const home = groupOf(this.models, now.gateway);
      const choices = home ? modelsForSurface(home, s) : [];
      const model = home?.defaults[s] || (choices.includes(now.model) ? now.model : (choices[0] ?? ''));
      fillModels(this.doc, this.ui.model, this.models, s, { gateway: home?.gateway.id, model }, this.s);
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
    if (msg.type === 'init') {
      this.snapshot = msg.state;
      this.models = msg.models;
      this.renderAll();
      return;
    }
    const snap = this.snapshot;
    if (!snap) return; // the host answers `ready` with `init` first
    if (isEntryMessage(msg)) {
      this.transcript.handle(snap, msg);
      if (msg.type !== 'entryDelta' && msg.type !== 'entryReasoning') this.renderControls();
      return;
    }
    switch (msg.type) {
      case 'reset':
        this.snapshot = msg.state;
        this.renderAll();
        break;
      case 'models':
        this.models = msg.models;
        this.renderModels();
        break;
      case 'sendRefused':
        if (this.sentContext && !snap.pendingContext) snap.pendingContext = this.sentContext;
        this.sentContext = undefined;
        this.renderContext();
        this.composer.refused(msg.message);
        break;
      case 'busy':
        snap.busy = msg.busy;
        this.renderControls();
        break;
      case 'context':
        snap.pendingContext = msg.context;
        this.renderContext();
        break;
      case 'config':
        snap.streaming = msg.streaming;
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
  }

  /** Renders pending streamed text now (normally once per animation frame). */
  flush(): void {
    this.transcript.flush();
  }

  // ----- rendering -----------------------------------------------------------------------------

  private renderAll(): void {
    if (!this.snapshot) return;
    this.renderOptions(this.snapshot.options);
    this.renderContext();
    this.renderControls();
    this.transcript.renderAll(this.snapshot.entries);
  }

  private renderOptions(o: ChatOptions): void {
    this.ui.surface.value = o.surface;
    this.ui.system.value = o.system;
    this.ui.temperature.value = o.temperature === null ? '' : String(o.temperature);
    this.ui.maxTokens.value = String(o.maxTokens);
    this.renderModels();
  }

  private renderModels(): void {
    if (!this.snapshot) return;
    const { surface, model, gateway } = this.snapshot.options;
    const home = groupOf(this.models, gateway);
    const picked = { gateway: home?.gateway.id ?? gateway, model: model || (home?.defaults[surface] ?? '') };
    renderModelPicker(this.doc, this.ui, this.models, surface, picked, this.s);
  }

  private renderContext(): void {
    const c: SelectionContext | undefined = this.snapshot?.pendingContext;
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

  /** Before the host's `init`: Send shown (it waits), no notes, no empty-conversation text. */
  private renderControls(): void {
    const snap = this.snapshot;
    const busy = !!snap?.busy;
    // Keyboard users keep their place: a Stop (or Send) button that hides hands the focus on.
    const active = this.doc.activeElement;
    this.ui.send.hidden = busy;
    this.ui.stop.hidden = !busy;
    if (active === this.ui.stop && !busy) this.ui.input.focus();
    else if (active === this.ui.send && busy) this.ui.stop.focus();
    this.root.classList.toggle('busy', busy);
    this.ui.regenerate.disabled = busy || !snap?.entries.some((e) => e.role === 'user');
    this.ui.streamingOff.hidden = snap?.streaming ?? true;
    this.ui.empty.hidden = !snap || snap.entries.length > 0;
  }

  // ----- user actions --------------------------------------------------------------------------

  /** Called by the composer (never before `init`: it counts as busy until then). */
  private send(text: string, images: ImageAttachment[]): void {
    const snap = this.snapshot!;
    this.post({
      type: 'send',
      text,
      options: readChatOptions(this.ui, snap.options),
      ...(images.length ? { images } : {}),
    });
    this.sentContext = snap.pendingContext;
    snap.pendingContext = undefined;
    this.renderContext();
    this.transcript.followEnd();
    this.save();
  }

  /** The options as the form shows them (the host's until `init` arrived: the form is empty before). */
  private readOptions(): ChatOptions | undefined {
    return this.snapshot && readChatOptions(this.ui, this.snapshot.options);
  }

  private optionsChanged(): void {
    const options = this.readOptions();
    if (!this.snapshot || !options) return;
    this.snapshot.options = options;
    this.ui.temperature.value = options.temperature === null ? '' : String(options.temperature);
    this.ui.maxTokens.value = String(options.maxTokens);
    this.post({ type: 'setOptions', options });
  }

  private post(msg: WebviewToHost): void {
    this.api.postMessage(msg);
  }

  /** Saves the draft and its images once they rest (the conversation is the host's: never saved here). */
  private save(): void {
    if (this.saveQueued) return;
    this.saveQueued = true;
    this.win.setTimeout(() => {
      this.saveQueued = false;
      const state: WebviewState = { draft: this.ui.input.value, attachments: [...this.composer.attachments] };
      this.api.setState(state);
    }, SAVE_DELAY_MS);
  }
}
