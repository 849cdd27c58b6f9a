/**
 * Which models take the reasoning of their earlier turns back on the compatible surface, and how
 * (shared/reference/reasoning-replay.md §1, §9): one small family table, the override that settles
 * it per model (`modelRelay.models.overrides[id].replayReasoning`), and the one retry a vendor's own
 * words about the field earn: a 400 saying `reasoning_content` is missing is retried once with it
 * filled in (empty where nothing is known), a 400 saying it is refused once without it. A refused
 * request was not billed, so the retry is never a second charge.
 */
import { GatewayError } from '../errors/gatewayError';
import { mayResend } from '../http/retryPolicy';
import type { ChatRequest } from './types';

/**
 * Which assistant messages carry `reasoning_content`:
 * - `tool_turns`: every assistant message of a user turn that used tools (DeepSeek thinking mode);
 * - `tool_calls`: assistant messages that call tools (Kimi K2 thinking);
 * - `all`: every assistant message whose reasoning is known (GLM's interleaved / preserved thinking);
 * - `current_loop`: assistant messages after the last user message (Qwen3's template drops older ones);
 * - `think_tags`: none; the reasoning goes back inside `content` as `<think>…</think>` (MiniMax M2);
 * - `none`: never (strict OpenAI endpoints may refuse unknown fields; legacy R1 refuses this one).
 */
export type ReplayScope = 'tool_turns' | 'tool_calls' | 'all' | 'current_loop' | 'think_tags' | 'none';

export interface ReplayRule {
  /** the family the model was matched to, for messages and tests */
  family: string;
  scope: ReplayScope;
  /** where the scope says the field must be there and nothing is known (a restart, another model's turn): send "" */
  fillEmpty: boolean;
}

interface Family extends ReplayRule {
  match: RegExp;
}

/**
 * First match wins. Legacy R1 comes before the DeepSeek thinking models: its names say `r1`, while
 * `deepseek-reasoner` is served by DeepSeek's thinking mode since V3.2 (it must get the field back);
 * a gateway still serving the old R1 under that name answers the field with its "intermediate
 * result" 400, which is retried once without it (and `replayReasoning: false` settles it).
 * new-api's `-none` suffix turns a V4 model's thinking off.
 */
const FAMILIES: readonly Family[] = [
  { family: 'deepseek-r1', match: /deepseek[-_/]?r1/i, scope: 'none', fillEmpty: false },
  {
    family: 'deepseek-thinking',
    match: /^(?!.*-none$).*(deepseek-reasoner|deepseek-v3\.2|deepseek-v[4-9]|deepseek.*think)/i,
    scope: 'tool_turns',
    fillEmpty: true,
  },
  { family: 'kimi-thinking', match: /kimi-k2(-thinking|\.[5-9])/i, scope: 'tool_calls', fillEmpty: true },
  { family: 'glm', match: /glm-(4\.[5-9]|[5-9])/i, scope: 'all', fillEmpty: false },
  { family: 'qwen3', match: /qwen3/i, scope: 'current_loop', fillEmpty: false },
  { family: 'minimax-m2', match: /minimax-m2/i, scope: 'think_tags', fillEmpty: false },
];

const NEVER: ReplayRule = { family: 'other', scope: 'none', fillEmpty: false };

/** The scopes that send the `reasoning_content` field (an override "on" keeps the family's, else DeepSeek's). */
const FIELD_SCOPES: ReadonlySet<ReplayScope> = new Set(['tool_turns', 'tool_calls', 'all', 'current_loop']);

/**
 * The model's rule; `override` (the user's `replayReasoning`) settles it: false never sends the
 * field; true sends it where the family does (an unknown family as DeepSeek does: on every
 * assistant message of a tool-using turn, which also satisfies Kimi), empty where nothing is known.
 */
export function replayRule(model: string, override?: boolean): ReplayRule {
  const { match: _match, ...rule } = FAMILIES.find((f) => f.match.test(model)) ?? { ...NEVER, match: /$^/ };
  if (override === undefined) return rule;
  if (!override) return { family: rule.family, scope: 'none', fillEmpty: false };
  return { family: rule.family, scope: FIELD_SCOPES.has(rule.scope) ? rule.scope : 'tool_turns', fillEmpty: true };
}

/**
 * What a 400 says about the field: the vendor wants it back, or refuses it (texts in the reference §1).
 * Asked of the resend rule too (http/retryPolicy.ts `mayResend`), which a refusal always passes.
 */
export function replayRefusal(e: unknown): 'missing' | 'refused' | undefined {
  if (!(e instanceof GatewayError) || e.status !== 400 || !mayResend(e)) return undefined;
  const said = `${e.gatewayMessage ?? ''} ${e.message}`;
  if (!/reasoning_content/i.test(said)) return undefined;
  if (/intermediate result|remove the .?reasoning_content/i.test(said)) return 'refused';
  if (/missing|must be passed back/i.test(said)) return 'missing';
  return undefined;
}

const sameRule = (a: ReplayRule, b: ReplayRule) => a.scope === b.scope && a.fillEmpty === b.fillEmpty;

/** The request to send once more after this refusal, or undefined when a retry would send the same body. */
export function replayRetry(req: ChatRequest, e: unknown): ChatRequest | undefined {
  if (req.surface !== 'compatible') return undefined;
  const refusal = replayRefusal(e);
  if (!refusal) return undefined;
  const now = replayRule(req.model, req.replayReasoning);
  const replayReasoning = refusal === 'missing';
  if (sameRule(now, replayRule(req.model, replayReasoning))) return undefined;
  return { ...req, replayReasoning };
}

/**
 * Sends the request; when the gateway refuses it for the reasoning field (missing, or refused),
 * sends it once more with the field filled in or left out. At most one retry.
 */
export async function withReplayRetry<T>(req: ChatRequest, send: (req: ChatRequest) => Promise<T>): Promise<T> {
  try {
    return await send(req);
  } catch (e) {
    const retry = replayRetry(req, e);
    if (!retry) throw e;
    return send(retry);
  }
}
