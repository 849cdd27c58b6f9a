/**
 * Inline suggestions in the window (issue 25): registers the provider (./inlineProvider.ts) while
 * suggestions are on for some language in a trusted workspace, hands the engine its settings (on
 * for the document being asked about, the active gateway's model, limits and exclusions) and
 * prices, and keeps the status bar item (off / on with its model / paused with its cause / capped,
 * the last hour in its tooltip; click → a small menu). The one notice: when the cap is reached.
 * Words: src/host/completions/statusText.ts.
 */
import * as vscode from 'vscode';
import { formatAmount } from '../../gateway';
import { CommandId } from '../../host/commandIds';
import { completionSettings, perTokenPrice } from '../../host/completions/completionSettings';
import { windowChars } from '../../host/completions/context';
import {
  completionDetails,
  completionMenu,
  completionStatusWords,
  noticeFor,
  type CompletionFacts,
} from '../../host/completions/statusText';
import type { CompletionSettings, EngineState, Suggestion } from '../../host/completions/types';
import { Disposable } from '../disposable';
import type { GatewayService } from '../gateways/gatewayService';
import { affectsCompletions, completionsEnabledAnywhere, completionsEnabledFor } from '../gateways/settings';
import { ACCEPTED_COMMAND, COMPLETION_SELECTOR, RelayInlineCompletions, type Engine } from './inlineProvider';

/** The status bar item's click (not contributed: the item carries it). */
const MENU_COMMAND = 'modelRelay.completions.menu';

export class CompletionsController extends Disposable {
  private registration: vscode.Disposable | undefined;
  private readonly item: vscode.StatusBarItem;
  /** on/off per language id, read once per settings change */
  private readonly enabledByLanguage = new Map<string, boolean>();
  /** the language of the document the engine is asked about now */
  private language: string | undefined;
  private lastState: EngineState = { kind: 'off' };
  private pricesRead = '';
  engine!: Engine;

  /** the gateway whose model and prices are in use (a switch resets the engine) */
  private gatewayId: string;

