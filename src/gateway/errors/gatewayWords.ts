/**
 * The gateway's own words, in every version a user meets (new-api's Chinese and English strings,
 * older new-api's hard-coded Chinese, one-api's), mapped to what they mean. Feature-detected from
 * the text and code, never from a version number. Source: shared/reference/gateway-economy.md §5.
 */

/** Why a token was refused with 401, when the gateway says so (current new-api says only "Invalid token"). */
export type TokenState = 'expired' | 'exhausted' | 'disabled';

export function tokenStateFrom(message: string | undefined): TokenState | undefined {
  const m = message ?? '';
  if (/已过期|has expired|token expired/i.test(m)) return 'expired';
  if (/额度已用尽|TokenStatusExhausted|quota (is )?exhausted|quota used up/i.test(m)) return 'exhausted';
  if (/状态不可用|status (is )?unavailable|token (is )?disabled/i.test(m)) return 'disabled';
  return undefined;
}

/** The three 403s a user confuses: the account's wallet, this token's own limit, and the token's model list. */
export type QuotaRefusal =
  { kind: 'wallet_empty' } | { kind: 'token_quota' } | { kind: 'model_limit'; model: string | undefined };

export function quotaRefusalFrom(code: string | undefined, message: string | undefined): QuotaRefusal | undefined {
  const m = message ?? '';
  if (code === 'pre_consume_token_quota_failed' || /token quota is not enough|令牌额度不足/i.test(m))
    return { kind: 'token_quota' };
  if (code === 'insufficient_user_quota' || /用户额度不足|user quota is not enough|订阅额度不足/i.test(m))
    return { kind: 'wallet_empty' };
  const limited = /无权访问模型\s*(\S+)|token has no access to model\s+(\S+)|无权使用模型[：:]\s*(\S+)/i.exec(m);
  if (limited)
    return { kind: 'model_limit', model: (limited[1] ?? limited[2] ?? limited[3])?.replace(/[.。,，]+$/, '') };
  if (/无权访问任何模型|no access to any models/i.test(m)) return { kind: 'model_limit', model: undefined };
  return undefined;
}

/** new-api's "no channel for this model in your group", in every version; the group it names. */
export function noChannelGroup(message: string | undefined): { group: string | undefined } | undefined {
  const m = message ?? '';
  const g = /under group\s+(\S+)|分组\s*(\S+?)\s*下(?:对于)?模型|当前分组\s*(\S+?)\s*下/i.exec(m);
  if (g) return { group: g[1] ?? g[2] ?? g[3] };
  if (/无可用渠道|no available channel|可用渠道不存在/i.test(m)) return { group: undefined };
  return undefined;
}
