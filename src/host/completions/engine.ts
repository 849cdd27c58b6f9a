/**
 * The inline-completion engine (issue 25): when a suggestion is asked for, and when it is not. Every
 * suggestion from the network is a billed call, so each `provide` goes through, in order:
 * 1. the gates: disabled, no model, no gateway (state `off`); untrusted workspace, a path
 *    `modelRelay.completions.exclude` matches (../pathExclusions.ts, shared with commit messages),
 *    file over `maxFileSize` (state `excluded`);
 * 2. a newer keystroke supersedes: the document's request in flight (or waiting) is aborted at
 *    once — its socket closed through the client's signal — and its reply never returned; at most
 *    one request per document;
 * 3. typing through a shown suggestion: the rest of it, no call (source `typed-through`);
 * 4. the cursor's context (skipRules.ts: mid-word, blank, comment-only) for automatic triggers;
 * 5. the cache of recent answers by context (cache.ts), so backspace and retype cost nothing;
 * 6. the pauses (pauses.ts): the spending cap over the last hour, a failing gateway's back-off;
 * 7. one request with the context cut by the token budget (context.ts), prepared during the debounce
 *    adapted to typing speed (typingPace.ts; none for an explicit request) and sent at its end.
 * Of an answer cut short (max tokens) only its complete lines are shown, of a filtered one nothing
 * (shownInsertion.ts). A reply is returned only while it still belongs to the current text: not after its token was
 * cancelled or a newer provide came, and not when `doc.currentVersion()` moved on. Time comes from the
 * injected Clock, so every rule is tested on a fake clock (test/host/completionEngine*.test.ts).
 */
import { GatewayError } from '../../gateway';
import type { CompletionClient, CompletionResult } from '../../gateway/completions/types';
import { t } from '../../gateway/l10n';
import { estimateTokens } from '../../gateway/tokenEstimate';
import { CompletionCache, cacheKey, PREFIX_TAIL, SUFFIX_HEAD } from './cache';
import { contextWindows, type ContextWindows } from './context';
import { HourWindow, type HourDelta } from './hourWindow';
import { capState, ErrorPause } from './pauses';
import { PathExclusions } from '../pathExclusions';
import { shownInsertion } from './shownInsertion';
import { contextSkip } from './skipRules';
import { TypingPace, DOCS } from './typingPace';
import { between, viewOf, type View } from './view';
import type {
  CancellationLike,
  CompletionEngineDeps,
  CompletionSettings,
  DocumentSnapshot,
  EngineState,
  HourStats,
  ProvideContext,
  Suggestion,
} from './types';

/** characters kept around a shown suggestion to recognise typing through it */
const AROUND = 64;

/** One request (or its debounce) for a document; `sent`: released (counted), `settled`: its call ended. */
interface Pending {
  readonly controller: AbortController;
  sent: boolean;
  settled: boolean;
}

/** The debounce ended without the request going out (superseded, paused, or the call already over). */
class NotReleased extends Error {}

/** What the engine remembers of a suggestion it returned, until it is shown or dropped. */
interface Issued {
  docId: string;
  /** the cursor offset and the text around it when it was computed */
  offset: number;
  before: string;
  after: string;
  shown: boolean;
}

export class CompletionEngine {
  private readonly pace = new TypingPace();
  private readonly cache = new CompletionCache();
  private readonly hour = new HourWindow();
  /** `exclude` compiled, with the list it was compiled from */
  private excludes: { source: readonly string[]; paths: PathExclusions } | undefined;
  private readonly errors = new ErrorPause();
  private readonly inFlight = new Map<string, Pending>();
  private readonly issued = new WeakMap<Suggestion, Issued>();
  /** per document: the last suggestion shown there (bounded to DOCS documents) */
  private readonly lastShown = new Map<string, { s: Suggestion; at: Issued }>();
  private current: EngineState;

  constructor(private readonly deps: CompletionEngineDeps) {
    this.current = this.settingsState(deps.settings()) ?? this.baseline(deps.settings());
  }

