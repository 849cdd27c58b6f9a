/**
 * How the extension's main part (../main.ts, loaded after activation) hands in its implementations:
 * one method per kind of contribution, each keyed by an id package.json contributes. The activation
 * entry registered a stand-in with VS Code for every contributed id (./hub.ts, generated from
 * package.json's `contributes`); a Registrar call gives that stand-in its implementation. An id that
 * is not contributed throws (nothing would ever show it); `unimplemented()` names the contributed ids
 * nothing implemented. Each call returns a Disposable: the caller puts it into `context.subscriptions`.
 */
import type * as vscode from 'vscode';
import type { CommandId, ToolName, ViewId } from '../../host/commandIds';

/** A command's implementation: it gets whatever arguments its caller (a menu, a link, a test) passes. */
export type CommandHandler = (...args: unknown[]) => unknown;

export interface Registrar {
  command(id: CommandId, fn: CommandHandler): vscode.Disposable;
  tree<T>(viewId: `${ViewId}`, provider: vscode.TreeDataProvider<T>): vscode.Disposable;
  webviewView(viewId: `${ViewId}`, provider: vscode.WebviewViewProvider): vscode.Disposable;
  languageModels(provider: vscode.LanguageModelChatProvider): vscode.Disposable;
  participant(handler: vscode.ChatRequestHandler): vscode.Disposable;
  tool<T>(name: `${ToolName}`, tool: vscode.LanguageModelTool<T>): vscode.Disposable;
  /** the contributed ids (`kind:id`) nothing implemented (kinds this VS Code lacks are not counted) */
  unimplemented(): string[];
}
