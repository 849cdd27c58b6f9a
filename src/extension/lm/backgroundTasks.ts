/**
 * "Model Relay: Use a Gateway Model for VS Code's Background Tasks": sets chat.utilityModel and
 * chat.utilitySmallModel (and chat.byokUtilityModelDefault = mainAgent where registered) to the
 * cheapest gateway chat model that answers, after showing what changes and asking; Restore puts the
 * old values back. Also the Diagnose finding's facts. The decisions and words are
 * src/host/lm/utilityModel.ts; this file reads and writes VS Code's settings and talks to vscode.lm.
 */
import * as vscode from 'vscode';
import type { HostFinding } from '../../gateway';
import { LM_VENDOR } from '../../host/commandIds';
import { lmTarget } from '../../host/lm/lmGateways';
import {
  BYOK_UTILITY_DEFAULT_KEY,
  UTILITY_MODEL_KEY,
  UTILITY_SMALL_MODEL_KEY,
  backgroundTasksFinding,
  confirmationDetail,
  confirmationMessage,
  firstAnswering,
  plannedChanges,
  rankByPrice,
  utilityValue,
  type SettingChange,
  type UtilityCandidate,
  type UtilitySettings,
} from '../../host/lm/utilityModel';
import type { GatewayService } from '../gateways/gatewayService';
import { editorSetting, editorSettingRegistered, userEditorSetting, writeEditorSetting } from '../gateways/settings';

/** How long the one-line test may take. */
const TEST_TIMEOUT_MS = 30_000;

/** The utility settings as VS Code has them now; chat.byokUtilityModelDefault only where registered. */
export function readUtilitySettings(): UtilitySettings {
  return {
    utilityModel: editorSetting(UTILITY_MODEL_KEY),
    utilitySmallModel: editorSetting(UTILITY_SMALL_MODEL_KEY),
    byokDefault: editorSettingRegistered(BYOK_UTILITY_DEFAULT_KEY)
      ? editorSetting(BYOK_UTILITY_DEFAULT_KEY)
      : undefined,
  };
}

/** The Diagnose finding about VS Code's background tasks (undefined where VS Code has no language model API). */
export async function backgroundTasksFindingNow(): Promise<HostFinding | undefined> {
  if (typeof (vscode as { lm?: { selectChatModels?: unknown } }).lm?.selectChatModels !== 'function') return undefined;
  const models = await vscode.lm.selectChatModels().then(
    (m) => m,
    () => [],
  );
  return backgroundTasksFinding({
    settings: readUtilitySettings(),
    vendor: LM_VENDOR,
    vendors: models.map((m) => m.vendor),
  });
}

/** A key as written, and what the user's settings held before (undefined: nothing, the default applied). */
interface Written {
  key: string;
  previous: unknown;
}

/** Writes the changes (user settings), each on its own: a key this VS Code does not have is skipped. Returns those written. */
async function apply(changes: readonly SettingChange[], log: vscode.LogOutputChannel): Promise<Written[]> {
  const done: Written[] = [];
  for (const c of changes)
    try {
      const previous = userEditorSetting(c.key);
      await writeEditorSetting(c.key, c.to);
      done.push({ key: c.key, previous });
    } catch (e) {
      log.warn(vscode.l10n.t('Could not set {0}: {1}', c.key, e instanceof Error ? e.message : String(e)));
    }
  return done;
}

/** Puts back what the user's settings held (newest first): a key that was not set is removed again. */
async function putBack(written: readonly Written[], log: vscode.LogOutputChannel): Promise<void> {
  for (const w of [...written].reverse())
    try {
      await writeEditorSetting(w.key, w.previous);
    } catch (e) {
      log.warn(vscode.l10n.t('Could not set {0}: {1}', w.key, e instanceof Error ? e.message : String(e)));
    }
}

