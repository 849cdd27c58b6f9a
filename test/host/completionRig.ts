/**
 * The inline-completion engine's test rig: the engine on a FakeClock with a FakeCompletionClient, and
 * an editor that types as VS Code asks — every edit bumps the version, cancels the previous request's
 * token and calls `provide` again.
 */
import { CompletionEngine } from '../../src/host/completions/engine';
import { DEFAULT_EXCLUDE } from '../../src/host/pathExclusions';
import type {
  CancellationLike,
  CompletionSettings,
  DocumentSnapshot,
  EngineState,
  ProvideContext,
  Suggestion,
} from '../../src/host/completions/types';
import { FakeClock, settle } from '../fakes/clock';
import { FakeCompletionClient } from '../fakes/completionClient';

export const SETTINGS: CompletionSettings = {
  enabled: true,
  model: 'deepseek-chat',
  contextTokens: 1000,
  maxTokens: 64,
  exclude: [...DEFAULT_EXCLUDE],
  maxFileSize: 1_000_000,
  maxCostPerHour: undefined,
  maxTokensPerHour: 0,
  trusted: true,
};

export function tokenSource(): { token: CancellationLike; cancel: () => void } {
  let cancelled = false;
  const listeners = new Set<() => void>();
  return {
    token: {
      get isCancellationRequested() {
        return cancelled;
      },
      onCancellationRequested(l: () => void) {
        listeners.add(l);
        return { dispose: () => void listeners.delete(l) };
      },
    },
    cancel() {
      cancelled = true;
      for (const l of [...listeners]) l();
    },
  };
}

export class Editor {
  version = 1;
  private cancelLast: (() => void) | undefined;
  /** the last provide's answer */
  last: Promise<Suggestion | undefined> = Promise.resolve(undefined);

  constructor(
    private readonly rig: Rig,
    public text: string,
    public offset = text.length,
    public id = 'file:///w/src/a.ts',
    public relativePath = 'src/a.ts',
    public languageId = 'typescript',
  ) {}

  /** set: each snapshot holds only this many characters each side of the cursor, as the glue gives a large file */
  window: number | undefined;

  snapshot(): DocumentSnapshot {
    const base = {
      id: this.id,
      relativePath: this.relativePath,
      languageId: this.languageId,
      version: this.version,
      size: this.text.length,
      currentVersion: () => this.version,
    };
    if (this.window === undefined) return { ...base, text: this.text };
    const start = Math.max(0, this.offset - this.window);
    return { ...base, text: this.text.slice(start, this.offset + this.window), textStart: start };
  }

  /** VS Code asking again (an edit already happened, or an explicit trigger). */
  ask(ctx: ProvideContext = { trigger: 'automatic' }): Promise<Suggestion | undefined> {
    this.cancelLast?.();
    const src = tokenSource();
    this.cancelLast = src.cancel;
    this.last = this.rig.engine.provide(this.snapshot(), this.offset, ctx, src.token);
    return this.last;
  }

  /** Cancels the last request's token, as VS Code does when the user moves on. */
  cancel(): void {
    this.cancelLast?.();
  }

  /** An edit without asking (the text moves on under a request). */
  edit(chars: string): void {
    this.text = this.text.slice(0, this.offset) + chars + this.text.slice(this.offset);
    this.offset += chars.length;
    this.version++;
  }

  type(chars: string): Promise<Suggestion | undefined> {
    this.edit(chars);
    return this.ask();
  }

  backspace(n = 1): Promise<Suggestion | undefined> {
    this.text = this.text.slice(0, this.offset - n) + this.text.slice(this.offset);
    this.offset -= n;
    this.version++;
    return this.ask();
  }

  /** Tab: the suggestion goes into the text. */
  accept(s: Suggestion): void {
    this.rig.engine.accepted(s);
    this.edit(s.insertText);
  }
}

export class Rig {
  readonly clock = new FakeClock();
  readonly client = new FakeCompletionClient(this.clock);
  settings: CompletionSettings;
  prices: Record<string, { input: number; output: number }> = {};
  hasClient = true;
  readonly states: EngineState[] = [];
  readonly engine: CompletionEngine;

  constructor(over: Partial<CompletionSettings> = {}) {
    this.settings = { ...SETTINGS, ...over };
    this.engine = new CompletionEngine({
      client: () => (this.hasClient ? this.client : undefined),
      clock: this.clock,
      settings: () => this.settings,
      price: (m) => this.prices[m],
      onState: (s) => this.states.push(s),
      formatCost: (n) => `$${n.toFixed(4)}`,
    });
  }

  editor(text = 'function total(items) {\n  return items.', offset?: number): Editor {
    return new Editor(this, text, offset);
  }

  /** Waits out the debounce and the request: what the last provide answered. */
  async settleAll(ed: Editor, ms = 1000): Promise<Suggestion | undefined> {
    await this.clock.advance(ms);
    await settle();
    return ed.last;
  }
}
