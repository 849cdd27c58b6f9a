/** Terminal coding tools (issue 26): states, plans and safe writes of their configuration. */
export * from './types';
export { toolStatus, toolStatuses, planSetUp, planRemove, planFixOverride, toolLabel, toolCommand } from './tools';
export { applyEdits, addsSecret, configParseError, type ApplyOptions } from './apply';
export { MAX_DATED_BACKUPS } from './toolBackups';
export { resolveClaudeCode, claudeSettingsPaths, claudeConfigDir, CLAUDE_SETUP_VARIABLES } from './claudeCode';
export { resolveCodex, codexConfigPath, codexHome } from './codex';
export { resolveGeminiCli, geminiSettingsPaths, geminiEnvFileCandidates } from './geminiCli';
export { resolveOpencode, opencodeConfigPaths, opencodeTargetFile } from './opencode';
export { resolveCopilotCli, copilotHome, copilotProvidersPath } from './copilotCli';
export { PROVIDER_ID, tokenMatch } from './common';
export { nodeToolsEnvironment } from './toolsEnvironment';
export { whichOnPath } from './which';
