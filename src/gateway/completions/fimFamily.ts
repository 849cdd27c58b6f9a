/**
 * Which models answer fill-in-the-middle on `POST /v1/completions` (`prompt` + `suffix`) through
 * new-api, by name (shared/reference/vscode-chat-settings.md §5): new-api's model list says nothing
 * about it (no completions endpoint type). `modelRelay.models.overrides[id].fim` wins over this table;
 * a gateway's refusal is learnt per model by the client (completions.ts).
 */
import type { CompletionMode } from './types';

interface FimFamily {
  match: RegExp;
  fim: boolean;
}

/** First match wins: the exceptions before their family. */
const FIM_FAMILIES: readonly FimFamily[] = [
  // DeepSeek's FIM is not available in thinking mode (R1, reasoner, V3.1+ "think" variants).
  { match: /deepseek.*(reasoner|r1\b|-r1|think)/i, fim: false },
  // DeepSeek V3 (deepseek-chat, on a DeepSeek channel's /beta/completions; SiliconFlow's DeepSeek-V3/V2.5) and Coder.
  { match: /deepseek[-_/ ]?(chat|coder|v3|v2\.5)/i, fim: true },
  // Codestral's FIM route (/v1/fim/completions) is not relayed by new-api: a chat model there.
  { match: /codestral/i, fim: false },
  // Qwen2.5-Coder / Qwen3-Coder (SiliconFlow, DashScope); a vLLM-served one refuses `suffix` (learnt).
  { match: /qwen[\w.]*-?coder/i, fim: true },
  { match: /starcoder/i, fim: true },
  { match: /codegemma/i, fim: true },
  { match: /code-?llama/i, fim: true },
  { match: /stable-?code/i, fim: true },
];

/** Whether the model's family answers FIM through new-api (chat families, and anything unknown: no). */
export function fimByFamily(model: string): boolean {
  return FIM_FAMILIES.find((f) => f.match.test(model))?.fim ?? false;
}

/** How a model is asked: the override (`overrides[id].fim`) when set, else its family. */
export function completionModeOf(model: string, fimOverride?: boolean): CompletionMode {
  return (fimOverride ?? fimByFamily(model)) ? 'fim' : 'chat';
}
