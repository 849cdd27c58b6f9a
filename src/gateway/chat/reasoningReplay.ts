/**
 * Which models take the reasoning of their earlier turns back on the compatible surface, and how
 * (shared/reference/reasoning-replay.md §1, §9): the family table's `replay` column (modelRules.ts),
 * and the override that settles it per model — the user's (`modelRelay.models.overrides[id].replayReasoning`),
 * or what this gateway's refusals taught (refusals.ts: a 400 saying `reasoning_content` is missing
 * fills it in, one saying it is refused leaves it out; remembered per model).
 */
import { ruleOf, type ReplayScope } from './modelRules';

export type { ReplayScope } from './modelRules';

/**
 * Which assistant messages carry `reasoning_content`:
 * - `tool_turns`: every assistant message of a user turn that used tools (DeepSeek thinking mode);
 * - `tool_calls`: assistant messages that call tools (Kimi K2 thinking);
 * - `all`: every assistant message whose reasoning is known (GLM's interleaved / preserved thinking);
 * - `current_loop`: assistant messages after the last user message (Qwen3's template drops older ones);
 * - `think_tags`: none; the reasoning goes back inside `content` as `<think>…</think>` (MiniMax M2);
 * - `none`: never (strict OpenAI endpoints may refuse unknown fields; legacy R1 refuses this one).
 */
export interface ReplayRule {
  /** the family the model was matched to, for messages and tests */
  family: string;
  scope: ReplayScope;
  /** where the scope says the field must be there and nothing is known (a restart, another model's turn): send "" */
  fillEmpty: boolean;
}

/** The scopes that send the `reasoning_content` field (an override "on" keeps the family's, else DeepSeek's). */
const FIELD_SCOPES: ReadonlySet<ReplayScope> = new Set(['tool_turns', 'tool_calls', 'all', 'current_loop']);

/**
 * The model's rule; `override` settles it: false never sends the field; true sends it where the
 * family does (an unknown family as DeepSeek does: on every assistant message of a tool-using
 * turn, which also satisfies Kimi), empty where nothing is known.
 */
export function replayRule(model: string, override?: boolean): ReplayRule {
  const row = ruleOf(model);
  const rule: ReplayRule = { family: row.family, ...(row.replay ?? { scope: 'none', fillEmpty: false }) };
  if (override === undefined) return rule;
  if (!override) return { family: rule.family, scope: 'none', fillEmpty: false };
  return { family: rule.family, scope: FIELD_SCOPES.has(rule.scope) ? rule.scope : 'tool_turns', fillEmpty: true };
}

/** Whether two overrides send the field alike for the model (a resend that changes nothing is no resend). */
export function sameReplay(model: string, a: boolean | undefined, b: boolean | undefined): boolean {
  const x = replayRule(model, a);
  const y = replayRule(model, b);
  return x.scope === y.scope && x.fillEmpty === y.fillEmpty;
}