/** One line through VS Code's language model API, exactly as VS Code resolves the setting's value. */
async function answers(c: UtilityCandidate): Promise<void> {
  const [model] = await vscode.lm.selectChatModels({ vendor: LM_VENDOR, id: c.id });
  if (!model) throw new Error(vscode.l10n.t("VS Code's chat does not list {0}.", c.id));
  const cts = new vscode.CancellationTokenSource();
  const timer = setTimeout(() => cts.cancel(), TEST_TIMEOUT_MS);
  try {
    const res = await model.sendRequest(
      [vscode.LanguageModelChatMessage.User('Reply with the single word OK.')],
      {},
      cts.token,
    );
    for await (const _ of res.text) void _;
  } finally {
    clearTimeout(timer);
    cts.dispose();
  }
}

/** Our chat models as candidates, with the published price of each where its gateway (the active one) publishes it. */
async function candidates(service: GatewayService): Promise<UtilityCandidate[]> {
  await service.refreshPricing().catch(() => undefined);
  const models = await vscode.lm.selectChatModels({ vendor: LM_VENDOR });
  const active = service.registry.activeId();
  return models.map((m) => {
    const route = lmTarget(m.id, (g) => !!service.gateways.get(g), active);
    return {
      id: m.id,
      model: route.model,
      price: route.gateway === active ? service.price(route.model).price : undefined,
    };
  });
}

async function confirm(message: string, detail: string, yes: string): Promise<boolean> {
  return (await vscode.window.showInformationMessage(message, { modal: true, detail }, yes)) === yes;
}

export async function useGatewayModelForBackgroundTasks(
  service: GatewayService,
  log: vscode.LogOutputChannel,
): Promise<string | undefined> {
  if (typeof (vscode as { lm?: { selectChatModels?: unknown } }).lm?.selectChatModels !== 'function') {
    void vscode.window.showWarningMessage(
      vscode.l10n.t('Model Relay: VS Code {0} has no language model API.', vscode.version),
    );
    return undefined;
  }
  const ranked = rankByPrice(await candidates(service));
  const first = ranked[0];
  if (!first) {
    void vscode.window.showWarningMessage(
      vscode.l10n.t(
        "Model Relay: VS Code's chat sees no gateway models yet: set the base URL and a token, then try again.",
      ),
    );
    return undefined;
  }
  const planFor = (c: UtilityCandidate) => plannedChanges(readUtilitySettings(), utilityValue(LM_VENDOR, c.id));
  if (!planFor(first).length) {
    void vscode.window.showInformationMessage(
      vscode.l10n.t("Model Relay: VS Code's background tasks already use {0}.", first.model),
    );
    return first.id;
  }
  const go = vscode.l10n.t('Test and Set');
  if (!(await confirm(confirmationMessage(first), confirmationDetail(planFor(first)), go))) return undefined;
  const { chosen, failed } = await firstAnswering(ranked, answers, (f, next) =>
    confirm(
      vscode.l10n.t('Model Relay: {0} did not answer ({1}). Use {2} instead?', f.candidate.model, f.reason, next.model),
      confirmationDetail(planFor(next)),
      go,
    ),
  );
  if (!chosen) {
    const last = failed.at(-1);
    if (last)
      void vscode.window.showErrorMessage(
        vscode.l10n.t(
          'Model Relay: no gateway chat model answered; nothing was changed. Last: {0} ({1}).',
          last.candidate.model,
          last.reason,
        ),
      );
    return undefined;
  }
  const applied = await apply(planFor(chosen), log);
  const restore = vscode.l10n.t('Restore');
  void vscode.window
    .showInformationMessage(
      vscode.l10n.t(
        "Model Relay: VS Code's background tasks (chat titles, summaries, commit messages) now use {0}.",
        chosen.model,
      ),
      restore,
    )
    .then(async (pick) => {
      if (pick !== restore) return;
      await putBack(applied, log);
      void vscode.window.showInformationMessage(
        vscode.l10n.t("Model Relay: VS Code's background-task settings are as they were."),
      );
    });
  return chosen.id;
}
