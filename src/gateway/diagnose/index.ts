export * from './types';
export { runDiagnosis } from './engine';
export { DEFAULT_DIAGNOSIS_TIMEOUTS } from '../defaults';
export { inspectCliTool, readCliSources, cliSettingsFiles, CLI_API_KEY_VARIABLE, type CliToolInput, type CliToolFinding, type CliSource, type CliSourceKind } from './cliToolSetup';
export { probeHost, describeProbe, type HostProbe, type HostOutcome } from './hostProbe';
export { renderMarkdown, renderTable, reportToJson, displayUrl, type RenderOptions, type TableOptions, type JsonCheck } from './report';
