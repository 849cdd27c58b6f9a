/** Each check's title in the current language (read when shown, never kept from module load). */
import { t } from '../l10n';
import { toolLabel } from '../tools/tools';
import { TOOL_IDS, type ToolId } from '../tools/types';
import type { CheckId } from './types';

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
    ...toolTitles(),
    'wrong-place': t('Wrong place (HTML instead of API)'),
    proxy: t('Proxy'),
    'background-tasks': t("VS Code's background tasks"),
  };
}

/** The terminal tools' rows: "Claude Code setup", "Codex CLI setup", … */
function toolTitles(): Record<`tool-${ToolId}`, string> {
  return Object.fromEntries(TOOL_IDS.map((id) => [`tool-${id}`, t('{0} setup', toolLabel(id))])) as Record<
    `tool-${ToolId}`,
    string
  >;
}

/** One check's title. */
export function checkTitle(id: CheckId): string {
  return checkTitles()[id];
}