  constructor(private readonly service: GatewayService) {
    super();
    this.item = this._register(
      vscode.window.createStatusBarItem('modelRelay.completions', vscode.StatusBarAlignment.Right, 99),
    );
    this.item.name = vscode.l10n.t('Model Relay inline suggestions');
    this.item.command = { command: MENU_COMMAND, title: vscode.l10n.t('Model Relay inline suggestions') };
    this._register({ dispose: () => void this.registration?.dispose() });
    this.gatewayId = service.registry.activeId();
    // Settings, trust, token or gateway changed: what is in flight, cached or paused belongs to the old ones.
    this._register(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (!affectsCompletions(e)) return;
        this.enabledByLanguage.clear();
        this.changed();
      }),
    );
    this._register(vscode.workspace.onDidGrantWorkspaceTrust(() => this.changed()));
    // (another gateway made active, by a switch or by the settings, is a token change: one per switch)
    this._register(
      service.onDidChangeToken(() => {
        this.gatewayId = service.registry.activeId();
        this.changed();
      }),
    );
    // the completion model and prices (the cap counts in their unit); requests are the engine's own
    this._register(service.onDidChangeConfiguration(() => this.update()));
    this._register(service.onDidChangeModels(() => this.update()));
    this._register(vscode.window.onDidChangeActiveTextEditor(() => this.update()));
  }

  private changed(): void {
    if (!this.engine) return;
    this.engine.reset();
    this.lastState = this.engine.state();
    this.refresh();
  }

  /** Starts with `engine` (made with this controller's settings, prices and state callback). */
  start(engine: Engine): void {
    this.engine = engine;
    this._register(
      vscode.commands.registerCommand(ACCEPTED_COMMAND, (s: Suggestion) => {
        this.engine.accepted(s);
        this.update();
      }),
    );
    this._register(vscode.commands.registerCommand(MENU_COMMAND, () => this.menu()));
    this.refresh();
    this.item.show();
  }

  /** The engine's settings, for the document it is asked about now (its language's `enabled`). */
  settings(): CompletionSettings {
    const s = this.service.current;
    return completionSettings(s.completions, {
      enabled: this.enabledFor(this.language),
      model: s.models.completion,
      trusted: vscode.workspace.isTrusted,
    });
  }

  /** The model's price per token in the gateway's unit (undefined: not published, the token cap applies). */
  price(model: string): { input: number; output: number } | undefined {
    return perTokenPrice(this.service.price(model).price);
  }

  /** An amount in the unit of the model's published price ("$0.12"), as the cap's words say it. */
  formatCost(amount: number): string {
    const model = this.service.current.models.completion;
    const unit = model ? this.service.price(model).price?.unit : undefined;
    return unit ? formatAmount(amount, unit) : String(amount);
  }

  /** The engine's state changed: the status bar follows; reaching the cap tells once. */
  onState(state: EngineState): void {
    const notice = noticeFor(this.lastState, state);
    this.lastState = state;
    this.update();
    if (notice === 'cap' && state.kind === 'paused-cap') void this.capNotice(state.cause);
  }

  private enabledFor(languageId: string | undefined): boolean {
    if (!languageId) return completionsEnabledFor();
    let on = this.enabledByLanguage.get(languageId);
    if (on === undefined) {
      on = completionsEnabledFor({ languageId });
      this.enabledByLanguage.set(languageId, on);
    }
    return on;
  }

  private allowed(doc: vscode.TextDocument): boolean {
    this.language = doc.languageId;
    return vscode.workspace.isTrusted && this.enabledFor(doc.languageId);
  }

  /** Settings, trust or gateway changed: the provider is registered only while it may answer. */
  private refresh(): void {
    if (!this.engine) return;
    const wanted = vscode.workspace.isTrusted && completionsEnabledAnywhere();
    if (wanted && !this.registration) {
      const provider = new RelayInlineCompletions(
        this.engine,
        (doc) => this.allowed(doc),
        () => {
          const c = this.service.current.completions;
          return { maxFileSize: c.maxFileSize, windowChars: windowChars(c.contextTokens) };
        },
        () => this.update(),
      );
      this.registration = vscode.languages.registerInlineCompletionItemProvider(COMPLETION_SELECTOR, provider);
    } else if (!wanted && this.registration) {
      this.registration.dispose();
      this.registration = undefined;
    }
    const model = this.service.current.models.completion;
    // the prices of the gateway in use, read once per gateway while suggestions are on (the cap counts with them)
    if (wanted && model && this.pricesRead !== this.gatewayId) {
      this.pricesRead = this.gatewayId;
      void this.service.refreshPricing().catch(() => undefined);
    }
    this.update();
  }

  facts(): CompletionFacts {
    const doc = vscode.window.activeTextEditor?.document;
    const model = this.service.current.models.completion || undefined;
    return {
      state: this.engine.state(),
      stats: this.engine.stats(),
      model,
      unit: model ? this.service.price(model).price?.unit : undefined,
      trusted: vscode.workspace.isTrusted,
      enabledHere: doc ? this.enabledFor(doc.languageId) : completionsEnabledAnywhere(),
    };
  }

  update(): void {
    if (!this.engine) return;
    const words = completionStatusWords(this.facts());
    this.item.text = words.text;
    this.item.tooltip = new vscode.MarkdownString(words.tooltip.join('\n\n'), true);
    this.item.backgroundColor = words.look ? new vscode.ThemeColor(words.look) : undefined;
  }

  /** The status bar's click: toggle, resume when paused, choose the model, status. */
  async menu(): Promise<void> {
    const entries = completionMenu(this.facts());
    const pick = await vscode.window.showQuickPick(entries, {
      title: vscode.l10n.t('Model Relay inline suggestions'),
    });
    if (!pick) return;
    const command = {
      toggle: CommandId.ToggleInlineSuggestions,
      chooseModel: CommandId.ChooseCompletionModel,
      status: CommandId.ShowInlineSuggestionStatus,
    } as const;
    if (pick.action === 'resume') this.resume();
    else await vscode.commands.executeCommand(command[pick.action]);
  }

  resume(): void {
    this.engine.reset();
    this.lastState = this.engine.state();
    this.update();
  }

  /** Show Inline Suggestion Status: the state with its cause and fix, and the action that fixes it. */
  async showStatus(): Promise<void> {
    const f = this.facts();
    const d = completionDetails(f);
    const actions: Array<[string, () => unknown]> = [];
    if (f.state.kind === 'paused-error') actions.push([vscode.l10n.t('Resume'), () => this.resume()]);
    if (f.state.kind === 'paused-cap')
      actions.push([
        vscode.l10n.t('Open Settings'),
        () => vscode.commands.executeCommand('workbench.action.openSettings', 'modelRelay.completions'),
      ]);
    if (f.trusted && !f.enabledHere)
      actions.push([vscode.l10n.t('Turn On'), () => vscode.commands.executeCommand(CommandId.ToggleInlineSuggestions)]);
    if (f.trusted && !f.model)
      actions.push([
        vscode.l10n.t('Choose Completion Model'),
        () => vscode.commands.executeCommand(CommandId.ChooseCompletionModel),
      ]);
    actions.push([vscode.l10n.t('More…'), () => this.menu()]);
    const message = [d.summary, d.cause, d.fix ? vscode.l10n.t('Fix: {0}', d.fix) : undefined]
      .filter(Boolean)
      .join(' ');
    const choice = await vscode.window.showInformationMessage(message, ...actions.map(([label]) => label));
    await actions.find(([label]) => label === choice)?.[1]();
  }

  private async capNotice(cause: string): Promise<void> {
    const open = vscode.l10n.t('Open Settings');
    const status = vscode.l10n.t('Show Status');
    const choice = await vscode.window.showWarningMessage(
      vscode.l10n.t('Model Relay: inline suggestions are paused. {0}', cause),
      status,
      open,
    );
    if (choice === open)
      await vscode.commands.executeCommand('workbench.action.openSettings', 'modelRelay.completions.maxCostPerHour');
    else if (choice === status) await this.showStatus();
  }
}
