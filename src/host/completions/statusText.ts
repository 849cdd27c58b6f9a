/**
 * Inline suggestions' words (issue 25): the status bar item's text, tooltip and look for the engine's
 * state (off / on with its model / paused with its cause / capped), the last hour's figures, what
 * Show Inline Suggestion Status says (cause and fix), the click menu's entries, and when a state
 * change deserves its one notice (the cap reached; a failing gateway only changes the item). Plain
 * Node: every sentence through `t()`, whole.
 */
import { t } from '../../gateway/l10n';
import { formatAmount } from '../../gateway/economy/units';
import type { EngineState, HourStats } from './types';

/** What the glue knows besides the engine's state. */
export interface CompletionFacts {
  state: EngineState;
  stats: HourStats;
  /** the active gateway's completion model ('' or undefined: none chosen) */
  model: string | undefined;
  /** the unit the model's price is in ("USD", "CNY", a symbol), when the gateway publishes one */
  unit: string | undefined;
  /** the workspace is trusted */
  trusted: boolean;
  /** on for the active editor's language (or, with no editor, anywhere) */
  enabledHere: boolean;
}

export type CompletionLook = 'statusBarItem.warningBackground' | 'statusBarItem.errorBackground' | undefined;

export interface CompletionStatusWords {
  text: string;
  tooltip: string[];
  look: CompletionLook;
}

/** The paused states' cause and fix, or the state said as one sentence with what to do. */
export interface CompletionDetails {
  summary: string;
  cause?: string;
  fix?: string;
}

/** "In the last hour: 12 requests, 3 suggestions accepted, $0.0042." */
export function hourLine(stats: HourStats, unit: string | undefined): string {
  if (stats.cost !== undefined && unit)
    return t(
      'In the last hour: {0} requests, {1} suggestions accepted, {2}.',
      stats.requests,
      stats.accepted,
      formatAmount(stats.cost, unit),
    );
  return t(
    'In the last hour: {0} requests ({1} tokens), {2} suggestions accepted.',
    stats.requests,
    stats.tokens,
    stats.accepted,
  );
}

/** "5 cancelled by more typing, 4 served from the cache, 9 shown." */
function economyLine(stats: HourStats): string {
  return t(
    '{0} cancelled by more typing, {1} served from the cache, {2} shown.',
    stats.aborted,
    stats.cacheHits,
    stats.shown,
  );
}

function details(f: CompletionFacts): CompletionDetails {
  const s = f.state;
  if (!f.trusted)
    return {
      summary: t('Inline suggestions are off in this workspace.'),
      cause: t('The workspace is not trusted: no file of it is sent to the gateway.'),
      fix: t('Trust the workspace (Manage Workspace Trust) to get suggestions in it.'),
    };
  if (s.kind === 'paused-error' || s.kind === 'paused-cap')
    return { summary: t('Inline suggestions are paused.'), cause: s.cause, fix: s.fix };
  if (!f.enabledHere)
    return {
      summary: t('Inline suggestions are off.'),
      fix: t('Run "Toggle Inline Suggestions" to turn them on; each suggestion shown is a billed call.'),
    };
  if (!f.model)
    return {
      summary: t('Inline suggestions are on, but no completion model is chosen.'),
      fix: t('Run "Choose Completion Model" and pick a fast, cheap model.'),
    };
  if (s.kind === 'off')
    return {
      summary: t('Inline suggestions are on, but there is no gateway to ask.'),
      fix: t('Configure the base URL and add a token (Model Relay: Get Started).'),
    };
  if (s.kind === 'excluded') return { summary: t('This file gets no inline suggestions.'), cause: s.reason };
  return { summary: t('Inline suggestions are on with {0}.', f.model) };
}

export function completionDetails(f: CompletionFacts): CompletionDetails {
  return details(f);
}

export function completionStatusWords(f: CompletionFacts): CompletionStatusWords {
  const d = details(f);
  const s = f.state;
  const paused = f.trusted && (s.kind === 'paused-error' || s.kind === 'paused-cap');
  const on = f.trusted && f.enabledHere;
  const text = !f.trusted
    ? `$(circle-slash) ${t('Suggestions: untrusted')}`
    : s.kind === 'paused-cap'
      ? `$(stop-circle) ${t('Suggestions: capped')}`
      : s.kind === 'paused-error'
        ? `$(warning) ${t('Suggestions: paused')}`
        : !on
          ? `$(circle-slash) ${t('Suggestions: off')}`
          : !f.model
            ? `$(warning) ${t('Suggestions: no model')}`
            : s.kind === 'off'
              ? `$(warning) ${t('Suggestions: no gateway')}`
              : s.kind === 'excluded'
                ? `$(eye-closed) ${t('Suggestions: {0}', f.model)}`
                : `$(sparkle) ${t('Suggestions: {0}', f.model)}`;
  return {
    text,
    tooltip: [
      `**${t('Model Relay inline suggestions')}**`,
      d.summary,
      ...(d.cause ? [d.cause] : []),
      ...(d.fix ? [d.fix] : []),
      hourLine(f.stats, f.unit),
      economyLine(f.stats),
      t('Click for the menu: turn on or off, choose the model, status.'),
    ],
    look: paused
      ? s.kind === 'paused-cap'
        ? 'statusBarItem.warningBackground'
        : 'statusBarItem.errorBackground'
      : on && (!f.model || s.kind === 'off')
        ? 'statusBarItem.warningBackground'
        : undefined,
  };
}

export interface MenuEntry {
  /** with its codicon */
  label: string;
  description?: string;
  /** Toggle Inline Suggestions, the engine's reset, Choose Completion Model, Show Inline Suggestion Status */
  action: 'toggle' | 'resume' | 'chooseModel' | 'status';
}

/** The status bar item's click: toggle, resume (after a failing gateway's pause: ask again now), choose the model, status. */
export function completionMenu(f: CompletionFacts): MenuEntry[] {
  const s = f.state;
  const on = f.enabledHere;
  const paused = s.kind === 'paused-error' || s.kind === 'paused-cap';
  return [
    {
      label: on
        ? `$(circle-slash) ${t('Turn Off Inline Suggestions')}`
        : `$(sparkle) ${t('Turn On Inline Suggestions')}`,
      action: 'toggle',
    },
    // (the cap lifts as the hour moves on or with a higher cap: asking again now would not)
    ...(s.kind === 'paused-error'
      ? [{ label: `$(debug-restart) ${t('Resume Inline Suggestions')}`, action: 'resume' as const }]
      : []),
    {
      label: `$(symbol-method) ${t('Choose Completion Model')}`,
      ...(f.model ? { description: f.model } : {}),
      action: 'chooseModel',
    },
    {
      label: `$(info) ${t('Show Inline Suggestion Status')}`,
      ...(paused && 'cause' in s ? { description: s.cause } : {}),
      action: 'status',
    },
  ];
}

/** The one notice a state change gets: only reaching the cap (a failing gateway changes the status bar only). */
export function noticeFor(before: EngineState, after: EngineState): 'cap' | undefined {
  return after.kind === 'paused-cap' && before.kind !== 'paused-cap' ? 'cap' : undefined;
}
