/**
 * A repository's commit style, read from its recent commit messages (the glue reads the last ten with
 * the Git extension's `repo.log`): Conventional Commits prefixes and scopes, gitmoji, the language,
 * capitalisation, a closing period, the subject's usual length and whether messages carry a body —
 * each by a majority of the messages, merges, reverts and fixups aside. The model gets the style in
 * words and a few subjects as examples. Plain Node, no `vscode`.
 */

export interface CommitStyle {
  /** `type(scope)!: description` */
  conventional: boolean;
  /** conventional subjects with a `(scope)` */
  scoped: boolean;
  /** the types seen, most frequent first (conventional only) */
  types: string[];
  /** an emoji or a `:code:` first */
  gitmoji: boolean;
  /** the language the subjects are written in */
  language: 'English' | 'Chinese' | 'Japanese' | 'Korean' | 'Russian';
  /** the description's first letter upper case (Latin scripts) */
  capitalized: boolean;
  trailingPeriod: boolean;
  /** the subject's length to stay under, characters */
  maxLength: number;
  /** the messages carry a body after the subject */
  withBody: boolean;
  /** recent subjects to show the model, newest first */
  examples: string[];
  /** how many messages the style was read from (0: git's usual conventions) */
  basis: number;
}

const CONVENTIONAL = /^([a-z]+)(\([^)]*\))?!?: \S/i;
const GITMOJI = /^(:[a-z0-9_+-]+:|\p{Extended_Pictographic})/u;
const SKIP = /^(Merge (branch|pull request|remote-tracking branch|tag)\b|Revert "|fixup! |squash! |amend! )/;
const EXAMPLES = 5;

const majority = (n: number, of: number) => of > 0 && n * 2 >= of;
const count = <T>(xs: readonly T[], f: (x: T) => boolean) => xs.filter(f).length;

/** The part after a conventional or gitmoji prefix, for capitalisation. */
function description(subject: string): string {
  return subject
    .replace(CONVENTIONAL, (m) => m.slice(-1))
    .replace(GITMOJI, '')
    .trim();
}

function languageOf(subjects: readonly string[]): CommitStyle['language'] {
  const by = (re: RegExp) => count(subjects, (s) => re.test(s));
  const candidates: Array<[CommitStyle['language'], number]> = [
    ['Japanese', by(/[\p{Script=Hiragana}\p{Script=Katakana}]/u)],
    ['Chinese', by(/\p{Script=Han}/u) - by(/[\p{Script=Hiragana}\p{Script=Katakana}]/u)],
    ['Korean', by(/\p{Script=Hangul}/u)],
    ['Russian', by(/\p{Script=Cyrillic}/u)],
  ];
  return candidates.find(([, n]) => majority(n, subjects.length))?.[0] ?? 'English';
}

/** The usual conventions when a repository has no history to read. */
const GIT_DEFAULT: CommitStyle = {
  conventional: false,
  scoped: false,
  types: [],
  gitmoji: false,
  language: 'English',
  capitalized: true,
  trailingPeriod: false,
  maxLength: 50,
  withBody: false,
  examples: [],
  basis: 0,
};

/** The style of `messages` (full commit messages, newest first). */
export function detectStyle(messages: readonly string[]): CommitStyle {
  const read = messages.map((m) => m.replace(/\r/g, '').trim()).filter((m) => m && !SKIP.test(m));
  if (!read.length) return GIT_DEFAULT;
  const subjects = read.map((m) => m.split('\n')[0].trim());
  const conv = subjects.map((s) => CONVENTIONAL.exec(s)).filter((m): m is RegExpExecArray => !!m);
  const types = new Map<string, number>();
  for (const m of conv) types.set(m[1].toLowerCase(), (types.get(m[1].toLowerCase()) ?? 0) + 1);
  const latin = subjects.map(description).filter((d) => /^[A-Za-z]/.test(d));
  const lengths = subjects.map((s) => [...s].length).sort((a, b) => a - b);
  const p90 = lengths[Math.min(lengths.length - 1, Math.floor(lengths.length * 0.9))];
  return {
    conventional: majority(conv.length, subjects.length),
    scoped: majority(
      count(conv, (m) => !!m[2]),
      conv.length,
    ),
    types: [...types.entries()].sort((a, b) => b[1] - a[1]).map(([t]) => t),
    gitmoji: majority(
      count(subjects, (s) => GITMOJI.test(s)),
      subjects.length,
    ),
    language: languageOf(subjects),
    capitalized: latin.length
      ? majority(
          count(latin, (d) => /^[A-Z]/.test(d)),
          latin.length,
        )
      : true,
    trailingPeriod: majority(
      count(subjects, (s) => /[.。]$/.test(s)),
      subjects.length,
    ),
    maxLength: Math.min(100, Math.max(50, p90)),
    withBody: majority(
      count(read, (m) => /\n\s*\n\s*\S/.test(m)),
      read.length,
    ),
    examples: subjects.slice(0, EXAMPLES),
    basis: read.length,
  };
}

/** The style in words for the model: one line of rules. */
export function styleRules(s: CommitStyle): string {
  const rules: string[] = [];
  if (s.conventional)
    rules.push(
      s.scoped
        ? `Conventional Commits: "type(scope): description"${s.types.length ? ` (types used here: ${s.types.slice(0, 6).join(', ')})` : ''}`
        : `Conventional Commits: "type: description"${s.types.length ? ` (types used here: ${s.types.slice(0, 6).join(', ')})` : ''}`,
    );
  if (s.gitmoji) rules.push('start with a gitmoji as the examples do');
  rules.push(`write in ${s.language}`);
  if (s.language === 'English' || s.language === 'Russian')
    rules.push(s.capitalized ? 'start the description with a capital letter' : 'start the description in lower case');
  rules.push(s.trailingPeriod ? 'end the subject with a period' : 'no period at the end of the subject');
  if (s.language === 'English') rules.push('imperative mood');
  rules.push(`subject at most ${s.maxLength} characters`);
  rules.push(
    s.withBody
      ? 'then a blank line and a short body (a few lines wrapped at 72 characters) saying why'
      : 'one line only, no body',
  );
  return `${rules.join('; ')}.`;
}
