/**
 * Every id the extension contributes in package.json, in one place: commands, views, the
 * language-model vendor, the chat participant, the tools and the walkthrough. `test/host/contributes.test.ts`
 * compares these with package.json both ways, and `test/host/activation.test.ts` runs `activate`
 * and fails when a contributed id has no implementation registered. Where each is implemented:
 * src/extension/main.ts wires every feature (see src/host/README.md, "Adding a contribution").
 * Plain enums (not `const`), so tests can iterate them.
 */
export enum CommandId {
  ConfigureBaseUrl = 'modelRelay.configureBaseUrl',
  AddGateway = 'modelRelay.addGateway',
  SwitchGateway = 'modelRelay.switchGateway',
  RenameGateway = 'modelRelay.renameGateway',
  RemoveGateway = 'modelRelay.removeGateway',
  CopyGatewayLink = 'modelRelay.copyGatewayLink',
  SwitchToGateway = 'modelRelay.switchToGateway',
  UseGatewayToken = 'modelRelay.useGatewayToken',
  AddToken = 'modelRelay.addToken',
  SwitchToken = 'modelRelay.switchToken',
  RemoveToken = 'modelRelay.removeToken',
  ListModels = 'modelRelay.listModels',
  ShowLog = 'modelRelay.showLog',
  RefreshRequestLog = 'modelRelay.refreshRequestLog',
  ShowOutput = 'modelRelay.showOutput',
  CopySupportReport = 'modelRelay.copySupportReport',
  ShowActions = 'modelRelay.showActions',
  RefreshStatus = 'modelRelay.refreshStatus',
  CopyValue = 'modelRelay.copyValue',
  GenerateImage = 'modelRelay.generateImage',
  EditImage = 'modelRelay.editImage',
  GenerateVideo = 'modelRelay.generateVideo',
  VideoRefresh = 'modelRelay.video.refresh',
  VideoDownload = 'modelRelay.video.download',
  VideoOpen = 'modelRelay.video.open',
  VideoCopyId = 'modelRelay.video.copyId',
  VideoRemove = 'modelRelay.video.remove',
  SetupNativeCli = 'modelRelay.setupNativeCli',
  RemoveNativeCli = 'modelRelay.removeNativeCli',
  SetUpTools = 'modelRelay.setUpTools',
  OpenChat = 'modelRelay.openChat',
  NewChat = 'modelRelay.newChat',
  AskAboutSelection = 'modelRelay.askAboutSelection',
  ShowUsage = 'modelRelay.showUsage',
  Diagnose = 'modelRelay.diagnose',
  DiagnoseAllGateways = 'modelRelay.diagnoseAllGateways',
  CheckLanguageModels = 'modelRelay.checkLanguageModels',
  UseGatewayModelForBackgroundTasks = 'modelRelay.useGatewayModelForBackgroundTasks',
  GetStarted = 'modelRelay.getStarted',
  RecordHttpArchive = 'modelRelay.recordHttpArchive',
  StopHttpArchive = 'modelRelay.stopHttpArchive',
  ToggleInlineSuggestions = 'modelRelay.toggleInlineSuggestions',
  ChooseCompletionModel = 'modelRelay.chooseCompletionModel',
  ShowInlineSuggestionStatus = 'modelRelay.showInlineSuggestionStatus',
  GenerateCommitMessage = 'modelRelay.generateCommitMessage',
}

/** contributes.views: tree views and the chat's webview view */
export enum ViewId {
  Status = 'modelRelay.status',
  Chat = 'modelRelay.chat',
  VideoTasks = 'modelRelay.videoTasks',
}
export const STATUS_VIEW_ID = ViewId.Status;
export const CHAT_VIEW_ID = ViewId.Chat;
export const VIDEO_VIEW_ID = ViewId.VideoTasks;

/** contributes.languageModelTools */
export enum ToolName {
  GenerateImage = 'modelRelay_generateImage',
  ListModels = 'modelRelay_listModels',
  Diagnose = 'modelRelay_diagnose',
}

/** contributes.languageModelChatProviders[0].vendor */
export const LM_VENDOR = 'model-relay';
/** contributes.chatParticipants[0].id */
export const PARTICIPANT_ID = 'modelRelay.relay';
/** contributes.chatParticipants[0].name: `@relay` */
export const PARTICIPANT_NAME = 'relay';
/** contributes.walkthroughs[0].id (opened as `<publisher>.<name>#<id>`) */
export const WALKTHROUGH_ID = 'gettingStarted';
