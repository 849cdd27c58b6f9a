/**
 * relay-doctor's language: the POSIX locale variables (LC_ALL, then LC_MESSAGES, then LANG; an empty
 * one is skipped) decide. A value starting with `zh` (zh_CN.UTF-8, zh-CN, zh_SG, zh_Hans, and also
 * zh_TW / zh_HK: Simplified Chinese is the only Chinese there is) loads the Chinese bundle next to
 * the program (l10n/bundle.l10n.zh-cn.json); C, POSIX and anything else is English. A missing or
 * unreadable bundle means English, silently. Light on purpose: `--help` uses it before the core loads.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { useTranslations, type Translations } from '../gateway/l10n';

export type CliLanguage = 'en' | 'zh-cn';

/** The language the locale variables ask for. */
export function cliLanguage(env: Record<string, string | undefined>): CliLanguage {
  const value = [env.LC_ALL, env.LC_MESSAGES, env.LANG].find((v) => v !== undefined && v.trim() !== '');
  return value && /^zh([_.@-]|$)/i.test(value.trim()) ? 'zh-cn' : 'en';
}

/** The bundle beside dist/ (bundled) or at the repository root (compiled tests), or undefined. */
function readBundle(): Translations | undefined {
  for (const up of ['..', '../..', '../../..']) {
    try {
      const parsed: unknown = JSON.parse(readFileSync(join(__dirname, up, 'l10n', 'bundle.l10n.zh-cn.json'), 'utf8'));
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Translations;
      return undefined; // present but not a bundle: English
    } catch (e) {
      if ((e as { code?: string }).code !== 'ENOENT') return undefined; // unreadable or corrupt: English
    }
  }
  return undefined;
}

/** Switches every later `t()` to the locale's language (English when the bundle cannot be read). */
export function applyLocale(env: Record<string, string | undefined>): CliLanguage {
  const wanted = cliLanguage(env);
  const bundle = wanted === 'zh-cn' ? readBundle() : undefined;
  useTranslations(bundle);
  return bundle ? wanted : 'en';
}
