/**
 * Every user-facing string of the core (errors' cause and fix, diagnose, the CLI) goes through `t`:
 * `t('The gateway answered {0}.', status)` — the English text is the key, `{0}`… are the arguments.
 * The translations live in `l10n/zh-cn/*.json`, merged at build time into `l10n/bundle.l10n.zh-cn.json`
 * (VS Code's bundle format). The extension hands `vscode.l10n.bundle` to `useTranslations` before any
 * text is made; relay-doctor loads the bundle when `LANG`/`LC_ALL` asks for Chinese (`src/cli/locale.ts`).
 *
 * Call `t` when the text is needed, never at module load (a constant would keep the language the
 * process started with). `test/lint/l10n.test.ts` fails when a key has no translation, a translation
 * has no key, the placeholders differ, or `t` is called with anything but a string literal.
 */
import * as l10n from '@vscode/l10n';

export type Translations = Record<string, string | { message: string; comment: string[] }>;

/** Translates a message (English key, `{0}` / `{name}` placeholders). */
export const t: typeof l10n.t = l10n.t;

let active = false;

/** Loads a bundle (undefined or empty: English). */
export function useTranslations(contents: Translations | undefined): void {
  l10n.config({ contents: contents ?? {} });
  active = !!contents && Object.keys(contents).length > 0;
}

/** Whether a translation bundle is in use (English otherwise). */
export function translating(): boolean {
  return active;
}
