/**
 * Which files never leave the machine: `modelRelay.completions.exclude`, the one list of glob patterns
 * both inline suggestions and commit messages honour (issue 25: "Nothing secret goes out"). A pattern
 * without a `/` matches a file's name at any depth (as in .gitignore: `.env*`, `*.pem`); one with a
 * `/` matches the path from the workspace or repository root (`**` any folders, `*` within one name,
 * `?` one character, `{a,b}` either, `[…]` one of). Matching ignores case: excluding `.ENV` too is the
 * safe side. Plain Node, no `vscode`.
 */

/** The default list: key and certificate files, environment files, and anything under a `.git` folder. */
export const DEFAULT_EXCLUDE: readonly string[] = ['.env*', '*.pem', '*.key', 'id_rsa*', '**/.git/**'];

/** One glob as a regular expression over a `/`-separated relative path. */
export function globRegExp(glob: string): RegExp {
  const pattern = glob.trim().replace(/\\/g, '/').replace(/^\.\//, '');
  const anchored = pattern.includes('/') && !pattern.endsWith('/') ? pattern.replace(/^\//, '') : `**/${pattern}`;
  const body = anchored.endsWith('/') ? `${anchored}**` : anchored;
  let re = '';
  let braces = 0;
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c === '*' && body[i + 1] === '*') {
      const slashAfter = body[i + 2] === '/';
      re += slashAfter ? '(?:.*/)?' : '.*';
      i += slashAfter ? 2 : 1;
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else if (c === '{') {
      braces++;
      re += '(?:';
    } else if (c === '}' && braces > 0) {
      braces--;
      re += ')';
    } else if (c === ',' && braces > 0) re += '|';
    else if (c === '[') {
      const end = body.indexOf(']', i + 1);
      if (end > i + 1) {
        const inner = body
          .slice(i + 1, end)
          .replace(/^!/, '^')
          .replace(/\\/g, '\\\\');
        re += `[${inner}]`;
        i = end;
      } else re += '\\[';
    } else re += c.replace(/[.+^$()|\\\]]/g, '\\$&');
  }
  re += ')'.repeat(braces);
  // A folder pattern (`build/`, `**/.git/**`) also matches everything below it.
  return new RegExp(`^${re}(?:/.*)?$`, 'i');
}

/** Compiled once per list; `match(path)` names the pattern that excludes the path, if any. */
export class PathExclusions {
  private readonly compiled: Array<{ glob: string; re: RegExp }>;

  constructor(patterns: readonly string[]) {
    this.compiled = patterns.filter((p) => p.trim()).map((glob) => ({ glob, re: globRegExp(glob) }));
  }

  /** The first pattern that excludes `relativePath` (`/` or `\` separated, relative to the root), or undefined. */
  match(relativePath: string): string | undefined {
    const path = relativePath.replace(/\\/g, '/').replace(/^\.?\//, '');
    return this.compiled.find((c) => c.re.test(path))?.glob;
  }

  excludes(relativePath: string): boolean {
    return this.match(relativePath) !== undefined;
  }
}
