/** Shared bits of the image and video commands: output folders, model picking, prompts. */
import * as vscode from 'vscode';
import type { Capability } from '../../gateway';
import type { GatewayService } from '../gatewayService';

/** The folder results are saved to: a workspace-relative setting, else the extension's storage. */
export async function outputFolder(context: vscode.ExtensionContext, setting: 'images.outputFolder' | 'videos.outputFolder', fallback: string): Promise<vscode.Uri> {
  const rel = vscode.workspace.getConfiguration('modelRelay').get<string>(setting) || fallback;
  const ws = vscode.workspace.workspaceFolders?.[0];
  const dir = ws ? vscode.Uri.joinPath(ws.uri, rel) : vscode.Uri.joinPath(context.globalStorageUri, rel.replace(/^\.+\/?/, ''));
  await vscode.workspace.fs.createDirectory(dir);
  return dir;
}

/** The configured model for a capability, or a pick among the visible models that have it. */
export async function pickModel(service: GatewayService, cap: Capability, configured: string, title: string): Promise<string | undefined> {
  if (configured) return configured;
  let ids: string[] = [];
  try {
    const models = await service.refreshModels();
    ids = models.filter((m) => !m.capabilities || m.capabilities.includes(cap)).map((m) => m.id);
  } catch {
    /* fall through to typing the id */
  }
  if (ids.length) {
    return vscode.window.showQuickPick(ids, { title, placeHolder: `Pick a ${cap} model (set modelRelay.models.* to skip this)` });
  }
  return vscode.window.showInputBox({ title, prompt: `The ${cap} model id`, ignoreFocusOut: true });
}

/** The editor selection as a prompt, else an input box. */
export async function promptFromSelectionOrInput(title: string, placeHolder: string): Promise<string | undefined> {
  const editor = vscode.window.activeTextEditor;
  const selected = editor && !editor.selection.isEmpty ? editor.document.getText(editor.selection).trim() : '';
  if (selected) return selected;
  const typed = await vscode.window.showInputBox({ title, prompt: placeHolder, ignoreFocusOut: true, validateInput: (v) => (v.trim() ? undefined : 'The prompt is empty.') });
  return typed?.trim() || undefined;
}

/** An AbortSignal tied to a progress notification's Cancel button. */
export function signalFrom(token: vscode.CancellationToken): AbortSignal {
  const ac = new AbortController();
  if (token.isCancellationRequested) ac.abort();
  token.onCancellationRequested(() => ac.abort());
  return ac.signal;
}
