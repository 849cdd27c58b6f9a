/**
 * The change a commit message describes, as the model gets it: `git diff` text parsed into files and
 * hunks; a file matching the secret exclusions (src/host/pathExclusions.ts) is named but its hunks
 * never leave the machine; lock files and generated files are summarised; the rest is cut to a token
 * budget so that every file keeps its header and its +/− count, small files stay whole, and a large
 * file loses its context lines first, then the tail of its hunks — each cut says what it left out.
 * Plain Node, no `vscode`.
 */
import { t } from '../../gateway/l10n';
import { estimateTokens } from '../lm/tokenEstimate';
import type { PathExclusions } from '../pathExclusions';

/** The diff's share of the request, in tokens (the rest of a small model's window holds the prompt and the reply). */
export const DEFAULT_DIFF_TOKENS = 6_000;

export interface Hunk {
  /** the `@@ -a,b +c,d @@ …` line */
  head: string;
  lines: string[];
}

export interface DiffFile {
  /** the path after the change (the old one for a deleted file) */
  path: string;
  /** a rename's or copy's source */
  oldPath?: string | undefined;
  /** `diff --git`, mode, rename and `---`/`+++` lines (the `index` line says nothing to a model and is dropped) */
  header: string[];
  hunks: Hunk[];
  binary: boolean;
  added: number;
  removed: number;
}

/** Lock files and generated output: a model learns nothing from their lines, only that they changed. */
const LOW_VALUE =
  /(^|\/)(package-lock\.json|npm-shrinkwrap\.json|yarn\.lock|pnpm-lock\.yaml|bun\.lockb?|Cargo\.lock|Gemfile\.lock|composer\.lock|poetry\.lock|uv\.lock|go\.sum|Pipfile\.lock|[^/]+\.min\.(js|css)|[^/]+\.map|[^/]+\.snap)$|(^|\/)(dist|build|out|vendor|node_modules)\//i;

/** A path as git quotes it (`"a/sp\303\251cial"`) back to text. */
function unquote(p: string): string {
  if (!p.startsWith('"')) return p;
  const bytes: number[] = [];
  const body = p.slice(1, p.endsWith('"') ? -1 : undefined);
  const escapes: Record<string, number> = { n: 10, t: 9, '"': 34, '\\': 92, a: 7, b: 8, f: 12, r: 13, v: 11 };
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c !== '\\') {
      bytes.push(...Buffer.from(c, 'utf8'));
      continue;
    }
    const oct = /^[0-7]{3}/.exec(body.slice(i + 1));
    if (oct) {
      bytes.push(parseInt(oct[0], 8));
      i += 3;
    } else {
      bytes.push(escapes[body[i + 1]] ?? body.charCodeAt(i + 1));
      i++;
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

const stripSide = (p: string) => unquote(p.trim()).replace(/^[ab]\//, '');

/** `diff --git a/x b/x` → x (the b side); quoted paths understood. */
function pathOfGitLine(line: string): string {
  const rest = line.slice('diff --git '.length);
  const quoted = /^(".*?(?<!\\)"|\S+) (".*"|\S+)$/.exec(rest);
  if (quoted) return stripSide(quoted[2]);
  const half = rest.indexOf(' b/');
  return half >= 0 ? rest.slice(half + 3) : rest;
}

/** Parses `git diff` output (any number of files; text before the first `diff --git` is ignored). */
export function parseDiff(text: string): DiffFile[] {
  const files: DiffFile[] = [];
  let file: DiffFile | undefined;
  let hunk: Hunk | undefined;
  for (const raw of text.split('\n')) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.startsWith('diff --git ')) {
      hunk = undefined;
      file = { path: pathOfGitLine(line), header: [line], hunks: [], binary: false, added: 0, removed: 0 };
      files.push(file);
      continue;
    }
    if (!file) continue;
    if (hunk && !line.startsWith('@@')) {
      if (line.startsWith('+')) file.added++;
      else if (line.startsWith('-')) file.removed++;
      else if (line === '' || line.startsWith('\\')) continue;
      hunk.lines.push(line);
      continue;
    }
    if (line.startsWith('@@')) {
      hunk = { head: line, lines: [] };
      file.hunks.push(hunk);
    } else if (line.startsWith('index ') || line === '') continue;
    else {
      if (line.startsWith('+++ ') && !line.endsWith('/dev/null')) file.path = stripSide(line.slice(4));
      if (line.startsWith('rename from ') || line.startsWith('copy from '))
        file.oldPath = unquote(line.split(' from ')[1]);
      if (line.startsWith('Binary files ') || line === 'GIT binary patch') file.binary = true;
      file.header.push(line);
    }
  }
  return files;
}

