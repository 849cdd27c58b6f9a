/** What the extension contributes and registers, by id: shared by the activation entry and the rest. */
export const STATUS_VIEW_ID = 'modelRelay.status';
export const VIDEO_VIEW_ID = 'modelRelay.videoTasks';
export const CHAT_VIEW_ID = 'modelRelay.chat';
/** contributes.walkthroughs[0].id (opened as `<publisher>.<name>#<id>`) */
export const WALKTHROUGH_ID = 'gettingStarted';
export const LM_VENDOR = 'model-relay';
export const PARTICIPANT_ID = 'modelRelay.relay';
export const TOOL_NAMES = ['modelRelay_generateImage', 'modelRelay_listModels', 'modelRelay_diagnose'] as const;
export type ToolName = (typeof TOOL_NAMES)[number];
