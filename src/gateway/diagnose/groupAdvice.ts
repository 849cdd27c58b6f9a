/**
 * "m-x is enabled for the groups vip, svip; this token's group cannot use it": when a listed model
 * is refused (503 model_not_found or 403), the gateway's public pricing says which groups may use
 * it, and which of the token's listed models its group can actually use.
 */
import { noChannelGroup } from '../errors/gatewayWords';
import type { GatewayError } from '../errors/gatewayError';
import { MODELS_PATH, type Capability } from '../models';
import type { DiagnosisContext } from './context';

export interface Advice {
  cause: string;
  fix: string;
}

const QUOTA_DETAILS = new Set(['wallet_empty', 'token_quota', 'token_model_limit', 'insufficient_quota']);

export async function groupAdvice(ctx: DiagnosisContext, e: GatewayError, model: string, cap: Capability): Promise<Advice | undefined> {
  if (e.kind !== 'forbidden' || QUOTA_DETAILS.has(e.detail ?? '') || ctx.listed(model) === false) return undefined;
  const prices = await ctx.client?.account.pricing(ctx.signal).catch(() => undefined);
  const groups = prices?.get(model)?.groups;
  if (!prices || !groups?.length) return undefined;
  const group = noChannelGroup(e.gatewayMessage)?.group;
  if (group && groups.includes(group)) return undefined; // the pricing says the group may: something else is wrong
  const usable = (ctx.modelList ?? [])
    .filter((m) => m.id !== model && (!m.capabilities || m.capabilities.includes(cap)))
    .filter((m) => {
      const g = prices.get(m.id)?.groups;
      return !g || !group || g.includes(group) || g.includes('all');
    })
    .map((m) => m.id)
    .slice(0, 8);
  const whose = group ? `this token's group (${group})` : "this token's group";
  const want = groups.length === 1 ? `a ${groups[0]} token` : `a token of the group ${groups.slice(0, -1).join(', ')} or ${groups[groups.length - 1]}`;
  return {
    cause: `GET ${MODELS_PATH} lists "${model}", but the generation call answered ${e.status === 503 ? '503 "model_not_found" (not a temporary fault)' : e.status}: ${model} is enabled for the group${groups.length > 1 ? 's' : ''} ${groups.join(', ')}; ${whose} cannot use it. Listing a model does not prove generation works.`,
    fix: `Ask the gateway's admin for ${want}${usable.length ? `, or pick one of: ${usable.join(', ')}` : ''}.`,
  };
}
