/**
 * The shapes the simulator's rule table (constraints/index.ts) is made of: a rule, the request it
 * judges, and the refusal it returns — the upstream's own error, in its provider's envelope
 * (shared/reference/provider-constraints.md §0), or new-api's own — and how each profile puts that
 * refusal on the wire (strict: the upstream's body; real: as new-api relays it, `types/error.go`).
 */
import type { Profile } from '../server';

export type Json = Record<string, unknown>;
/** The three chat surfaces the rules judge. */
export type Surface = 'chat' | 'responses' | 'messages';
/** Whose words and envelope a refusal has (§0): an upstream vendor's, or new-api's own. */
export type Voice = 'openai' | 'anthropic' | 'deepseek' | 'kimi' | 'new-api';

export interface Refusal {
  status: number;
  voice: Voice;
  message: string;
  /** `error.type` (OpenAI's and Anthropic's default: invalid_request_error) */
  type?: string;
  /** OpenAI's `param` and `code` (null when the vendor sends null) */
  param?: string | null;
  code?: string | null;
}

/** What a rule judges: the body the upstream receives (after new-api's rewrites in the real profile). */
export interface UpstreamRequest {
  surface: Surface;
  model: string;
  body: Json;
  profile: Profile;
  /** this upstream's key for encrypted reasoning (responses.ts): another simulator's does not verify */
  secret: string;
}

/** One refusal of one provider family: the row of the reference it enforces, where, for which models. */
export interface Rule {
  /** the row in shared/reference (provider-constraints.md unless named), e.g. '§1a temperature ≠ 1' */
  row: string;
  surface: Surface;
  models: RegExp;
  refuse(req: UpstreamRequest): Refusal | undefined;
}

export const isObj = (v: unknown): v is Json => !!v && typeof v === 'object' && !Array.isArray(v);
/** Whether the field was sent with a value (JSON null is an unset field to every vendor here). */
export const sent = (v: unknown) => v !== undefined && v !== null;
/** `'a'`, `'a' and 'b'`, `'a', 'b', and 'c'`: how OpenAI lists allowed values. */
export const quoted = (list: readonly string[]) =>
  list.length < 3
    ? list.map((v) => `'${v}'`).join(' and ')
    : `${list
        .slice(0, -1)
        .map((v) => `'${v}'`)
        .join(', ')}, and '${list.at(-1)}'`;

export const openai = (message: string, param: string | null = null, code: string | null = null, status = 400) =>
  ({ status, voice: 'openai', message, param, code }) satisfies Refusal;
export const anthropic = (message: string, status = 400) => ({ status, voice: 'anthropic', message }) satisfies Refusal;
export const deepseek = (message: string) => ({ status: 400, voice: 'deepseek', message }) satisfies Refusal;
export const kimi = (message: string) => ({ status: 400, voice: 'kimi', message }) satisfies Refusal;
/** new-api's own relay-stage error (`types.NewError`: 500 unless given, §5f). */
export const newApi = (message: string, code: string, status = 500) =>
  ({ status, voice: 'new-api', message, code }) satisfies Refusal;

/** How the error reaches the client: the profile, the surface's envelope, this request's id and the gateway's own type. */
export interface Wire {
  profile: Profile;
  surface: Surface;
  requestId: string;
  /** new-api's own `error.type` (new_api_error; one-api's flavor: one_api_error) */
  ownType: string;
}

/** The upstream's body (strict), as the vendor writes it (§0). */
function upstreamBody(r: Refusal, w: Wire): Json {
  const type = r.type ?? 'invalid_request_error';
  if (w.surface === 'messages') return { type: 'error', error: { type, message: r.message }, request_id: w.requestId };
  if (r.voice === 'kimi') return { error: { message: r.message, type } };
  if (r.voice === 'deepseek')
    return { error: { message: r.message, type, param: null, code: 'invalid_request_error' } };
  return { error: { message: r.message, type, param: r.param ?? null, code: r.code ?? null } };
}

/**
 * As new-api relays it (real profile): every message gets ` (request id: …)`; on /v1/messages the
 * Anthropic envelope without `request_id`, the type kept (new-api's own: new_api_error); on the OpenAI
 * routes `OpenAIError`, whose `param` is a Go string (a null comes back as "") and whose `code` a Claude
 * error takes from its type (`ToOpenAIError`).
 */
function relayedBody(r: Refusal, w: Wire): Json {
  const message = `${r.message} (request id: ${w.requestId})`;
  const type = r.voice === 'new-api' ? w.ownType : (r.type ?? 'invalid_request_error');
  if (w.surface === 'messages') return { type: 'error', error: { type, message } };
  const code = r.voice === 'anthropic' ? type : r.voice === 'deepseek' ? 'invalid_request_error' : (r.code ?? null);
  return { error: { message, type, param: r.param ?? '', code } };
}

/** The error body a refusal is answered with, per profile and surface. */
export const errorBody = (r: Refusal, w: Wire): Json => (w.profile === 'real' ? relayedBody(r, w) : upstreamBody(r, w));
