/**
 * The inline-completion engine's contract (issue 25) between the host logic (`engine.ts`: when to
 * ask, abort, cache, cap, pause) and the VS Code glue (`src/extension/completions/`: the
 * InlineCompletionItemProvider, the status bar, settings). Plain Node; time comes from a Clock so the
 * rules are tested on a fake clock.
 */
import type { CompletionClient } from '../../gateway/completions/types';

export interface Clock {
  now(): number;
  /** resolves after ms, or at once (rejecting with an AbortError) when the signal aborts */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** The part of a document the engine sees (the glue builds it from a TextDocument). */
export interface DocumentSnapshot {
  /** a stable id per editor/document (its URI string) */
  id: string;
  /** workspace-relative path used for exclusions and sent as the file name */
  relativePath: string;
  languageId: string;
  /** increases on every edit */
  version: number;
  /**
   * the document's text, or the part of it around the cursor (the glue reads a window wide enough
   * for the context budget, `windowChars` in context.ts, so a keystroke in a large file costs no copy of it)
   */
  text: string;
  /** the document offset where `text` starts (0 or absent: `text` starts the document) */
  textStart?: number;
  /** the document's length in characters (UTF-16 code units, as offsets count), for the size limit */
  size: number;
  /**
   * the document's version now (the glue passes `() => document.version`); when given, the engine
   * checks it before returning a suggestion, so one computed for older text is never returned
   */
  currentVersion?: () => number;
}

export interface CompletionSettings {
  enabled: boolean;
  model: string | undefined;
  /** tokens for prefix + suffix windows */
  contextTokens: number;
  maxTokens: number;
  /** glob patterns (workspace-relative) that never get suggestions */
  exclude: string[];
  /** characters; longer files get none */
  maxFileSize: number;
  /** in the gateway's display unit; undefined: no cap */
  maxCostPerHour: number | undefined;
  /** used where no price is known */
  maxTokensPerHour: number;
  /** the workspace is trusted */
  trusted: boolean;
}

export interface ProvideContext {
  trigger: 'automatic' | 'invoke';
  /** the suggest widget's selected item (the ghost text must extend it) */
  selected?: { startOffset: number; endOffset: number; text: string };
}

/** Cancellation as VS Code hands it (structural). */
export interface CancellationLike {
  readonly isCancellationRequested: boolean;
  onCancellationRequested(listener: () => void): { dispose(): void };
}

export interface Suggestion {
  /** text to insert at the cursor */
  insertText: string;
  /** the document offset it applies at */
  offset: number;
  /** the document version it was computed for */
  version: number;
  source: 'network' | 'cache' | 'typed-through';
  /**
   * set when the suggest widget's item was selected (`ProvideContext.selected`): `insertText` then
   * replaces this range (the selected item's text followed by the completion), as VS Code requires
   */
  range?: { startOffset: number; endOffset: number };
}

export type EngineState =
  /** reason: the setting is off, no model is chosen, or no gateway client (no base URL or token) */
  | { kind: 'off'; reason?: 'disabled' | 'no-model' | 'no-gateway' }
  | { kind: 'on' }
  | { kind: 'paused-error'; cause: string; fix: string }
  | { kind: 'paused-cap'; cause: string; fix: string }
  | { kind: 'excluded'; reason: string };

export interface HourStats {
  requests: number;
  aborted: number;
  cacheHits: number;
  shown: number;
  accepted: number;
  /** in the gateway's display unit, when prices are known */
  cost?: number;
  tokens: number;
}

export interface CompletionEngineDeps {
  client(): CompletionClient | undefined;
  clock: Clock;
  settings(): CompletionSettings;
  /** price of the model in the gateway's display unit per token (input, output); undefined when unknown */
  price(model: string): { input: number; output: number } | undefined;
  onState(state: EngineState): void;
  /** an amount in the gateway's display unit as the user reads it (e.g. `$0.12`); default: the bare number */
  formatCost?(amount: number): string;
}
