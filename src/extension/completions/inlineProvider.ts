/**
 * The InlineCompletionItemProvider (issue 25): a thin adapter from VS Code's call to the engine
 * (src/host/completions/engine.ts, which decides when to ask, aborts, caches, caps and pauses). It
 * answers only where suggestions are on for the document's language and the workspace is trusted,
 * builds the engine's DocumentSnapshot (without copying a file over the size limit), hands VS Code's
 * cancellation token on as it is, and turns the engine's Suggestion into an item on the cursor's
 * line (src/host/completions/inlineItem.ts) whose command tells the engine it was accepted. It never
 * shows an error: the engine's state (the status bar) says what went wrong.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { lineItem } from '../../host/completions/inlineItem';
import type {
  DocumentSnapshot,
  EngineState,
  HourStats,
  ProvideContext,
  Suggestion,
} from '../../host/completions/types';

/** What the provider and the status bar need of the engine (src/host/completions/engine.ts). */
export interface Engine {
  provide(
    doc: DocumentSnapshot,
    offset: number,
    ctx: ProvideContext,
    token: vscode.CancellationToken,
  ): Promise<Suggestion | undefined>;
  shown(s: Suggestion): void;
  accepted(s: Suggestion): void;
  state(): EngineState;
  stats(): HourStats;
  reset(): void;
}

/** Run by VS Code when a suggestion is accepted (not contributed: only items carry it). */
export const ACCEPTED_COMMAND = 'modelRelay.completions.accepted';

/** The schemes that get suggestions: files on disk (local or remote) and new untitled files. */
export const COMPLETION_SELECTOR: vscode.DocumentSelector = [
  { scheme: 'file' },
  { scheme: 'vscode-remote' },
  { scheme: 'untitled' },
];

/** What the snapshot reads: the size limit, and the characters each side of the cursor (context.ts `windowChars`). */
export interface SnapshotLimits {
  maxFileSize: number;
  windowChars: number;
}

/**
 * The document as the engine sees it at `offset`: a file longer than `maxFileSize` characters is not
 * read; one longer than the window both sides of the cursor gives only that window (VS Code's
 * `getText()` joins every line: on each keystroke of a 1 MB file, a 1 MB string, ~1.5 ms with its byte count).
 */
export function snapshotOf(doc: vscode.TextDocument, offset: number, limits: SnapshotLimits): DocumentSnapshot {
  const folder = vscode.workspace.getWorkspaceFolder(doc.uri);
  // relative to its folder (never an absolute path outside it); untitled or outside: its name only
  const relativePath = folder
    ? path.posix.relative(folder.uri.path, doc.uri.path)
    : path.posix.basename(doc.uri.path) || doc.fileName;
  const base = {
    id: doc.uri.toString(),
    relativePath,
    languageId: doc.languageId,
    version: doc.version,
    // checked by the engine before it returns: nothing computed for older text
    currentVersion: () => doc.version,
  };
  const chars = doc.offsetAt(doc.lineAt(doc.lineCount - 1).range.end);
  if (chars > limits.maxFileSize) return { ...base, text: '', size: chars };
  const w = Math.max(1, limits.windowChars);
  if (chars <= 2 * w) return { ...base, text: doc.getText(), size: chars };
  const start = Math.max(0, offset - w);
  const end = Math.min(chars, offset + w);
  const text = doc.getText(new vscode.Range(doc.positionAt(start), doc.positionAt(end)));
  // never half a surrogate pair at the window's edges (the context would hold a broken character)
  const head = start > 0 && isSurrogate(text.charCodeAt(0), 0xdc00) ? 1 : 0;
  const tail = end < chars && isSurrogate(text.charCodeAt(text.length - 1), 0xd800) ? 1 : 0;
  return { ...base, text: text.slice(head, text.length - tail), textStart: start + head, size: chars };
}

/** `c` is a low (0xdc00) or high (0xd800) surrogate. */
const isSurrogate = (c: number, first: number) => c >= first && c <= first + 0x3ff;

/** A range of offsets as characters on `line`, when it lies on it. */
function rangeOnLine(
  doc: vscode.TextDocument,
  line: number,
  r: { startOffset: number; endOffset: number },
): { startCharacter: number; endCharacter: number } | undefined {
  const start = doc.positionAt(r.startOffset);
  const end = doc.positionAt(r.endOffset);
  return start.line === line && end.line === line
    ? { startCharacter: start.character, endCharacter: end.character }
    : undefined;
}

export class RelayInlineCompletions implements vscode.InlineCompletionItemProvider {
  constructor(
    private readonly engine: Engine,
    /** on for this document (its language's setting) in a trusted workspace */
    private readonly allowed: (doc: vscode.TextDocument) => boolean,
    private readonly limits: () => SnapshotLimits,
    /** after each answer (the status bar's figures) */
    private readonly answered: () => void = () => undefined,
  ) {}

  async provideInlineCompletionItems(
    doc: vscode.TextDocument,
    position: vscode.Position,
    context: vscode.InlineCompletionContext,
    token: vscode.CancellationToken,
  ): Promise<vscode.InlineCompletionItem[] | undefined> {
    if (token.isCancellationRequested || !this.allowed(doc)) return undefined;
    try {
      const sel = context.selectedCompletionInfo;
      const onLine = !sel || (sel.range.start.line === position.line && sel.range.end.line === position.line);
      if (!onLine) return undefined;
      const ctx: ProvideContext = {
        trigger: context.triggerKind === vscode.InlineCompletionTriggerKind.Invoke ? 'invoke' : 'automatic',
        ...(sel
          ? {
              selected: {
                startOffset: doc.offsetAt(sel.range.start),
                endOffset: doc.offsetAt(sel.range.end),
                text: sel.text,
              },
            }
          : {}),
      };
      const offset = doc.offsetAt(position);
      const s = await this.engine.provide(snapshotOf(doc, offset, this.limits()), offset, ctx, token);
      // a reply for text that has changed since is never shown
      if (!s || token.isCancellationRequested || s.version !== doc.version) return undefined;
      // with the suggest widget's item selected, the engine's text replaces the widget's range
      const replaced = s.range && rangeOnLine(doc, position.line, s.range);
      if (s.range && !replaced) return undefined;
      const item = lineItem(doc.lineAt(position.line).text, position.character, s.insertText, replaced);
      if (!item) return undefined;
      this.engine.shown(s);
      return [
        new vscode.InlineCompletionItem(
          item.insertText,
          new vscode.Range(position.line, item.startCharacter, position.line, item.endCharacter),
          { command: ACCEPTED_COMMAND, title: vscode.l10n.t('Accept Inline Suggestion'), arguments: [s] },
        ),
      ];
    } catch {
      // never an error per keystroke: the engine pauses and the status bar tells why
      return undefined;
    } finally {
      this.answered();
    }
  }
}
