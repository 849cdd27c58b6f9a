/** Every command of the extension, in one place (package.json `contributes.commands` lists the same ids). */
export const enum CommandId {
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
  /** diagnose/diagnosePanel.ts */
  Diagnose = 'modelRelay.diagnose',
  /** chat/registerChat.ts */
  OpenChat = 'modelRelay.openChat',
  NewChat = 'modelRelay.newChat',
  AskAboutSelection = 'modelRelay.askAboutSelection',
}
