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

/** A gateway's (or upstream's) words for "the conversation is longer than the model's context window". */
const CONTEXT_TOO_LONG =
  /context[ _]length|context window|maximum context|prompt is too long|too many (input )?tokens|input is too long|上下文(长度|过长|超)|超出.{0,8}上下文/i;

export function contextTooLong(code: string | undefined, message: string | undefined): boolean {
  return code === 'context_length_exceeded' || CONTEXT_TOO_LONG.test(message ?? '');
}

/**
 * The HTTP status the gateway's words stand for, when it says an error without one (an error event
 * inside a 200 stream, an error object in a 200 body): the error type, code and message that
 * OpenAI, Anthropic, new-api and one-api send, in the order their meanings win. undefined: the words
 * name no class.
 */
export function statusFromWords(
  type: string | undefined,
  code: string | undefined,
  message: string | undefined,
): 400 | 401 | 403 | 404 | 413 | 429 | 500 | undefined {
  const tc = `${type ?? ''} ${code ?? ''}`.toLowerCase();
  const m = message ?? '';
  if (
    tokenStateFrom(m) ||
    /authentication_error|invalid_api_key|unauthorized/.test(tc) ||
    /invalid (api[ _-]?)?(key|token)|incorrect api key|无效的令牌|未提供令牌|unauthori[sz]ed/i.test(m)
  )
    return 401;
  if (contextTooLong(code, m)) return 400;
  if (/rate_limit/.test(tc) || /rate.?limit|too many requests|请求过于频繁|请求频率/i.test(m)) return 429;
  if (
    /insufficient_quota|quota/.test(tc) ||
    quotaRefusalFrom(code, m) ||
    /quota|额度|余额不足|insufficient (balance|funds)/i.test(m)
  )
    return 403;
  if (/permission_error|forbidden/.test(tc)) return 403;
  if (/not_found_error|model_not_found/.test(tc)) return 404;
  if (/request_too_large/.test(tc)) return 413;
  // (and a failed Responses reply's codes for a prompt or an image it refuses)
  if (/invalid_request_error|invalid_prompt|image_|bio_policy/.test(tc)) return 400;
  if (
    /overloaded|api_error|server_error|upstream|internal/.test(tc) ||
    /overloaded|upstream|server error|internal error|unavailable|timed? ?out/i.test(m)
  )
    return 500;
  return undefined;
}

/**
 * The Responses API refusing the reasoning items a stateless conversation replayed: encrypted
 * content another upstream account made (`invalid_encrypted_content`), an item id it cannot find
 * without its content, or a reasoning item without the item that followed it
 * (shared/reference/responses-api.md §4, §5).
 */
export function reasoningReplayRefused(code: string | undefined, message: string | undefined): boolean {
  if (code === 'invalid_encrypted_content') return true;
  return /encrypted content .{0,80}could not be verified|Item with id '?rs_[^ ]* not found|of type '?reasoning'? was provided without its required following item/i.test(
    message ?? '',
  );
}
