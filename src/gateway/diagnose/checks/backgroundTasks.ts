/**
 * The editor's chat background tasks (VS Code's utility-model settings): a finding the extension
 * works out and hands in (src/host/lm/utilityModel.ts), reported as it is. Not part of a diagnosis
 * without it (relay-doctor has no editor).
 */
import type { Check } from '../check';

export const backgroundTasksCheck: Check = {
  id: 'background-tasks',
  applies: (ctx) => !!ctx.input.backgroundTasks,
  run: (ctx) => ({ ...ctx.input.backgroundTasks! }),
};
