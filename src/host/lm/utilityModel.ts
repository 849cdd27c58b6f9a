/**
 * "Use a Gateway Model for VS Code's Background Tasks": VS Code's chat runs titles, summaries, commit
 * messages and other background flows on a utility model (`chat.utilityModel`,
 * `chat.utilitySmallModel`); with only extension models and no Copilot sign-in they fail ("No utility
 * model is configured", 1.128) or spend Copilot's quota (shared/reference/vscode-chat-settings.md §2).
 * This file decides what to set and says it: the cheapest gateway chat model by published price
 * (`rankByPrice`), the first of those that answers a one-line test (`firstAnswering`), the settings'
 * changes old → new (`plannedChanges`; the glue's Restore puts back the user's own values), and the Diagnose finding
 * (`backgroundTasksFinding`). The value format is `<vendor>/<id>` (Copilot splits it at the first `/`
 * and resolves it with `vscode.lm.selectChatModels({vendor, id})`). Plain Node, no `vscode`: the glue
 * is src/extension/lm/backgroundTasks.ts.
 */
import type { ModelPrice } from '../../gateway/economy/pricing';
import { priceText } from '../../gateway/economy/pricing';
import type { HostFinding } from '../../gateway/diagnose/types';
import { t } from '../../gateway/l10n';

export const UTILITY_MODEL_KEY = 'chat.utilityModel';
export const UTILITY_SMALL_MODEL_KEY = 'chat.utilitySmallModel';
/** Since 1.128: what utility flows use when the main model is BYOK and the two keys are empty. */
export const BYOK_UTILITY_DEFAULT_KEY = 'chat.byokUtilityModelDefault';
/** The value that makes utility flows use the main agent's (our) model when no explicit model is set. */
export const BYOK_MAIN_AGENT = 'mainAgent';

/** The utility settings as VS Code has them now (the effective values; `byokDefault` undefined: not registered). */
export interface UtilitySettings {
  utilityModel: string;
  utilitySmallModel: string;
  /** chat.byokUtilityModelDefault, or undefined where this VS Code does not register it (before 1.128) */
  byokDefault: string | undefined;
}

/** One setting to write: `from` as it is now, `to` what it becomes (empty: unset). */
export interface SettingChange {
  key: string;
  from: string;
  to: string;
}

/** A gateway chat model that could do the background tasks. */
export interface UtilityCandidate {
  /** the id VS Code knows (LanguageModelChatInformation.id, `<gateway id>/<model id>`) */
  id: string;
  /** the gateway's model id */
  model: string;
  /** its published price, where the gateway publishes one */
  price?: ModelPrice | undefined;
}

/** A background task's typical request: a few thousand tokens of context in, a line or two out. */
const TYPICAL_INPUT_TOKENS = 2_000;
const TYPICAL_OUTPUT_TOKENS = 100;
/** Names of the small, cheap tiers: used to order models without a published price. */
const SMALL_TIER = /(mini|nano|flash|haiku|lite|small|tiny|air|turbo|instant)/i;

/** The setting value naming our model: `<vendor>/<id>`. */
export function utilityValue(vendor: string, id: string): string {
  return `${vendor}/${id}`;
}

/** What a typical background request costs on this model, in the price's unit; undefined when unknown. */
export function typicalCost(p: ModelPrice | undefined): number | undefined {
  if (!p || p.dynamic) return undefined;
  if (p.perCall !== undefined) return p.perCall;
  if (p.input === undefined || p.output === undefined) return undefined;
  return (TYPICAL_INPUT_TOKENS * p.input + TYPICAL_OUTPUT_TOKENS * p.output) / 1e6;
}

/**
 * The candidates, cheapest first: those with a published price by what a typical background request
 * costs; then those without one (tiered or unpublished), small tiers by name first; otherwise in the
 * order given.
 */
export function rankByPrice<C extends UtilityCandidate>(candidates: readonly C[]): C[] {
  const keyed = candidates.map((c, i) => ({ c, i, cost: typicalCost(c.price), small: SMALL_TIER.test(c.model) }));
  keyed.sort((a, b) => {
    if (a.cost !== undefined && b.cost !== undefined) return a.cost - b.cost || a.i - b.i;
    if (a.cost !== undefined) return -1;
    if (b.cost !== undefined) return 1;
    if (a.small !== b.small) return a.small ? -1 : 1;
    return a.i - b.i;
  });
  return keyed.map((k) => k.c);
}

/** Whether the ranking rests on published prices (else it is by name, and the confirmation says so). */
export function rankedByPrice(c: UtilityCandidate): boolean {
  return typicalCost(c.price) !== undefined;
}

/**
 * The changes that make the background tasks use `value`: both utility keys, and
 * chat.byokUtilityModelDefault = "mainAgent" where this VS Code registers it (a fallback should the
 * model ever not resolve: the main agent's model, not Copilot's). A key already so set is not a change.
 */
export function plannedChanges(now: UtilitySettings, value: string): SettingChange[] {
  const wanted: SettingChange[] = [
    { key: UTILITY_MODEL_KEY, from: now.utilityModel, to: value },
    { key: UTILITY_SMALL_MODEL_KEY, from: now.utilitySmallModel, to: value },
  ];
  if (now.byokDefault !== undefined)
    wanted.push({ key: BYOK_UTILITY_DEFAULT_KEY, from: now.byokDefault, to: BYOK_MAIN_AGENT });
  return wanted.filter((c) => c.from !== c.to);
}

