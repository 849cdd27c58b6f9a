/** GitHub Copilot CLI's row: its configuration as it resolves it, what wins over the setup, and its own request sent once (toolCheck.ts). */
import { toolCheck } from '../toolCheck';

export const copilotCliCheck = toolCheck('copilot-cli', 'tool-copilot-cli');
