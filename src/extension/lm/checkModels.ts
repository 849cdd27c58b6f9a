/**
 * "Model Relay: Check Gateway Models in VS Code Chat": asks VS Code's language model API for the
 * models this extension provides and sends one short prompt through it, proving the path the
 * built-in chat uses (vscode.lm → our provider → the core → the gateway). While VS Code's own chat
 * still needs enabling (no Copilot sign-in: its first prompt would ask for one), the answer offers
 * Chat: Manage Language Models, which enables it with these models.
 */
import * as vscode from 'vscode';
import { VENDOR } from './chatProvider';
import { offerManageLanguageModels, type ChatSetupWatch } from './chatSetup';

export async function checkLanguageModels(
  chatSetup: ChatSetupWatch,
  preset?: { model?: string },
): Promise<string | undefined> {
  if (typeof (vscode as { lm?: { selectChatModels?: unknown } }).lm?.selectChatModels !== 'function') {
    void vscode.window.showWarningMessage(
      vscode.l10n.t('Model Relay: VS Code {0} has no language model API.', vscode.version),
    );
    return undefined;
  }
  const models = await vscode.lm.selectChatModels({ vendor: VENDOR });
  if (!models.length) {
    void vscode.window.showWarningMessage(
      vscode.l10n.t(
        "Model Relay: VS Code's chat sees no gateway models yet: set the base URL and a token, then try again.",
      ),
    );
    return undefined;
  }
  const id =
    preset?.model ??
    (
      await vscode.window.showQuickPick(
        models.map((m) => ({ label: m.id, description: m.family === m.id ? undefined : m.family })),
        { title: vscode.l10n.t("Model Relay: {0} gateway models in VS Code's chat — pick one to test", models.length) },
      )
    )?.label;
  const model = models.find((m) => m.id === id);
  if (!model) return undefined;
  const cts = new vscode.CancellationTokenSource();
  try {
    const res = await model.sendRequest(
      [vscode.LanguageModelChatMessage.User('Reply with a short greeting.')],
      {},
      cts.token,
    );
    let text = '';
    for await (const part of res.text) text += part;
    const answered = vscode.l10n.t(
      'Model Relay: {0} answered through VS Code\'s language model API: "{1}"',
      model.id,
      text.slice(0, 200),
    );
    if (await chatSetup.update())
      void offerManageLanguageModels(
        vscode.l10n.t(
          "Model Relay: {0} answered through VS Code's language model API: \"{1}\". VS Code's own chat is not set up yet and would ask for a Copilot sign-in: Manage Language Models enables it once with your gateway's models.",
          model.id,
          text.slice(0, 200),
        ),
      );
    else void vscode.window.showInformationMessage(answered);
    return text;
  } catch (e) {
    void vscode.window.showErrorMessage(
      vscode.l10n.t(
        "Model Relay: {0} failed through VS Code's language model API: {1}",
        model.id,
        e instanceof Error ? e.message : String(e),
      ),
    );
    return undefined;
  } finally {
    cts.dispose();
  }
}
