/**
 * What new-api itself does to a request before the upstream sees it (real profile only;
 * shared/reference/provider-constraints.md §5): its own validation (HTTP 500 `invalid_request`,
 * `relay/helper/valid_request.go`) and its rewrites — the OpenAI adaptor's cleaning of reasoning-model
 * requests on Chat (§5a; nothing on Responses, §5b), the 8192 `max_tokens` default on /v1/messages
 * (§5d), Moonshot's kimi-k2.6 temperature (§5e). Its `convert_request_failed` for a channel without
 * a Responses conversion is the server's `checkModel`, which knows the channels.
 */
import { newApi, sent, type Json, type Rule, type Surface } from './refusal';

/** A rewrite new-api applies to the body on its way upstream. */
export interface Rewrite {
  row: string;
  surface: Surface;
  models: RegExp;
  rewrite(body: Json): Json;
}

const ANY = /./;
const missingMessages = (body: Json) => !Array.isArray(body.messages) || body.messages.length === 0;

export const NEW_API_RULES: readonly Rule[] = [
  {
    row: '§5f field messages is required (500 invalid_request)',
    surface: 'chat',
    models: ANY,
    refuse: (req) => (missingMessages(req.body) ? newApi('field messages is required', 'invalid_request') : undefined),
  },
  {
    row: '§5f field messages is required on /v1/messages (500, new_api_error)',
    surface: 'messages',
    models: ANY,
    refuse: (req) => (missingMessages(req.body) ? newApi('field messages is required', 'invalid_request') : undefined),
  },
  {
    row: '§5f input is required on /v1/responses (500 invalid_request)',
    surface: 'responses',
    models: ANY,
    refuse: (req) => (sent(req.body.input) ? undefined : newApi('input is required', 'invalid_request')),
  },
];

const without = (body: Json, ...fields: string[]): Json =>
  Object.fromEntries(Object.entries(body).filter(([k]) => !fields.includes(k)));

export const NEW_API_REWRITES: readonly Rewrite[] = [
  {
    // If both are sent, max_tokens stays (and OpenAI refuses it).
    row: '§5a max_tokens → max_completion_tokens (o1/o3/o4/gpt-5 names), only when max_completion_tokens is unset',
    surface: 'chat',
    models: /^(o1|o3|o4|gpt-5)/,
    rewrite: (body) =>
      sent(body.max_tokens) && !sent(body.max_completion_tokens)
        ? { ...without(body, 'max_tokens'), max_completion_tokens: body.max_tokens }
        : body,
  },
  {
    row: '§5a temperature removed for o1/o3/o4 names',
    surface: 'chat',
    models: /^o[134]/,
    rewrite: (body) => without(body, 'temperature'),
  },
  {
    row: '§5a temperature, top_p and logprobs removed for gpt-5* names (even at effort none)',
    surface: 'chat',
    models: /^gpt-5/,
    rewrite: (body) => without(body, 'temperature', 'top_p', 'logprobs'),
  },
  {
    // (and on any channel other than OpenAI/Azure even when streamed: the simulator's chat channels are OpenAI's)
    row: '§5a stream_options removed from a request that does not stream',
    surface: 'chat',
    models: ANY,
    rewrite: (body) =>
      body.stream !== true && body.stream_options !== undefined ? without(body, 'stream_options') : body,
  },
  {
    row: '§5d max_tokens missing or 0 on /v1/messages becomes 8192',
    surface: 'messages',
    models: ANY,
    rewrite: (body) => (body.max_tokens === undefined || body.max_tokens === 0 ? { ...body, max_tokens: 8192 } : body),
  },
  {
    row: '§5e Moonshot channel: kimi-k2.6 temperature ≠ 1 becomes 1.0',
    surface: 'chat',
    models: /^kimi-k2\.6/,
    rewrite: (body) => (sent(body.temperature) && body.temperature !== 1 ? { ...body, temperature: 1 } : body),
  },
];