  /** A suggestion for the cursor at `offset`, or undefined (no call made, superseded, paused, nothing). */
  async provide(
    doc: DocumentSnapshot,
    offset: number,
    ctx: ProvideContext,
    token: CancellationLike,
  ): Promise<Suggestion | undefined> {
    const now = this.deps.clock.now();
    this.pace.keystroke(doc.id, doc.version, now);
    this.inFlight.get(doc.id)?.controller.abort();
    const settings = this.deps.settings();
    if (!this.admit(doc, settings) || token.isCancellationRequested) return undefined;
    if (!ctx.selected) {
      const rest = this.typedThrough(doc, offset);
      if (rest) return rest;
    }
    const view = viewOf(doc, offset, ctx);
    if (ctx.trigger === 'automatic' && contextSkip(view.text, view.offset, doc.languageId)) return undefined;
    const key = cacheKey(
      doc.id,
      view.text.slice(Math.max(0, view.offset - PREFIX_TAIL), view.offset),
      view.text.slice(view.offset, view.offset + SUFFIX_HEAD),
    );
    const hit = this.cache.get(key);
    if (hit !== undefined) {
      this.count({ cacheHits: 1 });
      return this.suggestion(doc, offset, ctx, hit, 'cache');
    }
    if (this.paused(settings)) return undefined;
    return this.debounceAndAsk(doc, offset, ctx, token, { view, key, settings });
  }

  /** The glue showed `s` (the object `provide` returned). */
  shown(s: Suggestion): void {
    const at = this.issued.get(s);
    if (!at || at.shown) return;
    at.shown = true;
    this.count({ shown: 1 });
    this.lastShown.delete(at.docId);
    this.lastShown.set(at.docId, { s, at });
    if (this.lastShown.size > DOCS) this.lastShown.delete(this.lastShown.keys().next().value!);
  }

  /** The user accepted `s` (Tab). */
  accepted(s: Suggestion): void {
    const at = this.issued.get(s);
    this.count({ accepted: 1 });
    if (at) this.lastShown.delete(at.docId);
  }

  state(): EngineState {
    if (this.current.kind === 'paused-cap') this.setState(this.baseline(this.deps.settings()));
    return this.current;
  }

  /** The last hour: requests, aborts, cache hits, shown, accepted, tokens and cost. */
  stats(): HourStats {
    return this.hour.totals(this.deps.clock.now());
  }

  /** Settings, gateway or token changed: abort what is in flight, forget answers and pauses, state anew. */
  reset(): void {
    for (const p of this.inFlight.values()) p.controller.abort();
    this.inFlight.clear();
    this.cache.clear();
    this.lastShown.clear();
    this.errors.clear();
    const settings = this.deps.settings();
    this.setState(this.settingsState(settings) ?? this.baseline(settings));
  }

  /** Aborts every request in flight (the provider is going away). */
  dispose(): void {
    for (const p of this.inFlight.values()) p.controller.abort();
    this.inFlight.clear();
  }

  // -------------------------------------------------------------------------------------------
  // gates and state

  /** `off` for settings that allow no suggestion at all, else undefined. */
  private settingsState(settings: CompletionSettings): EngineState | undefined {
    if (!settings.enabled) return { kind: 'off', reason: 'disabled' };
    if (!settings.model) return { kind: 'off', reason: 'no-model' };
    if (!this.deps.client()) return { kind: 'off', reason: 'no-gateway' };
    return undefined;
  }

  /** Whether this document may get suggestions; sets the state either way. */
  private admit(doc: DocumentSnapshot, settings: CompletionSettings): boolean {
    const off = this.settingsState(settings);
    if (off) return (this.setState(off), false);
    const reason = !settings.trusted
      ? t('Inline suggestions are off in an untrusted workspace.')
      : this.exclusions(settings.exclude).excludes(doc.relativePath)
        ? t('{0} matches modelRelay.completions.exclude.', doc.relativePath)
        : doc.size > settings.maxFileSize
          ? t(
              'The file is longer than modelRelay.completions.maxFileSize ({0} characters).',
              String(settings.maxFileSize),
            )
          : undefined;
    if (reason) return (this.setState({ kind: 'excluded', reason }), false);
    this.setState(this.baseline(settings));
    return true;
  }