/** What was left out of the diff, for the user (a line in the progress) and the log. */
export interface DiffCut {
  /** every file in the diff */
  files: number;
  /** files whose contents were not sent because they match an exclusion: path and pattern */
  excluded: Array<{ path: string; pattern: string }>;
  /** lock and generated files, summarised */
  summarised: string[];
  /** files shown in part (their context or the tail of their hunks cut) */
  partial: string[];
  /** files beyond the budget: only counted */
  omitted: string[];
  /** the estimate of what is sent, tokens */
  tokens: number;
}

export interface BudgetedDiff {
  /** the diff as the model gets it */
  text: string;
  /** +/− lines over every file */
  added: number;
  removed: number;
  cut: DiffCut;
}

/** What one note of a cut ("… (12 more lines of this hunk not shown)") costs at most, tokens. */
const NOTE_TOKENS = 24;

const stat = (f: { added: number; removed: number }) => `+${f.added} −${f.removed}`;
const tokensOf = (lines: readonly string[]) => estimateTokens(lines.join('\n')) + lines.length;

/** A hunk with its context lines reduced to one beside each change, a run of skipped lines marked. */
function compact(h: Hunk): Hunk {
  const changed = (l: string | undefined) => l !== undefined && (l.startsWith('+') || l.startsWith('-'));
  const lines: string[] = [];
  let skipped = false;
  h.lines.forEach((l, i) => {
    if (changed(l) || changed(h.lines[i - 1]) || changed(h.lines[i + 1])) {
      lines.push(l);
      skipped = false;
    } else if (!skipped) {
      lines.push(' …');
      skipped = true;
    }
  });
  return { head: h.head, lines };
}

/** A file's hunks within `budget` tokens: whole, else compacted, else cut at a line with a note of what is left. */
function hunksWithin(f: DiffFile, budget: number): { lines: string[]; partial: boolean } {
  const whole = f.hunks.flatMap((h) => [h.head, ...h.lines]);
  if (tokensOf(whole) <= budget) return { lines: whole, partial: false };
  const hunks = f.hunks.map(compact);
  const out: string[] = [];
  let left = budget - 2 * NOTE_TOKENS;
  for (let i = 0; i < hunks.length; i++) {
    const h = hunks[i];
    const cost = tokensOf([h.head, ...h.lines]);
    if (cost <= left) {
      out.push(h.head, ...h.lines);
      left -= cost;
      continue;
    }
    let shown = 0;
    const head = tokensOf([h.head]);
    if (head < left) {
      out.push(h.head);
      left -= head;
      for (const l of h.lines) {
        const c = tokensOf([l]);
        if (c > left) break;
        out.push(l);
        left -= c;
        shown++;
      }
    }
    const rest = hunks.slice(i + 1);
    if (shown < h.lines.length) out.push(`… (${h.lines.length - shown} more lines of this hunk not shown)`);
    if (rest.length) out.push(`… (${rest.length} more hunks of this file not shown)`);
    break;
  }
  return { lines: out, partial: true };
}

