/** Codex's row: its configuration as it resolves it, the override that wins, and its own request sent once (toolCheck.ts). */
import { toolCheck } from '../toolCheck';

export const codexCheck = toolCheck('codex', 'tool-codex');
