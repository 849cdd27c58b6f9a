/**
 * "m-x is enabled for the groups vip, svip; this token's group cannot use it": when a listed model
 * is refused (503 model_not_found or 403), the gateway's public pricing says which groups may use
 * it, and which of the token's listed models its group can actually use.
 */
import { noChannelGroup } from '../errors/gatewayWords';
import type { GatewayError } from '../errors/gatewayError';
import { MODELS_PATH, type Capability } from '../models';
import type { DiagnosisContext } from './context';
import { t } from '../l10n';

export interface Advice {
  cause: string;
  fix: string;
}

const QUOTA_DETAILS = new Set(['wallet_empty', 'token_quota', 'token_model_limit', 'insufficient_quota']);

/** "… is enabled for the groups …; this token's group (…) cannot use it." */
function enabledFor(model: string, groups: string[], group: string | undefined): string {
  const list = groups.join(', ');
  if (groups.length > 1)
    return group
      ? t("{0} is enabled for the groups {1}; this token's group ({2}) cannot use it.", model, list, group)
      : t("{0} is enabled for the groups {1}; this token's group cannot use it.", model, list);
  return group
    ? t("{0} is enabled for the group {1}; this token's group ({2}) cannot use it.", model, list, group)
    : t("{0} is enabled for the group {1}; this token's group cannot use it.", model, list);
}

/** The token's group as the gateway's usage log tells it (one read, shared; undefined where there is none). */
export async function effectiveGroup(ctx: DiagnosisContext): Promise<string | undefined> {
  const usage = ctx.client?.usage;
  if (!usage) return undefined;
  if (usage.group === undefined) await usage.read({ signal: ctx.signal }).catch(() => undefined);
  return usage.group;
}

export async function groupAdvice(
  ctx: DiagnosisContext,
  e: GatewayError,
  model: string,
  cap: Capability,
): Promise<Advice | undefined> {
  if (e.kind !== 'forbidden' || QUOTA_DETAILS.has(e.detail ?? '') || ctx.listed(model) === false) return undefined;
  const prices = await ctx.client?.account.pricing(ctx.signal).catch(() => undefined);
  const groups = prices?.get(model)?.groups;
  if (!prices || !groups?.length) return undefined;
  const group = noChannelGroup(e.gatewayMessage)?.group ?? (await effectiveGroup(ctx));
  if (group && groups.includes(group)) return undefined; // the pricing says the group may: something else is wrong
  const usable = (ctx.modelList ?? [])
    .filter((m) => m.id !== model && (!m.capabilities || m.capabilities.includes(cap)))
    .filter((m) => {
      const g = prices.get(m.id)?.groups;
      return !g || !group || g.includes(group) || g.includes('all');
    })
    .map((m) => m.id)
    .slice(0, 8);
  const listing = t(
    'GET {0} lists "{1}", but the generation call answered {2}: {3}',
    MODELS_PATH,
    model,
    e.status === 503 ? t('503 "model_not_found" (not a temporary fault)') : String(e.status),
    enabledFor(model, groups, group),
  );
  const ask =
    groups.length === 1
      ? t('a {0} token', groups[0])
      : t('a token of the group {0} or {1}', groups.slice(0, -1).join(', '), groups[groups.length - 1]);
  return {
    cause: t('{0} Listing a model does not prove generation works.', listing),
    fix: usable.length
      ? t("Ask the gateway's admin for {0}, or pick one of: {1}.", ask, usable.join(', '))
      : t("Ask the gateway's admin for {0}.", ask),
  };
}
