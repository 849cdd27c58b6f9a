/**
 * What VS Code's chat is told about each gateway model, and how we answer it: the surface (from
 * new-api's `supported_endpoint_types`, else the configured native model), context and output
 * limits by model family, tool calling and image input — each overridable per model in
 * `modelRelay.models.overrides` for what the gateway cannot tell us.
 */
import { surfaceName, type Capability, type ModelInfo, type Surface } from '../../gateway';
import { t } from '../../gateway/l10n';

export interface ModelOverride {
  surface?: Surface | undefined;
  maxInputTokens?: number | undefined;
  maxOutputTokens?: number | undefined;
  toolCalling?: boolean | undefined;
  imageInput?: boolean | undefined;
  /** native surface: extended thinking with this budget (its signed blocks are replayed in tool loops) */
  thinkingBudget?: number | undefined;
  /** compatible surface: send the reasoning of tool-call turns back (unset: as the model's family needs) */
  replayReasoning?: boolean | undefined;
  /** code completions: fill-in-the-middle on /v1/completions (true) or a short chat (false); unset: by family */
  fim?: boolean | undefined;
}

export interface ModelProfile {
  surface: Surface;
  /** the gateway refused the model elsewhere and said it answers only on this surface (learnt, not listed) */
  surfaceLearnt: boolean;
  maxInputTokens: number;
  maxOutputTokens: number;
  toolCalling: boolean;
  imageInput: boolean;
  thinkingBudget: number | undefined;
  replayReasoning?: boolean | undefined;
}

interface Family {
  match: RegExp;
  /** the model's whole context window */
  context: number;
  imageInput: boolean;
}

/** First match wins: specific names before their family. Context windows as the vendors publish them. */
const FAMILIES: readonly Family[] = [
  { match: /claude/i, context: 200_000, imageInput: true },
  { match: /gpt-4\.1/i, context: 1_047_576, imageInput: true },
  { match: /gpt-5/i, context: 400_000, imageInput: true },
  { match: /gpt-4o|chatgpt-4o/i, context: 128_000, imageInput: true },
  { match: /gpt-4-turbo|gpt-4-vision/i, context: 128_000, imageInput: true },
  { match: /gpt-4(?!o|\.)/i, context: 8_192, imageInput: false },
  { match: /gpt-3\.5/i, context: 16_385, imageInput: false },
  { match: /^o[134](-|$)/i, context: 200_000, imageInput: true },
  { match: /gemini/i, context: 1_048_576, imageInput: true },
  { match: /qwen.*vl|qvq/i, context: 131_072, imageInput: true },
  { match: /qwen/i, context: 131_072, imageInput: false },
  { match: /glm-4(\.\d+)?v/i, context: 65_536, imageInput: true },
  { match: /glm/i, context: 131_072, imageInput: false },
  { match: /deepseek/i, context: 131_072, imageInput: false },
  { match: /kimi|moonshot/i, context: 131_072, imageInput: false },
  { match: /grok-4/i, context: 256_000, imageInput: true },
  { match: /grok/i, context: 131_072, imageInput: false },
  { match: /llama-?4/i, context: 1_000_000, imageInput: true },
  { match: /mistral|codestral|llama/i, context: 131_072, imageInput: false },
];

const DEFAULT_CONTEXT = 128_000;
const MIN_INPUT = 1_024;

export function familyOf(id: string): Family | undefined {
  return FAMILIES.find((f) => f.match.test(id));
}

/** The surface each chat capability is served on. */
const SURFACE_OF: ReadonlyArray<[Capability, Surface]> = [
  ['chat', 'compatible'],
  ['responses', 'responses'],
  ['native', 'native'],
];

/**
 * The surface a model answers on: new-api's endpoint types when it sends them (one chat surface →
 * that one: only `openai-response` → responses, only `anthropic` → native, `openai` → compatible;
 * several → the configured default when it is one of them, else the first of compatible, responses,
 * native), else native for the configured native model and compatible for the rest.
 */
export function surfaceOf(m: ModelInfo, defaults: { defaultSurface: Surface; nativeModel: string }): Surface {
  const caps = m.capabilities ?? [];
  const served = SURFACE_OF.filter(([cap]) => caps.includes(cap)).map(([, surface]) => surface);
  if (served.length === 1) return served[0];
  if (served.length > 1) return served.includes(defaults.defaultSurface) ? defaults.defaultSurface : served[0];
  return m.id === defaults.nativeModel ? 'native' : 'compatible';
}

export function modelProfile(
  m: ModelInfo,
  settings: {
    defaultSurface: Surface;
    nativeModel: string;
    maxTokens: number;
    overrides: Readonly<Record<string, ModelOverride>>;
  },
  /** the surface this gateway's refusals taught for the model (GatewayClient.learntSurface), if any */
  learnt?: Surface,
): ModelProfile {
  const o = settings.overrides[m.id] ?? {};
  const family = familyOf(m.id);
  const maxOutputTokens = o.maxOutputTokens ?? settings.maxTokens;
  const context = family?.context ?? DEFAULT_CONTEXT;
  return {
    // What the gateway said by refusing wins: the client moves the model's requests there anyway.
    surface: learnt ?? o.surface ?? surfaceOf(m, settings),
    surfaceLearnt: learnt !== undefined,
    maxOutputTokens,
    // The prompt budget VS Code fills: the window less what the reply may use.
    maxInputTokens: o.maxInputTokens ?? Math.max(MIN_INPUT, context - maxOutputTokens),
    toolCalling: o.toolCalling ?? true,
    imageInput: o.imageInput ?? family?.imageInput ?? false,
    thinkingBudget: o.thinkingBudget,
    ...(o.replayReasoning !== undefined ? { replayReasoning: o.replayReasoning } : {}),
  };
}

/** The profile's surface in words: "responses", or "responses (learnt from the gateway)" when its refusals taught it. */
export function surfaceWords(p: Pick<ModelProfile, 'surface' | 'surfaceLearnt'>): string {
  return p.surfaceLearnt ? t('{0} (learnt from the gateway)', surfaceName(p.surface)) : surfaceName(p.surface);
}
