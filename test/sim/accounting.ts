/**
 * How the relay accounts a call: from the upstream's usage to what the response reports and what the
 * gateway bills and records (usageLog.ts writes the record). An honest new-api reports the upstream's
 * usage, prices the requested model by its published ratios (shared/reference/relay-receipts.md §2.1) and
 * records what it did. A dishonest one, each behaviour switchable (`SimConfig.dishonest`, also
 * `PUT /__sim/config {"dishonest":{…}}`):
 * - `overcharge`: bills a higher model ratio (or per-call price) than /api/pricing publishes, and records
 *   either the ratio it charged (the price list check sees it, §2.5) or the published one (the arithmetic
 *   check sees it, §2.6 R2);
 * - `inflatePrompt`: bills a fixed share more prompt tokens than the upstream counted, and says so in the
 *   response or not (R4 / R5 see it);
 * - `mapModels`: serves another model and records it as new-api does (`is_model_mapped`,
 *   `upstream_model_name`, since 2025-02-20, §3); the response names the upstream's model (passthrough, §3);
 * - `hiddenMapModels`: serves another model and records nothing (a fork, a passthrough channel, a
 *   parameter override before 2026-03: the blind spots of §3); the response names the requested model;
 * - `forward`: the channel is another one-api/new-api relay, whose request id new-api records as
 *   `upstream_request_id` (since 2026-05-12, §4);
 * - `systemPromptTokens`: the channel's system prompt, counted by the upstream, so billed and reported as
 *   input (§7.5); recorded as `is_system_prompt_overwritten` only when the client sent a system prompt of
 *   its own (since 2025-08-09, §1.3).
 */
import type { EconModel, EconomyConfig } from './economy';
import { groupRatioOf } from './economy';
import type { ChargeTerms, GatewayBill } from './usageLog';

export interface Dishonesty {
  overcharge?: { factor: number; recorded: 'charged' | 'published' } | undefined;
  inflatePrompt?: { share: number; inResponse: boolean } | undefined;
  /** requested model → the model served */
  mapModels?: Record<string, string> | undefined;
  hiddenMapModels?: Record<string, string> | undefined;
  forward?: boolean | undefined;
  systemPromptTokens?: number | undefined;
}

/** The upstream's usage, in the semantic of the surface that was called (§2.6 R4). */
export interface UpstreamUsage {
  prompt: number;
  completion: number;
  cacheRead: number;
  cacheWrite: number;
  /** `anthropic`: `prompt` excludes cache reads and writes (/v1/messages) */
  semantic: 'openai' | 'anthropic';
}

export interface AccountInput {
  cfg: EconomyConfig;
  model: EconModel;
  group: string;
  /** undefined for a per-call model's call */
  usage: UpstreamUsage | undefined;
  /** the request carried a system prompt of the client's own */
  sentSystem: boolean;
  dishonest: Dishonesty | undefined;
  /** the quota the gateway's vintage charges for these terms (usageLog.ts quotaOf) */
  quota: (terms: ChargeTerms) => number;
  /** a request id as another one-api/new-api relay makes it */
  upstreamRequestId: () => string;
}

/** What the response says: the tokens (in the surface's semantic) and the model's name. */
export interface Reported extends UpstreamUsage {
  model: string;
}

export function accountCall(a: AccountInput): { bill: GatewayBill; reported: Reported } {
  const d = a.dishonest ?? {};
  const m = a.model;
  const perCall = m.price !== undefined;
  const usage: UpstreamUsage = a.usage ?? { prompt: 0, completion: 0, cacheRead: 0, cacheWrite: 0, semantic: 'openai' };
  const system = d.systemPromptTokens ?? 0;
  // The channel's system prompt is input the upstream counts: reported and billed alike.
  const counted = perCall ? usage.prompt : usage.prompt + system;
  const inflated = d.inflatePrompt && !perCall ? Math.round(counted * (1 + d.inflatePrompt.share)) : counted;
  const published: ChargeTerms = {
    prompt: inflated,
    completion: usage.completion,
    cacheRead: usage.cacheRead,
    cacheWrite: usage.cacheWrite,
    semantic: usage.semantic,
    modelRatio: perCall ? 0 : (m.ratio ?? 0),
    completionRatio: m.completionRatio ?? 1,
    groupRatio: groupRatioOf(a.cfg, a.group),
    cacheRatio: m.cacheRatio ?? 1,
    cacheCreationRatio: m.createCacheRatio ?? 1.25,
    modelPrice: perCall ? m.price! : -1,
  };
  const f = d.overcharge?.factor ?? 1;
  const charged: ChargeTerms = perCall
    ? { ...published, modelPrice: published.modelPrice * f }
    : { ...published, modelRatio: published.modelRatio * f };
  const recorded = d.overcharge?.recorded === 'charged' ? charged : published;
  const mapped = d.mapModels?.[m.id];
  const bill: GatewayBill = {
    ...recorded,
    quota: a.quota(charged),
    ...(mapped !== undefined ? { upstreamModel: mapped } : {}),
    ...(d.forward ? { upstreamRequestId: a.upstreamRequestId() } : {}),
    ...(system > 0 && a.sentSystem && !perCall ? { systemPromptOverwritten: true } : {}),
  };
  const reported: Reported = {
    ...usage,
    prompt: d.inflatePrompt?.inResponse ? inflated : counted,
    model: mapped ?? m.id,
  };
  return { bill, reported };
}
