/** Add / switch / remove tokens. Values go to SecretStorage only and are only ever shown masked. */
import * as vscode from 'vscode';
import { maskToken, tokenShapeWarning } from '../gateway';
import type { TokenStore } from './tokenStore';

const SUGGESTED = ['production', 'test', 'local', 'native-cli'];

export async function addToken(tokens: TokenStore): Promise<void> {
  const existing = tokens.names();
  const items: vscode.QuickPickItem[] = [
    ...SUGGESTED.map((n) => ({ label: n, description: existing.includes(n) ? 'replace the stored value' : undefined })),
    ...existing.filter((n) => !SUGGESTED.includes(n)).map((n) => ({ label: n, description: 'replace the stored value' })),
  ];
  const qp = vscode.window.createQuickPick();
  qp.title = 'Model Relay: Add Token (1/2) — name';
  qp.placeholder = 'A name for this token (pick one or type your own)';
  qp.items = items;
  qp.ignoreFocusOut = true;
  const name = await new Promise<string | undefined>((resolve) => {
    qp.onDidChangeValue((v) => {
      const typed = v.trim();
      qp.items = typed && !items.some((i) => i.label === typed) ? [{ label: typed, description: 'new name' }, ...items] : items;
    });
    qp.onDidAccept(() => {
      const n = (qp.selectedItems[0]?.label ?? qp.value).trim();
      resolve(n || undefined);
      qp.hide();
    });
    qp.onDidHide(() => resolve(undefined));
    qp.show();
  });
  qp.dispose();
  if (!name) return;
  if (!/^[\w.-]{1,40}$/.test(name)) {
    void vscode.window.showErrorMessage('Model Relay: a token name uses letters, digits, "-", "_" or "." (up to 40 characters).');
    return;
  }
  let value = await vscode.window.showInputBox({
    title: `Model Relay: Add Token (2/2) — value for "${name}"`,
    prompt: 'Paste the token from the gateway console (it starts with sk-). It is stored in VS Code\'s secret storage only.',
    password: true,
    ignoreFocusOut: true,
    validateInput: (v) => {
      const w = tokenShapeWarning(v);
      if (!v.trim()) return { message: 'The token is empty.', severity: vscode.InputBoxValidationSeverity.Error };
      return w ? { message: w, severity: vscode.InputBoxValidationSeverity.Warning } : undefined;
    },
  });
  if (!value || !value.trim()) return;
  value = value.trim().replace(/^bearer\s+/i, '');
  const warning = tokenShapeWarning(value);
  if (warning) {
    const go = await vscode.window.showWarningMessage(`Model Relay: ${warning}`, { modal: true, detail: `Token ${maskToken(value)}` }, 'Store anyway');
    if (go !== 'Store anyway') return;
  }
  await tokens.add(name, value, true);
  void vscode.window.showInformationMessage(`Model Relay: token "${name}" (${maskToken(value)}) stored and active.`);
}

export async function switchToken(tokens: TokenStore): Promise<void> {
  const list = await tokens.list();
  if (list.length === 0) {
    const add = await vscode.window.showInformationMessage('Model Relay: no token is stored yet.', 'Add Token');
    if (add) await addToken(tokens);
    return;
  }
  const pick = await vscode.window.showQuickPick(
    list.map((t) => ({ label: t.name, description: t.masked, detail: t.active ? 'active' : undefined, name: t.name })),
    { title: 'Model Relay: Switch Token', placeHolder: 'Choose the token to use for the next requests' },
  );
  if (!pick) return;
  await tokens.setActive(pick.name);
  void vscode.window.showInformationMessage(`Model Relay: now using token "${pick.name}" (${pick.description}).`);
}

export async function removeToken(tokens: TokenStore): Promise<void> {
  const list = await tokens.list();
  if (list.length === 0) {
    void vscode.window.showInformationMessage('Model Relay: no token is stored.');
    return;
  }
  const pick = await vscode.window.showQuickPick(
    list.map((t) => ({ label: t.name, description: t.masked, name: t.name })),
    { title: 'Model Relay: Remove Token', placeHolder: 'Choose the token to remove from secret storage' },
  );
  if (!pick) return;
  const ok = await vscode.window.showWarningMessage(`Remove token "${pick.name}" (${pick.description}) from VS Code's secret storage?`, { modal: true }, 'Remove');
  if (ok !== 'Remove') return;
  await tokens.remove(pick.name);
  void vscode.window.showInformationMessage(`Model Relay: token "${pick.name}" removed.`);
}