  /** The exclusion globs (the one matcher commit messages use too), compiled again only when the list changes. */
  private exclusions(patterns: readonly string[]): PathExclusions {
    const e = this.excludes;
    if (e && e.source.length === patterns.length && e.source.every((p, i) => p === patterns[i])) return e.paths;
    this.excludes = { source: [...patterns], paths: new PathExclusions(patterns) };
    return this.excludes.paths;
  }

  /** The state of an admitted document: the cap, a failing gateway's pause, or on. */
  private baseline(settings: CompletionSettings): EngineState {
    const model = settings.model;
    const priced = model !== undefined && this.deps.price(model) !== undefined;
    const format = (n: number) => this.deps.formatCost?.(n) ?? String(Math.round(n * 1e6) / 1e6);
    return (
      capState(this.hour.totals(this.deps.clock.now()), settings, priced, format) ?? this.errors.state ?? { kind: 'on' }
    );
  }

  /** No request may be sent now (the cap is reached or the gateway's back-off runs). */
  private paused(settings: CompletionSettings): boolean {
    const state = this.baseline(settings);
    this.setState(state);
    return state.kind === 'paused-cap' || this.errors.blocked(this.deps.clock.now());
  }

  /**
   * Reports a change. While the cap holds its first words stay (the hour's figures still move, e.g.
   * with replies in flight when it was reached): one notice per pause.
   */
  private setState(next: EngineState): void {
    const a = this.current as Partial<Record<string, unknown>>;
    const b = next as Partial<Record<string, unknown>>;
    if (a.kind === 'paused-cap' && b.kind === 'paused-cap') return;
    if (a.kind === b.kind && a.reason === b.reason && a.cause === b.cause && a.fix === b.fix) return;
    this.current = next;
    this.deps.onState(next);
  }

  private count(delta: HourDelta): void {
    this.hour.add(this.deps.clock.now(), delta);
  }

  // -------------------------------------------------------------------------------------------
  // answers without a call

  /** The rest of the suggestion shown here when the user typed its start since (same text around). */
  private typedThrough(doc: DocumentSnapshot, offset: number): Suggestion | undefined {
    const last = this.lastShown.get(doc.id);
    if (!last) return undefined;
    const { s, at } = last;
    const typed = offset - at.offset;
    if (
      typed <= 0 ||
      typed >= s.insertText.length ||
      s.range ||
      between(doc, at.offset - at.before.length, at.offset) !== at.before ||
      between(doc, at.offset, offset) !== s.insertText.slice(0, typed) ||
      between(doc, offset, offset + at.after.length) !== at.after
    )
      return undefined;
    const rest = s.insertText.slice(typed);
    this.cache.set(
      cacheKey(doc.id, between(doc, offset - PREFIX_TAIL, offset), between(doc, offset, offset + SUFFIX_HEAD)),
      rest,
    );
    return this.suggestion(doc, offset, { trigger: 'automatic' }, rest, 'typed-through');
  }

  /** A suggestion for the document as it is (remembered for shown()), or undefined for an empty answer. */
  private suggestion(
    doc: DocumentSnapshot,
    offset: number,
    ctx: ProvideContext,
    text: string,
    source: Suggestion['source'],
  ): Suggestion | undefined {
    if (!text.trim()) return undefined;
    const sel = ctx.selected;
    const s: Suggestion = sel
      ? {
          insertText: sel.text + text,
          offset,
          version: doc.version,
          source,
          range: { startOffset: sel.startOffset, endOffset: sel.endOffset },
        }
      : { insertText: text, offset, version: doc.version, source };
    this.issued.set(s, {
      docId: doc.id,
      offset,
      before: between(doc, offset - AROUND, offset),
      after: between(doc, offset, offset + AROUND),
      shown: false,
    });
    return s;
  }

  // -------------------------------------------------------------------------------------------
  // the call