/** "chat.utilityModel: (empty) → model-relay/default/gpt-4o-mini", one line per change. */
export function changeLines(changes: readonly SettingChange[]): string[] {
  const shown = (v: string) => (v ? `"${v}"` : t('(empty)'));
  return changes.map((c) => t('{0}: {1} → {2}', c.key, shown(c.from), shown(c.to)));
}

/** The keys that hold another value now and would be replaced (never silently: the confirmation names them). */
export function replacedKeys(changes: readonly SettingChange[]): string[] {
  return changes.filter((c) => c.from && c.key !== BYOK_UTILITY_DEFAULT_KEY).map((c) => c.key);
}

/** The confirmation's question for `candidate` (its price where published, else how it was chosen). */
export function confirmationMessage(candidate: UtilityCandidate): string {
  const price = priceText(candidate.price);
  return price && rankedByPrice(candidate)
    ? t(
        "Model Relay: use {0} ({1}), the cheapest gateway chat model, for VS Code's background tasks (chat titles, summaries, commit messages)?",
        candidate.model,
        price,
      )
    : t(
        "Model Relay: use {0} for VS Code's background tasks (chat titles, summaries, commit messages)? The gateway publishes no prices, so it was chosen as a small model by its name.",
        candidate.model,
      );
}

/** The confirmation's detail: what will change, what is replaced, and the test request. */
export function confirmationDetail(changes: readonly SettingChange[]): string {
  const replaced = replacedKeys(changes);
  return [
    ...changeLines(changes),
    '',
    ...(replaced.length
      ? [t('This replaces the value you set in {0}; Restore in the next message puts it back.', replaced.join(', '))]
      : []),
    t('First a one-line test request checks that the model answers. The gateway bills it (a tiny amount).'),
  ].join('\n');
}

/** One model's test that failed, and why. */
export interface FailedTest {
  candidate: UtilityCandidate;
  reason: string;
}

/**
 * The first candidate (in the order given) that answers `test`, trying at most `max` of them; `goOn`
 * is asked before each one after a failure (the user agreed to one model, not to any). A test is one
 * billed request per model, never repeated for the same model.
 */
export async function firstAnswering<C extends UtilityCandidate>(
  ranked: readonly C[],
  test: (c: C) => Promise<void>,
  goOn: (failed: FailedTest, next: C) => Promise<boolean>,
  max = 3,
): Promise<{ chosen: C | undefined; failed: FailedTest[] }> {
  const failed: FailedTest[] = [];
  for (const c of ranked.slice(0, max)) {
    const last = failed.at(-1);
    if (last && !(await goOn(last, c))) break;
    try {
      await test(c);
      return { chosen: c, failed };
    } catch (e) {
      failed.push({ candidate: c, reason: e instanceof Error ? e.message : String(e) });
    }
  }
  return { chosen: undefined, failed };
}

/** What the Diagnose finding is computed from: the settings, and whose models VS Code's chat lists. */
export interface BackgroundTasksFacts {
  settings: UtilitySettings;
  /** our languageModelChatProviders vendor */
  vendor: string;
  /** the vendor of every chat model VS Code lists now */
  vendors: readonly string[];
}

/**
 * Whether VS Code's background tasks have a model: a warning when neither utility key is set and
 * only our models are listed (no Copilot sign-in: titles, summaries and commit messages fail or
 * wait for Copilot), a pass when a key names a model (ours or another), a pass with a note otherwise.
 */
export function backgroundTasksFinding(f: BackgroundTasksFacts): HostFinding {
  const { utilityModel, utilitySmallModel, byokDefault } = f.settings;
  const details = [
    t('{0}: {1}', UTILITY_MODEL_KEY, utilityModel || t('(empty)')),
    t('{0}: {1}', UTILITY_SMALL_MODEL_KEY, utilitySmallModel || t('(empty)')),
    ...(byokDefault !== undefined ? [t('{0}: {1}', BYOK_UTILITY_DEFAULT_KEY, byokDefault)] : []),
  ];
  const ours = (v: string) => v.startsWith(`${f.vendor}/`);
  if (utilityModel && utilitySmallModel) {
    const both = ours(utilityModel) && ours(utilitySmallModel);
    return {
      result: 'pass',
      cause: both
        ? t("VS Code's background tasks (titles, summaries, commit messages) use a gateway model.")
        : t("VS Code's background tasks (titles, summaries, commit messages) have a model set."),
      fix: '',
      details,
    };
  }
  const onlyOurs = f.vendors.length > 0 && f.vendors.every((v) => v === f.vendor);
  if (!onlyOurs || byokDefault === BYOK_MAIN_AGENT)
    return {
      result: 'pass',
      cause:
        byokDefault === BYOK_MAIN_AGENT
          ? t("VS Code's background tasks use the chat's main model (chat.byokUtilityModelDefault is mainAgent).")
          : t("VS Code's background tasks use VS Code's default utility model (other vendors' models are available)."),
      fix: '',
      details,
    };
  return {
    result: 'warn',
    cause: t(
      "VS Code's background tasks (chat titles, summaries, commit messages) have no model: chat.utilityModel and chat.utilitySmallModel are empty and only gateway models are in VS Code's chat, so they fail or ask for a Copilot sign-in.",
    ),
    fix: t("Run Use a Gateway Model for VS Code's Background Tasks: it sets both to the cheapest gateway chat model."),
    details,
    fixAction: { kind: 'use-gateway-for-background-tasks' },
  };
}
