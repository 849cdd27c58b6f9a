/**
 * Where the extension's parts register: the activation entry (../extension.ts) registers every
 * command, view, language-model provider, participant and tool with VS Code at once, as light
 * delegates; the rest of the extension (../main.ts, loaded on first use) hands the real
 * implementations in through this interface. No `../../gateway` here: this is activation code.
 */
import type * as vscode from 'vscode';
import type { CommandId } from '../../host/commandIds';
import type { ToolName } from './ids';

export interface Registrar {
  readonly statusItem: vscode.StatusBarItem;
  command(id: CommandId, fn: (...args: any[]) => unknown): vscode.Disposable;
  tree<T>(viewId: string, provider: vscode.TreeDataProvider<T>): vscode.Disposable;
  webviewView(viewId: string, provider: vscode.WebviewViewProvider): vscode.Disposable;
  languageModels(provider: vscode.LanguageModelChatProvider): vscode.Disposable;
  participant(handler: vscode.ChatRequestHandler): vscode.Disposable;
  tool(name: ToolName, tool: vscode.LanguageModelTool<any>): vscode.Disposable;
}