  private async debounceAndAsk(
    doc: DocumentSnapshot,
    offset: number,
    ctx: ProvideContext,
    token: CancellationLike,
    req: { view: View; key: string; settings: CompletionSettings },
  ): Promise<Suggestion | undefined> {
    const client = this.deps.client();
    if (!client) return (this.setState({ kind: 'off', reason: 'no-gateway' }), undefined);
    const pending: Pending = { controller: new AbortController(), sent: false, settled: false };
    const signal = pending.controller.signal;
    this.inFlight.set(doc.id, pending);
    const sub = token.onCancellationRequested(() => pending.controller.abort());
    try {
      // The wait starts first: the request is prepared during the debounce (an explicit request has
      // none) and released at its end if still wanted; a connection (the last one may have closed
      // with its aborted request) opens meanwhile.
      const automatic = ctx.trigger === 'automatic';
      const wait = automatic ? this.deps.clock.sleep(this.pace.debounceMs(doc.id), signal) : Promise.resolve();
      const release = wait.then(() => this.mayRelease(pending, req.settings));
      release.catch(() => {}); // the client awaits it; when it failed before, nobody else does
      if (automatic) client.warm?.();
      const windows = contextWindows(req.view.text, req.view.offset, req.settings.contextTokens);
      const text = await this.send(client, doc, windows, req.settings, pending, release);
      if (text === undefined) return undefined;
      this.cache.set(req.key, text);
      if (signal.aborted || (doc.currentVersion && doc.currentVersion() !== doc.version)) return undefined;
      return this.suggestion(doc, offset, ctx, text, 'network');
    } catch (e) {
      if (signal.aborted) return undefined;
      throw e;
    } finally {
      sub.dispose();
      if (this.inFlight.get(doc.id) === pending) this.inFlight.delete(doc.id);
    }
  }

  /** At the debounce's end the request goes out (counted), unless superseded, paused meanwhile, or over. */
  private mayRelease(pending: Pending, settings: CompletionSettings): void {
    if (pending.controller.signal.aborted || pending.settled || this.paused(settings)) throw new NotReleased();
    pending.sent = true;
    this.count({ requests: 1 });
  }

  /** One request; the text of its answer to show ('' for none), or undefined when not sent, aborted or failed (then paused). */
  private async send(
    client: CompletionClient,
    doc: DocumentSnapshot,
    windows: ContextWindows,
    settings: CompletionSettings,
    pending: Pending,
    release: Promise<void>,
  ): Promise<string | undefined> {
    const model = settings.model!;
    let result: CompletionResult;
    try {
      result = await client.complete({
        model,
        prefix: windows.prefix,
        suffix: windows.suffix,
        languageId: doc.languageId,
        fileName: doc.relativePath,
        maxTokens: settings.maxTokens,
        signal: pending.controller.signal,
        sendAfter: release,
      });
    } catch (e) {
      if (!pending.sent && (e instanceof NotReleased || pending.controller.signal.aborted)) return undefined;
      if (pending.controller.signal.aborted || isAbort(e)) {
        // the gateway may already have forwarded it: its prompt counts towards the cap
        this.count({ aborted: 1, ...this.spend(model, windows.tokens, 0) });
        return undefined;
      }
      this.setState(this.errors.fail(e, this.deps.clock.now()));
      return undefined;
    } finally {
      pending.settled = true;
    }
    const usage = result.usage ?? { input: windows.tokens, output: estimateTokens(result.text) };
    this.count(this.spend(model, usage.input, usage.output));
    if (this.errors.state) {
      this.errors.clear();
      this.setState(this.baseline(settings));
    }
    // An answer cut short shows its complete lines only, a filtered one nothing (kept as such: not asked again here).
    return shownInsertion(result.text, result.finishReason) ?? '';
  }

  private spend(model: string, input: number, output: number): HourDelta {
    const price = this.deps.price(model);
    const tokens = input + output;
    return price ? { tokens, cost: input * price.input + output * price.output, priced: 1 } : { tokens };
  }
}

function isAbort(e: unknown): boolean {
  return (e instanceof GatewayError && e.kind === 'aborted') || (e instanceof Error && e.name === 'AbortError');
}
