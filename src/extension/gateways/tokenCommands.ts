/**
 * Add / switch / remove tokens, of the active gateway (or the one handed in: Add Gateway's new one).
 * With several gateways the prompts name the gateway the token is for. Values go to SecretStorage
 * only and are only ever shown masked.
 */
import * as vscode from 'vscode';
import { maskToken, tokenShapeWarning, type GatewayProfile } from '../../gateway';
import type { TokenStore as GatewayTokenStore } from '../../host/gateways/tokenStore';
import type { TokenStore } from './tokenStore';

/** The gateway a token command acts on, taken once before it asks anything. */
export interface TokenTarget {
  gateway: GatewayProfile | undefined;
  store: GatewayTokenStore;
  /** name the gateway in the prompts (there are several) */
  named: boolean;
}

const targetOf = (tokens: TokenStore): TokenTarget => ({ ...tokens.current(), named: tokens.several() });

/** The name prompt's placeholder, naming the gateway when there are several. */
function namePlaceholder(t: TokenTarget): string {
  return t.named && t.gateway
    ? vscode.l10n.t('A name for this token for the gateway "{0}" (pick one or type your own)', t.gateway.name)
    : vscode.l10n.t('A name for this token (pick one or type your own)');
}

const SUGGESTED = ['production', 'test', 'local', 'native-cli'];

/** Add Token's first step: a suggested or stored name, or one typed; undefined when cancelled. */
async function askTokenName(target: TokenTarget): Promise<string | undefined> {
  const existing = target.store.names();
  const items: vscode.QuickPickItem[] = [
    ...SUGGESTED.map((n) => ({
      label: n,
      description: existing.includes(n) ? vscode.l10n.t('replace the stored value') : undefined,
    })),
    ...existing
      .filter((n) => !SUGGESTED.includes(n))
      .map((n) => ({ label: n, description: vscode.l10n.t('replace the stored value') })),
  ];
  const qp = vscode.window.createQuickPick();
  qp.title = vscode.l10n.t('Model Relay: Add Token (1/2) — name');
  qp.placeholder = namePlaceholder(target);
  qp.items = items;
  qp.ignoreFocusOut = true;
  const name = await new Promise<string | undefined>((resolve) => {
    qp.onDidChangeValue((v) => {
      const typed = v.trim();
      qp.items =
        typed && !items.some((i) => i.label === typed)
          ? [{ label: typed, description: vscode.l10n.t('new name') }, ...items]
          : items;
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
  return name;
}

export async function addToken(tokens: TokenStore, target: TokenTarget = targetOf(tokens)): Promise<void> {
  const store = target.store;
  const name = await askTokenName(target);
  if (!name) return;
  if (!/^[\w.-]{1,40}$/.test(name)) {
    void vscode.window.showErrorMessage(
      vscode.l10n.t('Model Relay: a token name uses letters, digits, "-", "_" or "." (up to 40 characters).'),
    );
    return;
  }
  let value = await vscode.window.showInputBox({
    title: vscode.l10n.t('Model Relay: Add Token (2/2) — value for "{0}"', name),
    prompt:
      target.named && target.gateway
        ? vscode.l10n.t(
            'Paste the token from the console of the gateway "{0}" (it starts with sk-). It is stored in VS Code\'s secret storage only, for this gateway.',
            target.gateway.name,
          )
        : vscode.l10n.t(
            "Paste the token from the gateway console (it starts with sk-). It is stored in VS Code's secret storage only.",
          ),
    password: true,
    ignoreFocusOut: true,
    validateInput: (v) => {
      const w = tokenShapeWarning(v);
      if (!v.trim()) return { message: w ?? '', severity: vscode.InputBoxValidationSeverity.Error };
      return w ? { message: w, severity: vscode.InputBoxValidationSeverity.Warning } : undefined;
    },
  });
  if (!value || !value.trim()) return;
  value = value.trim().replace(/^bearer\s+/i, '');
  const warning = tokenShapeWarning(value);
  if (warning) {
    const storeAnyway = vscode.l10n.t('Store anyway');
    const go = await vscode.window.showWarningMessage(
      vscode.l10n.t('Model Relay: {0}', warning),
      { modal: true, detail: vscode.l10n.t('Token {0}', maskToken(value)) },
      storeAnyway,
    );
    if (go !== storeAnyway) return;
  }
  await store.add(name, value, true);
  void vscode.window.showInformationMessage(
    target.named && target.gateway
      ? vscode.l10n.t(
          'Model Relay: token "{0}" ({1}) stored and active for the gateway "{2}".',
          name,
          maskToken(value),
          target.gateway.name,
        )
      : vscode.l10n.t('Model Relay: token "{0}" ({1}) stored and active.', name, maskToken(value)),
  );
}

export async function switchToken(tokens: TokenStore): Promise<void> {
  const target = targetOf(tokens);
  const list = await target.store.list();
  if (list.length === 0) {
    const add = await vscode.window.showInformationMessage(
      vscode.l10n.t('Model Relay: no token is stored yet.'),
      vscode.l10n.t('Add Token'),
    );
    if (add) await addToken(tokens, target);
    return;
  }
  const pick = await vscode.window.showQuickPick(
    list.map((t) => ({
      label: t.name,
      description: t.masked,
      detail: t.active ? vscode.l10n.t('active') : undefined,
      name: t.name,
    })),
    {
      title: vscode.l10n.t('Model Relay: Switch Token'),
      placeHolder:
        target.named && target.gateway
          ? vscode.l10n.t('Choose the token to use for the next requests to the gateway "{0}"', target.gateway.name)
          : vscode.l10n.t('Choose the token to use for the next requests'),
    },
  );
  if (!pick) return;
  await target.store.setActive(pick.name);
  void vscode.window.showInformationMessage(
    vscode.l10n.t('Model Relay: now using token "{0}" ({1}).', pick.name, pick.description),
  );
}

export async function removeToken(tokens: TokenStore): Promise<void> {
  const target = targetOf(tokens);
  const list = await target.store.list();
  if (list.length === 0) {
    void vscode.window.showInformationMessage(vscode.l10n.t('Model Relay: no token is stored.'));
    return;
  }
  const pick = await vscode.window.showQuickPick(
    list.map((t) => ({ label: t.name, description: t.masked, name: t.name })),
    {
      title: vscode.l10n.t('Model Relay: Remove Token'),
      placeHolder:
        target.named && target.gateway
          ? vscode.l10n.t('Choose the token of the gateway "{0}" to remove from secret storage', target.gateway.name)
          : vscode.l10n.t('Choose the token to remove from secret storage'),
    },
  );
  if (!pick) return;
  const remove = vscode.l10n.t('Remove');
  const ok = await vscode.window.showWarningMessage(
    vscode.l10n.t('Remove token "{0}" ({1}) from VS Code\'s secret storage?', pick.name, pick.description),
    { modal: true },
    remove,
  );
  if (ok !== remove) return;
  await target.store.remove(pick.name);
  void vscode.window.showInformationMessage(vscode.l10n.t('Model Relay: token "{0}" removed.', pick.name));
}
