/**
 * The inline suggestions' settings (`modelRelay.completions.*`, issue 25): their defaults (the
 * settings schema and package.json take them from here), the engine's CompletionSettings made from
 * what was read, and which model a gateway suggests with — `modelRelay.completions.model` for the
 * gateway made from the old settings (id `default`, as `modelRelay.models.chat` is its chat model),
 * `models.completion` of an entry in `modelRelay.gateways` for the others. Plain Node.
 */
import { DEFAULT_EXCLUDE } from '../pathExclusions';
import type { CompletionSettings } from './types';

export const COMPLETION_DEFAULTS = {
  enabled: false,
  model: '',
  /** prefix + suffix windows, in tokens */
  contextTokens: 1024,
  maxTokens: 128,
  /** anywhere in the workspace: environment files, keys and certificates, anything under .git */
  exclude: [...DEFAULT_EXCLUDE],
  /** bytes */
  maxFileSize: 1_000_000,
  /** in the gateway's display unit per hour; null: no money cap */
  maxCostPerHour: 1 as number | null,
  /** where no price is known */
  maxTokensPerHour: 200_000,
};

/** `modelRelay.completions.*` as read and validated (the settings schema's keys without their prefix). */
export interface CompletionSettingValues {
  contextTokens: number;
  maxTokens: number;
  exclude: string[];
  maxFileSize: number;
  maxCostPerHour: number | null;
  maxTokensPerHour: number;
}

/** The engine's settings: `enabled` for the document asked about (per language), the active gateway's model. */
export function completionSettings(
  v: CompletionSettingValues,
  f: { enabled: boolean; model: string; trusted: boolean },
): CompletionSettings {
  return {
    enabled: f.enabled,
    model: f.model.trim() || undefined,
    contextTokens: v.contextTokens,
    maxTokens: v.maxTokens,
    exclude: v.exclude.map((g) => g.trim()).filter(Boolean),
    maxFileSize: v.maxFileSize,
    maxCostPerHour: v.maxCostPerHour ?? undefined,
    maxTokensPerHour: v.maxTokensPerHour,
    trusted: f.trusted,
  };
}

/** A model's published price per token (the engine's unit), from a price per 1M tokens; per-call or tiered: unknown. */
export function perTokenPrice(
  p: { input?: number | undefined; output?: number | undefined; dynamic?: boolean } | undefined,
): { input: number; output: number } | undefined {
  if (!p || p.dynamic || p.input === undefined || p.output === undefined) return undefined;
  return { input: p.input / 1e6, output: p.output / 1e6 };
}

/**
 * `modelRelay.gateways` as the user's settings hold it, with the entry `id`'s `models.completion` set
 * ('' removes it); other entries and fields are kept as written. Undefined when no entry has that id
 * (the gateway made from the old settings: its model is `modelRelay.completions.model`).
 */
export function withCompletionModel(raw: unknown, id: string, model: string): unknown[] | undefined {
  if (!Array.isArray(raw)) return undefined;
  const list = raw as unknown[];
  const at = list.findIndex((e) => !!e && typeof e === 'object' && (e as { id?: unknown }).id === id);
  if (at < 0) return undefined;
  const entry = list[at] as Record<string, unknown>;
  const models: Record<string, unknown> =
    entry.models && typeof entry.models === 'object' ? { ...(entry.models as Record<string, unknown>) } : {};
  if (model) models.completion = model;
  else delete models.completion;
  const next: Record<string, unknown> = { ...entry, models };
  if (Object.keys(models).length === 0) delete next.models;
  return list.map((e, i) => (i === at ? next : e));
}
