/**
 * Which files never leave the machine: `modelRelay.completions.exclude`, the one list of glob patterns
 * both inline suggestions and commit messages honour (issue 25: "Nothing secret goes out"). A pattern
 * without a `/` matches a file's name at any depth (as in .gitignore: `.env*`, `*.pem`); one with a
 * `/` matches the path from the workspace or repository root (`**` any folders, `*` within one name,
 * `?` one character, `{a,b}` either, `[…]` one of). Matching ignores case: excluding `.ENV` too is the
 * safe side. Plain Node, no `vscode`.
 */
import picomatch from 'picomatch';

/** The default list: key and certificate files, environment files, and anything under a `.git` folder. */
export const DEFAULT_EXCLUDE: readonly string[] = ['**/.env*', '**/*.pem', '**/*.key', '**/id_rsa*', '**/.git/**'];

/**
 * One pattern as a matcher over a `/`-separated relative path (picomatch, dot files included, case
 * ignored). A pattern without a `/` is a name at any depth; a folder pattern (`build/`, `**\/.git/**`,
 * or a bare name that is a folder) also matches everything below it.
 */
export function globMatcher(glob: string): (path: string) => boolean {
  const pattern = glob.trim().replace(/\\/g, '/').replace(/^\.\//, '');
  const anchored = pattern.includes('/') && !pattern.endsWith('/') ? pattern.replace(/^\//, '') : `**/${pattern}`;
  const body = anchored.endsWith('/') ? anchored.slice(0, -1) : anchored;
  return picomatch([body, `${body}/**`], { dot: true, nocase: true });
}

/** Compiled once per list; `match(path)` names the pattern that excludes the path, if any. */
export class PathExclusions {
  private readonly compiled: Array<{ glob: string; test: (path: string) => boolean }>;

  constructor(patterns: readonly string[]) {
    this.compiled = patterns.filter((p) => p.trim()).map((glob) => ({ glob, test: globMatcher(glob) }));
  }

  /** The first pattern that excludes `relativePath` (`/` or `\` separated, relative to the root), or undefined. */
  match(relativePath: string): string | undefined {
    const path = relativePath.replace(/\\/g, '/').replace(/^\.?\//, '');
    return this.compiled.find((c) => c.test(path))?.glob;
  }

  excludes(relativePath: string): boolean {
    return this.match(relativePath) !== undefined;
  }
}
