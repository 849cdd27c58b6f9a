/**
 * Inline suggestions' wiring (issue 25): the engine (src/host/completions/engine.ts) over the active
 * gateway's completion client (GatewayClient.completions: FIM or a short chat per model, with
 * `modelRelay.models.overrides`), the controller (provider, status bar, settings;
 * ./completionsController.ts), and the three commands — Toggle Inline Suggestions, Choose Completion
 * Model (the token's models with their prices, fill-in-the-middle ones first), Show Inline Suggestion
 * Status.
 */
import * as vscode from 'vscode';
import type { CompletionClient, CompletionMode, GatewayClient, ModelInfo } from '../../gateway';
import { CommandId } from '../../host/commandIds';
import { withCompletionModel } from '../../host/completions/completionSettings';
import { CompletionEngine } from '../../host/completions/engine';
import { systemClock } from '../../host/completions/clock';
import { completionModelEntries } from '../../host/completions/modelPick';
import { showGatewayError } from '../errorPresenter';
import type { GatewayService } from '../gateways/gatewayService';
import type { TokenStore } from '../gateways/tokenStore';
import {
  completionsEnabledFor,
  rawGateways,
  writeCompletionsEnabled,
  writeDefaultCompletionModel,
  writeGateways,
} from '../gateways/settings';
import type { Registrar } from '../lazy/registrar';
import { CompletionsController } from './completionsController';

type Completions = CompletionClient & { modeOf(model: string): CompletionMode };

export function registerCompletions(
  context: vscode.ExtensionContext,
  hub: Registrar,
  service: GatewayService,
  tokens: TokenStore,
): CompletionsController {
  // one completion client per gateway client (each gateway keeps its own memory of FIM refusals)
  const clients = new WeakMap<GatewayClient, Completions>();
  const completionsOf = (c: GatewayClient): Completions => {
    let made = clients.get(c);
    if (!made) clients.set(c, (made = c.completions(() => service.current.modelOverrides)));
    return made;
  };
  const controller = new CompletionsController(service);
  context.subscriptions.push(controller);
  const engine = new CompletionEngine({
    // no gateway or no token: nothing to ask (the engine's state is off)
    client: () => (service.client.endpoints().base && tokens.activeName() ? completionsOf(service.client) : undefined),
    clock: systemClock,
    settings: () => controller.settings(),
    price: (model) => controller.price(model),
    onState: (state) => controller.onState(state),
    formatCost: (amount) => controller.formatCost(amount),
  });
  context.subscriptions.push({ dispose: () => engine.dispose() });
  controller.start(engine);
  context.subscriptions.push(
    hub.command(CommandId.ToggleInlineSuggestions, () => toggle(controller)),
    hub.command(CommandId.ChooseCompletionModel, () =>
      chooseModel(service, (model) => completionsOf(service.client).modeOf(model)),
    ),
    hub.command(CommandId.ShowInlineSuggestionStatus, () => controller.showStatus()),
  );
  return controller;
}

/** On or off for the active editor's language (where its value comes from: see writeCompletionsEnabled). */
async function toggle(controller: CompletionsController): Promise<void> {
  const doc = vscode.window.activeTextEditor?.document;
  const on = !completionsEnabledFor(doc);
  await writeCompletionsEnabled(on, doc?.languageId);
  if (!on) return;
  const f = controller.facts();
  if (!f.trusted)
    void vscode.window.showInformationMessage(
      vscode.l10n.t('Model Relay: inline suggestions are on, but not in this workspace until you trust it.'),
    );
  else if (!f.model) {
    const choose = vscode.l10n.t('Choose Completion Model');
    const pick = await vscode.window.showInformationMessage(
      vscode.l10n.t('Model Relay: inline suggestions are on. Choose the model they use.'),
      choose,
    );
    if (pick === choose) await vscode.commands.executeCommand(CommandId.ChooseCompletionModel);
  }
}

/** The token's models that can write text, FIM ones first, with their prices; the pick is the active gateway's. */
async function chooseModel(service: GatewayService, mode: (model: string) => CompletionMode): Promise<void> {
  let models: ModelInfo[];
  try {
    models = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Window, title: vscode.l10n.t('Model Relay: listing models…') },
      () => service.refreshModels(),
    );
  } catch (e) {
    await showGatewayError(vscode.l10n.t('Listing models'), e);
    return;
  }
  const current = service.current.models.completion || undefined;
  const entries = completionModelEntries(models, { mode, price: (id) => service.price(id).text, current });
  if (!entries.length) {
    void vscode.window.showWarningMessage(
      vscode.l10n.t("Model Relay: this token's group sees no model that writes text."),
    );
    return;
  }
  type Item = vscode.QuickPickItem & { id?: string };
  const items: Item[] = [];
  for (const [m, title] of [
    ['fim', vscode.l10n.t('Fill-in-the-middle models (/v1/completions)')],
    ['chat', vscode.l10n.t('Chat models (a short chat request)')],
  ] as const) {
    const group = entries.filter((e) => e.mode === m);
    if (!group.length) continue;
    items.push({ label: title, kind: vscode.QuickPickItemKind.Separator });
    items.push(...group.map((e): Item => ({ label: e.label, description: e.description, id: e.id })));
  }
  const gateway = service.gateway;
  const pick = await vscode.window.showQuickPick(items, {
    title: vscode.l10n.t('Model Relay: completion model for {0}', gateway?.name ?? vscode.l10n.t('this gateway')),
    placeHolder: vscode.l10n.t('Each suggestion shown is a billed call: pick a fast, cheap model.'),
    matchOnDescription: true,
  });
  if (!pick?.id) return;
  const list = gateway ? withCompletionModel(rawGateways(), gateway.id, pick.id) : undefined;
  if (list) await writeGateways(list);
  else await writeDefaultCompletionModel(pick.id);
  if (!completionsEnabledFor(vscode.window.activeTextEditor?.document)) {
    const turnOn = vscode.l10n.t('Turn On');
    const choice = await vscode.window.showInformationMessage(
      vscode.l10n.t('Model Relay: inline suggestions will use {0}. They are off: turn them on?', pick.id),
      turnOn,
    );
    if (choice === turnOn) await vscode.commands.executeCommand(CommandId.ToggleInlineSuggestions);
  }
}
