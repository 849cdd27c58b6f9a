/** Each check's title in the current language (read when shown, never kept from module load). */
import { t } from '../l10n';
import type { CheckId } from './types';

/** Every check id, in report order. */
export const CHECK_IDS: readonly CheckId[] = [
  'base-url',
  'reachability',
  'token',
  'visibility',
  'generate-chat',
  'generate-native',
  'generate-responses',
  'generate-image',
  'generate-image-edit',
  'generate-video',
  'arrival',
  'native-path',
  'stream-compatible',
  'stream-native',
  'stream-responses',
  'tool-claude-code',
  'tool-codex',
  'tool-gemini-cli',
  'tool-opencode',
  'tool-copilot-cli',
  'background-tasks',
  'wrong-place',
  'proxy',
];

/** Every check's title, by id. */
export function checkTitles(): Record<CheckId, string> {
  return {
    'base-url': t('Base URL shape'),
    reachability: t('Reachability'),
    token: t('Token'),
    visibility: t('Model visibility'),
    'generate-chat': t('Generation (compatible chat)'),
    'generate-native': t('Generation (native messages)'),
    'generate-responses': t('Generation (responses)'),
    'generate-image': t('Generation (image)'),
    'generate-image-edit': t('Generation (image edit)'),
    'generate-video': t('Generation (video task)'),
    arrival: t("Arrival (the gateway's usage log)"),
    'native-path': t('Native surface path'),
    'stream-compatible': t('Streaming (compatible)'),
    'stream-native': t('Streaming (native)'),
    'stream-responses': t('Streaming (responses)'),
    'tool-claude-code': t('Claude Code setup'),
    'tool-codex': t('Codex CLI setup'),
    'tool-gemini-cli': t('Gemini CLI setup'),
    'tool-opencode': t('opencode setup'),
    'tool-copilot-cli': t('GitHub Copilot CLI setup'),
    'wrong-place': t('Wrong place (HTML instead of API)'),
    proxy: t('Proxy'),
    'background-tasks': t("VS Code's background tasks"),
  };
}

/** One check's title. */
export function checkTitle(id: CheckId): string {
  return checkTitles()[id];
}
