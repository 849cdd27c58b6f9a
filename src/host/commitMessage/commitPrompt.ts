/**
 * Generate Commit Message's request and reply: which model writes it (`modelRelay.commitMessage.model`,
 * else the completion model, else the chat's), the prompt (the repository's style in words and a few of
 * its subjects, the author's own draft when the input box held one, the budgeted diff), and the reply
 * cleaned for the input box — reasoning tags, code fences, quotes and a "Commit message:" label
 * dropped — as it streams and at its end. Plain Node, no `vscode`.
 */
import type { Capability, ChatRequest, Surface } from '../../gateway';
import { t } from '../../gateway/l10n';
import type { BudgetedDiff } from './diffBudget';
import { styleRules, type CommitStyle } from './commitStyle';
import { modelProfile, type ModelOverride } from '../lm/modelProfile';

/** The settings that name the model. */
export interface CommitModelSettings {
  /** modelRelay.commitMessage.model */
  commitMessage: string;
  /** modelRelay.completions.model */
  completions: string;
  /** modelRelay.models.chat / .native and the surface they go with */
  chat: string;
  native: string;
  defaultSurface: Surface;
}

export type CommitModelSource = 'commitMessage' | 'completions' | 'chat';

/** The model that writes the message and the setting it came from; undefined when none is set. */
export function commitModel(s: CommitModelSettings): { model: string; from: CommitModelSource } | undefined {
  if (s.commitMessage.trim()) return { model: s.commitMessage.trim(), from: 'commitMessage' };
  if (s.completions.trim()) return { model: s.completions.trim(), from: 'completions' };
  const chat = s.defaultSurface === 'native' ? s.native || s.chat : s.chat;
  return chat.trim() ? { model: chat.trim(), from: 'chat' } : undefined;
}

/**
 * The surface the model answers on, as VS Code's chat would ask it (the gateway's endpoint types for
 * the model, an override, what its refusals taught, else the configured default's rule).
 */
export function commitSurface(
  model: string,
  s: { defaultSurface: Surface; nativeModel: string; overrides: Readonly<Record<string, ModelOverride>> },
  capabilities: Capability[] | undefined,
  learnt: Surface | undefined,
): Surface {
  return modelProfile(
    { id: model, capabilities },
    {
      defaultSurface: s.defaultSurface,
      nativeModel: s.nativeModel,
      maxTokens: COMMIT_MAX_TOKENS,
      overrides: s.overrides,
    },
    learnt,
  ).surface;
}

/** The words for no model at all: cause and fix in one sentence. */
export function noModelWords(): string {
  return t(
    'Model Relay: no model to write the commit message. Set modelRelay.commitMessage.model (or modelRelay.models.chat) to a model of your gateway.',
  );
}

/** Reply budget: a subject and a short body, with room for a reasoning model's thinking. */
export const COMMIT_MAX_TOKENS = 1024;

const SYSTEM =
  'You write git commit messages. Reply with the commit message only: no explanation, no quotes, no code fences, no label.';

export interface CommitPromptInput {
  diff: BudgetedDiff;
  /** 'staged' (git diff --cached) or 'all' (nothing staged: the working tree's changes) */
  scope: 'staged' | 'all';
  style: CommitStyle;
  /** what the input box held: the author's own words about the change */
  draft?: string | undefined;
  /** untracked files the diff does not show (nothing staged) */
  untracked?: readonly string[] | undefined;
}

/** The user message: the task, the style, the examples, the draft, the change. */
export function commitPrompt(p: CommitPromptInput): string {
  const { diff, style } = p;
  const lines = ['Write the commit message for the change below.', ''];
  if (style.examples.length) {
    lines.push("Recent commit subjects in this repository (match their style, don't copy them):");
    lines.push(...style.examples.map((s) => `- ${s}`), '');
  }
  lines.push(`Style: ${styleRules(style)}`, '');
  const draft = p.draft?.trim();
  if (draft) lines.push("The author's own note about this change (use it; keep what it says):", draft, '');
  const what = p.scope === 'staged' ? 'staged changes' : 'all changes (nothing is staged)';
  lines.push(`The change: ${what}, ${diff.cut.files} files, +${diff.added} −${diff.removed} lines.`);
  if (diff.cut.partial.length || diff.cut.omitted.length)
    lines.push('The diff was shortened to fit; the notes in it say what was left out.');
  if (p.untracked?.length) lines.push(`New untracked files (contents not shown): ${p.untracked.join(', ')}`);
  lines.push('<diff>', diff.text, '</diff>');
  return lines.join('\n');
}

/** The chat request, on the model's surface, streamed, aborted by `signal`. */
export function commitRequest(model: string, surface: Surface, prompt: string, signal: AbortSignal): ChatRequest {
  return {
    surface,
    model,
    system: SYSTEM,
    messages: [{ role: 'user', content: prompt }],
    maxTokens: COMMIT_MAX_TOKENS,
    stream: true,
    signal,
  };
}

const OPEN_QUOTE: Record<string, string> = { '"': '"', "'": "'", '`': '`', '“': '”', '「': '」', '‘': '’' };
const LABEL = /^(?:\*\*)?(?:git )?(?:commit message|commit|subject|提交信息|提交说明)(?:\*\*)?\s*[:：]\s*(?:\*\*\s*)?/i;

/**
 * The reply as the input box shows it. `done` false: a prefix of a reply still streaming — an opening
 * fence or `<think>` not yet closed shows nothing, and a closing fence's first backticks are held back.
 */
export function cleanMessage(raw: string, done: boolean): string {
  let s = raw.replace(/<think>[\s\S]*?<\/think>/g, '');
  const think = s.indexOf('<think>');
  if (think >= 0) s = s.slice(0, think);
  s = s.replace(/^\s+/, '');
  if (s.startsWith('```')) {
    const nl = s.indexOf('\n');
    if (nl < 0) return '';
    s = s.slice(nl + 1);
    const close = s.search(/^```/m);
    if (close >= 0) s = s.slice(0, close);
    else if (!done) s = s.replace(/\n?`{1,2}$/, '');
  }
  s = s.replace(LABEL, '');
  const open = s[0];
  const closeQuote = open !== undefined ? OPEN_QUOTE[open] : undefined;
  if (closeQuote) {
    s = s.slice(1);
    const end = s.trimEnd();
    if (end.endsWith(closeQuote)) s = end.slice(0, -closeQuote.length);
  }
  const lines = s.split('\n').map((l) => l.replace(/\s+$/, ''));
  return lines
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