interface Planned {
  file: DiffFile;
  head: string[];
  /** whether its hunks are sent (within its share) */
  body: boolean;
  cost: number;
}

/** Each file's header (and for an excluded or low-value file its note instead of its hunks). */
function plan(files: DiffFile[], exclusions: PathExclusions, cut: DiffCut): Planned[] {
  return files.map((file) => {
    const pattern = exclusions.match(file.path) ?? (file.oldPath ? exclusions.match(file.oldPath) : undefined);
    if (pattern) {
      cut.excluded.push({ path: file.path, pattern });
      const head = [file.header[0], `(contents not sent: the file matches the exclusion "${pattern}")`];
      return { file, head, body: false, cost: 0 };
    }
    const head = [...file.header, `(${stat(file)} lines)`];
    if (file.binary || !file.hunks.length) return { file, head, body: false, cost: 0 };
    if (LOW_VALUE.test(file.path)) {
      cut.summarised.push(file.path);
      return { file, head: [...head, '(a lock or generated file: its lines are not shown)'], body: false, cost: 0 };
    }
    return { file, head, body: true, cost: tokensOf(file.hunks.flatMap((h) => [h.head, ...h.lines])) };
  });
}

/**
 * The diff within `budget` tokens. Headers first (every file is named with its +/− count while they
 * fit; the files after that are counted in one line), then the hunks shared out: files smaller than an
 * equal share are sent whole and leave their unused share to the larger ones.
 */
export function budgetDiff(text: string, exclusions: PathExclusions, budget = DEFAULT_DIFF_TOKENS): BudgetedDiff {
  const files = parseDiff(text);
  const cut: DiffCut = { files: files.length, excluded: [], summarised: [], partial: [], omitted: [], tokens: 0 };
  const planned = plan(files, exclusions, cut);
  let left = budget - NOTE_TOKENS;
  const named: Planned[] = [];
  for (const p of planned) {
    const c = tokensOf(p.head);
    if (c > left) {
      cut.omitted.push(p.file.path);
      continue;
    }
    named.push(p);
    left -= c;
  }
  const shares = new Map<Planned, number>();
  const open = named.filter((p) => p.body).sort((a, b) => a.cost - b.cost);
  open.forEach((p, i) => {
    const share = Math.floor(left / (open.length - i));
    const given = Math.min(p.cost, share);
    shares.set(p, given);
    left -= given;
  });
  const out: string[] = [];
  for (const p of named) {
    out.push(...p.head);
    if (!p.body) continue;
    const { lines, partial } = hunksWithin(p.file, shares.get(p) ?? 0);
    if (partial) cut.partial.push(p.file.path);
    out.push(...lines);
  }
  if (cut.omitted.length) {
    const rest = files.filter((f) => cut.omitted.includes(f.path));
    const added = rest.reduce((n, f) => n + f.added, 0);
    const removed = rest.reduce((n, f) => n + f.removed, 0);
    out.push(`… (${rest.length} more files not shown: ${stat({ added, removed })} lines)`);
  }
  const all = out.join('\n');
  cut.tokens = tokensOf(out);
  return {
    text: all,
    added: files.reduce((n, f) => n + f.added, 0),
    removed: files.reduce((n, f) => n + f.removed, 0),
    cut,
  };
}

/** What was left out, in sentences for the progress line and the log; empty when the whole diff was sent. */
export function cutWords(cut: DiffCut): string[] {
  const words: string[] = [];
  if (cut.excluded.length)
    words.push(
      t('Not sent (they match modelRelay.completions.exclude): {0}.', cut.excluded.map((e) => e.path).join(', ')),
    );
  if (cut.partial.length || cut.omitted.length)
    words.push(
      t(
        'The diff was shortened to about {0} tokens: {1} of {2} files in part, {3} only counted.',
        cut.tokens,
        cut.partial.length,
        cut.files,
        cut.omitted.length,
      ),
    );
  return words;
}
