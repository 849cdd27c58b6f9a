/**
 * When no completion is asked for, before any wait or call, by the cursor's context (the document's
 * gates — `modelRelay.completions.exclude` through the shared ../pathExclusions.ts, size, trust — are
 * the engine's):
 * - the cursor's context, for automatic triggers only (an explicit request is the user's call):
 *   - `mid-word`: the character after the cursor is a word character (letter, digit, `_`, `$`): a
 *     word continues there, and an insertion would split it;
 *   - `blank`: the text the engine was given (the document, or for a large one the window around
 *     the cursor that holds every character the context could send) is only whitespace: there is
 *     nothing to continue, and `/v1/completions` gateways refuse an empty prompt;
 *   - `comment-only`: the cursor is in a line comment (its line, up to the cursor, starts with the
 *     language's line-comment marker) and every non-blank line from COMMENT_SCAN.above lines above to
 *     COMMENT_SCAN.below lines below is a comment too (a license header, a file of notes): the model
 *     would only continue prose, with no code to go on. A comment written above code still gets
 *     suggestions. Languages without a known marker never match.
 */
export type ContextSkip = 'mid-word' | 'blank' | 'comment-only';

export const COMMENT_SCAN = { above: 50, below: 20 } as const;

const WORD_CHAR = /^[\p{L}\p{N}_$]/u;

/** Line-comment markers, and whether `/* … *\/` block comments exist, by VS Code language id. */
const COMMENTS = new Map<string, { line: readonly string[]; block: boolean }>();
const set = (ids: string[], line: string[], block: boolean) => ids.forEach((id) => COMMENTS.set(id, { line, block }));
set(
  [
    'typescript',
    'typescriptreact',
    'javascript',
    'javascriptreact',
    'java',
    'c',
    'cpp',
    'csharp',
    'go',
    'rust',
    'swift',
    'kotlin',
    'scala',
    'dart',
    'jsonc',
    'objective-c',
    'objective-cpp',
    'groovy',
    'fsharp',
    'scss',
    'less',
  ],
  ['//'],
  true,
);
set(['php'], ['//', '#'], true);
set(['css'], [], true);
set(
  [
    'python',
    'shellscript',
    'ruby',
    'perl',
    'r',
    'yaml',
    'toml',
    'dockerfile',
    'makefile',
    'powershell',
    'elixir',
    'julia',
    'coffeescript',
    'properties',
  ],
  ['#'],
  false,
);
set(['sql', 'lua', 'haskell', 'elm'], ['--'], false);
set(['latex', 'tex', 'erlang', 'matlab'], ['%'], false);
set(['clojure', 'lisp', 'scheme'], [';'], false);
set(['vb'], ["'"], false);

/** The cursor's context rule that holds, or undefined when a completion may be asked for. */
export function contextSkip(text: string, offset: number, languageId: string): ContextSkip | undefined {
  if (WORD_CHAR.test(text.slice(offset, offset + 2))) return 'mid-word';
  if (!/\S/.test(text)) return 'blank';
  if (commentOnly(text, offset, languageId)) return 'comment-only';
  return undefined;
}

function isCommentLine(trimmed: string, c: { line: readonly string[]; block: boolean }): boolean {
  if (c.line.some((m) => trimmed.startsWith(m))) return true;
  // a block comment's opening line, or one of its inner lines (` * text`, ` */`), not a `*ptr` dereference
  return c.block && (trimmed.startsWith('/*') || /^\*(\s|\/|$)/.test(trimmed));
}

function commentOnly(text: string, offset: number, languageId: string): boolean {
  const c = COMMENTS.get(languageId);
  if (!c) return false;
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  if (!isCommentLine(text.slice(lineStart, offset).trimStart(), c)) return false;
  let from = lineStart;
  for (let i = 0; i < COMMENT_SCAN.above && from > 0; i++) from = text.lastIndexOf('\n', from - 2) + 1;
  let to = offset;
  for (let i = 0; i <= COMMENT_SCAN.below && to < text.length; i++) {
    const nl = text.indexOf('\n', to);
    to = nl < 0 ? text.length : nl + 1;
  }
  return text
    .slice(from, to)
    .split('\n')
    .every((line) => {
      const trimmed = line.trim();
      return !trimmed || isCommentLine(trimmed, c);
    });
}
