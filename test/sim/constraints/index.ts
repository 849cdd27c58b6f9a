/**
 * The simulator's oracle: what real upstreams refuse, one rule per row of
 * shared/reference/provider-constraints.md, selected per model family — OpenAI (openai.ts), Anthropic
 * (anthropic.ts), DeepSeek and Kimi (vendors.ts) — and, in the real profile, what new-api itself
 * refuses and rewrites first (newapi.ts). Rules the reference marks unconfirmed are not in the table
 * (constraints.test.ts lists them with the reason). The server asks `gatewayRefusal`, prices the
 * request, then asks `admit`, once per request on /v1/chat/completions, /v1/responses and
 * /v1/messages, and answers a refusal with `errorBody` — in new-api's order: its validation, its
 * pre-consume quota check, then the upstream.
 */
import type { Profile } from '../server';
import { ANTHROPIC_RULES } from './anthropic';
import { NEW_API_REWRITES, NEW_API_RULES } from './newapi';
import { OPENAI_RULES } from './openai';
import type { Json, Refusal, Rule, Surface, UpstreamRequest } from './refusal';
import { VENDOR_RULES } from './vendors';

export { errorBody, newApi, type Refusal, type Surface } from './refusal';

/** Every upstream rule, in the order they are judged (the first refusal answers). */
export const RULES: readonly Rule[] = [...OPENAI_RULES, ...ANTHROPIC_RULES, ...VENDOR_RULES];
export { NEW_API_REWRITES, NEW_API_RULES };

const firstRefusal = (rules: readonly Rule[], req: UpstreamRequest): Refusal | undefined => {
  for (const rule of rules) {
    if (rule.surface !== req.surface || !rule.models.test(req.model)) continue;
    const refusal = rule.refuse(req);
    if (refusal) return refusal;
  }
  return undefined;
};

/** new-api's own refusal of the request (real profile only), before it prices or relays it. */
export function gatewayRefusal(surface: Surface, body: Json, at: { profile: Profile; secret: string }) {
  if (at.profile !== 'real') return undefined;
  return firstRefusal(NEW_API_RULES, { surface, model: String(body.model), body, ...at });
}

/**
 * Judges a request as the upstream would after the gateway (in the real profile, new-api's rewrites
 * first): the body the upstream answers, or the first refusal.
 */
export function admit(
  surface: Surface,
  body: Json,
  at: { profile: Profile; secret: string },
): { body: Json } | { refusal: Refusal } {
  const req: UpstreamRequest = { surface, model: String(body.model), body, ...at };
  if (at.profile === 'real')
    for (const r of NEW_API_REWRITES)
      if (r.surface === surface && r.models.test(req.model)) req.body = r.rewrite(req.body);
  const refusal = firstRefusal(RULES, req);
  return refusal ? { refusal } : { body: req.body };
}
