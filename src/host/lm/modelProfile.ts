/**
 * What VS Code's chat is told about each gateway model, and how we answer it: the surface (from
 * new-api's `supported_endpoint_types`, else the configured native model), context and output
 * limits by model family, tool calling and image input — each overridable per model in
 * `modelRelay.models.overrides` for what the gateway cannot tell us.
 */
import type { ModelInfo, Surface } from '../../gateway';

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
}

export interface ModelProfile {
  surface: Surface;
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

/**
 * The surface a model answers on: new-api's endpoint types when it sends them (one surface → that
 * one; both → the configured default), else native for the configured native model.
 */
export function surfaceOf(m: ModelInfo, defaults: { defaultSurface: Surface; nativeModel: string }): Surface {
  const caps = m.capabilities;
  if (caps?.includes('native') && !caps.includes('chat')) return 'native';
  if (caps?.includes('chat') && !caps.includes('native')) return 'compatible';
  if (caps?.includes('chat') && caps.includes('native')) return defaults.defaultSurface;
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
): ModelProfile {
  const o = settings.overrides[m.id] ?? {};
  const family = familyOf(m.id);
  const maxOutputTokens = o.maxOutputTokens ?? settings.maxTokens;
  const context = family?.context ?? DEFAULT_CONTEXT;
  return {
    surface: o.surface ?? surfaceOf(m, settings),
    maxOutputTokens,
    // The prompt budget VS Code fills: the window less what the reply may use.
    maxInputTokens: o.maxInputTokens ?? Math.max(MIN_INPUT, context - maxOutputTokens),
    toolCalling: o.toolCalling ?? true,
    imageInput: o.imageInput ?? family?.imageInput ?? false,
    thinkingBudget: o.thinkingBudget,
    ...(o.replayReasoning !== undefined ? { replayReasoning: o.replayReasoning } : {}),
  };
}
