/**
 * Every command of the extension, in one place: package.json `contributes.commands` lists exactly
 * these ids (a test compares both ways), and each is registered once, by the module named beside it.
 * A plain enum (not `const`), so the test can iterate it.
 */
export enum CommandId {
  /** configureBaseUrl.ts */
  ConfigureBaseUrl = 'modelRelay.configureBaseUrl',
  /** tokenCommands.ts */
  AddToken = 'modelRelay.addToken',
  SwitchToken = 'modelRelay.switchToken',
  RemoveToken = 'modelRelay.removeToken',
  /** listModels.ts */
  ListModels = 'modelRelay.listModels',
  /** extension.ts */
  ShowLog = 'modelRelay.showLog',
  ShowActions = 'modelRelay.showActions',
  RefreshStatus = 'modelRelay.refreshStatus',
  CopyValue = 'modelRelay.copyValue',
  /** media/imageCommands.ts */
  GenerateImage = 'modelRelay.generateImage',
  EditImage = 'modelRelay.editImage',
  /** media/videoTasks.ts */
  GenerateVideo = 'modelRelay.generateVideo',
  VideoRefresh = 'modelRelay.video.refresh',
  VideoDownload = 'modelRelay.video.download',
  VideoOpen = 'modelRelay.video.open',
  VideoCopyId = 'modelRelay.video.copyId',
  VideoRemove = 'modelRelay.video.remove',
  /** lm/nativeCli.ts */
  SetupNativeCli = 'modelRelay.setupNativeCli',
  RemoveNativeCli = 'modelRelay.removeNativeCli',
  /** chat/registerChat.ts */
  OpenChat = 'modelRelay.openChat',
  NewChat = 'modelRelay.newChat',
  AskAboutSelection = 'modelRelay.askAboutSelection',
  /** diagnose/diagnosePanel.ts */
  Diagnose = 'modelRelay.diagnose',
  /** lm/chatProvider.ts */
  CheckLanguageModels = 'modelRelay.checkLanguageModels',
  /** extension.ts (opens the walkthrough; no core needed) */
  GetStarted = 'modelRelay.getStarted',
}
